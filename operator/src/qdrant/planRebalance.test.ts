import { view } from '../__testUtils__/clusterView';
import { planRebalance, unevenPlacement } from './planRebalance';

describe('planRebalance', () => {
  it('moves from the most to the least loaded peer, one shard per collection, until they differ by at most one', () => {
    const after = view(3, { images: { shards: [[[0]], [[1]], [[0]], [[1]], [[0]], [[1]]] } });
    expect(planRebalance(after, 3).map(o => o.op)).toEqual([{ move_shard: { shard_id: 1, from_peer_id: 11, to_peer_id: 12 } }]);
    const even = view(3, { images: { shards: [[[0]], [[1]], [[2]], [[0]], [[1]], [[2]]] } });
    expect(planRebalance(even, 3)).toEqual([]);
    // A peer that already holds a copy of every shard the busiest peer has cannot take one.
    const rf2 = view(3, { rf2: { rf: 2, shards: [[[0], [1]], [[0], [1]], [[0], [2]]] } });
    expect(planRebalance(rf2, 3).map(o => o.op)).toEqual([{ move_shard: { shard_id: 0, from_peer_id: 10, to_peer_id: 12 } }]);
  });

  it('reads unevenness from the per-peer counts in the cluster info', () => {
    expect(unevenPlacement([{ a: 3, b: 3 }], ['a', 'b', 'c'])).toBe(true);
    expect(unevenPlacement([{ a: 2, b: 2, c: 1 }], ['a', 'b', 'c'])).toBe(false);
    expect(unevenPlacement([undefined], ['a', 'b'])).toBe(false);
  });
});
