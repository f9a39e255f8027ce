import { QdrantClusterInfo } from '@cv-platform/inference-platform-api';

/** What went wrong, coarsely: an HTTP answer by its status, a missing API key Secret, or the network. */
function failureKind(info: QdrantClusterInfo): string {
  const message = info.message ?? '';
  const http = /answered (\d{3})/.exec(message);
  if (http) return `http ${http[1]}`;
  if (message.startsWith('cannot read API key Secret')) return 'secret';
  return 'network';
}

/**
 * The cluster info to keep after a new answer. While Qdrant stays
 * unreachable in the same way, the first failure message is kept: the cause
 * of a network failure flips between DNS errors, refusals and timeouts
 * (under load, from one check to the next), and every flip would otherwise
 * be a status write and another pass, for every platform, every check.
 */
export function stableClusterInfo(
  previous: QdrantClusterInfo | undefined,
  next: QdrantClusterInfo,
): QdrantClusterInfo {
  if (previous && !previous.reachable && !next.reachable && failureKind(previous) === failureKind(next)) {
    return previous;
  }
  return next;
}
