import { KubeConfig } from '@kubernetes/client-node';
import { createTestNamespace, deleteTestNamespace, testApi, testKubeconfigPath } from '@cv-platform/local-cluster';
import { KubeClient } from './KubeClient';

jest.setTimeout(60_000);

const api = testApi();

describe('KubeClient.apply against the API server', () => {
  let ns: string;
  let client: KubeClient;
  beforeAll(async () => {
    ns = await createTestNamespace(api, 'apply');
    const kc = new KubeConfig();
    kc.loadFromFile(testKubeconfigPath());
    client = new KubeClient(kc);
  });
  afterAll(async () => {
    client.close();
    await deleteTestNamespace(api, ns);
  });

  const configMap = (value: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'applied', namespace: ns },
    data: { value },
  });
  const path = () => `/api/v1/namespaces/${ns}/configmaps/applied`;

  it('answers with the whole object, or with its metadata alone when asked', async () => {
    const whole = await client.apply(path(), configMap('one'), 'apply-test');
    expect(whole.kind).toBe('ConfigMap');
    expect(whole.data).toEqual({ value: 'one' });

    const metadata = await client.apply(path(), configMap('two'), 'apply-test', { metadataOnly: true });
    expect(metadata.kind).toBe('PartialObjectMetadata');
    expect(metadata.data).toBeUndefined();
    expect(metadata.metadata.name).toBe('applied');
    // The version the write produced, which is all the reconciler reads of it.
    expect(Number(metadata.metadata.resourceVersion)).toBeGreaterThan(Number(whole.metadata.resourceVersion));
    // The write itself happened in full.
    expect((await client.get(path())).data).toEqual({ value: 'two' });
  });

  it('answers a dry run with metadata alone too, and stores nothing', async () => {
    const dryRun = await client.apply(path(), configMap('three'), 'apply-test', { dryRun: true, metadataOnly: true });
    expect(dryRun.kind).toBe('PartialObjectMetadata');
    expect((await client.get(path())).data).toEqual({ value: 'two' });
  });
});
