import { RootConfigService } from '@backstage/backend-plugin-api';
import { InputError } from '@backstage/errors';
import { KubeClient } from '@cv-platform/operator';
import { loadClusterKubeConfig } from '@cv-platform/plugin-inference-platform-node';

/**
 * KubeClients for the clusters the inference-platform backend plugin
 * manages (`inferencePlatform.clusters`, or the single
 * `inferencePlatform.kubernetes`; the same keys the plugin reads), by
 * cluster name, the default cluster without one.
 *
 * Each kubeconfig is loaded on first use, not at startup: a backend without
 * cluster access still starts, and the action reports why it cannot run.
 */
export function kubeClientFromConfig(
  config: RootConfigService,
): (cluster?: string) => KubeClient {
  const clients = new Map<string, KubeClient>();
  return cluster => {
    const key = cluster ?? '';
    let client = clients.get(key);
    if (!client) {
      try {
        client = new KubeClient(loadClusterKubeConfig(config, cluster).kubeConfig);
      } catch (e) {
        if (e instanceof InputError) throw e;
        throw new Error(
          `Cannot reach Kubernetes${cluster ? ` cluster ${cluster}` : ''}: loading its kubeconfig (inferencePlatform.clusters or inferencePlatform.kubernetes, or KUBECONFIG) failed: ${
            e instanceof Error ? e.message : e
          }`,
        );
      }
      clients.set(key, client);
    }
    return client;
  };
}
