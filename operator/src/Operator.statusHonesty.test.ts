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

// The model's per-version status and a model that cannot be downloaded are
// tested on real pods (inference-service/src/realPods/seedSample.realPods.test.ts):
// the loader must really fail.
describe('status that does not lie', () => {
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
