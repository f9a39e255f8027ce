import { LocalCluster, thirdPartyCrds } from '@cv-platform/local-cluster';
import {
  sampleInferencePlatform,
  toV1beta1,
} from '@cv-platform/inference-platform-api';
import { loadKubeConfig } from './kube/loadKubeConfig';
import { Operator } from './Operator';

jest.setTimeout(300_000);

/**
 * Autoscaling and monitoring against the CRDs of KEDA and the Prometheus
 * Operator, from their own Go modules, installed on a private control plane
 * (installed on the shared one they would change what every other suite's
 * platforms get).
 */
describe('autoscaling and monitors', () => {
  let cluster: LocalCluster;
  const operators: Operator[] = [];
  const ns = 'default';
  beforeAll(async () => {
    cluster = await LocalCluster.start({ log: () => {} });
  });
  afterAll(async () => {
    for (const o of operators) await o.stop();
    await cluster.stop();
  });

  const startOperator = async () => {
    const o = new Operator({
      kubeConfig: loadKubeConfig({ kubeconfigPath: cluster.kubeconfigPath }),
      namespaces: [ns],
      workers: 2,
      ...cluster.qdrantUrlTemplates(),
    });
    operators.push(o);
    await o.start();
    return o;
  };
  const platforms = `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`;
  const get = (p: string) => cluster.request('GET', p);
  const patch = (name: string, body: unknown) =>
    cluster.request(
      'PATCH',
      `${platforms}/${name}`,
      body,
      'application/merge-patch+json',
    );
  const exists = async (p: string) => (await get(p)).status === 200;
  const hpa = `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers/scaled-inference`;
  const scaledObject = `/apis/keda.sh/v1alpha1/namespaces/${ns}/scaledobjects/scaled-inference`;
  const condition = (p: any, type: string) =>
    (p.status?.conditions ?? []).find((c: any) => c.type === type);

  it('says in a condition that queue-depth autoscaling needs KEDA where it is not installed', async () => {
    const before = await startOperator();
    const p = sampleInferencePlatform('no-keda', ns);
    p.spec.qdrant.replicas = 1;
    p.spec.inference.autoscaling = {
      maxReplicas: 4,
      metric: 'queueDepth',
      target: 8,
      prometheusServerAddress: 'http://prometheus:9090',
    };
    expect(
      (await cluster.request('POST', platforms, toV1beta1(p))).status,
    ).toBe(201);
    await cluster.until(
      'AutoscalingUnavailable',
      async () =>
        condition(
          (
            await get(`${platforms}/no-keda`)
          ).body,
          'AutoscalingUnavailable',
        )?.status === 'True',
    );
    expect(
      condition(
        (await get(`${platforms}/no-keda`)).body,
        'AutoscalingUnavailable',
      ).message,
    ).toMatch(/needs KEDA/);
    await before.stop();
  });

  it('autoscales on CPU with an HPA and on queue depth with a KEDA ScaledObject, both scaling the platform, and adds monitors for both tiers', async () => {
    for (const crd of [
      ...thirdPartyCrds('keda'),
      ...thirdPartyCrds('prometheusOperator'),
    ])
      await cluster.installCrd(crd);
    await startOperator();
    const p = sampleInferencePlatform('scaled', ns);
    p.spec.qdrant.replicas = 1;
    p.spec.inference.replicas = 2;
    p.spec.inference.autoscaling = {
      minReplicas: 2,
      maxReplicas: 6,
      target: 70,
    };
    expect(
      (await cluster.request('POST', platforms, toV1beta1(p))).status,
    ).toBe(201);

    await cluster.until('HPA', () => exists(hpa));
    expect((await get(hpa)).body.spec).toEqual({
      scaleTargetRef: {
        apiVersion: 'cv.platform.tech/v1beta1',
        kind: 'InferencePlatform',
        name: 'scaled',
      },
      minReplicas: 2,
      maxReplicas: 6,
      metrics: [
        {
          type: 'Resource',
          resource: {
            name: 'cpu',
            target: { type: 'Utilization', averageUtilization: 70 },
          },
        },
      ],
    });
    // What an autoscaler reads and writes: the platform's scale subresource, with the servers' selector.
    const scalePath = `${platforms}/scaled/scale`;
    await cluster.until(
      'selector in the scale subresource',
      async () => !!(await get(scalePath)).body.status?.selector,
    );
    expect((await get(scalePath)).body.status.selector).toBe(
      'app.kubernetes.io/name=inference-service,app.kubernetes.io/instance=scaled,app.kubernetes.io/component=inference',
    );

    // Monitors for both tiers, accepted by the Prometheus Operator's own schemas.
    const monitors = '/apis/monitoring.coreos.com/v1/namespaces/default';
    await cluster.until(
      'monitors',
      async () =>
        (await exists(`${monitors}/servicemonitors/scaled-inference`)) &&
        exists(`${monitors}/podmonitors/scaled-qdrant`),
    );
    expect(
      (await get(`${monitors}/servicemonitors/scaled-inference`)).body.spec
        .endpoints,
    ).toEqual([{ port: 'http', path: '/metrics' }]);
    expect(
      (await get(`${monitors}/podmonitors/scaled-qdrant`)).body.spec
        .podMetricsEndpoints,
    ).toEqual([{ port: 'http', path: '/metrics' }]);

    // On the servers' queue: a ScaledObject (KEDA's schema accepts it) replaces the HPA.
    await patch('scaled', {
      spec: {
        inference: {
          autoscaling: {
            metric: 'queueDepth',
            target: 8,
            prometheusServerAddress:
              'http://prometheus-operated.monitoring:9090',
          },
        },
      },
    });
    await cluster.until(
      'ScaledObject instead of the HPA',
      async () => (await exists(scaledObject)) && !(await exists(hpa)),
    );
    const so = (await get(scaledObject)).body;
    expect(so.spec).toMatchObject({
      scaleTargetRef: {
        apiVersion: 'cv.platform.tech/v1beta1',
        kind: 'InferencePlatform',
        name: 'scaled',
      },
      minReplicaCount: 2,
      maxReplicaCount: 6,
      triggers: [
        {
          type: 'prometheus',
          metadata: {
            serverAddress: 'http://prometheus-operated.monitoring:9090',
            query:
              'sum(inference_queue_depth{namespace="default",pod=~"scaled-inference-.*"})',
            threshold: '8',
          },
        },
      ],
    });

    // An autoscaler's decision lands in the platform and reaches the Deployment; the operator keeps it.
    // As an autoscaler does: read, write, and again on a conflict (the
    // operator writes the platform's status meanwhile).
    await cluster.until(
      'scaled to 5 through the scale subresource',
      async () => {
        const scale = (await get(scalePath)).body;
        const res = await cluster.request('PUT', scalePath, {
          ...scale,
          spec: { replicas: 5 },
        });
        if (res.status !== 200 && res.status !== 409)
          throw new Error(
            `PUT scale answered ${res.status}: ${JSON.stringify(res.body)}`,
          );
        return res.status === 200;
      },
    );
    const deployment = `/apis/apps/v1/namespaces/${ns}/deployments/scaled-inference`;
    await cluster.until(
      'Deployment at 5',
      // The Deployment comes once Qdrant is Ready: it may not exist yet.
      async () => (await get(deployment)).body.spec?.replicas === 5,
    );
    expect(
      (await get(`${platforms}/scaled`)).body.spec.inference.replicas,
    ).toBe(5);

    // Autoscaling off: the ScaledObject goes, the monitors stay.
    await patch('scaled', { spec: { inference: { autoscaling: null } } });
    await cluster.until(
      'ScaledObject gone',
      async () => !(await exists(scaledObject)),
    );
    expect(await exists(`${monitors}/servicemonitors/scaled-inference`)).toBe(
      true,
    );
  });
});
