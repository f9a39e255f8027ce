import { QdrantClusterInfo } from '@cv-platform/inference-platform-api';

/**
 * Why Qdrant is not settled, from its cluster info, or undefined when it is:
 * a leader, every one of `peers` in Raft, nothing pending, every replica
 * Active and no transfer. Upgrades, rebalancing and how soon Qdrant is asked
 * again all wait for this.
 */
export function qdrantUnsettled(cluster: QdrantClusterInfo | undefined, peers: number): string | undefined {
  if (!cluster?.reachable) return `Qdrant's cluster state is unknown (${cluster?.message ?? 'not read yet'})`;
  if (!cluster.raftLeader) return 'Qdrant has no Raft leader';
  if ((cluster.peers?.length ?? 0) !== peers) return `Raft lists ${cluster.peers?.length ?? 0} of ${peers} peers`;
  if (cluster.pendingOperations) return `${cluster.pendingOperations} Raft operations pending`;
  if (!cluster.collections) return "the collections' shard states are unknown";
  const notActive = cluster.collections.flatMap(c => c.problems ?? []);
  if (notActive.length) return notActive.join('; ');
  const moving = cluster.collections.reduce((n, c) => n + c.transfers, 0);
  if (moving) return `${moving} shard transfers in flight`;
  return undefined;
}

