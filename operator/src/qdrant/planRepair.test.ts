import { view } from '../__testUtils__/clusterView';
import { deadReplicas, planRepair } from './planRepair';

const always = () => true;

describe('planRepair', () => {
  it('replicates a shard below its factor onto an answering peer without a copy, then drops the Dead replica', () => {
    // Shard 0 on peers 0 and 1 (RF 2); peer 1 is down and its copy Dead.
    const lost = view(3, { images: { rf: 2, shards: [[[0], [1, 'Dead']], [[2], [0]]] } }, { down: [1] });
    expect(deadReplicas(lost)).toEqual([{ collection: 'images', shard: 0, peerId: '11' }]);
    expect(planRepair(lost, 3, always)).toEqual([
      {
        collection: 'images',
        op: { replicate_shard: { shard_id: 0, from_peer_id: 10, to_peer_id: 12 } },
        description:
          'replicate shard 0 of images from peer 10 (q-qdrant-0) to peer 12 (q-qdrant-2), replacing the Dead replica on peer 11 (q-qdrant-1)',
      },
    ]);
    // The new copy is Active: the factor is met, the Dead one goes.
    const replaced = view(3, { images: { rf: 2, shards: [[[0], [1, 'Dead'], [2]], [[2], [0]]] } }, { down: [1] });
    expect(planRepair(replaced, 3, always).map(o => o.op)).toEqual([{ drop_replica: { shard_id: 0, peer_id: 11 } }]);
  });

  it('waits while the Dead replica is recent, a transfer of the shard is in flight, or nothing can take or give it', () => {
    const lost = view(3, { images: { rf: 2, shards: [[[0], [1, 'Dead']]] } }, { down: [1] });
    expect(planRepair(lost, 3, () => false)).toEqual([]);
    const moving = view(3, { images: { rf: 2, shards: [[[0], [1, 'Dead']]] } }, { down: [1], transfers: 1 });
    expect(planRepair(moving, 3, always)).toEqual([]);
    // Every answering peer already holds the shard.
    const full = view(2, { images: { rf: 2, shards: [[[0], [1, 'Dead']]] } }, { down: [1] });
    expect(planRepair(full, 2, always)).toEqual([]);
    // No Active copy to replicate from.
    const gone = view(3, { images: { rf: 1, shards: [[[1, 'Dead']]] } }, { down: [1] });
    expect(planRepair(gone, 3, always)).toEqual([]);
    // A peer past the StatefulSet's size is not a target.
    expect(planRepair(lost, 2, always)).toEqual([]);
  });
});
