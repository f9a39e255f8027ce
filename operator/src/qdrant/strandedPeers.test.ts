import { strandedPeers } from './strandedPeers';

const uri = (i: number) => `http://p-qdrant-${i}.p-qdrant-headless.ns.svc:6335/`;
const cluster = (perPeer: Record<string, number>, extra: object = {}) => ({
  reachable: true,
  raftLeader: '1',
  pendingOperations: 0,
  peers: [
    { id: '1', uri: uri(0) },
    { id: '2', uri: uri(1) },
    { id: '3', uri: uri(2) },
    { id: '4', uri: 'http://elsewhere:6335/' },
  ],
  collections: [{ name: 'images', shards: 2, replicas: { Active: 2 }, perPeer, transfers: 0 }],
  ...extra,
});

describe('strandedPeers', () => {
  it('names empty peers of pods past the StatefulSet, never ones with replicas or foreign URIs', () => {
    expect(strandedPeers(cluster({ '1': 2, '2': 0, '3': 0, '4': 0 }), 'p-qdrant', 1).map(p => p.id)).toEqual(['2', '3']);
    expect(strandedPeers(cluster({ '1': 1, '2': 0, '3': 1, '4': 0 }), 'p-qdrant', 1).map(p => p.id)).toEqual(['2']);
    expect(strandedPeers(cluster({ '1': 2, '2': 0, '3': 0, '4': 0 }), 'p-qdrant', 3)).toEqual([]);
  });

  it('does nothing while Qdrant is unsettled or its placement is unknown', () => {
    const empty = { '1': 2, '2': 0, '3': 0, '4': 0 };
    expect(strandedPeers(cluster(empty, { raftLeader: undefined }), 'p-qdrant', 1)).toEqual([]);
    expect(strandedPeers(cluster(empty, { pendingOperations: 2 }), 'p-qdrant', 1)).toEqual([]);
    expect(strandedPeers(cluster(empty, { collections: undefined }), 'p-qdrant', 1)).toEqual([]);
    expect(strandedPeers({ ...cluster(empty), collections: [{ name: 'images', shards: 2, replicas: {}, transfers: 1, perPeer: empty }] }, 'p-qdrant', 1)).toEqual([]);
    expect(strandedPeers({ reachable: false }, 'p-qdrant', 1)).toEqual([]);
  });
});
