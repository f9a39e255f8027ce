import { mockServices } from '@backstage/backend-test-utils';
import { InputError } from '@backstage/errors';
import { testKubeconfigPath } from '@cv-platform/local-cluster';
import { kubeClientFromConfig } from './kubeClientFromConfig';

describe('kubeClientFromConfig', () => {
  const config = mockServices.rootConfig({
    data: {
      inferencePlatform: {
        clusters: [
          { name: 'east', kubeconfigPath: testKubeconfigPath() },
          { name: 'west', kubeconfigPath: '/nonexistent/kubeconfig' },
        ],
      },
    },
  });

  it('reaches the default cluster without a name, and a configured one by its name', async () => {
    const clients = kubeClientFromConfig(config);
    const ns = await clients().get('/api/v1/namespaces/default');
    expect((ns as any).metadata.name).toBe('default');
    expect(clients('east')).toBeDefined();
  });

  it('names the clusters for an unknown one, and says why a configured one cannot be loaded', () => {
    const clients = kubeClientFromConfig(config);
    expect(() => clients('north')).toThrow(InputError);
    expect(() => clients('north')).toThrow('no cluster north; this portal manages east, west');
    expect(() => clients('west')).toThrow(/^Cannot reach Kubernetes cluster west: .*\/nonexistent\/kubeconfig/);
  });
});
