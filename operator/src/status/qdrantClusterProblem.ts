import type { QdrantClusterInfo } from '@cv-platform/inference-platform-api';
import { ordinalOf } from '../qdrant/observeCluster';
import { Reason } from './conditions';

/**
 * What Qdrant's own view says is wrong: the Degraded reason and message;
 * undefined when it is fine or not read yet. Ready pods whose REST API does
 * not answer the operator are a problem: nobody can tell the cluster is whole.
 *
 * @public
 */
export function qdrantClusterProblem(
  cluster: QdrantClusterInfo | undefined,
  statefulSet: string,
  podCount: number,
): { reason: string; message: string } | undefined {
  if (cluster && !cluster.reachable) {
    return { reason: Reason.QdrantUnreachable, message: `its REST API does not answer the operator: ${cluster.message ?? 'no answer'}` };
  }
  if (!cluster?.reachable || !cluster.peers?.length) return undefined;
  if (!cluster.raftLeader) return { reason: Reason.QdrantNoLeader, message: 'the Qdrant cluster has no Raft leader' };
  if (cluster.consensus && cluster.consensus !== 'working') {
    return { reason: Reason.QdrantConsensusStopped, message: `Qdrant's consensus thread is ${cluster.consensus}` };
  }
  const unbacked = cluster.peers.filter(x => {
    const o = ordinalOf(x.uri, statefulSet);
    return o === undefined || o >= podCount;
  });
  if (unbacked.length) {
    return {
      reason: Reason.QdrantUnbackedPeers,
      message: `Raft lists ${unbacked.length === 1 ? 'a peer' : 'peers'} that no pod backs (left by a forced scale-down or a lost volume): ${unbacked
        .map(x => `peer ${x.id} (${x.uri})`)
        .join(', ')}; check their shards, then remove ${unbacked.length === 1 ? 'it' : 'them'} with DELETE /cluster/peer/<id>`,
    };
  }
  const problems = (cluster.collections ?? []).flatMap(c => c.problems ?? []);
  if (problems.length) return { reason: Reason.QdrantShardsUnhealthy, message: problems.join('; ') };
  return undefined;
}
