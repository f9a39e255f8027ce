import {
  createTestNamespace,
  deleteTestNamespace,
  eventually,
  testApi,
} from './testCluster';
import { LocalCluster } from './LocalCluster';
import { GPU_PRODUCT_LABEL, GPU_RESOURCE, LOCAL_GPU_PRODUCT } from './fakeNodes';

jest.setTimeout(120_000);

const api = testApi();
let ns: string;

beforeEach(async () => {
  ns = await createTestNamespace(api, 'lc');
});
afterEach(async () => {
  await deleteTestNamespace(api, ns);
});

const labels = (app: string) => ({ app });
const podTemplate = (app: string, extra: Record<string, unknown> = {}) => ({
  metadata: { labels: labels(app) },
  spec: { containers: [{ name: 'main', image: 'busybox' }], ...extra },
});

async function podsOf(app: string) {
  const res = await api.request('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=app%3D${app}`);
  return res.body.items as any[];
}

const isReady = (pod: any) =>
  (pod.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');

describe('local control plane', () => {
  it('runs Deployments and StatefulSets until their Pods are Ready', async () => {
    await api.apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: ns },
      spec: { replicas: 2, selector: { matchLabels: labels('web') }, template: podTemplate('web') },
    });
    await api.apply({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: ns },
      spec: {
        replicas: 2,
        serviceName: 'db',
        selector: { matchLabels: labels('db') },
        template: podTemplate('db'),
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: {
              accessModes: ['ReadWriteOnce'],
              storageClassName: 'gp2',
              resources: { requests: { storage: '1Gi' } },
            },
          },
        ],
      },
    });
    await eventually('web pods ready', async () => (await podsOf('web')).filter(isReady).length === 2);
    await eventually('db pods ready', async () => (await podsOf('db')).filter(isReady).length === 2);
    const sts = await api.request('GET', `/apis/apps/v1/namespaces/${ns}/statefulsets/db`);
    await eventually('statefulset status', async () => {
      const s = await api.request('GET', `/apis/apps/v1/namespaces/${ns}/statefulsets/db`);
      return s.body.status?.readyReplicas === 2;
    });
    expect(sts.status).toBe(200);
    const pvcs = await api.request('GET', `/api/v1/namespaces/${ns}/persistentvolumeclaims`);
    expect(pvcs.body.items.map((p: any) => p.status.phase)).toEqual(['Bound', 'Bound']);
  });

  it('garbage-collects dependents when their owner is deleted', async () => {
    const owner = await api.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owner', namespace: ns },
      data: { a: 'b' },
    });
    await api.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'dependent',
        namespace: ns,
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid },
        ],
      },
      data: { c: 'd' },
    });
    const dependent = await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/dependent`);
    expect(dependent.status).toBe(200);
    await api.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/owner`);
    await eventually('dependent collected', async () =>
      (await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/dependent`)).status === 404,
    );
  });

  it('schedules GPU pods only where the requested GPU exists', async () => {
    const gpuPod = (name: string, product: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns, labels: labels(name) },
      spec: {
        containers: [{ name: 'main', image: 'cuda', resources: { limits: { [GPU_RESOURCE]: '1' } } }],
        tolerations: [{ key: GPU_RESOURCE, operator: 'Exists', effect: 'NoSchedule' }],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: GPU_PRODUCT_LABEL, operator: 'In', values: [product] }] },
              ],
            },
          },
        },
      },
    });
    await api.apply(gpuPod('fits', LOCAL_GPU_PRODUCT));
    await api.apply(gpuPod('no-such-gpu', 'NVIDIA-H200'));
    const placed = await eventually('GPU pod ready', async () => {
      const [pod] = await podsOf('fits');
      return pod && isReady(pod) ? pod : undefined;
    });
    expect(placed.spec.nodeName).toBe('kwok-gpu-b1');

    const event = await eventually('FailedScheduling event', async () => {
      const res = await api.request(
        'GET',
        `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3Dno-such-gpu,reason%3DFailedScheduling`,
      );
      return res.body.items[0];
    });
    expect(event.message).toMatch(/didn't match Pod's node affinity\/selector/);
    const [pending] = await podsOf('no-such-gpu');
    expect(pending.status.phase).toBe('Pending');
    expect(pending.spec.nodeName).toBeUndefined();
  });
});

describe('LocalCluster lifecycle', () => {
  it('starts a private control plane and leaves no process behind', async () => {
    const cluster = await LocalCluster.start({ log: () => {} });
    const pids = cluster.pids();
    expect(pids).toHaveLength(5);
    for (const pid of pids) expect(() => process.kill(pid, 0)).not.toThrow();
    const nodes = await cluster.request('GET', '/api/v1/nodes');
    expect(nodes.body.items).toHaveLength(4);
    await cluster.stop();
    for (const pid of pids) {
      expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    }
  });
});

describe('LocalCluster restart', () => {
  it('restarts the API server on the same port with its data intact', async () => {
    const cluster = await LocalCluster.start({ log: () => {} });
    try {
      await cluster.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep', namespace: 'default' }, data: { a: '1' } });
      const before = cluster.pids();
      await cluster.restart('kube-apiserver');
      const after = cluster.pids();
      expect(after[1]).not.toBe(before[1]);
      const cm = await cluster.request('GET', '/api/v1/namespaces/default/configmaps/keep');
      expect(cm.body.data).toEqual({ a: '1' });
    } finally {
      await cluster.stop();
    }
  });
});
