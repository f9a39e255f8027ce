import { InputError } from '@backstage/errors';
import {
  coreServices,
  createServiceFactory,
  createServiceRef,
  LoggerService,
  RootConfigService,
  RootLifecycleService,
} from '@backstage/backend-plugin-api';
import fs from 'node:fs';
import path from 'node:path';
import { JsonObject } from '@backstage/types';
import {
  ClusterDetails,
  loadKubeConfig,
  Logger,
  Operator,
} from '@cv-platform/operator';

/**
 * One cluster this backend manages: its operator, or the reason there is none.
 *
 * @public
 */
export interface EmbeddedCluster {
  /** Its name in `inferencePlatform.clusters` (`default` for the single `inferencePlatform.kubernetes` cluster). */
  name: string;
  /** The first configured cluster, meant where a request names none. */
  default: boolean;
  operator?: Operator;
  /** Why this cluster is unavailable, when it is. */
  unavailableReason?: string;
}

/**
 * The operators embedded in this backend, one per managed cluster, or the
 * reasons there are none (no cluster configured). One per backend process,
 * shared by the plugin's router and the catalog entity provider.
 *
 * @public
 */
export interface EmbeddedOperator {
  /** The default cluster's operator. */
  operator?: Operator;
  /** Why the default cluster is unavailable, when it is. */
  unavailableReason?: string;
  /** Every managed cluster, the default first. */
  clusters: EmbeddedCluster[];
}

/** Cluster names appear in entity names, URLs and `<cluster>/<namespace>/<name>` references. */
const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Backstage's logger takes JSON metadata; the operator's is looser. */
function operatorLogger(l: LoggerService): Logger {
  const meta = (m?: Record<string, unknown>) => m as JsonObject | undefined;
  return {
    info: (m, x) => l.info(m, meta(x)),
    warn: (m, x) => l.warn(m, meta(x)),
    error: (m, x) => l.error(m, meta(x)),
    debug: (m, x) => l.debug(m, meta(x)),
  };
}

/**
 * The cluster to use when the config names one: `inferencePlatform.kubernetes.cluster`
 * is the name of a cluster in the Kubernetes plugin's config
 * (`kubernetes.clusterLocatorMethods`, type config), or the same shape inline
 * (`inferencePlatform.kubernetes.clusterDetails`). Otherwise kubeconfig rules apply.
 *
 * @public
 */
export function clusterDetails(
  config: RootConfigService,
  k8s?: ReturnType<RootConfigService['getOptionalConfig']>,
  configPath = 'inferencePlatform.kubernetes',
): ClusterDetails | undefined {
  const read = (c: NonNullable<typeof k8s>): ClusterDetails => ({
    name: c.getString('name'),
    url: c.getString('url'),
    serviceAccountToken: c.getOptionalString('serviceAccountToken'),
    caData: c.getOptionalString('caData'),
    caFile: c.getOptionalString('caFile'),
    skipTLSVerify: c.getOptionalBoolean('skipTLSVerify'),
  });
  const inline = k8s?.getOptionalConfig('clusterDetails');
  if (inline) return read(inline);
  const name = k8s?.getOptionalString('cluster');
  if (!name) return undefined;
  const clusters = (
    config.getOptionalConfigArray('kubernetes.clusterLocatorMethods') ?? []
  )
    .filter(m => m.getString('type') === 'config')
    .flatMap(m => m.getOptionalConfigArray('clusters') ?? []);
  const found = clusters.find(c => c.getString('name') === name);
  if (!found) {
    throw new InputError(
      `${configPath}.cluster ${name} is not a cluster of kubernetes.clusterLocatorMethods (type config): ${
        clusters.map(c => c.getString('name')).join(', ') || 'none there'
      }`,
    );
  }
  return read(found);
}

const secondsToMs = (s: number | undefined) =>
  s === undefined ? undefined : s * 1000;

type ConfigSection = ReturnType<RootConfigService['getOptionalConfig']>;

/**
 * The clusters of `inferencePlatform.clusters` (the first is the default), or
 * the single `inferencePlatform.kubernetes` cluster named `default`.
 */
function clusterSections(root: ConfigSection): ClusterSection[] {
  const list = root?.getOptionalConfigArray('clusters');
  if (!list)
    return [
      {
        name: 'default',
        k8s: root?.getOptionalConfig('kubernetes'),
        path: 'inferencePlatform.kubernetes',
      },
    ];
  if (root?.has('kubernetes')) {
    throw new InputError(
      'inferencePlatform: set either kubernetes (one cluster) or clusters (several), not both',
    );
  }
  if (!list.length)
    throw new InputError(
      'inferencePlatform.clusters is empty: name at least one cluster',
    );
  const seen = new Set<string>();
  return list.map((c, i) => {
    const name = c.getString('name');
    if (!CLUSTER_NAME.test(name)) {
      throw new InputError(
        `inferencePlatform.clusters[${i}].name ${JSON.stringify(
          name,
        )} must be a DNS label (lower case letters, digits and -): it appears in catalog entity names and URLs`,
      );
    }
    if (seen.has(name))
      throw new InputError(
        `inferencePlatform.clusters[${i}].name ${name} is used twice`,
      );
    seen.add(name);
    return { name, k8s: c, path: `inferencePlatform.clusters[${i}]` };
  });
}

/**
 * One cluster a {@link ClusterSupplier} hands the plugin.
 *
 * @public
 */
export interface SuppliedCluster {
  /** A DNS label, as in `inferencePlatform.clusters[].name`. */
  name: string;
  /** Where and how to reach it (URL, CA, a service-account token). */
  details: ClusterDetails;
  /** Namespaces to watch there. Default: inferencePlatform.namespaces. */
  namespaces?: string[];
}

/**
 * Supplies the clusters the plugin manages instead of
 * `inferencePlatform.kubernetes` / `inferencePlatform.clusters`: a fleet
 * registry, a cloud's cluster list. Asked once, when the embedded operator
 * service starts (see {@link createEmbeddedOperatorServiceFactory}).
 *
 * @public
 */
export interface ClusterSupplier {
  /** The clusters, the default first. */
  getClusters(): Promise<SuppliedCluster[]>;
}

interface ClusterSection {
  name: string;
  k8s: ConfigSection;
  path: string;
  /** A supplied cluster's, instead of config. */
  details?: ClusterDetails;
  namespaces?: string[];
}

function suppliedSections(supplied: SuppliedCluster[]): ClusterSection[] {
  if (!supplied.length)
    throw new InputError('the cluster supplier returned no cluster');
  const seen = new Set<string>();
  return supplied.map(c => {
    if (!CLUSTER_NAME.test(c.name)) {
      throw new InputError(
        `supplied cluster name ${JSON.stringify(
          c.name,
        )} must be a DNS label (lower case letters, digits and -)`,
      );
    }
    if (seen.has(c.name))
      throw new InputError(`supplied cluster name ${c.name} is used twice`);
    seen.add(c.name);
    return {
      name: c.name,
      k8s: undefined,
      path: `cluster ${c.name}`,
      details: c.details,
      namespaces: c.namespaces,
    };
  });
}

/** @public */
export function createEmbeddedOperator(
  config: RootConfigService,
  logger: LoggerService,
  options: {
    /** The clusters, instead of the configured ones. */
    clusters?: SuppliedCluster[];
  } = {},
): EmbeddedOperator {
  const root = config.getOptionalConfig('inferencePlatform');
  const op = root?.getOptionalConfig('operator');
  // Opt-in: the recommended production shape is this portal reading and
  // editing platforms and the standalone operator (its Helm chart) reconciling.
  const reconcile = op?.getOptionalBoolean('enabled') ?? false;
  if (!reconcile) {
    logger.info(
      'inference-platform: embedded operator off (inferencePlatform.operator.enabled: false); platforms are read and edited here and reconciled by the standalone operator',
    );
  }
  const sections = options.clusters
    ? suppliedSections(options.clusters)
    : clusterSections(root);
  const clusters = sections.map(
    (
      { name, k8s, path: configPath, details, namespaces },
      i,
    ): EmbeddedCluster => {
      const isDefault = i === 0;
      const kubeConfig = details
        ? loadKubeConfig({ cluster: details })
        : clusterKubeConfig(
            config,
            k8s,
            configPath,
            sections.length > 1 ? name : undefined,
            logger,
          );
      if (typeof kubeConfig === 'string')
        return { name, default: isDefault, unavailableReason: kubeConfig };
      const le = op?.getOptionalConfig('leaderElection');
      const operator = configured(
        () =>
          new Operator({
            kubeConfig,
            // The inference-platform backend plugin releases it once its modules
            // have registered their child mutators.
            holdReconcile: true,
            namespaces:
              namespaces ??
              k8s?.getOptionalStringArray('namespaces') ??
              root?.getOptionalStringArray('namespaces'),
            reconcile,
            workers: op?.getOptionalNumber('workers') ?? 4,
            // Each cluster's Qdrant may sit behind its own gateway.
            qdrantAccess: qdrantAccess(
              k8s?.getOptionalString('qdrantAccess') ??
                op?.getOptionalString('qdrantAccess'),
            ),
            qdrantUrlTemplate:
              k8s?.getOptionalString('qdrantUrlTemplate') ??
              op?.getOptionalString('qdrantUrlTemplate'),
            qdrantPeerUrlTemplate:
              k8s?.getOptionalString('qdrantPeerUrlTemplate') ??
              op?.getOptionalString('qdrantPeerUrlTemplate'),
            leaderElection: {
              enabled: le?.getOptionalBoolean('enabled') ?? true,
              leaseName: le?.getOptionalString('leaseName'),
              leaseNamespace: le?.getOptionalString('leaseNamespace'),
              leaseDurationSeconds: le?.getOptionalNumber(
                'leaseDurationSeconds',
              ),
              identity: le?.getOptionalString('identity'),
              retryPeriodMs: le?.getOptionalNumber('retryPeriodMs'),
            },
            logger: operatorLogger(
              logger.child({
                component: 'operator',
                ...(sections.length > 1 ? { cluster: name } : {}),
              }),
            ),
            credentialRefreshMs: secondsToMs(
              k8s?.getOptionalNumber('credentialRefreshSeconds'),
            ),
            watchTimeoutSeconds: k8s?.getOptionalNumber('watchTimeoutSeconds'),
            // One CRD conversion endpoint per backend: the default cluster's. Other
            // clusters get theirs from their own standalone operator.
            conversionWebhook: isDefault
              ? conversionWebhook(op?.getOptionalConfig('conversionWebhook'))
              : undefined,
            migrateStorage: isDefault
              ? op?.getOptionalBoolean('migrateStorage')
              : undefined,
          }),
      );
      return { name, default: isDefault, operator };
    },
  );
  return {
    operator: clusters[0].operator,
    unavailableReason: clusters[0].unavailableReason,
    clusters,
  };
}

/** The cluster's kubeconfig, or why there is none. */
function clusterKubeConfig(
  config: RootConfigService,
  k8s: ConfigSection,
  configPath: string,
  /** Set when there are several clusters, for the log. */
  label: string | undefined,
  logger: LoggerService,
): ReturnType<typeof loadKubeConfig> | string {
  const what = label ? `cluster ${label}` : 'cluster';
  try {
    const cluster = clusterDetails(config, k8s, configPath);
    if (cluster) {
      logger.info(
        `inference-platform: ${what} ${cluster.name} at ${cluster.url}`,
      );
      return loadKubeConfig({ cluster });
    }
    const explicit =
      k8s?.getOptionalString('kubeconfigPath') ||
      k8s?.getOptionalBoolean('inCluster');
    const home = process.env.HOME ?? '';
    const discoverable =
      !label &&
      (!!process.env.KUBECONFIG ||
        !!process.env.KUBERNETES_SERVICE_HOST ||
        (home && fs.existsSync(path.join(home, '.kube', 'config'))));
    // client-node falls back to http://localhost:8080 when it finds nothing;
    // that is never what a portal operator wants. One of several clusters is
    // never found by the default rules: they would all find the same one.
    if (!explicit && !discoverable)
      throw new Error(
        label
          ? `${configPath} names no cluster, kubeconfigPath or inCluster`
          : 'no kubeconfig found',
      );
    const kubeConfig = loadKubeConfig({
      kubeconfigPath: k8s?.getOptionalString('kubeconfigPath'),
      inCluster: k8s?.getOptionalBoolean('inCluster'),
      context: k8s?.getOptionalString('context'),
    });
    if (!kubeConfig.getCurrentCluster())
      throw new Error('the kubeconfig has no current cluster');
    return kubeConfig;
  } catch (e) {
    const reason = label
      ? `${what} not available (${e instanceof Error ? e.message : e})`
      : `no Kubernetes cluster configured (${
          e instanceof Error ? e.message : e
        }); set inferencePlatform.kubernetes or KUBECONFIG`;
    logger.warn(
      `inference-platform: ${reason}; the plugin serves no platforms${
        label ? ' from it' : ''
      }`,
    );
    return reason;
  }
}

/** Settings the operator refuses are configuration errors, named by their config path. */
function configured(make: () => Operator): Operator {
  try {
    return make();
  } catch (e) {
    throw new InputError(
      `inferencePlatform.operator: ${e instanceof Error ? e.message : e}`,
    );
  }
}

function conversionWebhook(
  c: ReturnType<RootConfigService['getOptionalConfig']>,
) {
  if (!c) return undefined;
  const service = c.getOptionalConfig('service');
  return {
    port: c.getOptionalNumber('port'),
    host: c.getOptionalString('host'),
    url: c.getOptionalString('url'),
    service: service
      ? {
          namespace: service.getString('namespace'),
          name: service.getString('name'),
        }
      : undefined,
    secretNamespace: c.getString('secretNamespace'),
  };
}

function qdrantAccess(
  value: string | undefined,
): 'direct' | 'apiServerProxy' | undefined {
  if (value === undefined || value === 'direct' || value === 'apiServerProxy')
    return value;
  throw new InputError(
    `inferencePlatform.operator.qdrantAccess must be direct or apiServerProxy, not ${value}`,
  );
}

/** @public */
export const embeddedOperatorServiceRef = createServiceRef<EmbeddedOperator>({
  id: 'inference-platform.operator',
  scope: 'root',
  defaultFactory: async service =>
    createServiceFactory({
      service,
      deps: {
        config: coreServices.rootConfig,
        logger: coreServices.rootLogger,
        lifecycle: coreServices.rootLifecycle,
      },
      async factory({ config, logger, lifecycle }) {
        return startWithBackend(
          createEmbeddedOperator(config, logger),
          logger,
          lifecycle,
        );
      },
    }),
});

/**
 * The embedded operator service with its clusters from a supplier instead
 * of config: install it in the backend
 * (`backend.add(createEmbeddedOperatorServiceFactory({ clusterSupplier }))`)
 * and every consumer (the plugin, the catalog module, the metrics module)
 * uses those clusters.
 *
 * @public
 */
export function createEmbeddedOperatorServiceFactory(options: {
  clusterSupplier: (deps: {
    config: RootConfigService;
    logger: LoggerService;
  }) => ClusterSupplier;
}) {
  return createServiceFactory({
    service: embeddedOperatorServiceRef,
    deps: {
      config: coreServices.rootConfig,
      logger: coreServices.rootLogger,
      lifecycle: coreServices.rootLifecycle,
    },
    async factory({ config, logger, lifecycle }) {
      const clusters = await options
        .clusterSupplier({ config, logger })
        .getClusters();
      logger.info(
        `inference-platform: ${
          clusters.length
        } cluster(s) from the cluster supplier: ${clusters
          .map(c => c.name)
          .join(', ')}`,
      );
      return startWithBackend(
        createEmbeddedOperator(config, logger, { clusters }),
        logger,
        lifecycle,
      );
    },
  });
}

function startWithBackend(
  embedded: EmbeddedOperator,
  logger: LoggerService,
  lifecycle: RootLifecycleService,
): EmbeddedOperator {
  for (const { name, operator } of embedded.clusters) {
    if (!operator) continue;
    // Once every plugin has initialized: a module's credentials
    // provider is in place before the first request. Caches fill in
    // the background; routes answer 503 until synced rather than
    // holding up the whole backend's startup.
    lifecycle.addStartupHook(() => {
      operator
        .start()
        .catch(e =>
          logger.error(
            `inference-platform operator (cluster ${name}) failed to start: ${e}`,
          ),
        );
    });
    lifecycle.addShutdownHook(() => operator.stop());
  }
  return embedded;
}

/**
 * The kubeconfig of one managed cluster, by its name in
 * `inferencePlatform.clusters` (the default cluster without a name), for
 * modules that reach the clusters themselves (the scaffolder action). Throws
 * an InputError naming the clusters for an unknown name, and an Error with
 * the reason when the cluster is configured but cannot be loaded.
 *
 * @public
 */
export function loadClusterKubeConfig(
  config: RootConfigService,
  cluster?: string,
): { name: string; kubeConfig: ReturnType<typeof loadKubeConfig> } {
  const sections = clusterSections(
    config.getOptionalConfig('inferencePlatform'),
  );
  const section =
    cluster === undefined
      ? sections[0]
      : sections.find(s => s.name === cluster);
  if (!section) {
    throw new InputError(
      `no cluster ${cluster}; this portal manages ${sections
        .map(s => s.name)
        .join(', ')}`,
    );
  }
  const quiet: LoggerService = { ...silentLogger(), child: () => quiet };
  const kubeConfig = clusterKubeConfig(
    config,
    section.k8s,
    section.path,
    sections.length > 1 ? section.name : undefined,
    quiet,
  );
  if (typeof kubeConfig === 'string') throw new Error(kubeConfig);
  return { name: section.name, kubeConfig };
}

/**
 * The names of the managed clusters, the default first (`default` alone
 * for the single `inferencePlatform.kubernetes` cluster).
 *
 * @public
 */
export function managedClusterNames(config: RootConfigService): string[] {
  return clusterSections(config.getOptionalConfig('inferencePlatform')).map(
    s => s.name,
  );
}

function silentLogger(): Omit<LoggerService, 'child'> {
  const none = () => {};
  return { info: none, warn: none, error: none, debug: none };
}
