import {
  condition,
  createPlatform,
  eventsWithReason,
  eventually,
  get,
  getPlatform,
  newOperator,
  operatorsStoppedAfterEach,
  patchPlatform,
  sample,
  waitForPhase,
  withNamespace,
} from './__testUtils__/operatorTestEnv';

jest.setTimeout(180_000);

const start = operatorsStoppedAfterEach();

const V2 = 's3://models/resnet50-v2.onnx';

/**
 * The canary's objects and its share of the servers, on simulated pods. The
 * traffic split itself, the write forwarding and a canary that never turns
 * ready are tested on real pods (inference-service/src/realPods).
 */
describe('a canary model beside the stable one', () => {
  it('runs its share of the servers on its own collection, pauses at weight 0, and is promoted in one edit', async () => {
    await withNamespace('canary', async ns => {
      const apps = `/apis/apps/v1/namespaces/${ns}/deployments`;
      const services = `/api/v1/namespaces/${ns}/services`;
      const replicas = async (name: string) => (await get(`${apps}/${name}`)).body.spec?.replicas;
      const p = sample(ns, 'cv');
      p.spec.qdrant.replicas = 1;
      p.spec.inference.replicas = 5;
      p.spec.inference.canary = { modelUrl: V2, weight: 20, collection: 'images-v2' };
      await createPlatform(p);
      await start(newOperator(ns));

      const serving = await eventually('canary serving', async () => {
        const x = await getPlatform(ns, 'cv');
        // Until the fifth stable pod is gone it still counts among the ready servers.
        return x.status?.canary?.state === 'Serving' && x.status.canary.effectiveWeight === 20 && x.status.phase === 'Ready' && (await replicas('cv-inference')) === 4 ? x : undefined;
      }, 90_000);
      expect(serving.status.canary).toMatchObject({ modelUrl: V2, collection: 'images-v2', weight: 20, replicas: 1, readyReplicas: 1, effectiveWeight: 20 });
      expect(serving.status.inferenceReadiness).toBe('5/5');
      expect(condition(serving, 'CanaryReady')).toMatchObject({ status: 'True', reason: 'CanaryServing' });
      expect(serving.status.model.loaded[V2]).toBe(1);

      const canary = (await get(`${apps}/cv-inference-canary`)).body;
      expect(canary.spec.selector.matchLabels).toMatchObject({ 'app.kubernetes.io/instance': 'cv', 'cv.platform.tech/track': 'canary' });
      const container = canary.spec.template.spec.containers[0];
      const env = Object.fromEntries(container.env.filter((e: any) => e.value !== undefined).map((e: any) => [e.name, e.value]));
      expect(env).toMatchObject({ QDRANT_COLLECTION: 'images-v2', WRITE_FORWARD_URL: `http://cv-inference-stable.${ns}.svc` });
      expect(canary.spec.template.spec.initContainers[0].env).toContainEqual({ name: 'MODEL_URL', value: V2 });
      expect(JSON.parse((await get(`/api/v1/namespaces/${ns}/configmaps/cv-inference-canary-config`)).body.data['config.json'])).toMatchObject({ QDRANT_COLLECTION: 'images-v2' });
      // The stable servers keep theirs; the platform's Service selects both tracks.
      const stable = (await get(`${apps}/cv-inference`)).body;
      expect(stable.spec.template.metadata.labels['cv.platform.tech/track']).toBe('stable');
      expect(stable.spec.template.spec.containers[0].env).toContainEqual({ name: 'QDRANT_COLLECTION', value: 'images' });
      expect((await get(`${services}/cv-inference`)).body.spec.selector['cv.platform.tech/track']).toBeUndefined();
      expect((await get(`${services}/cv-inference-stable`)).body.spec.selector['cv.platform.tech/track']).toBe('stable');
      expect((await get(`${services}/cv-inference-canary`)).body.spec.selector['cv.platform.tech/track']).toBe('canary');
      expect((await eventsWithReason(ns, 'CanaryServing'))[0]?.message).toMatch(/^Canary s3:\/\/models\/resnet50-v2\.onnx: 1\/1 canary servers ready, \d+% of requests \(weight 20\)$/);

      // Weight 0: the canary stays defined with no servers.
      await patchPlatform(ns, 'cv', { spec: { inference: { canary: { weight: 0 } } } });
      const paused = await eventually('canary paused', async () => {
        const x = await getPlatform(ns, 'cv');
        return x.status?.canary?.state === 'Paused' && x.status.canary.effectiveWeight === 0 && (await replicas('cv-inference')) === 5 && (await replicas('cv-inference-canary')) === 0 ? x : undefined;
      });
      expect(condition(paused, 'CanaryReady')).toMatchObject({ status: 'False', reason: 'CanaryPaused' });
      expect(paused.status.canary.readyReplicas).toBe(0);

      // 60%: three canary servers, the stable ones shrink as they turn ready.
      await patchPlatform(ns, 'cv', { spec: { inference: { canary: { weight: 60 } } } });
      await eventually('canary at 60%', async () => {
        const x = await getPlatform(ns, 'cv');
        return x.status?.canary?.state === 'Serving' && x.status.canary.effectiveWeight === 60 && (await replicas('cv-inference')) === 2 ? x : undefined;
      }, 90_000);

      // Promote: the canary's model and collection become the stable ones.
      await patchPlatform(ns, 'cv', { spec: { inference: { model: { url: V2 }, collection: 'images-v2', canary: null } } });
      await eventually('canary objects gone', async () =>
        (await get(`${apps}/cv-inference-canary`)).status === 404 &&
        (await get(`${services}/cv-inference-canary`)).status === 404 &&
        (await get(`${services}/cv-inference-stable`)).status === 404 &&
        (await get(`/api/v1/namespaces/${ns}/configmaps/cv-inference-canary-config`)).status === 404,
      );
      const promoted = await waitForPhase(ns, 'cv', 'Ready', 90_000);
      expect(promoted.status.canary).toBeUndefined();
      expect(condition(promoted, 'CanaryReady')).toBeUndefined();
      expect(await replicas('cv-inference')).toBe(5);
      const after = (await get(`${apps}/cv-inference`)).body;
      expect(after.spec.template.spec.containers[0].env).toContainEqual({ name: 'QDRANT_COLLECTION', value: 'images-v2' });
    });
  });
});
