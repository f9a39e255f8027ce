import { ClusterView } from './observeCluster';
import { PlannedOperation } from './planScaleDown';

/**
 * The next moves that even out where replicas live, one per collection:
 * from the peer holding the most replicas of a collection to the one holding
 * the fewest, of a shard the latter lacks, while the two differ by more than
 * one. Only peers the StatefulSet keeps (ordinal below `peers`) count. Empty
 * when the placement is even (or nothing can move).
 */
export function planRebalance(view: ClusterView, peers: number): PlannedOperation[] {
  const members = view.members.filter(m => m.ordinal !== undefined && m.ordinal < peers);
  if (members.length < 2) return [];
  const ops: PlannedOperation[] = [];
  for (const c of view.collections) {
    if (c.layout.transfers.length) continue;
    const on = (id: string) => c.layout.replicas.filter(r => r.peerId === id);
    const ranked = [...members].sort((a, b) => on(a.id).length - on(b.id).length || a.ordinal! - b.ordinal!);
    const least = ranked[0];
    const most = ranked[ranked.length - 1];
    if (on(most.id).length - on(least.id).length <= 1) continue;
    const lacking = new Set(on(least.id).map(r => r.shard));
    const shard = on(most.id).find(r => r.state === 'Active' && !lacking.has(r.shard));
    if (!shard) continue;
    ops.push({
      collection: c.name,
      op: { move_shard: { shard_id: shard.shard, from_peer_id: Number(most.id), to_peer_id: Number(least.id) } },
      description: `move shard ${shard.shard} of ${c.name} from peer ${most.id} (ordinal ${most.ordinal}) to peer ${least.id} (ordinal ${least.ordinal})`,
    });
  }
  return ops;
}

/** True when some collection's replicas differ by more than one between two members (from the cluster info's counts). */
export function unevenPlacement(perPeerByCollection: Array<Record<string, number> | undefined>, memberIds: string[]): boolean {
  return perPeerByCollection.some(perPeer => {
    if (!perPeer || memberIds.length < 2) return false;
    const counts = memberIds.map(id => perPeer[id] ?? 0);
    return Math.max(...counts) - Math.min(...counts) > 1;
  });
}
