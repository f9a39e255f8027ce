import { ClusterView, RaftMember } from './observeCluster';
import { ClusterOperation } from './QdrantPeerClient';

export interface PlannedOperation {
  collection: string;
  op: ClusterOperation;
  /** For the log and the Event: "move shard 3 of images from peer A (pod-2) to peer B (pod-0)". */
  description: string;
}

/** Why a scale-down cannot go on without someone changing something. */
export type BlockedReason = 'QdrantUnreachable' | 'NoRaftLeader' | 'ReplicationFactorTooHigh' | 'NoActiveReplica' | 'PeerUnreachable' | 'ClusterStateUnknown';

export type ScaleDownPlan =
  /** Nothing may change: the reason and what to do about it. */
  | { kind: 'blocked'; reason: BlockedReason; message: string }
  /** Transfers are in flight (or Raft is busy): look again later. */
  | { kind: 'wait'; message: string }
  /** Move or drop the replicas on the highest leaving peer. */
  | { kind: 'drain'; peer: RaftMember; operations: PlannedOperation[] }
  /** The highest leaving peer holds nothing: remove it from Raft. */
  | { kind: 'remove'; peer: RaftMember }
  /** No leaving peer is a Raft member any more: the StatefulSet may shrink. */
  | { kind: 'done' };

const label = (m: RaftMember) => `peer ${m.id}${m.ordinal === undefined ? '' : ` (ordinal ${m.ordinal})`}`;

/**
 * What to do next to take a Qdrant cluster down to `desired` peers without
 * losing a shard, as Qdrant's distributed-deployment guide says: empty the
 * leaving peers (highest ordinal first) by dropping replicas that have an
 * Active copy elsewhere and moving the others to a staying peer that lacks
 * them, wait for the transfers, then remove each peer from Raft. The whole
 * drain is simulated first, so a drain that would get stuck half-way (a
 * replication factor above the new size, a shard with no Active replica, a
 * dead source) is refused before anything moves.
 */
export function planScaleDown(view: ClusterView, desired: number): ScaleDownPlan {
  if (!view.authority) {
    const why = view.peers.map(p => `${p.pod}: ${p.error}`).join('; ');
    return { kind: 'blocked', reason: 'QdrantUnreachable', message: `no Qdrant peer answers${why ? ` (${why})` : ''}` };
  }
  if (!view.leader) return { kind: 'blocked', reason: 'NoRaftLeader', message: 'the Qdrant cluster has no Raft leader' };
  if (view.errors.length) {
    return { kind: 'blocked', reason: 'ClusterStateUnknown', message: `cannot read the collections' shard placement: ${view.errors.join('; ')}` };
  }
  const leaving = view.members.filter(m => m.ordinal !== undefined && m.ordinal >= desired).sort((a, b) => b.ordinal! - a.ordinal!);
  const staying = view.members.filter(m => m.ordinal !== undefined && m.ordinal < desired);
  if (!leaving.length) return { kind: 'done' };

  for (const c of view.collections) {
    if (c.replicationFactor > staying.length) {
      return {
        kind: 'blocked',
        reason: 'ReplicationFactorTooHigh',
        message: `collection ${c.name} has replication factor ${c.replicationFactor}, more than the ${staying.length} peers that would remain: lower its replication factor first or keep more peers`,
      };
    }
  }
  const reachable = new Set(view.peers.filter(p => p.status).map(p => p.status!.peerId));
  const unreachableStaying = staying.find(m => !reachable.has(m.id));
  if (unreachableStaying) {
    const why = view.peers.find(p => p.ordinal === unreachableStaying.ordinal)?.error ?? 'no pod answers for it';
    return { kind: 'blocked', reason: 'PeerUnreachable', message: `${label(unreachableStaying)}, which stays, does not answer: ${why}` };
  }
  const pending = view.peers.reduce((n, p) => n + (p.status?.pendingOperations ?? 0), 0);
  const transfers = view.collections.reduce((n, c) => n + c.layout.transfers.length, 0);
  if (transfers) return { kind: 'wait', message: `${transfers} shard transfer${transfers === 1 ? '' : 's'} in flight` };

  // Simulate the whole drain on a copy of the placement.
  const placement = new Map(
    view.collections.map(c => [c.name, c.layout.replicas.map(r => ({ ...r }))]),
  );
  const leavingIds = new Set(leaving.map(m => m.id));
  const load = (id: string) => [...placement.values()].reduce((n, rs) => n + rs.filter(r => r.peerId === id).length, 0);
  let first: PlannedOperation[] | undefined;
  for (const peer of leaving) {
    const ops: PlannedOperation[] = [];
    for (const [collection, replicas] of placement) {
      for (const r of replicas.filter(x => x.peerId === peer.id)) {
        const copies = replicas.filter(x => x.shard === r.shard && x !== r);
        const activeElsewhere = copies.filter(x => x.state === 'Active');
        const targets = staying
          .filter(m => !copies.some(x => x.peerId === m.id))
          .sort((a, b) => load(a.id) - load(b.id) || a.ordinal! - b.ordinal!);
        const shard = `shard ${r.shard} of ${collection}`;
        if (activeElsewhere.some(x => !leavingIds.has(x.peerId)) || (activeElsewhere.length && !targets.length)) {
          ops.push({
            collection,
            op: { drop_replica: { shard_id: r.shard, peer_id: Number(peer.id) } },
            description: `drop the replica of ${shard} on ${label(peer)} (an Active copy remains)`,
          });
          replicas.splice(replicas.indexOf(r), 1);
        } else if (r.state !== 'Active') {
          return { kind: 'blocked', reason: 'NoActiveReplica', message: `${shard} has no Active replica (on ${label(peer)} it is ${r.state})` };
        } else if (!reachable.has(peer.id)) {
          return { kind: 'blocked', reason: 'PeerUnreachable', message: `${label(peer)} holds the only Active replica of ${shard} and does not answer` };
        } else if (!targets.length) {
          return { kind: 'blocked', reason: 'ReplicationFactorTooHigh', message: `no remaining peer can take ${shard}: every one already holds it` };
        } else {
          const to = targets[0];
          ops.push({
            collection,
            op: { move_shard: { shard_id: r.shard, from_peer_id: Number(peer.id), to_peer_id: Number(to.id) } },
            description: `move ${shard} from ${label(peer)} to ${label(to)}`,
          });
          r.peerId = to.id;
        }
      }
    }
    first ??= ops;
  }
  if (first!.length) return { kind: 'drain', peer: leaving[0], operations: first! };
  if (pending) return { kind: 'wait', message: `${pending} Raft operations pending` };
  return { kind: 'remove', peer: leaving[0] };
}
