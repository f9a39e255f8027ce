import { LocalCluster } from '@cv-platform/local-cluster';
import { sampleInferencePlatform, toV1beta1 } from '@cv-platform/inference-platform-api';
import { loadKubeConfig } from './kube/loadKubeConfig';
import { Operator } from './Operator';

jest.setTimeout(180_000);

/**
 * A private control plane: restarting the API server must not disturb the
 * suites sharing the run's cluster.
 */
describe('operator across an API server restart', () => {
  let cluster: LocalCluster;
  let operator: Operator | undefined;
  beforeAll(async () => {
    cluster = await LocalCluster.start({ log: () => {} });
  });
  afterAll(async () => {
    await operator?.stop();
    await cluster.stop();
  });

  const platform = (name: string) => {
    const p = sampleInferencePlatform(name, 'default');
    p.spec.qdrant.replicas = 1;
    p.spec.inference.replicas = 1;
    return p;
  };
  const phase = async (name: string) =>
    (await cluster.request('GET', `/apis/cv.platform.tech/v1beta1/namespaces/default/inferenceplatforms/${name}`)).body.status?.phase;

  it('re-establishes its watches and converges changes made while it was down', async () => {
    operator = new Operator({
      kubeConfig: loadKubeConfig({ kubeconfigPath: cluster.kubeconfigPath }),
      namespaces: ['default'],
      workers: 2,
      ...cluster.qdrantUrlTemplates(),
    });
    await operator.start();
    await cluster.request('POST', '/apis/cv.platform.tech/v1beta1/namespaces/default/inferenceplatforms', toV1beta1(platform('before')));
    await cluster.until('before Ready', async () => (await phase('before')) === 'Ready');

    const restartsBefore = operator.caches.platforms.restarts;
    await cluster.restart('kube-apiserver');
    await cluster.request('POST', '/apis/cv.platform.tech/v1beta1/namespaces/default/inferenceplatforms', toV1beta1(platform('after')));
    await cluster.until('after Ready', async () => (await phase('after')) === 'Ready', 90_000);
    expect(operator.caches.platforms.restarts).toBeGreaterThan(restartsBefore);
    expect(await phase('before')).toBe('Ready');
  });
});
