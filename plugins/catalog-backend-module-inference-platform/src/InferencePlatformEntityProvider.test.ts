import { EntityProviderConnection, EntityProviderMutation } from '@backstage/plugin-catalog-node';
import { mockServices } from '@backstage/backend-test-utils';
import {
  createTestNamespace,
  deleteTestNamespace,
  eventually,
  testApi,
  testKubeconfigPath,
  testQdrantUrlTemplates,
} from '@cv-platform/local-cluster';
import { loadKubeConfig, Operator } from '@cv-platform/operator';
import { sampleInferencePlatform, toV1beta1 } from '@cv-platform/inference-platform-api';
import { InferencePlatformEntityProvider } from './InferencePlatformEntityProvider';

jest.setTimeout(60_000);

describe('InferencePlatformEntityProvider', () => {
  const api = testApi();
  let ns: string;
  let operator: Operator;
  beforeEach(async () => {
    ns = await createTestNamespace(api, 'cat');
    operator = new Operator({
      kubeConfig: loadKubeConfig({ kubeconfigPath: testKubeconfigPath() }),
      namespaces: [ns],
      ...testQdrantUrlTemplates(),
      reconcile: false,
    });
    await operator.start();
  });
  afterEach(async () => {
    await operator.stop();
    await deleteTestNamespace(api, ns);
  });

  it('publishes each platform as a Resource and removes it with its CR', async () => {
    const mutations: EntityProviderMutation[] = [];
    const connection: EntityProviderConnection = {
      applyMutation: async m => {
        mutations.push(m);
      },
      refresh: async () => {},
    };
    const provider = new InferencePlatformEntityProvider(
      operator,
      { appBaseUrl: 'http://portal', defaultOwner: 'group:default/ml-platform', defaultSystem: 'cv-inference-platform', cluster: 'default' },
      mockServices.logger.mock(),
      50,
    );
    await provider.connect(connection);

    const p = sampleInferencePlatform('search', ns);
    p.metadata.annotations = {
      'cv.platform.tech/owner': 'group:default/vision',
      'cv.platform.tech/catalog-entity': 'component:default/image-search',
    };
    await api.request('POST', `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`, toV1beta1(p));
    const published = await eventually('entity published', async () => {
      const last = mutations[mutations.length - 1];
      return last?.type === 'full' && last.entities.length === 1 ? last.entities[0].entity : undefined;
    });
    expect(published).toMatchObject({
      kind: 'Resource',
      metadata: {
        name: `${ns}.search`,
        annotations: {
          'cv.platform.tech/inference-platform': `${ns}/search`,
          'backstage.io/kubernetes-label-selector': 'cv.platform.tech/platform=search',
          'backstage.io/kubernetes-namespace': ns,
        },
        links: [{ url: `http://portal/inference-platforms/${ns}/search` }],
      },
      spec: {
        type: 'inference-platform',
        owner: 'group:default/vision',
        system: 'cv-inference-platform',
        dependencyOf: ['component:default/image-search'],
      },
    });

    await api.request('DELETE', `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms/search`);
    await eventually('entity removed', async () => {
      const last = mutations[mutations.length - 1];
      return last?.type === 'full' && last.entities.length === 0;
    });
    provider.close();
  });
});
