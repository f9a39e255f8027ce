import { setMaxListeners } from 'node:events';
import os from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { InferencePlatform } from '@cv-platform/inference-platform-api';
import { KubeApiError, KubeClient, KubeCredentialsProvider, ResourceRef } from './kube/KubeClient';
import { Logger, noopLogger } from './logger';
import { EventRecorder } from './events/EventRecorder';
import { OperatorMetrics } from './metrics/OperatorMetrics';
import { LeaderElector } from './leader/LeaderElector';
import type { ChildMutator } from './reconcile/ChildMutator';
import { toOperatorModel } from './runtime/toOperatorModel';
import { ConversionWebhook, ConversionWebhookOptions } from './webhook/ConversionWebhook';
import { migrateStoredVersions } from './storage/migrateStoredVersions';
import { WorkQueue } from './runtime/WorkQueue';
import { InformerEventType, InformerObserver, objectKey } from './runtime/Informer';
import { Resources, SharedInformer, SharedInformerOptions, slimEvent, slimPod, slimPvc } from './runtime/SharedInformers';
import { ANNOTATION_APPLIED_HASH, Caches, PlatformReconciler, PODS_BY_PLATFORM, PVCS_BY_PLATFORM } from './reconcile/PlatformReconciler';
import { LABEL_PLATFORM, MANAGED_BY } from './reconcile/labels';
import { lostReadiness } from './reconcile/lostReadiness';
import { QdrantAdminClient } from './qdrant/QdrantAdminClient';
import { apiServerProxyRequest } from './qdrant/apiServerProxyRequest';
import { QdrantPeerClient, directQdrantDownload, directQdrantRequest } from './qdrant/QdrantPeerClient';
import { apiServerProxyDownload } from './qdrant/apiServerProxyRequest';
import { readQdrantApiKey } from './qdrant/readQdrantApiKey';
import { qdrantPeerUrl } from './reconcile/qdrantChildren';
import { BackupController } from './backup/BackupController';
import { RestoreController } from './backup/RestoreController';
import { QdrantAccess } from './backup/takeBackup';
import { qdrantUrlTemplate } from './qdrant/qdrantUrlTemplate';
import {
  ReadServerState,
  ReloadServerModel,
  apiServerProxyModelReload,
  apiServerProxyServerState,
  directModelReload,
  directServerState,
} from './inference/InferenceServerStates';
import { apiServerProxyServerMetrics, directServerMetrics, ReadServerMetrics } from './inference/TrackMetrics';

/** @public */
export interface OperatorOptions {
  kubeConfig: KubeConfig;
  /** Namespaces to watch; all when empty. */
  namespaces?: string[];
  /** Reconcile (true) or only watch and serve reads (false). Default true. */
  reconcile?: boolean;
  workers?: number;
  leaderElection?: {
    enabled: boolean;
    leaseName?: string;
    leaseNamespace?: string;
    identity?: string;
    leaseDurationSeconds?: number;
    retryPeriodMs?: number;
  };
  logger?: Logger;
  /** Override where a platform's Qdrant REST API is reached (tests, port-forwards). */
  qdrantUrl?: (p: InferencePlatform) => string;
  /** Override where one Qdrant peer's REST API is reached, by pod name (tests, port-forwards). */
  qdrantPeerUrl?: (p: InferencePlatform, pod: string) => string;
  /**
   * How Qdrant's REST API is reached: `direct` (default: the Service's
   * cluster DNS name, as from a pod) or `apiServerProxy` (through the API
   * server's service and pod proxies, for an operator outside the cluster;
   * needs `get` on `services/proxy` and `get`, `create`, `delete` on
   * `pods/proxy` in the credentials it runs with).
   */
  qdrantAccess?: 'direct' | 'apiServerProxy';
  /**
   * Reach each platform's Qdrant at this URL instead of its Service's DNS
   * name (a gateway, a port-forward, the local cluster's simulated Qdrant):
   * `{namespace}`, `{name}` and `{statefulSet}` are filled in. Requests go
   * straight to it (not with `qdrantAccess: apiServerProxy`).
   */
  qdrantUrlTemplate?: string;
  /** As qdrantUrlTemplate, for one peer; `{pod}` is its pod's name. Needed for scale-down drains. */
  qdrantPeerUrlTemplate?: string;
  clusterInfoTtlMs?: number;
  /** How often a Qdrant scale-down in progress is looked at again. Default 2000 ms. */
  drainPollMs?: number;
  /**
   * How long a child's or pod's watch event waits for the events that come
   * with it before its platform's pass runs (default 500 ms). One change
   * arrives as several events (a pod turns Ready, then its StatefulSet or
   * ReplicaSet and Deployment count it): a pass per event read the world
   * half-changed and ran again for the rest. 0 passes at once.
   */
  childEventBatchMs?: number;
  /** How long a Qdrant replica stays Dead before its shard is re-replicated elsewhere (default 120 s). */
  deadReplicaGraceMs?: number;
  /** Re-reconcile every platform this often (level-based safety net). Default 10 min. */
  resyncPeriodMs?: number;
  /** How often credentials are re-read from the kubeconfig. Default 60 s. */
  credentialRefreshMs?: number;
  /** Mints the bearer token instead of the kubeconfig's user (a cloud's workload identity). */
  credentials?: KubeCredentialsProvider;
  /** Server-side timeout of each watch; default a random 240..300 s. */
  watchTimeoutSeconds?: number;
  /** How often a canary's and the stable servers' request metrics are read for status.canary.metrics. Default 30000 ms. */
  canaryMetricsIntervalMs?: number;
  /**
   * Serve the CRD's conversion webhook (every replica, leader or not) and
   * keep its certificate and the CRD's clientConfig current.
   */
  conversionWebhook?: ConversionWebhookOptions;
  /**
   * Keep the platforms' Events in a cache for platformEvents() (the portal's
   * Events card). Default true; the standalone operator, which serves no
   * reads, leaves it off and so never parses its own Events back.
   */
  platformEvents?: boolean;
  /**
   * Once leading: rewrite every stored platform at the CRD's storage version
   * and drop older versions from its status.storedVersions (see
   * migrateStoredVersions). Default false.
   */
  migrateStorage?: boolean;
  /** Run over every child before it is applied; more with addChildMutator. */
  childMutators?: ChildMutator[];
  /**
   * Reconcile only once releaseReconcile() is called (caches fill at start
   * anyway): lets a host register child mutators first, so no pass applies
   * children without them.
   */
  holdReconcile?: boolean;
}

function serverStateReader(options: OperatorOptions, client: KubeClient, templated: boolean): ReadServerState | undefined {
  if (options.qdrantAccess === 'apiServerProxy') return apiServerProxyServerState(client);
  return templated ? undefined : directServerState;
}

function serverMetricsReader(options: OperatorOptions, client: KubeClient, templated: boolean): ReadServerMetrics | undefined {
  if (options.qdrantAccess === 'apiServerProxy') return apiServerProxyServerMetrics(client);
  return templated ? undefined : directServerMetrics;
}

/** Servers are reached as their state is read: through the pod proxy, straight, or (simulated pods) not at all. */
function modelReloader(options: OperatorOptions, client: KubeClient, templated: boolean): ReloadServerModel | undefined {
  if (options.qdrantAccess === 'apiServerProxy') return apiServerProxyModelReload(client);
  return templated ? undefined : directModelReload;
}

/** Whether the API server serves a kind (its CRD is installed): discovery of its group version. */
async function servesResource(client: KubeClient, ref: ResourceRef): Promise<boolean> {
  try {
    const list = await client.request('GET', `/apis/${ref.apiVersion}`);
    return (list?.resources ?? []).some((r: any) => r.name === ref.plural);
  } catch (e) {
    if (e instanceof KubeApiError && e.statusCode === 404) return false;
    throw e;
  }
}

/** @public */
export interface PlatformEvent {
  type: InformerEventType;
  platform: InferencePlatform;
}

const CONTROLLER = 'inferenceplatform';
/** Index of the platform Event cache: "namespace/platform". */
const EVENTS_BY_OBJECT = 'involvedObject';

/**
 * The InferencePlatform operator: shared informers feed a deduplicating,
 * rate-limited work queue drained by a bounded pool of workers; with leader
 * election only the Lease holder runs workers, while every instance keeps its
 * caches warm to serve reads and the live feed.
 *
 * @public
 */
export class Operator {
  readonly client: KubeClient;
  readonly metrics = new OperatorMetrics();
  readonly queue = new WorkQueue();
  readonly caches: Caches;
  /** Events about platforms (not their children), for the portal's summaries; absent with `platformEvents: false`. */
  readonly platformEventsCache?: SharedInformer;
  readonly reconciler: PlatformReconciler;
  /** InferencePlatformRestores, watched apart from the caches the operator waits for (the CRD may be missing). */
  readonly restoresCache: SharedInformer;
  readonly backups: BackupController;
  readonly restores: RestoreController;
  private readonly logger: Logger;
  private readonly listeners = new Set<(e: PlatformEvent) => void>();
  private elector?: LeaderElector;
  private readonly childMutators: ChildMutator[] = [];
  private releaseGate: () => void = () => {};
  private readonly reconcileReleased: Promise<void> = new Promise(resolve => {
    this.releaseGate = resolve;
  });
  /** The conversion webhook, when this process serves it. */
  readonly conversionWebhook?: ConversionWebhook;
  private abort?: AbortController;
  private workersAbort?: AbortController;
  private running: Promise<unknown>[] = [];
  private workerLoops: Promise<void>[] = [];
  private resyncTimer?: NodeJS.Timeout;
  private byOwner?: (type: InformerEventType, obj: any) => void;
  private mkCache?: (ref: ResourceRef, o?: SharedInformerOptions) => SharedInformer;
  reconciles = 0;

  constructor(private readonly options: OperatorOptions) {
    this.logger = options.logger ?? noopLogger;
    this.client = new KubeClient(options.kubeConfig, method => this.metrics.requests.inc({ method }), {
      credentialRefreshMs: options.credentialRefreshMs,
      credentials: options.credentials,
    });
    this.childMutators.push(...(options.childMutators ?? []));
    if (!options.holdReconcile) this.releaseGate();
    if (options.conversionWebhook) this.conversionWebhook = new ConversionWebhook(this.client, options.conversionWebhook, this.logger);
    const ns = options.namespaces;
    const owned = `${LABEL_PLATFORM},app.kubernetes.io/managed-by=${MANAGED_BY}`;
    const observer: InformerObserver = {
      listed: (ref, namespace) => this.metrics.informerLists.inc({ resource: ref.plural, namespace: namespace ?? '' }),
      watchEnded: (ref, _namespace, reason) => this.metrics.informerWatchEnds.inc({ resource: ref.plural, reason }),
    };
    const mk = (ref: ResourceRef, o: SharedInformerOptions = {}) =>
      new SharedInformer(this.client, ref, ns, this.logger, {
        ...o,
        observer,
        watchTimeoutSeconds: options.watchTimeoutSeconds,
      });
    this.mkCache = mk;
    this.caches = {
      // Read at the storage version (no conversion webhook in the way) and
      // kept in the layout the reconcilers are written against.
      platforms: mk(Resources.inferencePlatforms, { transform: toOperatorModel }),
      statefulSets: mk(Resources.statefulSets, { labelSelector: owned }),
      deployments: mk(Resources.deployments, { labelSelector: owned }),
      services: mk(Resources.services, { labelSelector: owned }),
      configMaps: mk(Resources.configMaps, { labelSelector: owned }),
      pvcs: mk(Resources.pvcs, {
        labelSelector: LABEL_PLATFORM,
        transform: o => slimPvc(o, ANNOTATION_APPLIED_HASH),
        indexers: { [PVCS_BY_PLATFORM]: o => `${o.metadata.namespace}/${o.metadata.labels?.[LABEL_PLATFORM]}` },
      }),
      pdbs: mk(Resources.pdbs, { labelSelector: owned }),
      hpas: mk(Resources.hpas, { labelSelector: owned }),
      pods: mk(Resources.pods, {
        labelSelector: LABEL_PLATFORM,
        transform: slimPod,
        indexers: { [PODS_BY_PLATFORM]: o => `${o.metadata.namespace}/${o.metadata.labels?.[LABEL_PLATFORM]}` },
      }),
    };
    if (options.platformEvents !== false) this.platformEventsCache = mk(Resources.events, {
      fieldSelector: 'involvedObject.kind=InferencePlatform',
      transform: slimEvent,
      indexers: { [EVENTS_BY_OBJECT]: o => `${o.metadata.namespace}/${o.involvedObject?.name}` },
    });
    // One way to reach Qdrant for the Service and for single peers.
    const templated = options.qdrantUrlTemplate !== undefined || options.qdrantPeerUrlTemplate !== undefined;
    if (templated && options.qdrantAccess === 'apiServerProxy') {
      throw new Error('qdrantUrlTemplate and qdrantPeerUrlTemplate name where Qdrant answers directly: they cannot be combined with qdrantAccess apiServerProxy');
    }
    const qdrantRequest = (options.qdrantAccess ?? 'direct') === 'direct' ? directQdrantRequest : apiServerProxyRequest(this.client);
    const serviceTemplate = options.qdrantUrlTemplate ? qdrantUrlTemplate(options.qdrantUrlTemplate, 'qdrantUrlTemplate', false) : undefined;
    const peerTemplate = options.qdrantPeerUrlTemplate ? qdrantUrlTemplate(options.qdrantPeerUrlTemplate, 'qdrantPeerUrlTemplate', true) : undefined;
    // One recorder (its aggregation and spam filter span every controller) and one peer client.
    const recorder = new EventRecorder(this.client, 'inference-platform-operator', this.logger);
    const peerClient = new QdrantPeerClient(qdrantRequest);
    this.reconciler = new PlatformReconciler({
      client: this.client,
      childMutators: this.childMutators,
      caches: this.caches,
      recorder,
      logger: this.logger,
      metrics: this.metrics,
      qdrant: new QdrantAdminClient(undefined, qdrantRequest),
      qdrantUrl: options.qdrantUrl ?? (serviceTemplate && (p => serviceTemplate(p))),
      qdrantPeers: peerClient,
      qdrantPeerUrl: options.qdrantPeerUrl ?? peerTemplate,
      clusterInfoTtlMs: options.clusterInfoTtlMs,
      drainPollMs: options.drainPollMs,
      deadReplicaGraceMs: options.deadReplicaGraceMs,
      requeue: key => this.queue.add(key),
      // Behind a URL template the operator is outside the cluster network and
      // has no way to the servers but the API server's proxy.
      readServerState: serverStateReader(options, this.client, templated),
      reloadServerModel: modelReloader(options, this.client, templated),
      readServerMetrics: serverMetricsReader(options, this.client, templated),
      canaryMetricsIntervalMs: options.canaryMetricsIntervalMs,
    });
    this.restoresCache = mk(Resources.inferencePlatformRestores);
    const download = options.qdrantAccess === 'apiServerProxy' ? apiServerProxyDownload(this.client) : directQdrantDownload;
    const peerUrl = options.qdrantPeerUrl ?? peerTemplate ?? qdrantPeerUrl;
    const qdrantAccess = async (p: InferencePlatform): Promise<QdrantAccess> => ({
      peers: peerClient,
      download,
      peerUrl: pod => peerUrl(p, pod),
      apiKey: await readQdrantApiKey(this.client, p),
      logger: this.logger,
    });
    this.backups = new BackupController({
      client: this.client,
      platforms: this.caches.platforms,
      statefulSets: this.caches.statefulSets,
      recorder,
      logger: this.logger,
      qdrant: qdrantAccess,
    });
    this.restores = new RestoreController({
      client: this.client,
      restores: this.restoresCache,
      platforms: this.caches.platforms,
      statefulSets: this.caches.statefulSets,
      recorder,
      logger: this.logger,
      qdrant: qdrantAccess,
      locks: this.backups.locks,
    });
    this.wireEventHandlers();
  }

  private wireEventHandlers() {
    this.caches.platforms.on((type, obj, old) => {
      // Our own status writes change nothing we reconcile from.
      const specUnchanged =
        type === 'MODIFIED' &&
        old?.metadata.generation === obj.metadata.generation &&
        old?.metadata.deletionTimestamp === obj.metadata.deletionTimestamp;
      if (!specUnchanged) this.queue.add(objectKey(obj));
      for (const l of this.listeners) l({ type, platform: obj });
    });
    const batchMs = this.options.childEventBatchMs ?? 500;
    const byOwner = (type: InformerEventType, obj: any, old?: any) => {
      const name = obj.metadata.labels?.[LABEL_PLATFORM];
      if (!name || !this.reconciler.needsPass(type, obj, old)) return;
      const key = `${obj.metadata.namespace}/${name}`;
      // Bad news at once: a crash and restart inside the window would never show.
      if (lostReadiness(type, obj, old)) this.queue.add(key);
      else this.queue.addBatched(key, batchMs);
    };
    for (const key of ['statefulSets', 'deployments', 'services', 'configMaps', 'pvcs', 'pdbs', 'hpas', 'pods'] as const) {
      this.caches[key].on(byOwner);
    }
    this.byOwner = byOwner;
  }

  /** Subscribes to platform changes (from the shared informer cache); returns an unsubscribe. */
  subscribe(listener: (e: PlatformEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  platforms(): InferencePlatform[] {
    return this.caches.platforms.list();
  }

  platform(namespace: string, name: string): InferencePlatform | undefined {
    return this.caches.platforms.get(namespace, name);
  }

  /** Recorded Events of one platform, newest first. */
  platformEvents(namespace: string, name: string): any[] {
    if (!this.platformEventsCache) throw new Error('platformEvents() needs the operator option platformEvents (not false)');
    return this.platformEventsCache
      .byIndex(EVENTS_BY_OBJECT, `${namespace}/${name}`)
      .sort((a, b) =>
        String(b.lastTimestamp ?? b.eventTime ?? '').localeCompare(String(a.lastTimestamp ?? a.eventTime ?? '')),
      );
  }

  get watchedNamespaces(): string[] | undefined {
    return this.options.namespaces?.length ? this.options.namespaces : undefined;
  }

  /** True once every cache has listed its objects. */
  hasSynced(): boolean {
    return (Object.values(this.caches) as SharedInformer[]).every(c => c.informers.every(i => i.hasSynced()));
  }

  /** Adds a child mutator; with holdReconcile, before releaseReconcile() it applies from the first pass. */
  addChildMutator(mutator: ChildMutator): void {
    this.childMutators.push(mutator);
  }

  /** Tokens from `provider` instead of the kubeconfig's user, from the next request on. */
  setCredentialsProvider(provider: KubeCredentialsProvider): void {
    this.client.setCredentialsProvider(provider);
  }

  /** Lets a holdReconcile operator reconcile (idempotent). */
  releaseReconcile(): void {
    this.releaseGate();
  }

  isLeader(): boolean {
    return this.elector ? this.elector.isLeader() : this.options.reconcile !== false;
  }

  async start(): Promise<void> {
    if (this.abort) return;
    // Before the informers: reads at a version other than the stored one go through it.
    await this.conversionWebhook?.start();
    this.abort = new AbortController();
    const signal = this.abort.signal;
    // Every informer's watch and the elector listen on this one signal.
    setMaxListeners(100, signal);
    // Kinds of optional CRDs (KEDA, the Prometheus Operator) are watched where they are installed now.
    for (const [key, ref] of [
      ['scaledObjects', Resources.scaledObjects],
      ['serviceMonitors', Resources.serviceMonitors],
      ['podMonitors', Resources.podMonitors],
    ] as const) {
      if (this.caches[key] || !(await servesResource(this.client, ref))) continue;
      const cache = this.mkCache!(ref, { labelSelector: `${LABEL_PLATFORM},app.kubernetes.io/managed-by=${MANAGED_BY}` });
      cache.on(this.byOwner!);
      this.reconciler.observeChildren(cache);
      this.caches[key] = cache;
      this.logger.info(`Watching ${ref.kind}s`, { apiVersion: ref.apiVersion });
    }
    const informers = [...(Object.values(this.caches) as SharedInformer[]), ...(this.platformEventsCache ? [this.platformEventsCache] : [])];
    for (const c of informers) this.running.push(c.run(signal));
    this.running.push(this.restoresCache.run(signal));
    await Promise.all(informers.map(c => c.waitForSync()));
    this.logger.info('Informer caches synced', { platforms: this.platforms().length });
    if (this.options.reconcile === false) return;
    // Held: start() returns with the caches synced; reconciling begins on release.
    void this.reconcileReleased.then(() => {
      if (!signal.aborted) this.startReconciling(signal);
    });
  }

  private startReconciling(signal: AbortSignal) {
    const le = this.options.leaderElection;
    if (le?.enabled) {
      this.elector = new LeaderElector(
        this.client,
        {
          namespace: le.leaseNamespace ?? 'default',
          name: le.leaseName ?? 'inference-platform-operator',
          identity: le.identity ?? `${os.hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
          leaseDurationSeconds: le.leaseDurationSeconds,
          retryPeriodMs: le.retryPeriodMs,
          logger: this.logger,
        },
        {
          onStartedLeading: () => this.startWorkers(),
          onStoppedLeading: () => void this.stopWorkers(),
        },
      );
      this.running.push(this.elector.run(signal));
    } else {
      this.startWorkers();
    }
  }

  private startWorkers() {
    if (this.workersAbort) return;
    this.workersAbort = new AbortController();
    // Leadership may have changed hands: take a fresh look at everything.
    for (const p of this.platforms()) this.queue.add(objectKey(p));
    const n = this.options.workers ?? 4;
    this.workerLoops = Array.from({ length: n }, () => this.worker(this.workersAbort!.signal));
    const period = this.options.resyncPeriodMs ?? 600_000;
    this.resyncTimer = setInterval(() => {
      for (const p of this.platforms()) this.queue.add(objectKey(p));
    }, period);
    this.resyncTimer.unref?.();
    this.backups.start();
    if (this.options.migrateStorage) {
      void migrateStoredVersions(this.client, { logger: this.logger }).catch(e =>
        this.logger.warn(`Storage migration failed (run it again with the migrate-storage command): ${e instanceof Error ? e.message : e}`),
      );
    }
    void this.restoresCache.waitForSync().then(() => {
      if (this.workersAbort) this.restores.start();
    });
  }

  private async stopWorkers() {
    const ac = this.workersAbort;
    if (!ac) return;
    this.workersAbort = undefined;
    this.backups.stop();
    this.restores.stop();
    ac.abort();
    clearInterval(this.resyncTimer);
    await Promise.all(this.workerLoops);
    this.reconciler.stopLookingAgain();
  }

  private async worker(signal: AbortSignal) {
    while (!signal.aborted) {
      const key = await this.queue.get(signal);
      if (key === undefined) return;
      this.metrics.queueDepth.set({ name: CONTROLLER }, this.queue.length);
      const end = this.metrics.reconcileDuration.startTimer({ controller: CONTROLLER });
      const endWork = this.metrics.workDuration.startTimer({ name: CONTROLLER });
      try {
        this.reconciles++;
        const result = await this.reconciler.reconcile(key);
        if (result.requeueWithBackoff) {
          this.queue.addRateLimited(key);
          this.metrics.reconcileTotal.inc({ controller: CONTROLLER, result: 'requeue' });
        } else {
          this.queue.forget(key);
          if (result.requeueAfterMs) this.queue.addAfter(key, result.requeueAfterMs);
          this.metrics.reconcileTotal.inc({
            controller: CONTROLLER,
            result: result.requeueAfterMs ? 'requeue_after' : 'success',
          });
        }
      } catch (e) {
        this.metrics.reconcileTotal.inc({ controller: CONTROLLER, result: 'error' });
        this.metrics.reconcileErrors.inc({ controller: CONTROLLER });
        this.logger.warn(`Reconcile of ${key} failed, retrying with backoff: ${e instanceof Error ? e.message : e}`);
        this.queue.addRateLimited(key);
      } finally {
        end();
        endWork();
        this.queue.done(key);
      }
    }
  }

  /** Stops workers (finishing in-flight reconciles), releases the Lease, stops watches. */
  async stop(): Promise<void> {
    await this.stopWorkers();
    this.abort?.abort();
    this.queue.shutDown();
    await Promise.allSettled(this.running);
    await this.conversionWebhook?.stop();
    this.client.close();
    this.abort = undefined;
    this.running = [];
  }
}
