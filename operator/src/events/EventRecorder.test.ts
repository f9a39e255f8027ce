import { loadKubeConfig } from '../kube/loadKubeConfig';
import { KubeClient } from '../kube/KubeClient';
import { api, withNamespace } from '../__testUtils__/operatorTestEnv';
import { testKubeconfigPath } from '@cv-platform/local-cluster';
import { EventRecorder } from './EventRecorder';

jest.setTimeout(60_000);

const events = async (ns: string) =>
  (await api.request('GET', `/api/v1/namespaces/${ns}/events`)).body.items.sort((a: any, b: any) =>
    a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp) || a.metadata.name.localeCompare(b.metadata.name),
  );

describe('EventRecorder on the API server', () => {
  const client = new KubeClient(loadKubeConfig({ kubeconfigPath: testKubeconfigPath() }));
  afterAll(() => client.close());
  const obj = (ns: string, uid: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: ns, uid } });

  it('counts repeats in one Event', async () => {
    await withNamespace('ev-repeat', async ns => {
      const recorder = new EventRecorder(client, 'test');
      for (let i = 0; i < 5; i++) await recorder.record(obj(ns, 'u1'), 'Warning', 'Flapping', 'same message');
      const list = await events(ns);
      expect(list.map((e: any) => [e.reason, e.message, e.count])).toEqual([['Flapping', 'same message', 5]]);
    });
  });

  it('combines more than 10 different messages of one reason into one Event', async () => {
    await withNamespace('ev-similar', async ns => {
      const recorder = new EventRecorder(client, 'test');
      for (let i = 1; i <= 15; i++) await recorder.record(obj(ns, 'u2'), 'Warning', 'ApplyFailed', `attempt ${i} failed`);
      const list = await events(ns);
      expect(list).toHaveLength(11);
      const combined = list.find((e: any) => e.message.startsWith('(combined from similar events): '));
      expect(combined).toMatchObject({ message: '(combined from similar events): attempt 15 failed', count: 5 });
    });
  });

  it('holds back what one object emits beyond its burst, and lets it through again with time', async () => {
    await withNamespace('ev-spam', async ns => {
      let now = Date.parse('2026-12-03T00:00:00Z');
      const recorder = new EventRecorder(client, 'test', undefined, { burst: 3, refillMs: 60_000, now: () => now });
      for (let i = 1; i <= 5; i++) await recorder.record(obj(ns, 'u3'), 'Normal', `Reason${i}`, 'm');
      expect(recorder.dropped).toBe(2);
      // Another object has its own bucket.
      await recorder.record(obj(ns, 'u4'), 'Normal', 'Other', 'm');
      now += 60_000;
      await recorder.record(obj(ns, 'u3'), 'Normal', 'Reason6', 'm');
      expect((await events(ns)).map((e: any) => e.reason).sort()).toEqual(['Other', 'Reason1', 'Reason2', 'Reason3', 'Reason6']);
    });
  });
});
