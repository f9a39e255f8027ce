import { QdrantClusterInfo } from '@cv-platform/inference-platform-api';
import { isSubset } from './isSubset';
import { qdrantUnsettled } from '../qdrant/qdrantUnsettled';
import { isPodReady } from '../status/isPodReady';

export interface UpgradeStep {
  /** The StatefulSet's rollingUpdate partition: pods at or above it run the new template. */
  partition: number;
  /** Why the next peer does not restart yet (for status); undefined when nothing waits. */
  waiting?: string;
  /** Held until someone acts (allowDowntime or a higher replication factor). */
  needsDowntime?: boolean;
}

/**
 * The partition of an ordered Qdrant upgrade, as Qdrant's upgrade guide asks:
 * one peer at a time from the highest ordinal, and the next one only when
 * the restarted peer is Ready (`/readyz`), Raft lists every peer with nothing
 * pending, and every replica is Active. The StatefulSet controller restarts
 * the pods at or above the partition; the operator lowers it one step per
 * settled peer. A new template starts at the top again. With a collection
 * at replication factor 1 on several peers a restart makes its shards
 * unavailable, so nothing restarts until `allowDowntime`.
 */
export function qdrantUpgradePartition(
  desired: any,
  live: any,
  pods: any[],
  cluster: QdrantClusterInfo | undefined,
  allowDowntime: boolean,
  /** When the cluster info was read (ms since the epoch). */
  clusterReadAt: number,
): UpgradeStep {
  const replicas: number = desired.spec.replicas;
  if (!live || replicas < 2) return { partition: 0 };
  const templateChanges = !isSubset(desired.spec.template, live.spec?.template ?? {});
  const singleCopy = (cluster?.collections ?? []).filter(c => (c.replicationFactor ?? 1) < 2).map(c => c.name);
  const downtime = singleCopy.length && !allowDowntime
    ? `collection${singleCopy.length === 1 ? '' : 's'} ${singleCopy.join(', ')} keep${singleCopy.length === 1 ? 's' : ''} one copy per shard, so restarting a peer makes its shards unavailable: set spec.qdrant.allowDowntime: true to upgrade anyway, or raise the replication factor first`
    : undefined;
  const livePartition: number = live.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
  if (templateChanges) {
    // Nothing restarts before it is known that a restart loses nothing.
    if (!cluster?.reachable || !cluster.collections) {
      return { partition: replicas, waiting: qdrantUnsettled(cluster, replicas) };
    }
    if (downtime) return { partition: replicas, waiting: downtime, needsDowntime: true };
    const why = qdrantUnsettled(cluster, replicas);
    return why ? { partition: replicas, waiting: `before the first peer: ${why}` } : { partition: replicas - 1 };
  }
  const s = live.status ?? {};
  // The controller has not acted on our last change yet: its revisions say nothing.
  if ((s.observedGeneration ?? 0) < (live.metadata?.generation ?? 0)) return { partition: livePartition };
  const rolling = !!s.updateRevision && s.updateRevision !== s.currentRevision;
  if (!rolling || livePartition === 0) return { partition: 0 };
  if (livePartition >= replicas) {
    // Held back before the first restart: go once it is safe.
    if (downtime) return { partition: livePartition, waiting: downtime, needsDowntime: true };
    const why = qdrantUnsettled(cluster, replicas);
    return why ? { partition: livePartition, waiting: `before the first peer: ${why}` } : { partition: replicas - 1 };
  }
  const name = live.metadata?.name;
  const restarted = pods.find(pod => pod.metadata?.name === `${name}-${livePartition}`);
  if (!restarted || restarted.metadata?.labels?.['controller-revision-hash'] !== s.updateRevision || !isPodReady(restarted)) {
    return { partition: livePartition, waiting: `${name}-${livePartition} is restarting on the new version` };
  }
  // Only an answer read after the restarted peer became Ready says anything about it.
  const readySince = Date.parse(
    (restarted.status?.conditions ?? []).find((c: any) => c.type === 'Ready')?.lastTransitionTime ?? '',
  );
  if (!(clusterReadAt >= readySince + 1000)) {
    return { partition: livePartition, waiting: `${name}-${livePartition} restarted; reading Qdrant's cluster state again` };
  }
  const why = qdrantUnsettled(cluster, replicas);
  if (why) return { partition: livePartition, waiting: `${name}-${livePartition} restarted; before the next peer: ${why}` };
  return { partition: livePartition - 1 };
}
