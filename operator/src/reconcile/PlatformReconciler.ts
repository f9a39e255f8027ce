import {
  ConditionType,
  InferencePlatform,
  QdrantClusterInfo,
  withDefaults,
} from '@cv-platform/inference-platform-api';
import type { ChildMutator } from './ChildMutator';
import { rfc3339Seconds } from '../kube/rfc3339Seconds';
import { KubeApiError, KubeClient, resourcePath, ResourceRef } from '../kube/KubeClient';
import { Logger } from '../logger';
import { EventRecorder } from '../events/EventRecorder';
import { foldCreated, PendingEvent } from '../events/PendingEvent';
import { OperatorMetrics } from '../metrics/OperatorMetrics';
import { QdrantAdminClient } from '../qdrant/QdrantAdminClient';
import { stableClusterInfo } from '../qdrant/stableClusterInfo';
import { Resources, SharedInformer } from '../runtime/SharedInformers';
import type { InformerEventType } from '../runtime/Informer';
import { computeStatus, modelLoadFailure, volumeWaitReportableInMs, warmupDeadlineInMs } from '../status/computeStatus';
import { isPodReady } from '../status/isPodReady';
import { isSubset } from './isSubset';
import { ChildEventFilter } from './ChildEventFilter';
import { shortHash } from './shortHash';
import { Recreation, statefulSetRecreation } from './statefulSetRecreation';
import { LastWrites } from './LastWrites';
import { QdrantScaleDown, ScaleDownStep } from '../qdrantTier/QdrantScaleDown';
import { QdrantRebalance } from '../qdrantTier/QdrantRebalance';
import { QdrantRepair } from '../qdrantTier/QdrantRepair';
import { inferenceHorizontalPodAutoscaler, inferenceScaledObject, inferenceServiceMonitor, qdrantPodMonitor } from './scalingChildren';
import { qdrantUpgradePartition, UpgradeStep } from './qdrantUpgradePartition';
import { qdrantUnsettled } from '../qdrant/qdrantUnsettled';
import { podOfPeerUri } from '../qdrant/observeCluster';
import { strandedPeers } from '../qdrant/strandedPeers';
import { readQdrantApiKey } from '../qdrant/readQdrantApiKey';
import { InferenceServerStates, ReadServerState, ReloadServerModel } from '../inference/InferenceServerStates';
import { ModelHotReload } from '../inference/ModelHotReload';
import { CanaryMetrics, ReadServerMetrics } from '../inference/TrackMetrics';
import { QdrantPeerClient, directQdrantRequest } from '../qdrant/QdrantPeerClient';
import { FIELD_MANAGER, isTrack, LABEL_COMPONENT, names } from './labels';
import { splitReplicas } from './splitReplicas';
import {
  qdrantClientService,
  qdrantHeadlessService,
  qdrantPeerUrl,
  qdrantPodDisruptionBudget,
  qdrantServiceUrl,
  qdrantStatefulSet,
} from './qdrantChildren';
import {
  ANNOTATION_RESTARTED_FOR_TERM,
  ANNOTATION_SEEN_LEADER_TERM,
  canarySpec,
  hotReload,
  inferenceConfigMap,
  inferenceDeployment,
  inferenceService,
  modelPersistentVolumeClaim,
} from './inferenceChildren';

/** @public */
export const ANNOTATION_APPLIED_HASH = 'cv.platform.tech/applied-hash';
/**
 * Index of the Pod cache: "namespace/platform".
 *
 * @public
 */
export const PODS_BY_PLATFORM = 'platform';
/**
 * Index of the PVC cache: "namespace/platform".
 *
 * @public
 */
export const PVCS_BY_PLATFORM = 'platform';

/** @public */
export interface Caches {
  platforms: SharedInformer;
  statefulSets: SharedInformer;
  deployments: SharedInformer;
  services: SharedInformer;
  configMaps: SharedInformer;
  pvcs: SharedInformer;
  pdbs: SharedInformer;
  hpas: SharedInformer;
  pods: SharedInformer;
  /** Present where KEDA's CRDs were installed when the operator started. */
  scaledObjects?: SharedInformer;
  /** Present where the Prometheus Operator's CRDs were installed when the operator started. */
  serviceMonitors?: SharedInformer;
  podMonitors?: SharedInformer;
}

/** @public */
export interface ReconcileResult {
  /** Reconcile again after this long even if nothing changes. */
  requeueAfterMs?: number;
  /** Retry with the queue's per-item backoff (failures that need no error log). */
  requeueWithBackoff?: boolean;
}

/** @public */
export interface ReconcilerOptions {
  client: KubeClient;
  /** Run over every child before it is applied (read on each pass: later additions count). */
  childMutators?: ChildMutator[];
  caches: Caches;
  recorder: EventRecorder;
  logger: Logger;
  metrics: OperatorMetrics;
  qdrant?: QdrantAdminClient;
  /** Where to reach a platform's Qdrant REST API (default: its client Service). */
  qdrantUrl?: (p: InferencePlatform) => string;
  /** Talks to single Qdrant peers (scale-down drains); default: straight to each peer. */
  qdrantPeers?: QdrantPeerClient;
  /** Where one peer's REST API answers (default: its pod's DNS name under the headless Service). */
  qdrantPeerUrl?: (p: InferencePlatform, pod: string) => string;
  /** How often a Qdrant scale-down in progress is looked at again. Default 2000 ms. */
  drainPollMs?: number;
  /** How long a cluster-info answer is trusted before Qdrant is asked again. */
  clusterInfoTtlMs?: number;
  /**
   * How long a Qdrant replica stays Dead before the operator replicates its
   * shard from a healthy copy onto another peer and drops it. Default 120 s:
   * Qdrant recovers a replica itself when its peer comes back, which a
   * restarted pod does well within that.
   */
  deadReplicaGraceMs?: number;
  /**
   * Status changes that only move counts or messages (no phase, condition or
   * generation change) are written at most this often per platform; the
   * pass is retried to write the latest state. Default 5000 ms: a count or
   * message that flips and flips back within it (a volume being bound, a
   * probe) costs no write.
   */
  statusCoalesceMs?: number;
  /** Queues a platform for another pass (when a background answer arrives). */
  requeue?: (key: string) => void;
  /** Asks an inference server about itself (GET /readyz); not set: servers are not asked. */
  readServerState?: ReadServerState;
  /** Asks an inference server to load a model (hot reload); not set: new models only reach new pods. */
  reloadServerModel?: ReloadServerModel;
  /** Reads an inference server's Prometheus metrics (a canary's per-version request metrics); not set: none in status. */
  readServerMetrics?: ReadServerMetrics;
  /** How often they are read while a canary runs. Default 30000 ms. */
  canaryMetricsIntervalMs?: number;
  now?: () => Date;
}

type Child = { obj: any; ref: ResourceRef; cache: SharedInformer };

/** How long a pass waits for Qdrant's first answer about a new cluster. */
const FIRST_CLUSTER_INFO_WAIT_MS = 1000;
const objectId = (kind: string, namespace: string | undefined, name: string) => `${kind}/${namespace}/${name}`;
const statusId = (p: InferencePlatform) => objectId('status', p.metadata.namespace, p.metadata.name!);

function hashOf(obj: unknown): string {
  return shortHash(JSON.stringify(obj));
}

/**
 * A change someone waits for: phase, observed generation, or a condition's
 * status or reason. Counts, messages and cluster details alone are not.
 *
 * @public
 */
export function significantChange(before: any, after: any): boolean {
  if (!before) return true;
  if (before.phase !== after.phase || before.observedGeneration !== after.observedGeneration) return true;
  const was = new Map<string, any>((before.conditions ?? []).map((c: any) => [c.type, c]));
  const now: any[] = after.conditions ?? [];
  if (now.length !== was.size || now.some(c => !was.has(c.type))) return true;
  // A part becoming True while the phase stays is progress that the next
  // change (often the phase itself, a moment later) can carry; a part
  // falling from True, or waiting for something else, is news.
  return now.some(c => {
    const old = was.get(c.type);
    if (c.status === 'True') return false;
    return old.status !== c.status || old.reason !== c.reason;
  });
}

/**
 * onLeaderChange: RestartInference. The Deployment remembers the last Raft
 * term seen; a later term (an election) stamps the pod template with it,
 * which rolls the servers (maxUnavailable 0: never below the ready count).
 * Unknown terms (Qdrant unreachable) change nothing.
 *
 * @public
 */
export function restartOnNewLeader(deployment: any, live: any, cluster: QdrantClusterInfo | undefined) {
  const seen = Number(live?.metadata?.annotations?.[ANNOTATION_SEEN_LEADER_TERM] ?? NaN);
  const term = cluster?.reachable ? cluster.raftTerm : undefined;
  let restartedFor: string | undefined = live?.spec?.template?.metadata?.annotations?.[ANNOTATION_RESTARTED_FOR_TERM];
  if (term !== undefined && !Number.isNaN(seen) && term > seen) restartedFor = String(term);
  const remembered = term ?? (Number.isNaN(seen) ? undefined : seen);
  if (remembered !== undefined) {
    deployment.metadata.annotations = { ...(deployment.metadata.annotations ?? {}), [ANNOTATION_SEEN_LEADER_TERM]: String(remembered) };
  }
  if (restartedFor) {
    const t = deployment.spec.template.metadata;
    t.annotations = { ...(t.annotations ?? {}), [ANNOTATION_RESTARTED_FOR_TERM]: restartedFor };
  }
}

/**
 * On the inference pod template (hot reload): the model URL its pods were last started for.
 *
 * @public
 */
export const ANNOTATION_STARTED_FOR_MODEL = 'cv.platform.tech/started-for-model';

/**
 * Hot reload needs a server that runs. When none is ready and the loaders
 * gave up on (or fail at) the model the pods were started for, a new model
 * would otherwise reach them only when a loader runs again: the pods are
 * replaced instead (the template names the model they start for; a new
 * Deployment starts with the current one, so a first failure replaces
 * nothing).
 *
 * @public
 */
export function startPodsForModel(deployment: any, live: any, modelUrl: string, pods: any[]) {
  let startedFor: string | undefined = live ? live.spec?.template?.metadata?.annotations?.[ANNOTATION_STARTED_FOR_MODEL] : modelUrl;
  if (live && !(live.status?.readyReplicas > 0) && startedFor !== modelUrl && modelLoadFailure(pods, modelUrl, true)) startedFor = modelUrl;
  if (startedFor) {
    const t = deployment.spec.template.metadata;
    t.annotations = { ...(t.annotations ?? {}), [ANNOTATION_STARTED_FOR_MODEL]: startedFor };
  }
}

/** The status without what is written only along with something else (status.qdrant.version). */
function withoutCarried(status: any): any {
  if (!status?.qdrant?.version) return status;
  const { version: _version, ...qdrant } = status.qdrant;
  const { qdrant: _qdrant, ...rest } = status;
  return Object.keys(qdrant).length ? { ...rest, qdrant } : rest;
}

/**
 * The part of a written status this reconciler owns: status.backup and the
 * BackupSucceeded condition belong to the backup controller (another field
 * manager) and are neither compared nor written here.
 *
 * @public
 */
export function reconcilerOwned(status: any): any {
  if (!status) return status;
  const { backup: _backup, ...rest } = status;
  if (!rest.conditions?.some((c: any) => c.type === ConditionType.BackupSucceeded)) return rest;
  return { ...rest, conditions: rest.conditions.filter((c: any) => c.type !== ConditionType.BackupSucceeded) };
}

/** Same content, whatever the key order the API server returned. */
function sameStatus(a: unknown, b: unknown) {
  return isSubset(a ?? {}, b ?? {}) && isSubset(b ?? {}, a ?? {});
}

/**
 * One level-based pass for one platform: read the world from the caches,
 * compute every desired child, apply only what differs (server-side apply
 * with our field manager), then write status once if it changed.
 *
 * @public
 */
export class PlatformReconciler {
  private readonly clusterInfo = new Map<string, { at: number; info: QdrantClusterInfo; readyPeers: number }>();
  private readonly clusterInfoInFlight = new Map<string, Promise<void>>();
  /** Platforms whose pass is waiting for Qdrant's first answer (it takes the answer along). */
  private readonly clusterInfoAwaited = new Set<string>();
  private readonly qdrant: QdrantAdminClient;
  /** Applied hashes of children and written statuses the caches may not show yet. */
  private readonly lastWrites = new LastWrites<unknown>();
  /** Per child: the live resourceVersion and desired hash last found equal (isSubset is not asked again). */
  private readonly verified = new Map<string, string>();
  private readonly childEvents = new ChildEventFilter();
  /** Per settled platform: when Qdrant and its inference servers are asked again (see lookAgain). */
  private readonly lookAgainTimers = new Map<string, NodeJS.Timeout>();
  /** When each platform's status was last written (for coalescing). */
  private readonly lastStatusWrite = new Map<string, number>();
  private readonly scaleDown: QdrantScaleDown;
  private readonly peers: QdrantPeerClient;
  private readonly servers?: InferenceServerStates;
  private readonly modelReload?: ModelHotReload;
  private readonly canaryMetrics?: CanaryMetrics;
  private readonly rebalance: QdrantRebalance;
  private readonly repair: QdrantRepair;

  constructor(private readonly o: ReconcilerOptions) {
    this.qdrant = o.qdrant ?? new QdrantAdminClient();
    this.peers = o.qdrantPeers ?? new QdrantPeerClient(directQdrantRequest);
    if (o.readServerState) {
      const servers = new InferenceServerStates({ read: o.readServerState, ttlMs: o.clusterInfoTtlMs ?? 60_000, changed: key => o.requeue?.(key) });
      this.servers = servers;
      if (o.reloadServerModel) {
        this.modelReload = new ModelHotReload({
          reload: o.reloadServerModel,
          invalidate: (key, pod) => servers.invalidate(key, pod),
          requeue: key => o.requeue?.(key),
          logger: o.logger,
        });
      }
    }
    if (o.readServerMetrics) {
      this.canaryMetrics = new CanaryMetrics({ read: o.readServerMetrics, intervalMs: o.canaryMetricsIntervalMs ?? 30_000, changed: key => o.requeue?.(key) });
    }
    const peerDeps = {
      client: this.peers,
      peerUrl: o.qdrantPeerUrl ?? qdrantPeerUrl,
      logger: o.logger,
    };
    this.scaleDown = new QdrantScaleDown(peerDeps);
    this.rebalance = new QdrantRebalance(peerDeps);
    this.repair = new QdrantRepair({ ...peerDeps, graceMs: o.deadReplicaGraceMs ?? 120_000 });
    const { platforms, pods, ...children } = o.caches;
    for (const cache of Object.values(children)) if (cache) this.observeChildren(cache);
    platforms.on((_type, obj) => this.lastWrites.observed(statusId(obj)));
  }

  /** Children of this kind that the caches show need no longer be remembered as written. */
  observeChildren(cache: SharedInformer): void {
    cache.on((type, obj) => {
      const id = objectId(obj.kind, obj.metadata.namespace, obj.metadata.name);
      this.lastWrites.observed(id);
      if (type === 'DELETED') this.verified.delete(id);
    });
  }

  /**
   * Asks a settled platform's Qdrant and inference servers again, without a
   * pass: only an answer that differs from the last queues one (see
   * qdrantClusterInfo and InferenceServerStates). A pass for an unchanged
   * platform rebuilt and compared every child and its status, which made
   * the TTL the largest steady-state cost of many platforms.
   */
  private lookAgain(key: string): void {
    this.lookAgainTimers.delete(key);
    const [namespace, name] = key.split('/');
    const { caches } = this.o;
    const p: InferencePlatform | undefined = caches.platforms.get(namespace, name);
    if (!p || p.metadata.deletionTimestamp) return;
    const spec = withDefaults(p.spec);
    const sts = caches.statefulSets.get(namespace, names.qdrant(p));
    this.qdrantClusterInfo(key, p, sts, spec.qdrant.replicas).catch(e => {
      this.o.logger.warn('Asking Qdrant for its cluster state failed', { name, namespace, error: String(e) });
      this.o.requeue?.(key);
    });
    const inferencePods = caches.pods.byIndex(PODS_BY_PLATFORM, key).filter(o => o.metadata.labels?.[LABEL_COMPONENT] === 'inference');
    this.servers?.of(key, inferencePods, spec.inference.port);
    // Qdrant down to no ready peer: the StatefulSet's watch events bring the passes now.
    if (sts?.status?.readyReplicas) this.lookAgainLater(key);
  }

  /** When the platform's cluster-info answer (or the one being asked for) is a TTL old. */
  private lookAgainLater(key: string): void {
    const ttl = this.o.clusterInfoTtlMs ?? 60_000;
    const answeredAt = this.clusterInfoInFlight.has(key) ? Date.now() : this.clusterInfo.get(key)?.at ?? Date.now();
    const ms = Math.max(Math.min(1000, ttl), answeredAt + ttl - Date.now());
    clearTimeout(this.lookAgainTimers.get(key));
    const timer = setTimeout(() => this.lookAgain(key), ms);
    timer.unref?.();
    this.lookAgainTimers.set(key, timer);
  }

  /** Stops asking settled platforms' Qdrant and servers again (the workers stop; their restart passes every platform). */
  stopLookingAgain(): void {
    for (const timer of this.lookAgainTimers.values()) clearTimeout(timer);
    this.lookAgainTimers.clear();
  }

  /** Whether a child's (or pod's) watch event can change what a pass does or reports. */
  needsPass(type: InformerEventType, obj: any, old?: any): boolean {
    return this.childEvents.needsPass(objectId(obj.kind, obj.metadata.namespace, obj.metadata.name), type, obj, old);
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const [namespace, name] = key.split('/');
    const { caches, logger } = this.o;
    const p: InferencePlatform | undefined = caches.platforms.get(namespace, name);
    if (!p || p.metadata.deletionTimestamp) {
      // Children carry owner references; the garbage collector removes them.
      this.clusterInfo.delete(key);
      this.servers?.forget(key);
      this.modelReload?.forget(key);
      this.canaryMetrics?.forget(key);
      this.repair.forget(key);
      this.lastStatusWrite.delete(key);
      clearTimeout(this.lookAgainTimers.get(key));
      this.lookAgainTimers.delete(key);
      return {};
    }
    const spec = withDefaults(p.spec);
    const sts = caches.statefulSets.get(namespace, names.qdrant(p));
    const qdrantReady =
      !!sts &&
      (sts.status?.observedGeneration ?? 0) >= (sts.metadata.generation ?? 0) &&
      (sts.status?.readyReplicas ?? 0) >= spec.qdrant.replicas;
    const deployedBefore = caches.deployments.get(namespace, names.inference(p));
    const deployExists = !!deployedBefore;

    const desiredSts = qdrantStatefulSet(p, spec);
    // A StatefulSet on its way out (orphan deletion runs its finalizer) is
    // left alone; its removal from the cache triggers the pass that re-creates it.
    const stsLeaving = !!sts?.metadata.deletionTimestamp;
    const recreation = stsLeaving ? undefined : statefulSetRecreation(desiredSts, sts);
    // Events are recorded once the pass has written everything, so they do
    // not compete with the applies and the status write for the API server.
    const events: PendingEvent[] = [];
    // Fewer peers: drain them in Qdrant first; the StatefulSet shrinks only
    // past peers that have left Raft.
    let scaleDown: ScaleDownStep | undefined;
    const liveReplicas: number | undefined = sts?.spec?.replicas;
    if (sts && !stsLeaving && !recreation && liveReplicas !== undefined && spec.qdrant.replicas < liveReplicas) {
      let apiKey: string | undefined;
      try {
        apiKey = await this.readApiKey(p);
        scaleDown = await this.scaleDown.step(p, names.qdrant(p), liveReplicas, spec.qdrant.replicas, apiKey, events);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        scaleDown = {
          replicas: liveReplicas,
          status: { fromReplicas: liveReplicas, toReplicas: spec.qdrant.replicas, step: 'Blocked', reason: 'QdrantUnreachable', message, leavingPeers: [], transfersInFlight: 0 },
        };
      }
      desiredSts.spec.replicas = scaleDown.replicas;
    }
    const pods = caches.pods.byIndex(PODS_BY_PLATFORM, key);
    const qdrantPods = pods.filter(o => o.metadata.labels?.[LABEL_COMPONENT] === 'qdrant');
    const inferencePods = pods.filter(o => o.metadata.labels?.[LABEL_COMPONENT] === 'inference');
    const stablePods = inferencePods.filter(o => isTrack(o, 'stable'));
    const canaryPods = inferencePods.filter(o => isTrack(o, 'canary'));
    const canary = canarySpec(spec);
    const canaryReady = canaryPods.filter(isPodReady).length;
    const split = splitReplicas(spec.inference.replicas, spec.inference.canary?.weight ?? 0, canaryReady);
    let clusterInfo = await this.qdrantClusterInfo(key, p, sts, spec.qdrant.replicas, true);
    if (!scaleDown && sts && !stsLeaving && !recreation) {
      clusterInfo = await this.removeStrandedPeers(key, p, clusterInfo, sts.spec?.replicas ?? spec.qdrant.replicas, events);
    }
    // Version (or any template) changes restart one peer at a time, each once Qdrant has settled.
    let upgrade: UpgradeStep | undefined;
    if (sts && !stsLeaving && !recreation) {
      upgrade = qdrantUpgradePartition(
        desiredSts,
        sts,
        qdrantPods,
        clusterInfo,
        !!spec.qdrant.allowDowntime,
        this.clusterInfo.get(key)?.at ?? 0,
      );
      desiredSts.spec.updateStrategy.rollingUpdate.partition = upgrade.partition;
    }
    // New peers after a scale-up hold nothing: move shards onto them once all is settled.
    let rebalancing = false;
    const stsSettled =
      !!sts && sts.spec?.replicas === spec.qdrant.replicas && sts.status?.readyReplicas === spec.qdrant.replicas &&
      sts.status?.updateRevision === sts.status?.currentRevision;
    if (spec.qdrant.rebalance && !scaleDown && stsSettled && QdrantRebalance.needed(clusterInfo, spec.qdrant.replicas)) {
      rebalancing = true;
      try {
        await this.rebalance.step(p, names.qdrant(p), spec.qdrant.replicas, await this.readApiKey(p), events);
      } catch (e) {
        logger.warn('Rebalancing Qdrant failed', { name, namespace, error: String(e) });
      }
    }
    // Replicas that stay Dead are replaced from a healthy copy (not while
    // peers are being restarted or removed on purpose).
    const rolling = !!sts && sts.status?.updateRevision !== sts.status?.currentRevision;
    if (!scaleDown && sts && !stsLeaving && !recreation && !rolling && QdrantRepair.needed(clusterInfo)) {
      try {
        await this.repair.step(key, p, names.qdrant(p), sts.spec?.replicas ?? spec.qdrant.replicas, await this.readApiKey(p), events);
      } catch (e) {
        logger.warn('Repairing Qdrant failed', { name, namespace, error: String(e) });
      }
    }
    const children: Child[] = [
      { obj: qdrantHeadlessService(p), ref: Resources.services, cache: caches.services },
      { obj: qdrantClientService(p), ref: Resources.services, cache: caches.services },
    ];
    // A StatefulSet being re-created is applied again once its deletion shows in the cache.
    if (!recreation && !stsLeaving) children.push({ obj: desiredSts, ref: Resources.statefulSets, cache: caches.statefulSets });
    const pdb = qdrantPodDisruptionBudget(p, spec);
    if (pdb) children.push({ obj: pdb, ref: Resources.pdbs, cache: caches.pdbs });
    children.push({ obj: inferenceConfigMap(p, spec), ref: Resources.configMaps, cache: caches.configMaps });
    const pvc = modelPersistentVolumeClaim(p, spec);
    if (pvc) children.push({ obj: pvc, ref: Resources.pvcs, cache: caches.pvcs });
    // Inference servers need Qdrant: they are first created once every peer is
    // Ready; after that the Deployment stays (a Qdrant hiccup degrades, it does not tear down).
    if (qdrantReady || deployExists) {
      const deployment = inferenceDeployment(p, spec, 'stable', split.stable);
      if (spec.qdrant.onLeaderChange === 'RestartInference') {
        restartOnNewLeader(deployment, deployedBefore, clusterInfo);
      }
      if (hotReload(spec)) startPodsForModel(deployment, deployedBefore, spec.inference.modelUrl, stablePods);
      children.push({ obj: deployment, ref: Resources.deployments, cache: caches.deployments });
      if (canary) children.push({ obj: inferenceDeployment(p, canary, 'canary', split.canary), ref: Resources.deployments, cache: caches.deployments });
    }
    children.push({ obj: inferenceService(p), ref: Resources.services, cache: caches.services });
    if (canary) {
      children.push(
        { obj: inferenceConfigMap(p, canary, 'canary'), ref: Resources.configMaps, cache: caches.configMaps },
        { obj: inferenceService(p, 'stable'), ref: Resources.services, cache: caches.services },
        { obj: inferenceService(p, 'canary'), ref: Resources.services, cache: caches.services },
      );
    }
    // Autoscalers scale the platform (its scale subresource), monitors scrape both tiers.
    const hpa = inferenceHorizontalPodAutoscaler(p, spec);
    if (hpa) children.push({ obj: hpa, ref: Resources.hpas, cache: caches.hpas });
    const scaledObject = inferenceScaledObject(p, spec);
    if (scaledObject && caches.scaledObjects) children.push({ obj: scaledObject, ref: Resources.scaledObjects, cache: caches.scaledObjects });
    if (caches.serviceMonitors) children.push({ obj: inferenceServiceMonitor(p), ref: Resources.serviceMonitors, cache: caches.serviceMonitors });
    if (caches.podMonitors) children.push({ obj: qdrantPodMonitor(p), ref: Resources.podMonitors, cache: caches.podMonitors });

    for (const mutate of this.o.childMutators ?? []) for (const child of children) mutate(child.obj, p);
    const deploymentChild = children.find(c => c.ref === Resources.deployments);
    // Children are independent objects: apply them concurrently.
    try {
      let reconcileError: string | undefined;
      if (recreation) await this.recreateStatefulSet(p, sts, recreation, events);
      const results = await Promise.allSettled(children.map(child => this.applyIfChanged(child, events)));
      results.forEach((r, i) => {
        if (r.status === 'fulfilled' || reconcileError) return;
        const child = children[i];
        const e = r.reason;
        reconcileError = `${child.obj.kind} ${child.obj.metadata.name}: ${e instanceof Error ? e.message : e}`;
        logger.error(`Failed to apply ${child.obj.kind}`, { name: child.obj.metadata.name, namespace, error: String(e) });
        events.push(['Warning', 'ApplyFailed', reconcileError]);
      });
      if (!reconcileError) {
        await this.deleteIfPresent(p, caches.pdbs, Resources.pdbs, pdb ? undefined : names.qdrant(p));
        await this.deleteIfPresent(p, caches.pvcs, Resources.pvcs, pvc ? undefined : names.modelPvc(p));
        await this.deleteIfPresent(p, caches.hpas, Resources.hpas, hpa ? undefined : names.inference(p));
        if (caches.scaledObjects) await this.deleteIfPresent(p, caches.scaledObjects, Resources.scaledObjects, scaledObject ? undefined : names.inference(p));
        // A canary removed (promoted or rolled back): its servers go at once, the stable ones fill the platform's replicas.
        if (!canary) {
          this.canaryMetrics?.forget(key);
          await this.deleteIfPresent(p, caches.deployments, Resources.deployments, names.inferenceCanary(p));
          await this.deleteIfPresent(p, caches.configMaps, Resources.configMaps, names.inferenceCanaryConfig(p));
          await this.deleteIfPresent(p, caches.services, Resources.services, names.inferenceCanary(p));
          await this.deleteIfPresent(p, caches.services, Resources.services, names.inferenceStable(p));
        }
      }

      // A new model reaches running servers by hot reload once the Deployment has rolled out.
      const inferenceServers = this.servers?.of(key, inferencePods, spec.inference.port);
      const liveDeploy = caches.deployments.get(namespace, names.inference(p));
      const settled =
        !!liveDeploy &&
        (liveDeploy.status?.observedGeneration ?? 0) >= (liveDeploy.metadata?.generation ?? 0) &&
        (liveDeploy.status?.updatedReplicas ?? 0) === (liveDeploy.status?.replicas ?? 0);
      const modelReloadFailures =
        this.modelReload && inferenceServers && hotReload(spec) && settled
          ? this.modelReload.step(
              key,
              p,
              spec.inference.modelUrl,
              stablePods.filter(isPodReady),
              inferenceServers,
              spec.inference.port,
              (spec.inference.modelSource.pullTimeoutSeconds + 120) * 1000,
              events,
            )
          : undefined;
      const status = computeStatus(
        p,
        // The stable track's readiness counts against its share of the servers.
        canary ? { ...spec, inference: { ...spec.inference, replicas: split.stable } } : spec,
        {
          statefulSet: caches.statefulSets.get(namespace, names.qdrant(p)),
          // Created in this very pass: rolling out from zero, though the cache has not seen it yet.
          deployment:
            caches.deployments.get(namespace, names.inference(p)) ??
            (deploymentChild && results[children.indexOf(deploymentChild)]?.status === 'fulfilled' ? { ...deploymentChild.obj, status: {} } : undefined),
          qdrantPods,
          inferencePods: stablePods,
          canary: canary
            ? {
                deployment: caches.deployments.get(namespace, names.inferenceCanary(p)),
                pods: canaryPods,
                ready: canaryReady,
                replicas: split.canary,
                platformReplicas: spec.inference.replicas,
                stableReady: stablePods.filter(isPodReady).length,
                metrics: this.canaryMetrics?.of(key, { stable: stablePods, canary: canaryPods }, spec.inference.port),
              }
            : undefined,
          qdrantCluster: clusterInfo,
          inferenceServers,
          modelReloadFailures,
          autoscalingUnavailable:
            scaledObject && !caches.scaledObjects
              ? `spec.inference.autoscaling.metric ${spec.inference.autoscaling!.metric} needs KEDA: its ScaledObject CRD (keda.sh/v1alpha1) was not installed when the operator started`
              : undefined,
          qdrantScaleDown: scaleDown && scaleDown.status.step !== 'Done' ? scaleDown.status : undefined,
          qdrantUpgrade: upgrade,
          // Indexed by platform: a pass reads its own volumes, not every platform's.
          qdrantVolumes: caches.pvcs
            .byIndex(PVCS_BY_PLATFORM, key)
            .filter(o => o.metadata.name.startsWith(`storage-${names.qdrant(p)}-`) && /-\d+$/.test(o.metadata.name)),
          reconcileError,
        },
        rfc3339Seconds(this.o.now?.() ?? new Date()),
      );
      const canaryNow = status.canary;
      if (canaryNow && canaryNow.state !== p.status?.canary?.state) {
        if (canaryNow.state === 'Failed') events.push(['Warning', 'CanaryFailed', `Canary ${canaryNow.modelUrl}: ${canaryNow.message}`]);
        if (canaryNow.state === 'Serving') events.push(['Normal', 'CanaryServing', `Canary ${canaryNow.modelUrl}: ${canaryNow.message}`]);
      }
      const deferMs = await this.writeStatus(p, status);

      if (reconcileError) throw new Error(reconcileError);
      // Qdrant's progress raises no Kubernetes event: look again soon.
      const drainMs = (scaleDown && scaleDown.status.step !== 'Done') || upgrade?.waiting || rebalancing ? this.o.drainPollMs ?? 2000 : undefined;
      // Waits said only once they last (a peer waiting for its volumes, a
      // server warming up): nothing else would bring the pass that says them.
      const nowMs = this.o.now?.().getTime() ?? Date.now();
      const reportMs = Math.min(
        volumeWaitReportableInMs(qdrantPods, nowMs) ?? Infinity,
        warmupDeadlineInMs(inferencePods, spec.inference.modelSource.warmupTimeoutSeconds, nowMs) ?? Infinity,
        // A canary's metrics are read again every interval.
        canary && this.canaryMetrics ? this.canaryMetrics.intervalMs : Infinity,
      );
      if (deferMs !== undefined || drainMs !== undefined || reportMs !== Infinity) {
        return { requeueAfterMs: Math.min(deferMs ?? Infinity, drainMs ?? Infinity, reportMs) };
      }
      if (status.phase === 'Failed') return { requeueWithBackoff: true };
      // Ask Qdrant again after the TTL; while it looks unsettled, pass again
      // within 2 s. Only Qdrant's own unrest: a platform waiting for anything
      // else is woken by that thing's watch event, not by polling.
      if (clusterInfo || sts?.status?.readyReplicas) {
        const unsettled = clusterInfo && (!clusterInfo.reachable || qdrantUnsettled(clusterInfo, spec.qdrant.replicas));
        if (unsettled) return { requeueAfterMs: Math.min(this.o.clusterInfoTtlMs ?? 60_000, 2000) };
        this.lookAgainLater(key);
      }
      return {};
    } finally {
      for (const e of foldCreated(events)) void this.o.recorder.record(p, ...e);
    }
  }

  private async applyIfChanged(child: Child, events: PendingEvent[]): Promise<void> {
    const { obj, ref, cache } = child;
    const hash = hashOf(obj);
    const id = objectId(obj.kind, obj.metadata.namespace, obj.metadata.name);
    const live = cache.get(obj.metadata.namespace, obj.metadata.name);
    const checked = live && `${live.metadata.resourceVersion} ${hash}`;
    if (checked && this.verified.get(id) === checked) return;
    if (live && live.metadata.annotations?.[ANNOTATION_APPLIED_HASH] === hash && isSubset(obj, live)) {
      this.verified.set(id, checked);
      return;
    }
    if (this.lastWrites.pending(id, live?.metadata.resourceVersion) === hash) return;
    const body = {
      ...obj,
      metadata: {
        ...obj.metadata,
        annotations: { ...(obj.metadata.annotations ?? {}), [ANNOTATION_APPLIED_HASH]: hash },
      },
    };
    const written = await this.o.client.apply(
      resourcePath(ref, obj.metadata.namespace, obj.metadata.name),
      body,
      FIELD_MANAGER,
    );
    this.lastWrites.remember(id, live?.metadata.resourceVersion, written?.metadata?.resourceVersion, hash);
    this.childEvents.wrote(id, written?.metadata?.resourceVersion);
    this.o.metrics.writes.inc({ kind: obj.kind, verb: 'apply' });
    const verb = live ? 'Updated' : 'Created';
    const drift = live && live.metadata.annotations?.[ANNOTATION_APPLIED_HASH] === hash;
    this.o.logger.info(`${verb} ${obj.kind}`, {
      name: obj.metadata.name,
      namespace: obj.metadata.namespace,
      ...(drift ? { reason: 'reverted a change made outside the operator' } : {}),
    });
    events.push([
      'Normal',
      drift ? 'DriftCorrected' : verb,
      `${verb} ${obj.kind} ${obj.metadata.name}${drift ? ' (reverted a manual change)' : ''}`,
    ]);
  }

  /**
   * Immutable fields of the Qdrant StatefulSet changed: expand grown volumes
   * in place, then delete the StatefulSet with orphan propagation, so that
   * its pods keep running and its PVCs stay; the next pass creates it again
   * and it adopts them.
   */
  private async recreateStatefulSet(p: InferencePlatform, live: any, r: Recreation, events: PendingEvent[]) {
    const namespace = p.metadata.namespace!;
    const name = live.metadata.name;
    for (const { template, storage } of r.grown) {
      const claim = new RegExp(`^${template}-${name}-\\d+$`);
      for (const pvc of this.o.caches.pvcs.byIndex(PVCS_BY_PLATFORM, `${namespace}/${p.metadata.name}`).filter(o => claim.test(o.metadata.name))) {
        try {
          await this.o.client.mergePatch(resourcePath(Resources.pvcs, namespace, pvc.metadata.name), {
            spec: { resources: { requests: { storage } } },
          });
          this.o.metrics.writes.inc({ kind: 'PersistentVolumeClaim', verb: 'patch' });
          this.o.logger.info('Expanding PersistentVolumeClaim', { name: pvc.metadata.name, namespace, storage });
          events.push(['Normal', 'ExpandingVolume', `Expanding PersistentVolumeClaim ${pvc.metadata.name} to ${storage}`]);
        } catch (e) {
          // Not every StorageClass allows expansion: new peers still get the new size.
          const message = e instanceof KubeApiError ? e.body?.message ?? e.message : String(e);
          events.push(['Warning', 'VolumeExpansionFailed', `PersistentVolumeClaim ${pvc.metadata.name} stays at its size: ${message}`]);
        }
      }
    }
    try {
      await this.o.client.delete(resourcePath(Resources.statefulSets, namespace, name), 'Orphan', { uid: live.metadata.uid });
    } catch (e) {
      // Already gone (404) or already re-created (409 on the uid precondition).
      if (!(e instanceof KubeApiError && (e.statusCode === 404 || e.statusCode === 409))) throw e;
      return;
    }
    this.o.metrics.writes.inc({ kind: 'StatefulSet', verb: 'delete' });
    this.o.logger.info('Recreating StatefulSet', { name, namespace, reason: r.reason });
    events.push(['Normal', 'RecreatingStatefulSet', `Re-creating StatefulSet ${name}, keeping its pods and volumes: ${r.reason}`]);
  }

  private async deleteIfPresent(p: InferencePlatform, cache: SharedInformer, ref: ResourceRef, name?: string) {
    if (!name) return;
    const live = cache.get(p.metadata.namespace!, name);
    const ownedByUs = live?.metadata.ownerReferences?.some((r: any) => r.uid === p.metadata.uid);
    if (!live || !ownedByUs) return;
    try {
      await this.o.client.delete(resourcePath(ref, p.metadata.namespace, name));
      this.o.metrics.writes.inc({ kind: ref.kind, verb: 'delete' });
      this.o.logger.info(`Deleted ${ref.kind}`, { name, namespace: p.metadata.namespace });
      void this.o.recorder.record(p, 'Normal', 'Deleted', `Deleted ${ref.kind} ${name}`);
    } catch (e) {
      if (!(e instanceof KubeApiError && e.statusCode === 404)) throw e;
    }
  }

  /**
   * The last known cluster info. Qdrant is asked in the background when the
   * answer is older than the TTL, so a slow or unreachable Qdrant never holds
   * up a reconcile for long; a changed answer queues the platform for another
   * pass. Only the very first answer is waited for, briefly: without it the
   * status would say "reading Qdrant's cluster state" for one write and
   * something else a moment later.
   */
  private async qdrantClusterInfo(
    key: string,
    p: InferencePlatform,
    sts: any,
    desiredPeers: number,
    inPass = false,
  ): Promise<QdrantClusterInfo | undefined> {
    const readyPeers = sts?.status?.readyReplicas ?? 0;
    if (!sts || readyPeers === 0) {
      this.clusterInfo.delete(key);
      return undefined;
    }
    const cached = this.clusterInfo.get(key);
    const ttl = this.o.clusterInfoTtlMs ?? 60_000;
    const age = cached ? Date.now() - cached.at : Infinity;
    // A peer came or went, or Qdrant looked unsettled (no leader, peers still
    // joining, shards not Active): ask again soon, not after the full TTL.
    const unsettled = !!cached?.info.reachable && !!qdrantUnsettled(cached.info, desiredPeers);
    // Unreachable keeps the platform from Ready: try again well before the TTL.
    const unreachable = !!cached && !cached.info.reachable;
    const stale =
      age >= ttl || cached?.readyPeers !== readyPeers || (unsettled && age >= Math.min(ttl, 2000)) || (unreachable && age >= Math.min(ttl, 5000));
    let inFlight = this.clusterInfoInFlight.get(key);
    if (stale && !inFlight) {
      inFlight = this.fetchClusterInfo(p)
        .then(answer => {
          const previous = this.clusterInfo.get(key)?.info;
          const info = stableClusterInfo(previous, answer);
          const changed = JSON.stringify(info) !== JSON.stringify(previous);
          this.clusterInfo.set(key, { at: Date.now(), info, readyPeers });
          // A pass waiting for this answer reads it itself; another pass for it would only repeat that one.
          if (changed && !this.clusterInfoAwaited.has(key)) this.o.requeue?.(key);
        })
        .finally(() => this.clusterInfoInFlight.delete(key));
      this.clusterInfoInFlight.set(key, inFlight);
    }
    if (!cached && inFlight && inPass) {
      let timer: NodeJS.Timeout | undefined;
      this.clusterInfoAwaited.add(key);
      try {
        await Promise.race([inFlight, new Promise(r => (timer = setTimeout(r, FIRST_CLUSTER_INFO_WAIT_MS)))]);
      } finally {
        clearTimeout(timer);
        this.clusterInfoAwaited.delete(key);
      }
      return this.clusterInfo.get(key)?.info;
    }
    return cached?.info;
  }

  /**
   * Removes from Raft the empty peers of pods past the StatefulSet (see
   * strandedPeers) and returns the cluster info without them; Qdrant is asked
   * again on the next pass.
   */
  private async removeStrandedPeers(
    key: string,
    p: InferencePlatform,
    clusterInfo: QdrantClusterInfo | undefined,
    replicas: number,
    events: PendingEvent[],
  ): Promise<QdrantClusterInfo | undefined> {
    const stranded = strandedPeers(clusterInfo, names.qdrant(p), replicas);
    if (!stranded.length) return clusterInfo;
    const removed = new Set<string>();
    try {
      const apiKey = await this.readApiKey(p);
      // Through peer 0, which always stays (as drains go through a staying peer):
      // a removal is a Raft proposal any member forwards to the leader.
      const url = (this.o.qdrantPeerUrl ?? qdrantPeerUrl)(p, `${names.qdrant(p)}-0`);
      for (const peer of stranded) {
        const pod = podOfPeerUri(peer.uri);
        await this.peers.removePeer(url, peer.id, apiKey);
        removed.add(peer.id);
        this.o.logger.info('Removed stranded Qdrant peer from the cluster', { name: p.metadata.name, namespace: p.metadata.namespace, peer: peer.id, pod });
        events.push(['Normal', 'RemovedQdrantPeer', `Removed peer ${peer.id} (${pod}) from the Qdrant cluster: its pod is past the StatefulSet's ${replicas} and it held no shard`]);
      }
    } catch (e) {
      events.push(['Warning', 'PeerRemovalFailed', `removing a Qdrant peer no pod backs failed: ${e instanceof Error ? e.message : e}`]);
    }
    if (!removed.size || !clusterInfo) return clusterInfo;
    const info = { ...clusterInfo, peers: clusterInfo.peers?.filter(x => !removed.has(x.id)) };
    this.clusterInfo.set(key, { at: 0, info, readyPeers: this.clusterInfo.get(key)?.readyPeers ?? 0 });
    return info;
  }

  private async fetchClusterInfo(p: InferencePlatform): Promise<QdrantClusterInfo> {
    let apiKey: string | undefined;
    try {
      apiKey = await this.readApiKey(p);
    } catch (e) {
      return { reachable: false, message: e instanceof Error ? e.message : String(e) };
    }
    return this.qdrant.clusterInfo(this.o.qdrantUrl?.(p) ?? qdrantServiceUrl(p), apiKey);
  }

  private readApiKey(p: InferencePlatform): Promise<string | undefined> {
    return readQdrantApiKey(this.o.client, p);
  }

  /**
   * Writes the status if it changed. A change that only moves counts or
   * messages is held back while the platform's last write is younger than
   * statusCoalesceMs, so a rollout's many small steps cost one write per
   * interval; the returned delay is when to look again.
   */
  private async writeStatus(p: InferencePlatform, status: any): Promise<number | undefined> {
    const id = statusId(p);
    const current = this.lastWrites.pending(id, p.metadata.resourceVersion) ?? reconcilerOwned(p.status);
    if (sameStatus(status, current)) return undefined;
    const significant = significantChange(current, status);
    // On the way somewhere (Pending, Loading), facts like the Qdrant version
    // the pods run ride on the write that ends the way, the next phase. In a
    // phase that may last (Ready, Degraded, Failed) nothing else is coming:
    // they are written like counts.
    const onTheWay = status.phase === 'Pending' || status.phase === 'Loading';
    if (!significant && onTheWay && sameStatus(withoutCarried(status), withoutCarried(current))) return undefined;
    const prevPhase = (current as any)?.phase;
    const key = `${p.metadata.namespace}/${p.metadata.name}`;
    const coalesceMs = this.o.statusCoalesceMs ?? 5000;
    const since = Date.now() - (this.lastStatusWrite.get(key) ?? 0);
    if (!significant && since < coalesceMs) return coalesceMs - since;
    this.lastStatusWrite.set(key, Date.now());
    if (this.lastStatusWrite.size > 100_000) this.lastStatusWrite.delete(this.lastStatusWrite.keys().next().value!);
    const written = await this.o.client.apply(
      resourcePath(Resources.inferencePlatforms, p.metadata.namespace, p.metadata.name, 'status'),
      { apiVersion: p.apiVersion, kind: p.kind, metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, status },
      FIELD_MANAGER,
    );
    this.lastWrites.remember(id, p.metadata.resourceVersion, written?.metadata?.resourceVersion, status);
    this.o.metrics.writes.inc({ kind: p.kind, verb: 'status' });
    const leaderBefore: string | undefined = (current as any)?.qdrantCluster?.raftLeader;
    const leaderNow: string | undefined = status.qdrantCluster?.raftLeader;
    if (leaderBefore && leaderNow && leaderBefore !== leaderNow) {
      const peer = (peerId: string) => {
        const uri =
          status.qdrantCluster.peers?.find((x: any) => x.id === peerId)?.uri ??
          (current as any)?.qdrantCluster?.peers?.find((x: any) => x.id === peerId)?.uri;
        const pod = podOfPeerUri(uri);
        return `peer ${peerId}${pod ? ` (${pod})` : ''}`;
      };
      const message = `Qdrant Raft leader changed from ${peer(leaderBefore)} to ${peer(leaderNow)} in term ${status.qdrantCluster.raftTerm}`;
      this.o.logger.info('Qdrant leader changed', { name: p.metadata.name, namespace: p.metadata.namespace, from: leaderBefore, to: leaderNow });
      void this.o.recorder.record(p, 'Normal', 'QdrantLeaderChanged', message);
    }
    if (prevPhase !== status.phase) {
      this.o.logger.info(`Platform phase ${prevPhase ?? '(none)'} -> ${status.phase}`, {
        name: p.metadata.name,
        namespace: p.metadata.namespace,
      });
      // Events a user acts on or waits for: Ready, Failed, Degraded. The way
      // there (Pending, Loading) is in the status and the log, not in Events.
      if (status.phase === 'Ready' || status.phase === 'Failed' || status.phase === 'Degraded') {
        void this.o.recorder.record(
          p,
          status.phase === 'Ready' ? 'Normal' : 'Warning',
          status.phase,
          status.message ?? status.phase,
        );
      }
    }
    return undefined;
  }
}
