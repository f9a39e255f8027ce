import { QdrantClusterInfo, sampleInferencePlatform } from '@cv-platform/inference-platform-api';
import { ClusterInfoCache } from './ClusterInfoCache';

const answer: QdrantClusterInfo = { reachable: true, peers: [], message: 'cluster mode disabled (single peer)' };
const readySts = { metadata: { name: 'p-qdrant', generation: 1 }, status: { readyReplicas: 1, observedGeneration: 1 } };

function cacheAnswering(clusterInfo: () => Promise<QdrantClusterInfo>) {
  const requeued: string[] = [];
  const cache = new ClusterInfoCache({ fetch: clusterInfo, ttlMs: 60_000, requeue: key => requeued.push(key) });
  const ask = (inPass: boolean) => cache.get('ns/p', sampleInferencePlatform('p', 'ns'), readySts, 1, inPass);
  return { ask, requeued };
}

describe('ClusterInfoCache: Qdrant cluster info', () => {
  it('a pass that waits for the first answer takes it along, and queues no second pass for it', async () => {
    const { ask, requeued } = cacheAnswering(async () => answer);
    await expect(ask(true)).resolves.toMatchObject({ reachable: true });
    expect(requeued).toEqual([]);
  });

  it('an answer that comes after the pass stopped waiting queues a pass', async () => {
    let reply: (x: QdrantClusterInfo) => void = () => {};
    const { ask, requeued } = cacheAnswering(() => new Promise(r => (reply = r)));
    // The pass waits one second at most, then reports without the answer.
    await expect(ask(true)).resolves.toBeUndefined();
    reply(answer);
    await new Promise(r => setImmediate(r));
    expect(requeued).toEqual(['ns/p']);
  });

  it('an answer asked for outside a pass (a settled platform looked at again) queues a pass when it is new', async () => {
    const { ask, requeued } = cacheAnswering(async () => answer);
    await expect(ask(false)).resolves.toBeUndefined();
    await new Promise(r => setImmediate(r));
    expect(requeued).toEqual(['ns/p']);
  });
});
