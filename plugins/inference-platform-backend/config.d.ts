export interface Config {
  /** Configuration of the inference-platform plugin and its embedded operator. */
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
      /**
       * A cluster of the Kubernetes plugin's config
       * (`kubernetes.clusterLocatorMethods`, type `config`) by name: its url,
       * serviceAccountToken and CA are used, no kubeconfig.
       */
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
      /**
       * How often credentials are re-read from the kubeconfig (exec plugins,
       * rotated service-account tokens). Open watches are kept. Default: 60.
       */
      credentialRefreshSeconds?: number;
      /**
       * Server-side timeout of each informer watch, after which it resumes
       * from the last resourceVersion. Default: a random 240..300.
       */
      watchTimeoutSeconds?: number;
    };
    /**
     * Several clusters, instead of `kubernetes`: the first is the default
     * (meant where a request names none). Platforms are listed, streamed and
     * catalogued per cluster; with more than one, catalog entity names
     * start with the cluster's name. Each entry takes the settings of
     * `kubernetes` (one of cluster, clusterDetails, kubeconfigPath with
     * context, inCluster) plus its own namespaces and Qdrant access.
     * The conversion webhook and storage migration run for the default
     * cluster only.
     */
    clusters?: Array<{
      /** A DNS label: it appears in entity names, URLs and `<cluster>/<namespace>/<name>` references. */
      name: string;
      kubeconfigPath?: string;
      inCluster?: boolean;
      context?: string;
      /** A cluster of `kubernetes.clusterLocatorMethods` (type config) by name. */
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
      credentialRefreshSeconds?: number;
      watchTimeoutSeconds?: number;
      /** Namespaces to watch in this cluster. Default: inferencePlatform.namespaces. */
      namespaces?: string[];
      /** Overrides inferencePlatform.operator.qdrantAccess for this cluster. */
      qdrantAccess?: 'direct' | 'apiServerProxy';
      /** Overrides inferencePlatform.operator.qdrantUrlTemplate for this cluster. */
      qdrantUrlTemplate?: string;
      /** Overrides inferencePlatform.operator.qdrantPeerUrlTemplate for this cluster. */
      qdrantPeerUrlTemplate?: string;
    }>;
    catalog?: {
      /** Owner of platform entities without an owner annotation. Default: group:default/ml-platform. */
      defaultOwner?: string;
      /** System of platform entities. Default: cv-inference-platform. */
      defaultSystem?: string;
    };
    feed?: {
      /**
       * How often the read permission of an open live feed (`/events`) is
       * asked again; a stream whose user may no longer read ends. Streams
       * also end when their credentials expire, and the client reconnects
       * with renewed ones. Default: 300.
       */
      permissionRecheckSeconds?: number;
    };
    /** Namespaces to watch. Default: all namespaces. */
    namespaces?: string[];
    operator?: {
      /**
       * Run the operator's reconcile loop in this backend. Default: false:
       * in production the standalone operator (deploy/helm) reconciles and
       * the portal reads and edits; true suits a single-process setup such
       * as this repository's dev portal.
       */
      enabled?: boolean;
      /** Concurrent reconcile workers. Default: 4. */
      workers?: number;
      /**
       * How the operator reaches each platform's Qdrant REST API (cluster
       * state): `direct` through the Service's cluster DNS name (a backend
       * running in the cluster) or `apiServerProxy` through the API server's
       * service proxy (a backend outside it; needs get on services/proxy).
       * Default: direct.
       */
      qdrantAccess?: 'direct' | 'apiServerProxy';
      /**
       * Reach each platform's Qdrant at this URL instead of its Service's
       * cluster DNS name: a gateway or port-forward for a backend outside the
       * cluster, or the local cluster's simulated Qdrant. `{namespace}`,
       * `{name}` (the platform) and `{statefulSet}` are filled in, e.g.
       * `https://qdrant-gw.example.com/{namespace}/{statefulSet}`. Not with
       * qdrantAccess apiServerProxy.
       */
      qdrantUrlTemplate?: string;
      /**
       * As qdrantUrlTemplate, for one Qdrant peer by its pod: `{pod}` is filled
       * in too. Scale-down drains talk to single peers; without it they use
       * the pod's DNS name under the headless Service.
       */
      qdrantPeerUrlTemplate?: string;
      /**
       * Serve the CRD's conversion webhook (cv.platform.tech v1alpha1 <->
       * v1beta1) from this backend and keep its certificate (a Secret in
       * secretNamespace) and the CRD's clientConfig current. Leave it to the
       * standalone operator in production; set it where this backend is the
       * only operator (the dev portal on the local cluster).
       */
      conversionWebhook?: {
        /** HTTPS port; 0 picks a free one. Default: 9443. */
        port?: number;
        /** Listen address. Default: all. */
        host?: string;
        /** Where the API server calls it, for a backend outside the cluster; `{port}` is filled in, e.g. https://127.0.0.1:{port}/convert. */
        url?: string;
        /** The Service in front of this backend that the API server calls instead (in-cluster). */
        service?: { namespace: string; name: string };
        /** Namespace of the Secret holding the webhook's certificate. */
        secretNamespace: string;
      };
      /** Once leading, rewrite platforms still stored at v1alpha1 and drop it from the CRD's storedVersions. Default: false. */
      migrateStorage?: boolean;
      leaderElection?: {
        /** Only the Lease holder reconciles. Default: true. */
        enabled?: boolean;
        /** Default: inference-platform-operator. */
        leaseName?: string;
        /** Default: default. */
        leaseNamespace?: string;
        /** Default: 15. */
        leaseDurationSeconds?: number;
        /** How often the leader renews and standbys retry, in ms. Default: 2000. */
        retryPeriodMs?: number;
        /** This instance's identity in the Lease. Default: hostname-pid-random. */
        identity?: string;
      };
    };
  };
}
