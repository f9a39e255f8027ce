import { KubeConfig } from '@kubernetes/client-node';

/**
 * A cluster as the Backstage Kubernetes plugin's config describes one
 * (`kubernetes.clusterLocatorMethods[].clusters[]`, type config): its URL,
 * a service-account token and its CA.
 *
 * @public
 */
export interface ClusterDetails {
  name: string;
  url: string;
  serviceAccountToken?: string;
  caData?: string;
  caFile?: string;
  skipTLSVerify?: boolean;
}

/** @public */
export interface KubeConfigSource {
  kubeconfigPath?: string;
  inCluster?: boolean;
  context?: string;
  cluster?: ClusterDetails;
}

/**
 * Loads a kubeconfig the way kubectl does unless told otherwise.
 *
 * @public
 */
export function loadKubeConfig(source: KubeConfigSource = {}): KubeConfig {
  const kc = new KubeConfig();
  const c = source.cluster;
  if (c) {
    kc.loadFromOptions({
      clusters: [{ name: c.name, server: c.url, caData: c.caData, caFile: c.caFile, skipTLSVerify: !!c.skipTLSVerify }],
      users: [{ name: c.name, ...(c.serviceAccountToken ? { token: c.serviceAccountToken } : {}) }],
      contexts: [{ name: c.name, cluster: c.name, user: c.name }],
      currentContext: c.name,
    });
  } else if (source.inCluster) kc.loadFromCluster();
  else if (source.kubeconfigPath) kc.loadFromFile(source.kubeconfigPath);
  else kc.loadFromDefault();
  if (source.context) kc.setCurrentContext(source.context);
  return kc;
}
