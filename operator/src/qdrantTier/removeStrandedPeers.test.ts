import { sampleInferencePlatform } from '@cv-platform/inference-platform-api';
import { noopLogger } from '../logger';
import { QdrantError } from '../qdrant/QdrantPeerClient';
import type { PendingEvent } from '../events/PendingEvent';
import { removeStrandedPeers } from './removeStrandedPeers';

const uri = (i: number) => `http://p-qdrant-${i}.p-qdrant-headless.ns.svc:6335/`;
// After a scale-down to 1: the answer still lists peer 2, whose pod is past the StatefulSet.
const cluster = {
  reachable: true,
  raftLeader: '1',
  pendingOperations: 0,
  peers: [
    { id: '1', uri: uri(0) },
    { id: '2', uri: uri(1) },
  ],
  collections: [{ name: 'images', shards: 1, replicas: { Active: 1 }, perPeer: { '1': 1, '2': 0 }, transfers: 0 }],
};

function removing(answer: () => Promise<void>) {
  const events: PendingEvent[] = [];
  const deps = { client: { removePeer: answer } as any, peerUrl: () => 'http://p-qdrant-0:6333', logger: noopLogger, apiKey: async () => undefined };
  return { events, run: () => removeStrandedPeers(deps, sampleInferencePlatform('p', 'ns'), cluster as any, 1, events) };
}

describe('removeStrandedPeers', () => {
  it('takes a 404 (the scale-down removed the peer already) as removed, with no Warning', async () => {
    const { events, run } = removing(async () => {
      throw new QdrantError(404, 'DELETE /cluster/peer/2 answered 404: peer 2 does not exist');
    });
    const info = await run();
    expect(info?.peers?.map(x => x.id)).toEqual(['1']);
    expect(events.filter(e => e[0] === 'Warning')).toEqual([]);
  });

  it('still warns when the removal fails for another reason', async () => {
    const { events, run } = removing(async () => {
      throw new QdrantError(500, 'DELETE /cluster/peer/2 answered 500');
    });
    const info = await run();
    expect(info?.peers?.map(x => x.id)).toEqual(['1', '2']);
    expect(events).toEqual([['Warning', 'PeerRemovalFailed', 'removing a Qdrant peer no pod backs failed: DELETE /cluster/peer/2 answered 500']]);
  });

  it('removes the peer and says so in a Normal event', async () => {
    const { events, run } = removing(async () => {});
    await run();
    expect(events).toEqual([['Normal', 'RemovedQdrantPeer', expect.stringContaining('Removed peer 2 (p-qdrant-1)')]]);
  });
});
