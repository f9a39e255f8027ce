import { sampleInferencePlatform, withDefaults } from '@cv-platform/inference-platform-api';
import { noopLogger } from '../logger';
import { fakeCaches } from '../__testUtils__/fakeCaches';
import { qdrantStatefulSet } from '../reconcile/qdrantChildren';
import { QdrantTier } from './QdrantTier';

const kinds = (children: { obj: any }[]) => children.map(c => `${c.obj.kind} ${c.obj.metadata.name}`).sort();

/** The StatefulSet as the cache shows it once applied at `replicas`. */
function liveStatefulSet(p: any, replicas: number) {
  const sts = qdrantStatefulSet(p, withDefaults(p.spec));
  sts.spec.replicas = replicas;
  return { ...sts, status: { observedGeneration: 1, replicas, readyReplicas: 0, currentRevision: 'r', updateRevision: 'r' } };
}

function tier(objects: any[], qdrantPeers: any = {}) {
  return new QdrantTier({
    caches: fakeCaches(objects),
    client: { get: async () => ({ status: 404 }) } as any,
    recorder: {} as any,
    logger: noopLogger,
    metrics: {} as any,
    qdrantPeers,
    qdrantPeerUrl: (_p, pod) => `http://${pod}:6333`,
  });
}

describe('QdrantTier', () => {
  it('wants the Services, the StatefulSet and its disruption budget for a new platform, and waits for nothing', async () => {
    const p = sampleInferencePlatform('p', 'ns');
    p.spec.qdrant.replicas = 3;
    const plan = await tier([]).plan('ns/p', p, withDefaults(p.spec), []);
    expect(kinds(plan.children)).toEqual(['PodDisruptionBudget p-qdrant', 'Service p-qdrant', 'Service p-qdrant-headless', 'StatefulSet p-qdrant']);
    expect(plan.ready).toBe(false);
    expect(plan.events).toEqual([]);
    expect(plan.waitMs).toBe(Infinity);
  });

  it('keeps every peer and says Blocked when a scale-down cannot ask Qdrant', async () => {
    const p = sampleInferencePlatform('p', 'ns');
    const live = liveStatefulSet(p, 2);
    p.spec.qdrant.replicas = 1;
    const peers = {
      cluster: async () => {
        throw new Error('connect ECONNREFUSED');
      },
    };
    const plan = await tier([live], peers).plan('ns/p', p, withDefaults(p.spec), []);
    expect(plan.children.find(c => c.obj.kind === 'StatefulSet')!.obj.spec.replicas).toBe(2);
    expect(plan.observed().qdrantScaleDown).toMatchObject({ step: 'Blocked', fromReplicas: 2, toReplicas: 1 });
  });
});
