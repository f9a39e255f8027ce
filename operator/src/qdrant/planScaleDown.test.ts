import { view } from '../__testUtils__/clusterView';
import { planScaleDown } from './planScaleDown';

describe('planScaleDown', () => {
  it('moves the only replicas off the highest leaving peer to the least loaded staying peers', () => {
    const plan = planScaleDown(view(3, { images: { shards: [[[0]], [[1]], [[2]], [[2]], [[0]], [[1]]] } }), 2);
    expect(plan.kind).toBe('drain');
    if (plan.kind !== 'drain') return;
    expect(plan.peer.ordinal).toBe(2);
    expect(plan.operations.map(o => o.op)).toEqual([
      { move_shard: { shard_id: 2, from_peer_id: 12, to_peer_id: 10 } },
      { move_shard: { shard_id: 3, from_peer_id: 12, to_peer_id: 11 } },
    ]);
  });

  it('drops a replica that has an Active copy on a staying peer instead of moving it', () => {
    const plan = planScaleDown(view(3, { rf2: { rf: 2, shards: [[[0], [2]], [[1], [2]]] } }), 2);
    expect(plan.kind === 'drain' && plan.operations.map(o => o.op)).toEqual([
      { drop_replica: { shard_id: 0, peer_id: 12 } },
      { drop_replica: { shard_id: 1, peer_id: 12 } },
    ]);
  });

  it('waits while transfers are in flight, then removes the emptied peer, then is done', () => {
    expect(planScaleDown(view(3, { images: { shards: [[[0]]] } }, { transfers: 1 }), 2)).toMatchObject({
      kind: 'wait',
      message: '1 shard transfer in flight',
    });
    const empty = planScaleDown(view(3, { images: { shards: [[[0]], [[1]]] } }), 2);
    expect(empty).toMatchObject({ kind: 'remove', peer: { id: '12', ordinal: 2 } });
    expect(planScaleDown(view(2, { images: { shards: [[[0]], [[1]]] } }), 2)).toEqual({ kind: 'done' });
  });

  it('refuses before anything moves when the new size is below a replication factor', () => {
    const plan = planScaleDown(view(3, { images: { shards: [[[2]]] }, rf2: { rf: 2, shards: [[[0], [1]]] } }), 1);
    expect(plan).toMatchObject({ kind: 'blocked', reason: 'ReplicationFactorTooHigh' });
    expect(plan.kind === 'blocked' && plan.message).toMatch(/collection rf2 has replication factor 2, more than the 1 peers that would remain/);
  });

  it('refuses without a Raft leader, with a dead only copy, or with a staying peer down', () => {
    expect(planScaleDown(view(3, { images: { shards: [[[2]]] } }, { leader: false }), 2)).toMatchObject({ reason: 'NoRaftLeader' });
    expect(planScaleDown(view(3, { images: { shards: [[[2, 'Dead']]] } }), 2)).toMatchObject({ reason: 'NoActiveReplica' });
    expect(planScaleDown(view(3, { images: { shards: [[[2]]] } }, { down: [2] }), 2)).toMatchObject({ reason: 'PeerUnreachable' });
    expect(planScaleDown(view(3, { images: { shards: [[[2]]] } }, { down: [1] }), 2)).toMatchObject({ reason: 'PeerUnreachable' });
    // A dead leaving peer whose replicas all have Active copies can still be emptied.
    expect(planScaleDown(view(3, { rf2: { rf: 2, shards: [[[0], [2]]] } }, { down: [2] }), 2).kind).toBe('drain');
  });

  it('refuses when no peer answers at all', () => {
    const v = view(2, {}, { down: [0, 1] });
    expect(planScaleDown({ ...v, authority: undefined }, 1)).toMatchObject({ kind: 'blocked', reason: 'QdrantUnreachable' });
  });

  it('simulates the whole drain: peer 1 is refused although peer 2 could go', () => {
    // Scaling 3 -> 1 with a Dead only copy on peer 1: nothing may move from peer 2 either.
    const plan = planScaleDown(view(3, { images: { shards: [[[2]], [[1, 'Dead']]] } }), 1);
    expect(plan).toMatchObject({ kind: 'blocked', reason: 'NoActiveReplica' });
  });
});
