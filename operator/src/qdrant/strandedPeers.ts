import { QdrantClusterInfo, QdrantPeer } from '@cv-platform/inference-platform-api';
import { ordinalOf } from './observeCluster';

/**
 * Raft members that no pod will ever back again and that hold nothing: the
 * peer of a pod past the StatefulSet's size (one that started and joined
 * while the StatefulSet was being scaled back, e.g. after `kubectl scale`),
 * with no replica of any collection. Removing them loses nothing, and left
 * in Raft they count against its majority. Peers with replicas, peers whose
 * URI is not one of the StatefulSet's pods, and any answer without the
 * collections' placement are left to a person (the status names them).
 */
export function strandedPeers(cluster: QdrantClusterInfo | undefined, statefulSet: string, replicas: number): QdrantPeer[] {
  if (!cluster?.reachable || !cluster.raftLeader || !cluster.collections || cluster.pendingOperations) return [];
  if (cluster.collections.some(c => c.transfers > 0)) return [];
  return (cluster.peers ?? []).filter(peer => {
    const ordinal = ordinalOf(peer.uri, statefulSet);
    if (ordinal === undefined || ordinal < replicas || peer.id === cluster.raftLeader) return false;
    return cluster.collections!.every(c => c.perPeer !== undefined && (c.perPeer[peer.id] ?? 0) === 0);
  });
}
