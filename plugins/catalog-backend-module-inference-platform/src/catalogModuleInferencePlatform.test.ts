import { createBackendModule, createServiceFactory } from '@backstage/backend-plugin-api';
import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { catalogProcessingExtensionPoint, EntityProvider, EntityProviderMutation } from '@backstage/plugin-catalog-node';
import {
  createTestNamespace,
  deleteTestNamespace,
  eventually,
  testApi,
  testKubeconfigPath,
} from '@cv-platform/local-cluster';
import { loadKubeConfig, Operator } from '@cv-platform/operator';
import { sampleInferencePlatform, toV1beta1 } from '@cv-platform/inference-platform-api';
import {
  embeddedOperatorServiceRef,
  inferencePlatformCatalogExtensionPoint,
} from '@cv-platform/plugin-inference-platform-node';
import { catalogModuleInferencePlatform } from './catalogModuleInferencePlatform';

jest.setTimeout(60_000);

describe('catalogModuleInferencePlatform', () => {
  const api = testApi();
  let ns: string;
  let operator: Operator;
  beforeAll(async () => {
    ns = await createTestNamespace(api, 'catmod');
    operator = new Operator({
      kubeConfig: loadKubeConfig({ kubeconfigPath: testKubeconfigPath() }),
      namespaces: [ns],
      reconcile: false,
    });
    await operator.start();
  });
  afterAll(async () => {
    await operator.stop();
    await deleteTestNamespace(api, ns);
  });

  it('runs the transformers other modules add through its extension point over every platform entity', async () => {
    const providers: EntityProvider[] = [];
    // Another catalog module, as an adopter would write it.
    const tagging = createBackendModule({
      pluginId: 'catalog',
      moduleId: 'platform-tags',
      register(reg) {
        reg.registerInit({
          deps: { platforms: inferencePlatformCatalogExtensionPoint },
          async init({ platforms }) {
            platforms.addEntityTransformer((entity, platform) => ({
              ...entity,
              metadata: {
                ...entity.metadata,
                tags: [...(entity.metadata.tags ?? []), `qdrant-${platform.spec.qdrant.storage?.size}`.toLowerCase()],
              },
            }));
            platforms.addEntityTransformer(entity => ({ ...entity, spec: { ...entity.spec, lifecycle: 'production' } }));
          },
        });
      },
    });
    await startTestBackend({
      extensionPoints: [
        [catalogProcessingExtensionPoint, { addEntityProvider: (...p: any[]) => providers.push(...p.flat()), addProcessor: () => {} } as any],
      ],
      features: [
        catalogModuleInferencePlatform,
        tagging,
        createServiceFactory({ service: embeddedOperatorServiceRef, deps: {}, factory: () => ({ operator, clusters: [{ name: 'default', default: true, operator }] }) }),
        mockServices.rootConfig.factory({ data: { app: { baseUrl: 'http://portal' } } }),
      ],
    });
    expect(providers.map(p => p.getProviderName())).toEqual(['inference-platform']);

    const mutations: EntityProviderMutation[] = [];
    await providers[0].connect({ applyMutation: async m => void mutations.push(m), refresh: async () => {} });
    const p = sampleInferencePlatform('tagged', ns);
    await api.request('POST', `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`, toV1beta1(p));
    const published = await eventually('entity published', async () => {
      const last = mutations[mutations.length - 1];
      return last?.type === 'full' && last.entities.length === 1 ? last.entities[0].entity : undefined;
    });
    expect(published.metadata.tags).toEqual(['inference-platform', 'qdrant', 'qdrant-10gi']);
    expect(published.spec).toMatchObject({ type: 'inference-platform', lifecycle: 'production' });
    (providers[0] as any).close();
  });
});
