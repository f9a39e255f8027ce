import { ClusterView, podOfPeerUri } from './observeCluster';
import { PlannedOperation } from './planScaleDown';

/** A Dead replica: collection, shard and the peer holding it. */
export interface DeadReplica {
  collection: string;
  shard: number;
  peerId: string;
}

export const deadReplicaKey = (d: DeadReplica) => `${d.collection}/${d.shard}/${d.peerId}`;

/** Every replica the view shows Dead. */
export function deadReplicas(view: ClusterView): DeadReplica[] {
  return view.collections.flatMap(c =>
    c.layout.replicas.filter(r => r.state === 'Dead').map(r => ({ collection: c.name, shard: r.shard, peerId: r.peerId })),
  );
}

/**
 * What brings shards with Dead replicas back to their replication factor,
 * one operation per collection (Qdrant runs one transfer per shard): while a
 * shard has fewer Active copies than its collection's factor, replicate it
 * from an Active copy on an answering peer to the answering peer (ordinal
 * below `peers`) that holds no copy of it and the fewest of the collection;
 * once it has enough, drop the Dead replica. Only replicas `overdue` says
 * have been Dead long enough count: Qdrant recovers a replica itself when
 * its peer comes back, and a restarting peer's replicas are Dead for a
 * moment. A shard with no Active copy, or no peer to take it, is left as it
 * is (the status names it).
 */
export function planRepair(view: ClusterView, peers: number, overdue: (d: DeadReplica) => boolean): PlannedOperation[] {
  const answering = new Set(view.peers.filter(x => x.status && x.ordinal < peers).map(x => x.status!.peerId));
  const members = view.members.filter(m => m.ordinal !== undefined && m.ordinal < peers && answering.has(m.id));
  const name = (id: string) => {
    const pod = podOfPeerUri(view.members.find(m => m.id === id)?.uri);
    return pod ? `peer ${id} (${pod})` : `peer ${id}`;
  };
  const ops: PlannedOperation[] = [];
  for (const c of view.collections) {
    const busy = new Set(c.layout.transfers.map(t => t.shard));
    for (let shard = 0; shard < c.layout.shardCount; shard++) {
      if (busy.has(shard)) continue;
      const copies = c.layout.replicas.filter(r => r.shard === shard);
      const dead = copies.filter(r => r.state === 'Dead' && overdue({ collection: c.name, shard, peerId: r.peerId }));
      const active = copies.filter(r => r.state === 'Active');
      if (!dead.length || !active.length) continue;
      if (active.length >= c.replicationFactor) {
        const d = dead[0];
        ops.push({
          collection: c.name,
          op: { drop_replica: { shard_id: shard, peer_id: Number(d.peerId) } },
          description: `drop the Dead replica of shard ${shard} of ${c.name} on ${name(d.peerId)}: ${active.length} Active copies remain`,
        });
        break;
      }
      const source = active.find(r => answering.has(r.peerId));
      const held = new Set(copies.map(r => r.peerId));
      const load = (id: string) => c.layout.replicas.filter(r => r.peerId === id).length;
      const target = members.filter(m => !held.has(m.id)).sort((a, b) => load(a.id) - load(b.id) || a.ordinal! - b.ordinal!)[0];
      if (!source || !target) continue;
      ops.push({
        collection: c.name,
        op: { replicate_shard: { shard_id: shard, from_peer_id: Number(source.peerId), to_peer_id: Number(target.id) } },
        description: `replicate shard ${shard} of ${c.name} from ${name(source.peerId)} to ${name(target.id)}, replacing the Dead replica on ${name(dead[0].peerId)}`,
      });
      break;
    }
  }
  return ops;
}
