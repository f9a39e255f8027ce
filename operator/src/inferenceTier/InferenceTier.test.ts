import { sampleInferencePlatform, withDefaults } from '@cv-platform/inference-platform-api';
import { noopLogger } from '../logger';
import { fakeCaches } from '../__testUtils__/fakeCaches';
import { InferenceTier } from './InferenceTier';

function tier(objects: any[] = []) {
  return new InferenceTier({ caches: fakeCaches(objects), client: {} as any, recorder: {} as any, logger: noopLogger, metrics: {} as any });
}

const kinds = (children: { obj: any }[]) => children.map(c => `${c.obj.kind} ${c.obj.metadata.name}`).sort();

describe('InferenceTier', () => {
  it('creates no servers before every Qdrant peer is ready, and keeps them once they exist', () => {
    const p = sampleInferencePlatform('p', 'ns');
    const spec = withDefaults(p.spec);
    expect(kinds(tier().plan('ns/p', p, spec, [], false, undefined).children).filter(k => k.startsWith('Deployment'))).toEqual([]);
    expect(kinds(tier().plan('ns/p', p, spec, [], true, undefined).children)).toContain('Deployment p-inference');
    const existing = { kind: 'Deployment', metadata: { name: 'p-inference', namespace: 'ns' }, spec: { template: { metadata: {} } }, status: {} };
    // A Qdrant hiccup degrades the platform; it does not tear the servers down.
    expect(kinds(tier([existing]).plan('ns/p', p, spec, [], false, undefined).children)).toContain('Deployment p-inference');
  });

  it('wants the canary objects while spec.inference.canary is set, and their removal once it is not', () => {
    const p = sampleInferencePlatform('p', 'ns');
    p.spec.inference.canary = { modelUrl: 'https://models.example/v2.onnx', weight: 20, collection: 'images-v2' };
    const withCanary = tier().plan('ns/p', p, withDefaults(p.spec), [], true, undefined);
    expect(kinds(withCanary.children)).toEqual(
      expect.arrayContaining(['Deployment p-inference-canary', 'ConfigMap p-inference-canary-config', 'Service p-inference-canary', 'Service p-inference-stable']),
    );
    expect(withCanary.removals.map(r => r.name)).not.toContain('p-inference-canary');

    delete p.spec.inference.canary;
    const without = tier().plan('ns/p', p, withDefaults(p.spec), [], true, undefined);
    expect(without.removals.map(r => `${r.ref.kind} ${r.name}`)).toEqual(
      expect.arrayContaining(['Deployment p-inference-canary', 'ConfigMap p-inference-canary-config', 'Service p-inference-canary', 'Service p-inference-stable']),
    );
  });

  it('raises an Event when the canary starts serving or fails, not while it progresses', () => {
    const p: any = sampleInferencePlatform('p', 'ns');
    const status = (state: string) => ({ canary: { state, modelUrl: 'v2', message: 'why' } }) as any;
    expect(InferenceTier.canaryEvents(p, status('Serving'))).toEqual([['Normal', 'CanaryServing', 'Canary v2: why']]);
    expect(InferenceTier.canaryEvents(p, status('Failed'))).toEqual([['Warning', 'CanaryFailed', 'Canary v2: why']]);
    p.status = { canary: { state: 'Serving' } };
    expect(InferenceTier.canaryEvents(p, status('Serving'))).toEqual([]);
    expect(InferenceTier.canaryEvents(p, status('Progressing'))).toEqual([]);
  });
});
