import {
  createPlatform,
  eventually,
  get,
  newOperator,
  operatorsStoppedAfterEach,
  sample,
  waitForPhase,
  withNamespace,
} from './__testUtils__/operatorTestEnv';

jest.setTimeout(120_000);

const start = operatorsStoppedAfterEach();

describe('child mutators', () => {
  it('change every child before it is applied, from the first pass when the operator holds reconciling until they are registered', async () => {
    await withNamespace('mutators', async ns => {
      const p = sample(ns, 'mutated');
      p.spec.qdrant.replicas = 1;
      p.spec.inference.replicas = 1;
      await createPlatform(p);
      const operator = await start(newOperator(ns, { holdReconcile: true }));
      // Held: caches fill, nothing is applied.
      await eventually('caches synced', async () => operator.hasSynced());
      await new Promise(r => setTimeout(r, 1000));
      expect((await get(`/apis/apps/v1/namespaces/${ns}/statefulsets/mutated-qdrant`)).status).toBe(404);

      operator.addChildMutator(child => {
        child.metadata.labels = { ...child.metadata.labels, 'example.com/cost-center': 'vision' };
      });
      operator.addChildMutator((child, platform) => {
        if (child.kind !== 'Deployment' && child.kind !== 'StatefulSet') return;
        child.spec.template.spec.imagePullSecrets = [{ name: `${platform.metadata.namespace}-registry` }];
      });
      operator.releaseReconcile();
      await waitForPhase(ns, 'mutated', 'Ready');

      for (const path of [
        `/apis/apps/v1/namespaces/${ns}/statefulsets/mutated-qdrant`,
        `/apis/apps/v1/namespaces/${ns}/deployments/mutated-inference`,
        `/api/v1/namespaces/${ns}/services/mutated-inference`,
        `/api/v1/namespaces/${ns}/configmaps/mutated-inference-config`,
      ]) {
        expect({ path, label: (await get(path)).body.metadata.labels?.['example.com/cost-center'] }).toEqual({ path, label: 'vision' });
      }
      for (const path of [`/apis/apps/v1/namespaces/${ns}/statefulsets/mutated-qdrant`, `/apis/apps/v1/namespaces/${ns}/deployments/mutated-inference`]) {
        expect((await get(path)).body.spec.template.spec.imagePullSecrets).toEqual([{ name: `${ns}-registry` }]);
      }
      // Created once, with the change: the Deployment never rolled for it.
      expect((await get(`/apis/apps/v1/namespaces/${ns}/deployments/mutated-inference`)).body.metadata.generation).toBe(1);
    });
  });
});
