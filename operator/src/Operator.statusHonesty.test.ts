import { UNREACHABLE_MODEL_HOST_SUFFIX } from '@cv-platform/local-cluster';
import {
  condition,
  createPlatform,
  eventually,
  getPlatform,
  newOperator,
  operatorsStoppedAfterEach,
  patchPlatform,
  sample,
  waitForPhase,
  withNamespace,
} from './__testUtils__/operatorTestEnv';

jest.setTimeout(120_000);

const start = operatorsStoppedAfterEach();

const MODEL_A = 's3://models/resnet50-v2-7.onnx';
const MODEL_B = 's3://models/resnet50-v2-8.onnx';

describe('status that does not lie', () => {
  it('reports the model per version: a new model that cannot load leaves the old one serving, Degraded, never ModelLoaded', async () => {
    await withNamespace('st-model', async ns => {
      const p = sample(ns, 'models');
      p.spec.qdrant.replicas = 1;
      p.spec.inference.replicas = 2;
      p.spec.inference.modelUrl = MODEL_A;
      await createPlatform(p);
      await start(newOperator(ns));
      const ready = await waitForPhase(ns, 'models', 'Ready');
      expect(ready.status.model).toEqual({ desired: MODEL_A, loaded: { [MODEL_A]: 2 } });
      expect(condition(ready, 'ModelLoaded')).toMatchObject({ status: 'True', message: `model ${MODEL_A} loaded on 2 ready pods` });

      // The new model cannot be downloaded: the new pod's loader fails and the
      // old pods keep serving (maxUnavailable 0).
      const broken = `https://models${UNREACHABLE_MODEL_HOST_SUFFIX}/resnet.onnx`;
      await patchPlatform(ns, 'models', { spec: { inference: { modelUrl: broken } } });
      const degraded = await waitForPhase(ns, 'models', 'Degraded');
      expect(degraded.status.model).toEqual({ desired: broken, loaded: { [MODEL_A]: 2 } });
      expect(condition(degraded, 'ModelLoaded')).toMatchObject({ status: 'False', reason: 'ModelDownloadFailed' });
      expect(degraded.status.message).toMatch(new RegExp(`model-loader failed .*; still serving ${MODEL_A.replace(/\./g, '\\.')} on 2 pods`));
      expect(condition(degraded, 'Ready')).toMatchObject({ status: 'False' });

      await patchPlatform(ns, 'models', { spec: { inference: { modelUrl: MODEL_B } } });
      const fixed = await waitForPhase(ns, 'models', 'Ready');
      expect(fixed.status.model).toEqual({ desired: MODEL_B, loaded: { [MODEL_B]: 2 } });
      expect(condition(fixed, 'ModelLoaded')).toMatchObject({ status: 'True', message: `model ${MODEL_B} loaded on 2 ready pods` });
    });
  });

  it('surfaces a rollout that stalls past its progress deadline, keeping the old servers counted', async () => {
    await withNamespace('st-stall', async ns => {
      const p = sample(ns, 'stall');
      p.spec.qdrant.replicas = 1;
      p.spec.inference.replicas = 1;
      p.spec.inference.progressDeadlineSeconds = 5;
      await createPlatform(p);
      await start(newOperator(ns));
      await waitForPhase(ns, 'stall', 'Ready');

      // More CPU than any node has: the new pod never schedules, the old one serves.
      await patchPlatform(ns, 'stall', { spec: { inference: { resources: { requests: { cpu: '500' }, limits: { cpu: '500' } } } } });
      const stalled = await eventually('rollout stalled', async () => {
        const x = await getPlatform(ns, 'stall');
        return condition(x, 'InferenceReady')?.reason === 'ProgressDeadlineExceeded' ? x : undefined;
      }, 60_000);
      expect(stalled.status.phase).toBe('Degraded');
      expect(stalled.status.inferenceReadyReplicas).toBe(1);
      expect(stalled.status.message).toMatch(/inference rollout stalled \(.*has timed out progressing.*\): pod .* is unschedulable/);
      expect(condition(stalled, 'Ready')).toMatchObject({ status: 'False' });
    });
  });
});
