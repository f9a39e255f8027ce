import { RootConfigService } from '@backstage/backend-plugin-api';
import { KubeClient, loadKubeConfig } from '@cv-platform/operator';

/**
 * A KubeClient for the cluster named by `inferencePlatform.kubernetes` (the
 * same keys the inference-platform backend plugin reads), or by the default
 * loading rules (KUBECONFIG, ~/.kube/config) when they are absent.
 *
 * The kubeconfig is loaded on first use, not at startup: a backend without
 * cluster access still starts, and the action reports why it cannot run.
 */
export function kubeClientFromConfig(
  config: RootConfigService,
): () => KubeClient {
  let client: KubeClient | undefined;
  return () => {
    if (!client) {
      const k = config.getOptionalConfig('inferencePlatform.kubernetes');
      try {
        client = new KubeClient(
          loadKubeConfig({
            kubeconfigPath: k?.getOptionalString('kubeconfigPath'),
            inCluster: k?.getOptionalBoolean('inCluster'),
            context: k?.getOptionalString('context'),
          }),
        );
      } catch (e) {
        throw new Error(
          `Cannot reach Kubernetes: loading the kubeconfig (inferencePlatform.kubernetes, or KUBECONFIG) failed: ${
            e instanceof Error ? e.message : e
          }`,
        );
      }
    }
    return client;
  };
}
