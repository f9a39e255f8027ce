export interface Config {
  /**
   * Read by the inference-platform scaffolder actions; the same keys as the
   * inference-platform backend plugin, so both reach the same cluster.
   */
  inferencePlatform?: {
    kubernetes?: {
      /**
       * Path of a kubeconfig file. When neither this nor `inCluster` is set,
       * the default loading rules apply (KUBECONFIG, ~/.kube/config, in-cluster).
       */
      kubeconfigPath?: string;
      /** Use the pod's service account. Default: false. */
      inCluster?: boolean;
      /** Context to use from the kubeconfig. Default: its current context. */
      context?: string;
      /** A cluster of `kubernetes.clusterLocatorMethods` (type config) by name. */
      cluster?: string;
      /** The same as `cluster`, inline. */
      clusterDetails?: {
        name: string;
        url: string;
        /** @visibility secret */
        serviceAccountToken?: string;
        caData?: string;
        caFile?: string;
        skipTLSVerify?: boolean;
      };
    };
    /**
     * Several clusters instead of `kubernetes`, the first the default; the
     * create action's `cluster` input names one.
     */
    clusters?: Array<{
      name: string;
      kubeconfigPath?: string;
      inCluster?: boolean;
      context?: string;
      cluster?: string;
      clusterDetails?: {
        name: string;
        url: string;
        /** @visibility secret */
        serviceAccountToken?: string;
        caData?: string;
        caFile?: string;
        skipTLSVerify?: boolean;
      };
    }>;
  };
}
