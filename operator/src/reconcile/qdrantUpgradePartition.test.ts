import { QdrantClusterInfo } from '@cv-platform/inference-platform-api';
import { qdrantUpgradePartition } from './qdrantUpgradePartition';

const T0 = Date.parse('2026-12-03T10:00:00Z');
const settled: QdrantClusterInfo = {
  reachable: true,
  raftLeader: '1',
  peers: [1, 2, 3].map(i => ({ id: String(i), uri: `http://q-qdrant-${i - 1}.h:6335/` })),
  pendingOperations: 0,
  collections: [{ name: 'images', replicationFactor: 2, shards: 2, replicas: { Active: 4 }, transfers: 0 }],
};
const desired = (image: string) => ({ spec: { replicas: 3, template: { spec: { containers: [{ name: 'qdrant', image }] } } } });
const live = (image: string, partition: number, status: any = {}) => ({
  metadata: { name: 'q-qdrant', generation: 2 },
  spec: { ...desired(image).spec, updateStrategy: { rollingUpdate: { partition } } },
  status: { observedGeneration: 2, currentRevision: 'old', updateRevision: 'new', ...status },
});
const pod = (ordinal: number, revision: string, readySince = T0) => ({
  metadata: { name: `q-qdrant-${ordinal}`, labels: { 'controller-revision-hash': revision } },
  status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(readySince).toISOString() }] },
});

describe('qdrantUpgradePartition', () => {
  it('starts a new template at the highest ordinal only when Qdrant is settled', () => {
    const l = live('qdrant/qdrant:v1.14.1', 0, { currentRevision: 'old', updateRevision: 'old' });
    expect(qdrantUpgradePartition(desired('qdrant/qdrant:v1.15.0'), l, [], settled, false, T0)).toEqual({ partition: 2 });
    expect(qdrantUpgradePartition(desired('qdrant/qdrant:v1.15.0'), l, [], { ...settled, raftLeader: undefined }, false, T0)).toEqual({
      partition: 3,
      waiting: 'before the first peer: Qdrant has no Raft leader',
    });
    expect(qdrantUpgradePartition(desired('qdrant/qdrant:v1.15.0'), l, [], { reachable: false, message: 'refused' }, false, T0).partition).toBe(3);
  });

  it('holds for allowDowntime while a collection keeps one copy per shard', () => {
    const rf1 = { ...settled, collections: [{ ...settled.collections![0], replicationFactor: 1 }] };
    const l = live('qdrant/qdrant:v1.14.1', 0, { currentRevision: 'old', updateRevision: 'old' });
    expect(qdrantUpgradePartition(desired('qdrant/qdrant:v1.15.0'), l, [], rf1, false, T0)).toMatchObject({ partition: 3, needsDowntime: true });
    expect(qdrantUpgradePartition(desired('qdrant/qdrant:v1.15.0'), l, [], rf1, true, T0)).toEqual({ partition: 2 });
  });

  it('lowers the partition past a restarted peer only after it is Ready and a later look shows Qdrant settled', () => {
    const d = desired('qdrant/qdrant:v1.15.0');
    const l = live('qdrant/qdrant:v1.15.0', 2);
    const pods = [pod(0, 'old'), pod(1, 'old'), pod(2, 'new')];
    expect(qdrantUpgradePartition(d, l, [pod(0, 'old'), pod(1, 'old'), pod(2, 'old')], settled, false, T0 + 5000).partition).toBe(2);
    expect(qdrantUpgradePartition(d, l, pods, settled, false, T0 + 500)).toMatchObject({ partition: 2, waiting: expect.stringContaining('reading Qdrant') });
    const dead = { ...settled, collections: [{ ...settled.collections![0], problems: ['shard 0 of images on peer 3 (q-qdrant-2) is Dead'] }] };
    expect(qdrantUpgradePartition(d, l, pods, dead, false, T0 + 5000)).toMatchObject({ partition: 2, waiting: expect.stringContaining('is Dead') });
    expect(qdrantUpgradePartition(d, l, pods, settled, false, T0 + 5000)).toEqual({ partition: 1 });
  });

  it('keeps its partition while the controller has not seen the last change, and is 0 when nothing rolls', () => {
    const d = desired('qdrant/qdrant:v1.15.0');
    expect(qdrantUpgradePartition(d, { ...live('qdrant/qdrant:v1.15.0', 3), status: { observedGeneration: 1 } }, [], settled, false, T0)).toEqual({ partition: 3 });
    expect(qdrantUpgradePartition(d, live('qdrant/qdrant:v1.15.0', 0, { currentRevision: 'new' }), [], settled, false, T0)).toEqual({ partition: 0 });
    expect(qdrantUpgradePartition({ spec: { ...d.spec, replicas: 1 } }, live('qdrant/qdrant:v1.14.1', 0), [], settled, false, T0)).toEqual({ partition: 0 });
  });
});
