import { sampleInferencePlatform, withDefaults } from '@cv-platform/inference-platform-api';
import { ANNOTATION_MODEL_URL } from '../reconcile/inferenceChildren';
import { computeStatus } from './computeStatus';

const NOW = '2026-12-03T00:00:00Z';

/** A serving platform with one ready server; `sts` and `volumes` describe its Qdrant tier. */
function platform(qdrantReplicas: number, sts: { spec: number; replicas: number; ready: number }, volumes: any[] = [], storageSize?: string) {
  const p: any = sampleInferencePlatform('p', 'ns');
  p.metadata.generation = 2;
  p.status = { phase: 'Ready' };
  p.spec.qdrant.replicas = qdrantReplicas;
  p.spec.qdrant.replicationFactor = 2;
  if (storageSize) p.spec.qdrant.storageSize = storageSize;
  p.spec.inference.replicas = 1;
  const spec = withDefaults(p.spec);
  return computeStatus(
    p,
    spec,
    {
      statefulSet: {
        metadata: { name: 'p-qdrant', generation: 2 },
        spec: { replicas: sts.spec },
        status: { observedGeneration: 2, replicas: sts.replicas, readyReplicas: sts.ready, updatedReplicas: sts.replicas, currentRevision: 'r', updateRevision: 'r' },
      },
      deployment: { metadata: { generation: 1 }, status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1 } },
      qdrantPods: [],
      inferencePods: [
        {
          metadata: { name: 'p-inference-0', annotations: { [ANNOTATION_MODEL_URL]: spec.inference.modelUrl } },
          status: { conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'inference', ready: true, state: { running: {} } }] },
        },
      ],
      qdrantCluster: { reachable: true, raftLeader: '1', raftTerm: 1, peers: Array.from({ length: qdrantReplicas }, (_, i) => ({ id: String(i + 1), uri: `http://p-qdrant-${i}.p-qdrant-headless:6335/` })), collections: [] },
      qdrantVolumes: volumes,
    } as any,
    NOW,
  );
}

const claim = (n: number, requested: string, capacity: string) => ({
  metadata: { name: `storage-p-qdrant-${n}` },
  spec: { resources: { requests: { storage: requested } } },
  status: { phase: 'Bound', capacity: { storage: capacity } },
});

describe('computeStatus after a planned Qdrant scale-down', () => {
  it('is Loading, not Degraded, while the pods of peers that left Raft stop', () => {
    // The StatefulSet shrank to 1; the second pod is still terminating and counted ready.
    const s = platform(1, { spec: 1, replicas: 2, ready: 2 });
    expect(s.phase).toBe('Loading');
    expect(s.message).toBe('Qdrant scaled down to 1 peer: 1 leaving pod stopping');
    expect(s.conditions!.find(c => c.type === 'Degraded')).toMatchObject({ status: 'False' });
    expect(s.conditions!.find(c => c.type === 'QdrantReady')).toMatchObject({ status: 'False', reason: 'QdrantScalingDown' });
  });

  it('is Degraded still when a peer the StatefulSet keeps is not ready', () => {
    const s = platform(2, { spec: 2, replicas: 2, ready: 1 });
    expect(s.phase).toBe('Degraded');
  });
});

describe('computeStatus during a storage resize', () => {
  it('says so until every claim has the requested capacity', () => {
    const s = platform(2, { spec: 2, replicas: 2, ready: 2 }, [claim(0, '20Gi', '20Gi'), claim(1, '20Gi', '10Gi')], '20Gi');
    expect(s.conditions!.find(c => c.type === 'QdrantVolumesResizing')).toMatchObject({
      status: 'True',
      reason: 'VolumeExpansionPending',
      message: 'PersistentVolumeClaim storage-p-qdrant-1 (10Gi of 20Gi): not grown to spec.qdrant.storage.size 20Gi yet',
    });
    expect(s.message).toContain('volumes not grown yet: PersistentVolumeClaim storage-p-qdrant-1 (10Gi of 20Gi)');
  });

  it('says nothing more once the volumes have grown', () => {
    const s = platform(2, { spec: 2, replicas: 2, ready: 2 }, [claim(0, '20Gi', '20Gi'), claim(1, '20Gi', '20Gi')], '20Gi');
    expect(s.phase).toBe('Ready');
    expect(s.message).toBe('Qdrant 2/2, inference 1/1 ready');
    expect(s.conditions!.some(c => c.type === 'QdrantVolumesResizing')).toBe(false);
  });
});
