import { createServiceFactory } from '@backstage/backend-plugin-api';
import { MetricAttributes, metricsServiceRef } from '@backstage/backend-plugin-api/alpha';
import { metricsServiceFactory } from '@backstage/backend-defaults/alpha';
import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { createTestNamespace, deleteTestNamespace, eventually, testApi, testKubeconfigPath, testQdrantUrlTemplates } from '@cv-platform/local-cluster';
import { sampleInferencePlatform, toV1beta1 } from '@cv-platform/inference-platform-api';
import { inferencePlatformPlugin } from '../plugin';
import { inferencePlatformModuleOperatorMetrics } from './operatorMetricsModule';

jest.setTimeout(120_000);

type Callback = (r: { observe(value: number, attributes?: MetricAttributes): void }) => void | Promise<void>;

/** A metrics service that keeps the observables, to collect them as an exporter would. */
function recordingMetrics() {
  const observables = new Map<string, { kind: string; callbacks: Callback[] }>();
  const observable = (kind: string) => (name: string) => {
    const entry = { kind, callbacks: [] as Callback[] };
    observables.set(name, entry);
    return { addCallback: (cb: Callback) => void entry.callbacks.push(cb), removeCallback: () => {} };
  };
  const unused = () => ({ add() {}, record() {} });
  const service = {
    createCounter: unused,
    createUpDownCounter: unused,
    createHistogram: unused,
    createGauge: unused,
    createObservableCounter: observable('counter'),
    createObservableUpDownCounter: observable('updown'),
    createObservableGauge: observable('gauge'),
  };
  const collect = async (name: string) => {
    const points: Array<{ value: number; attributes?: MetricAttributes }> = [];
    for (const cb of observables.get(name)?.callbacks ?? []) await cb({ observe: (value, attributes) => points.push({ value, attributes }) });
    return points;
  };
  return { service, observables, collect };
}

describe("the embedded operator's metrics through the backend's metrics service", () => {
  const api = testApi();
  let ns: string;
  beforeAll(async () => {
    ns = await createTestNamespace(api, 'metrics');
  });
  afterAll(async () => {
    await deleteTestNamespace(api, ns);
  });
  const config = () =>
    mockServices.rootConfig.factory({
      data: {
        inferencePlatform: {
          kubernetes: { kubeconfigPath: testKubeconfigPath() },
          namespaces: [ns],
          operator: { enabled: true, leaderElection: { enabled: false }, ...testQdrantUrlTemplates() },
        },
      },
    });

  it('exports reconciles, API requests and reconcile times as observables read at collection', async () => {
    const metrics = recordingMetrics();
    await startTestBackend({
      features: [
        inferencePlatformPlugin,
        inferencePlatformModuleOperatorMetrics,
        config(),
        createServiceFactory({ service: metricsServiceRef, deps: {}, factory: () => metrics.service as any }),
      ],
    });
    expect(metrics.observables.get('controller_runtime_reconcile_total')?.kind).toBe('counter');
    expect(metrics.observables.get('workqueue_depth')?.kind).toBe('gauge');
    expect(metrics.observables.get('controller_runtime_reconcile_time_seconds_count')?.kind).toBe('counter');

    const p = sampleInferencePlatform('measured', ns);
    p.spec.qdrant.replicas = 1;
    p.spec.inference.replicas = 1;
    expect((await api.request('POST', `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`, toV1beta1(p))).status).toBe(201);
    const reconciles = await eventually('reconciles counted', async () => {
      const points = await metrics.collect('controller_runtime_reconcile_total');
      return points.some(x => x.value > 0) ? points : undefined;
    });
    expect(reconciles.find(x => x.value > 0)?.attributes).toMatchObject({ controller: expect.any(String) });
    expect((await metrics.collect('rest_client_requests_total')).reduce((n, x) => n + x.value, 0)).toBeGreaterThan(0);
    expect((await metrics.collect('controller_runtime_reconcile_time_seconds_count')).reduce((n, x) => n + x.value, 0)).toBeGreaterThan(0);
  });

  it("starts with Backstage's own metrics service", async () => {
    const { server } = await startTestBackend({
      features: [inferencePlatformPlugin, inferencePlatformModuleOperatorMetrics, config(), metricsServiceFactory],
    });
    expect(server.listening).toBe(true);
  });
});
