import { noopLogger } from '../logger';
import { QdrantClusterInfo, sampleInferencePlatform } from '@cv-platform/inference-platform-api';
import { Caches, PlatformReconciler } from './PlatformReconciler';

/** Caches the constructor only subscribes to; these tests never run a whole pass. */
function idleCaches(): Caches {
  const cache = { on: () => {} };
  return new Proxy({}, { get: () => cache }) as unknown as Caches;
}

const answer: QdrantClusterInfo = { reachable: true, peers: [], message: 'cluster mode disabled (single peer)' };
const readySts = { metadata: { name: 'p-qdrant', generation: 1 }, status: { readyReplicas: 1, observedGeneration: 1 } };

function reconcilerAnswering(clusterInfo: () => Promise<QdrantClusterInfo>) {
  const requeued: string[] = [];
  const r = new PlatformReconciler({
    caches: idleCaches(),
    qdrant: { clusterInfo } as any,
    qdrantUrl: () => 'http://qdrant.invalid:6333',
    requeue: key => requeued.push(key),
    client: {} as any,
    recorder: {} as any,
    logger: noopLogger,
    metrics: {} as any,
  });
  // The cluster-info step of a pass (private: a whole pass needs a cluster).
  const ask = (inPass: boolean) => (r as any).qdrantClusterInfo('ns/p', sampleInferencePlatform('p', 'ns'), readySts, 1, inPass);
  return { ask, requeued };
}

describe('PlatformReconciler: Qdrant cluster info', () => {
  it('a pass that waits for the first answer takes it along, and queues no second pass for it', async () => {
    const { ask, requeued } = reconcilerAnswering(async () => answer);
    await expect(ask(true)).resolves.toMatchObject({ reachable: true });
    expect(requeued).toEqual([]);
  });

  it('an answer that comes after the pass stopped waiting queues a pass', async () => {
    let reply: (x: QdrantClusterInfo) => void = () => {};
    const { ask, requeued } = reconcilerAnswering(() => new Promise(r => (reply = r)));
    // The pass waits one second at most, then reports without the answer.
    await expect(ask(true)).resolves.toBeUndefined();
    reply(answer);
    await new Promise(r => setImmediate(r));
    expect(requeued).toEqual(['ns/p']);
  });

  it('an answer asked for outside a pass (a settled platform looked at again) queues a pass when it is new', async () => {
    const { ask, requeued } = reconcilerAnswering(async () => answer);
    await expect(ask(false)).resolves.toBeUndefined();
    await new Promise(r => setImmediate(r));
    expect(requeued).toEqual(['ns/p']);
  });
});
