import type { QdrantClusterInfo } from '@cv-platform/inference-platform-api';
import { ANNOTATION_RESTARTED_FOR_TERM, ANNOTATION_SEEN_LEADER_TERM } from '../reconcile/inferenceChildren';

/**
 * onLeaderChange: RestartInference. The Deployment remembers the last Raft
 * term seen; a later term (an election) stamps the pod template with it,
 * which rolls the servers (maxUnavailable 0: never below the ready count).
 * Unknown terms (Qdrant unreachable) change nothing.
 *
 * @public
 */
export function restartOnNewLeader(deployment: any, live: any, cluster: QdrantClusterInfo | undefined) {
  const seen = Number(live?.metadata?.annotations?.[ANNOTATION_SEEN_LEADER_TERM] ?? NaN);
  const term = cluster?.reachable ? cluster.raftTerm : undefined;
  let restartedFor: string | undefined = live?.spec?.template?.metadata?.annotations?.[ANNOTATION_RESTARTED_FOR_TERM];
  if (term !== undefined && !Number.isNaN(seen) && term > seen) restartedFor = String(term);
  const remembered = term ?? (Number.isNaN(seen) ? undefined : seen);
  if (remembered !== undefined) {
    deployment.metadata.annotations = { ...(deployment.metadata.annotations ?? {}), [ANNOTATION_SEEN_LEADER_TERM]: String(remembered) };
  }
  if (restartedFor) {
    const t = deployment.spec.template.metadata;
    t.annotations = { ...(t.annotations ?? {}), [ANNOTATION_RESTARTED_FOR_TERM]: restartedFor };
  }
}
