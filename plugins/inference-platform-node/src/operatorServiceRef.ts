import { InputError } from '@backstage/errors';
import {
  coreServices,
  createServiceFactory,
  createServiceRef,
  LoggerService,
  RootConfigService,
} from '@backstage/backend-plugin-api';
import fs from 'node:fs';
import path from 'node:path';
import { JsonObject } from '@backstage/types';
import { ClusterDetails, loadKubeConfig, Logger, Operator } from '@cv-platform/operator';

/**
 * The operator embedded in this backend, or the reason there is none (no
 * cluster configured). One per backend process, shared by the plugin's router
 * and the catalog entity provider.
 *
 * @public
 */
export interface EmbeddedOperator {
  operator?: Operator;
  /** Why the plugin is read-only or unavailable, when it is. */
  unavailableReason?: string;
}

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
export function clusterDetails(config: RootConfigService, k8s?: ReturnType<RootConfigService['getOptionalConfig']>): ClusterDetails | undefined {
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
  const clusters = (config.getOptionalConfigArray('kubernetes.clusterLocatorMethods') ?? [])
    .filter(m => m.getString('type') === 'config')
    .flatMap(m => m.getOptionalConfigArray('clusters') ?? []);
  const found = clusters.find(c => c.getString('name') === name);
  if (!found) {
    throw new InputError(
      `inferencePlatform.kubernetes.cluster ${name} is not a cluster of kubernetes.clusterLocatorMethods (type config): ${clusters.map(c => c.getString('name')).join(', ') || 'none there'}`,
    );
  }
  return read(found);
}

const secondsToMs = (s: number | undefined) => (s === undefined ? undefined : s * 1000);

/** @public */
export function createEmbeddedOperator(
  config: RootConfigService,
  logger: LoggerService,
): EmbeddedOperator {
  const root = config.getOptionalConfig('inferencePlatform');
  const k8s = root?.getOptionalConfig('kubernetes');
  let kubeConfig;
  try {
    const cluster = clusterDetails(config, k8s);
    if (cluster) {
      kubeConfig = loadKubeConfig({ cluster });
      logger.info(`inference-platform: cluster ${cluster.name} at ${cluster.url}`);
    }
    const explicit = cluster || k8s?.getOptionalString('kubeconfigPath') || k8s?.getOptionalBoolean('inCluster');
    const home = process.env.HOME ?? '';
    const discoverable =
      !!process.env.KUBECONFIG ||
      !!process.env.KUBERNETES_SERVICE_HOST ||
      (home && fs.existsSync(path.join(home, '.kube', 'config')));
    // client-node falls back to http://localhost:8080 when it finds nothing;
    // that is never what a portal operator wants.
    if (!explicit && !discoverable) throw new Error('no kubeconfig found');
    kubeConfig ??= loadKubeConfig({
      kubeconfigPath: k8s?.getOptionalString('kubeconfigPath'),
      inCluster: k8s?.getOptionalBoolean('inCluster'),
      context: k8s?.getOptionalString('context'),
    });
    if (!kubeConfig.getCurrentCluster()) throw new Error('the kubeconfig has no current cluster');
  } catch (e) {
    const reason = `no Kubernetes cluster configured (${e instanceof Error ? e.message : e}); set inferencePlatform.kubernetes or KUBECONFIG`;
    logger.warn(`inference-platform: ${reason}; the plugin serves no platforms`);
    return { unavailableReason: reason };
  }
  const op = root?.getOptionalConfig('operator');
  const le = op?.getOptionalConfig('leaderElection');
  // Opt-in: the recommended production shape is this portal reading and
  // editing platforms and the standalone operator (its Helm chart) reconciling.
  const reconcile = op?.getOptionalBoolean('enabled') ?? false;
  if (!reconcile) {
    logger.info(
      'inference-platform: embedded operator off (inferencePlatform.operator.enabled: false); platforms are read and edited here and reconciled by the standalone operator',
    );
  }
  const operator = configured(() => new Operator({
    kubeConfig,
    // The inference-platform backend plugin releases it once its modules
    // have registered their child mutators.
    holdReconcile: true,
    namespaces: root?.getOptionalStringArray('namespaces'),
    reconcile,
    workers: op?.getOptionalNumber('workers') ?? 4,
    qdrantAccess: qdrantAccess(op?.getOptionalString('qdrantAccess')),
    qdrantUrlTemplate: op?.getOptionalString('qdrantUrlTemplate'),
    qdrantPeerUrlTemplate: op?.getOptionalString('qdrantPeerUrlTemplate'),
    leaderElection: {
      enabled: le?.getOptionalBoolean('enabled') ?? true,
      leaseName: le?.getOptionalString('leaseName'),
      leaseNamespace: le?.getOptionalString('leaseNamespace'),
      leaseDurationSeconds: le?.getOptionalNumber('leaseDurationSeconds'),
      identity: le?.getOptionalString('identity'),
      retryPeriodMs: le?.getOptionalNumber('retryPeriodMs'),
    },
    logger: operatorLogger(logger.child({ component: 'operator' })),
    credentialRefreshMs: secondsToMs(k8s?.getOptionalNumber('credentialRefreshSeconds')),
    watchTimeoutSeconds: k8s?.getOptionalNumber('watchTimeoutSeconds'),
    conversionWebhook: conversionWebhook(op?.getOptionalConfig('conversionWebhook')),
    migrateStorage: op?.getOptionalBoolean('migrateStorage'),
  }));
  return { operator };
}

/** Settings the operator refuses are configuration errors, named by their config path. */
function configured(make: () => Operator): Operator {
  try {
    return make();
  } catch (e) {
    throw new InputError(`inferencePlatform.operator: ${e instanceof Error ? e.message : e}`);
  }
}

function conversionWebhook(c: ReturnType<RootConfigService['getOptionalConfig']>) {
  if (!c) return undefined;
  const service = c.getOptionalConfig('service');
  return {
    port: c.getOptionalNumber('port'),
    host: c.getOptionalString('host'),
    url: c.getOptionalString('url'),
    service: service ? { namespace: service.getString('namespace'), name: service.getString('name') } : undefined,
    secretNamespace: c.getString('secretNamespace'),
  };
}

function qdrantAccess(value: string | undefined): 'direct' | 'apiServerProxy' | undefined {
  if (value === undefined || value === 'direct' || value === 'apiServerProxy') return value;
  throw new InputError(`inferencePlatform.operator.qdrantAccess must be direct or apiServerProxy, not ${value}`);
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
        const embedded = createEmbeddedOperator(config, logger);
        const { operator } = embedded;
        if (operator) {
          // Once every plugin has initialized: a module's credentials
          // provider is in place before the first request. Caches fill in
          // the background; routes answer 503 until synced rather than
          // holding up the whole backend's startup.
          lifecycle.addStartupHook(() => {
            operator.start().catch(e => logger.error(`inference-platform operator failed to start: ${e}`));
          });
          lifecycle.addShutdownHook(() => operator.stop());
        }
        return embedded;
      },
    }),
});
