import { KubeConfig } from '@kubernetes/client-node';

export interface KubeConfigSource {
  kubeconfigPath?: string;
  inCluster?: boolean;
  context?: string;
}

/** Loads a kubeconfig the way kubectl does unless told otherwise. */
export function loadKubeConfig(source: KubeConfigSource = {}): KubeConfig {
  const kc = new KubeConfig();
  if (source.inCluster) kc.loadFromCluster();
  else if (source.kubeconfigPath) kc.loadFromFile(source.kubeconfigPath);
  else kc.loadFromDefault();
  if (source.context) kc.setCurrentContext(source.context);
  return kc;
}
