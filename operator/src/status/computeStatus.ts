import type { InferenceServerState } from '../inference/InferenceServerStates';
import { isPodReady } from './isPodReady';
import {
  ConditionType,
  DefaultedSpec,
  InferencePlatform,
  InferencePlatformStatus,
  Phase,
  QdrantClusterInfo,
  QdrantScaleDownStatus,
} from '@cv-platform/inference-platform-api';
import { ANNOTATION_MODEL_URL, MODEL_LOADER, hotReload } from '../reconcile/inferenceChildren';
import type { ReloadFailure } from '../inference/ModelHotReload';
import { ConditionInput, Reason, setCondition } from './conditions';
import { selectorLabels, selectorString } from '../reconcile/labels';
import { parseQuantity } from '../reconcile/isSubset';
import { ordinalOf } from '../qdrant/observeCluster';
import { canaryStatus, ObservedCanary } from './canaryStatus';

/** @public */
export interface ObservedChildren {
  statefulSet?: any;
  deployment?: any;
  qdrantPods: any[];
  inferencePods: any[];
  qdrantCluster?: QdrantClusterInfo;
  /** The Qdrant peers' data volumes (storage-<statefulset>-<n>). */
  qdrantVolumes?: any[];
  /** An ordered Qdrant rollout: its partition and what it waits for. */
  qdrantUpgrade?: { partition: number; waiting?: string; needsDowntime?: boolean };
  /** A Qdrant scale-down under way (peers draining) or blocked. */
  qdrantScaleDown?: QdrantScaleDownStatus;
  /** What each ready inference server says about itself, by pod (when the operator can ask them). */
  inferenceServers?: Record<string, InferenceServerState>;
  /** Servers that could not hot-reload the desired model (they keep serving theirs). */
  modelReloadFailures?: ReloadFailure[];
  /** Why spec.inference.autoscaling cannot be carried out here (KEDA missing). */
  autoscalingUnavailable?: string;
  /** An error from applying children in this pass. */
  reconcileError?: string;
  /** spec.inference.canary: its servers (deployment and inferencePods are then the stable track's). */
  canary?: ObservedCanary;
}

/** How the model-loader's termination message starts when it gave up (inference-service's ModelLoaderGaveUp). */
const LOADER_GAVE_UP = 'model download failed after ';

/** Waiting reasons of a container that cannot start until someone changes something. */
const CANNOT_START_REASONS = [
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrImageNeverPull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
];

const INIT_FAILURE_REASONS = new Set(['CrashLoopBackOff', 'Error', ...CANNOT_START_REASONS]);

/**
 * A serving container that cannot start at all (its image, its
 * configuration), with what the kubelet says.
 *
 * @public
 */
export function cannotStart(pods: any[], container: string): string | undefined {
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const s = (pod.status?.containerStatuses ?? []).find((x: any) => x.name === container);
    const w = s?.state?.waiting;
    if (w && CANNOT_START_REASONS.includes(w.reason)) {
      return `pod ${pod.metadata.name}: container ${container} cannot start (${w.reason})${w.message ? `: ${w.message}` : ''}`;
    }
  }
  return undefined;
}

/**
 * Why a pod cannot be scheduled, from its PodScheduled condition.
 *
 * @public
 */
export function unschedulableMessage(pods: any[]): string | undefined {
  for (const pod of pods) {
    const c = unscheduled(pod);
    if (c && !waitsForVolumes(c)) return `pod ${pod.metadata.name} is unschedulable: ${c.message}`;
  }
  return undefined;
}

/**
 * How long a pod may wait for its volumes before the status says so.
 *
 * @public
 */
export const VOLUME_WAIT_REPORT_MS = 60_000;

/**
 * Pods the scheduler holds only until their volumes exist and are bound (the
 * StatefulSet creates the claim, a provisioner binds it): every new Qdrant
 * peer passes through it, so it is said only once it lasts longer than
 * VOLUME_WAIT_REPORT_MS (a provisioner that never comes), not on the way
 * (which would cost two status writes per new peer).
 *
 * @public
 */
export function volumeWaitMessage(pods: any[], now: string): string | undefined {
  const long = volumeWaits(pods).find(w => Date.parse(now) - w.since >= VOLUME_WAIT_REPORT_MS);
  return long && `pod ${long.pod} has waited since ${long.condition.lastTransitionTime} for its volumes: ${long.condition.message}`;
}

/**
 * When a volume wait of these pods becomes worth saying (ms from now), if one is under way.
 *
 * @public
 */
export function volumeWaitReportableInMs(pods: any[], now: number): number | undefined {
  const waits = volumeWaits(pods)
    .map(w => w.since + VOLUME_WAIT_REPORT_MS - now)
    .filter(ms => ms > 0);
  return waits.length ? Math.min(...waits) : undefined;
}

/** Pods held only for their volumes, with the condition that says so and since when. */
function volumeWaits(pods: any[]): { pod: string; condition: any; since: number }[] {
  return pods.flatMap(pod => {
    const c = unscheduled(pod);
    return c && waitsForVolumes(c) ? [{ pod: pod.metadata.name, condition: c, since: Date.parse(c.lastTransitionTime) }] : [];
  });
}

function unscheduled(pod: any): any {
  return (pod.status?.conditions ?? []).find((x: any) => x.type === 'PodScheduled' && x.status === 'False' && x.reason === 'Unschedulable');
}

function waitsForVolumes(condition: any): boolean {
  const m = String(condition.message ?? '');
  // Claims not created or not bound yet, and nothing else held against the nodes.
  return (
    /unbound immediate PersistentVolumeClaims|persistentvolumeclaim "[^"]+" (not found|bound to non-existent persistentvolume)/.test(m) &&
    !/Insufficient|didn't match|untolerated taint|node\(s\) had volume node affinity conflict/.test(m)
  );
}

/** The model loader's failure on any pod running the current model URL. */
/**
 * The line a person needs from a termination message: its last non-empty
 * line, and of a JSON log line (the service logs JSON) its message and error.
 *
 * @public
 */
export function lastLogLine(message: string | undefined): string | undefined {
  const line = String(message ?? '').trim().split('\n').map(l => l.trim()).filter(Boolean).pop();
  if (!line) return undefined;
  try {
    const j = JSON.parse(line);
    if (j && typeof j === 'object' && typeof j.msg === 'string') return j.error ? `${j.msg}: ${j.error}` : j.msg;
  } catch {
    // plain text
  }
  return line;
}

/** @public */
export function modelLoadFailure(pods: any[], modelUrl: string, hot = false): string | undefined {
  for (const pod of pods) {
    // Hot reload: every loader reads the current URL when it (re)starts.
    if (!hot && pod.metadata?.annotations?.[ANNOTATION_MODEL_URL] !== modelUrl) continue;
    const s = (pod.status?.initContainerStatuses ?? []).find((x: any) => x.name === MODEL_LOADER);
    if (!s) continue;
    const terminated = s.state?.terminated ?? s.lastState?.terminated;
    const waiting = s.state?.waiting;
    // Every attempt failed: the loader says so and exits 0, so it does not crash-loop.
    const gaveUp = s.state?.terminated?.exitCode === 0 && String(s.state.terminated.message ?? '').startsWith(LOADER_GAVE_UP);
    if (gaveUp) return `pod ${pod.metadata.name}: ${MODEL_LOADER} gave up: ${lastLogLine(s.state.terminated.message)}`;
    const failedExit = terminated && terminated.exitCode !== 0;
    if (failedExit || (waiting && INIT_FAILURE_REASONS.has(waiting.reason))) {
      const detail = lastLogLine(terminated?.message) ?? waiting?.message ?? terminated?.reason ?? waiting?.reason;
      return `pod ${pod.metadata.name}: ${MODEL_LOADER} failed (${waiting?.reason ?? terminated?.reason}): ${detail}`;
    }
  }
  return undefined;
}

/**
 * Servers that started more than warmupTimeoutSeconds ago and are not ready
 * (the model loads, warms up and Qdrant answers before a server is ready).
 *
 * @public
 */
export function warmupTimeouts(pods: any[], seconds: number, now: number): string | undefined {
  const late = pods.flatMap(pod => {
    const started = startedUnready(pod);
    return started !== undefined && now - started > seconds * 1000 ? [`pod ${pod.metadata.name}`] : [];
  });
  return late.length ? `${late.join(', ')} started more than ${seconds} s ago and ${late.length === 1 ? 'is' : 'are'} not ready (spec.inference.model.source.warmupTimeoutSeconds)` : undefined;
}

/**
 * When the next starting server's warm-up deadline passes, to look again then.
 *
 * @public
 */
export function warmupDeadlineInMs(pods: any[], seconds: number, now: number): number | undefined {
  const waits = pods.flatMap(pod => {
    const started = startedUnready(pod);
    const ms = started === undefined ? 0 : started + seconds * 1000 - now + 1000;
    return ms > 0 ? [ms] : [];
  });
  return waits.length ? Math.min(...waits) : undefined;
}

/**
 * When a pod's server container started, if it runs and has not been ready
 * since (a server that served and lost Qdrant is not warming up).
 */
function startedUnready(pod: any): number | undefined {
  if (pod.metadata?.deletionTimestamp || isPodReady(pod)) return undefined;
  const s = (pod.status?.containerStatuses ?? []).find((x: any) => x.name === 'inference');
  const started = Date.parse(s?.state?.running?.startedAt ?? '');
  if (Number.isNaN(started)) return undefined;
  const ready = (pod.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
  const changed = Date.parse(ready?.lastTransitionTime ?? '');
  return !Number.isNaN(changed) && changed > started ? undefined : started;
}

/**
 * Ready inference pods per model URL, read from each pod (not from the
 * Deployment's template): the model its template names (Rollout, pvc://),
 * else what the server says it serves. Without a way to ask the servers
 * (`servers` undefined), a hot-reloaded pod counts as serving `fallback`.
 *
 * @public
 */
export function loadedModels(pods: any[], servers?: Record<string, InferenceServerState>, fallback?: string): Record<string, number> {
  const loaded: Record<string, number> = {};
  for (const pod of pods) {
    if (!isPodReady(pod)) continue;
    const url =
      pod.metadata?.annotations?.[ANNOTATION_MODEL_URL] ?? (servers ? servers[pod.metadata?.name]?.modelUrl : fallback);
    if (url) loaded[url] = (loaded[url] ?? 0) + 1;
  }
  return loaded;
}

function mergeCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, n] of Object.entries(b)) out[k] = (out[k] ?? 0) + n;
  return out;
}

const iReadyPods = (pods: any[]) => pods.filter(isPodReady).length;

const ASKING_SERVERS = 'asking the ready servers which model they serve';

/** What servers' failed hot reloads say, for the status (undefined when none failed). */
function reloadFailureText(failures: ReloadFailure[] | undefined): { message: string; rejected: boolean } | undefined {
  if (!failures?.length) return undefined;
  const rejected = failures.some(f => f.rejected);
  const parts = failures.map(f => `pod ${f.pod} could not load ${f.url}: ${f.message}`);
  const hint = rejected ? ' (the collection\'s dimension is fixed: to change it, name a new spec.inference.collection as well; the pods then roll)' : '';
  return { message: `${parts.join('; ')}${hint}`, rejected };
}

/**
 * The Deployment's own verdict that its rollout stalled.
 *
 * @public
 */
export function stalledRollout(deploy: any): string | undefined {
  const c = (deploy?.status?.conditions ?? []).find((x: any) => x.type === 'Progressing');
  return c?.status === 'False' && c.reason === 'ProgressDeadlineExceeded' ? c.message ?? c.reason : undefined;
}

const podWord = (n: number) => (n === 1 ? 'pod' : 'pods');

const describeLoaded = (loaded: Record<string, number>, except?: string) =>
  Object.entries(loaded)
    .filter(([url]) => url !== except)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([url, n]) => `${url} on ${n} ${podWord(n)}`)
    .join(', ');

/**
 * A serving container that keeps crashing, with what the kubelet says of its
 * last exit (reason, exit code and the termination message: the last log
 * line with `terminationMessagePolicy: FallbackToLogsOnError`).
 *
 * @public
 */
export function crashLooping(pods: any[], container: string): string | undefined {
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const s = (pod.status?.containerStatuses ?? []).find((x: any) => x.name === container);
    if (s?.state?.waiting?.reason !== 'CrashLoopBackOff') continue;
    const last = s.lastState?.terminated;
    const why = lastLogLine(last?.message);
    const exit = last ? ` (${last.reason ?? 'exited'}, exit code ${last.exitCode}${why ? `: ${why}` : ''})` : '';
    return `pod ${pod.metadata.name}: container ${container} is crash-looping after ${s.restartCount ?? 0} restarts${exit}`;
  }
  return undefined;
}

/**
 * Why each not-ready server is not ready, from what the kubelet reports.
 *
 * @public
 */
export function notReadyServers(pods: any[], container: string): string {
  const parts: string[] = [];
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp || isPodReady(pod)) continue;
    const s = (pod.status?.containerStatuses ?? []).find((x: any) => x.name === container);
    const last = s?.lastState?.terminated;
    const state = s?.state?.waiting?.reason ?? (s?.state?.running ? 'running, not ready' : s?.state?.terminated?.reason ?? 'starting');
    const restarts = s?.restartCount ? `, restarted ${s.restartCount}x${last ? ` (last exit: ${last.reason ?? 'exited'}, exit code ${last.exitCode})` : ''}` : '';
    parts.push(`pod ${pod.metadata.name} ${state}${restarts}`);
  }
  return parts.join('; ');
}

/**
 * What Qdrant's own view says is wrong: the Degraded reason and message;
 * undefined when it is fine or not read yet. Ready pods whose REST API does
 * not answer the operator are a problem: nobody can tell the cluster is whole.
 *
 * @public
 */
export function qdrantClusterProblem(
  cluster: QdrantClusterInfo | undefined,
  statefulSet: string,
  podCount: number,
): { reason: string; message: string } | undefined {
  if (cluster && !cluster.reachable) {
    return { reason: Reason.QdrantUnreachable, message: `its REST API does not answer the operator: ${cluster.message ?? 'no answer'}` };
  }
  if (!cluster?.reachable || !cluster.peers?.length) return undefined;
  if (!cluster.raftLeader) return { reason: Reason.QdrantNoLeader, message: 'the Qdrant cluster has no Raft leader' };
  if (cluster.consensus && cluster.consensus !== 'working') {
    return { reason: Reason.QdrantConsensusStopped, message: `Qdrant's consensus thread is ${cluster.consensus}` };
  }
  const unbacked = cluster.peers.filter(x => {
    const o = ordinalOf(x.uri, statefulSet);
    return o === undefined || o >= podCount;
  });
  if (unbacked.length) {
    return {
      reason: Reason.QdrantUnbackedPeers,
      message: `Raft lists ${unbacked.length === 1 ? 'a peer' : 'peers'} that no pod backs (left by a forced scale-down or a lost volume): ${unbacked
        .map(x => `peer ${x.id} (${x.uri})`)
        .join(', ')}; check their shards, then remove ${unbacked.length === 1 ? 'it' : 'them'} with DELETE /cluster/peer/<id>`,
    };
  }
  const problems = (cluster.collections ?? []).flatMap(c => c.problems ?? []);
  if (problems.length) return { reason: Reason.QdrantShardsUnhealthy, message: problems.join('; ') };
  return undefined;
}

/**
 * Servers that were given GPUs and run the model on the CPU because CUDA is
 * not usable, with their reason: "p-inference-0, p-inference-1 run the model
 * on the CPU ...". They still answer, just slower, so it is a warning.
 *
 * @public
 */
export function gpuFallbacks(servers: Record<string, InferenceServerState> | undefined): string | undefined {
  const onCpu = Object.entries(servers ?? {})
    .filter(([, s]) => s.executionProvider === 'cpu' && s.fallbackReason)
    .sort(([a], [b]) => a.localeCompare(b));
  if (!onCpu.length) return undefined;
  const reasons = [...new Set(onCpu.map(([, s]) => s.fallbackReason))];
  const pods = onCpu.map(([pod]) => pod).join(', ');
  return `${pods} run${onCpu.length === 1 ? 's' : ''} the model on the CPU, ${onCpu.length === 1 ? 'its GPU' : 'their GPUs'} idle: CUDA is not usable (${reasons.join('; ')})`;
}

/**
 * Data volumes that ask for less than the spec: "PersistentVolumeClaim storage-p-qdrant-0 (10Gi, StorageClass kwok-volume)".
 *
 * @public
 */
export function volumesBelow(pvcs: any[], storageSize: string): string[] {
  const want = parseQuantity(storageSize);
  if (want === undefined) return [];
  return pvcs
    .filter(c => !c.metadata?.deletionTimestamp)
    .filter(c => {
      const has = parseQuantity(c.spec?.resources?.requests?.storage);
      return has !== undefined && has < want;
    })
    .map(c => `PersistentVolumeClaim ${c.metadata.name} (${c.spec.resources.requests.storage}${c.spec.storageClassName ? `, StorageClass ${c.spec.storageClassName}` : ''})`)
    .sort();
}

/**
 * The Qdrant versions the peers run, from their containers' images: "v1.14.1", or "v1.14.1, v1.15.0" mid-upgrade.
 *
 * @public
 */
export function runningVersions(pods: any[]): string | undefined {
  const versions = new Set<string>();
  for (const pod of pods) {
    const image: string | undefined = (pod.status?.containerStatuses ?? []).find((c: any) => c.name === 'qdrant')?.image;
    const tag = image && /:([^:/@]+)(@.*)?$/.exec(image)?.[1];
    if (tag) versions.add(tag.startsWith('v') ? tag : `v${tag}`);
  }
  return versions.size ? [...versions].sort().join(', ') : undefined;
}

/** Every replica is on the current template and none is surplus (ready or not). */
function onCurrentTemplate(obj: any, desired: number): boolean {
  if (!obj) return false;
  const s = obj.status ?? {};
  return (
    (s.observedGeneration ?? 0) >= (obj.metadata?.generation ?? 0) &&
    (s.updatedReplicas ?? 0) >= desired &&
    (s.replicas ?? 0) === desired
  );
}

/** @public */
export function rolloutComplete(obj: any, desired: number): boolean {
  return onCurrentTemplate(obj, desired) && (obj.status?.readyReplicas ?? 0) >= desired;
}

/**
 * The platform's status from what its children report: a pure function of
 * the observed world, so an unchanged world yields an identical status.
 *
 * @public
 */
export function computeStatus(
  p: InferencePlatform,
  spec: DefaultedSpec,
  observed: ObservedChildren,
  now: string,
): InferencePlatformStatus {
  const qDesired = spec.qdrant.replicas;
  const iDesired = spec.inference.replicas;
  const sts = observed.statefulSet;
  const deploy = observed.deployment;
  const qReady = sts?.status?.readyReplicas ?? 0;
  const iReady = deploy?.status?.readyReplicas ?? 0;
  const qdrantRolling =
    !!sts?.status?.updateRevision && sts.status.updateRevision !== sts.status.currentRevision;
  const qdrantAllReady =
    rolloutComplete(sts, qDesired) && (!qdrantRolling || (sts.status.updatedReplicas ?? 0) >= qDesired);
  const inferenceDone = deploy ? rolloutComplete(deploy, iDesired) : false;
  const qUnschedulable = unschedulableMessage(observed.qdrantPods);
  const iUnschedulable = unschedulableMessage(observed.inferencePods);
  const qVolumeWait = volumeWaitMessage(observed.qdrantPods, now);
  const hot = hotReload(spec);
  const updatingReason = hot ? Reason.ModelHotReloading : Reason.ModelRollingOut;
  const reloadFailure = reloadFailureText(observed.modelReloadFailures);
  const loaderFailure = modelLoadFailure(observed.inferencePods, spec.inference.modelUrl, hot);
  const warmupFailure = loaderFailure ? undefined : warmupTimeouts(observed.inferencePods, spec.inference.modelSource.warmupTimeoutSeconds, Date.parse(now));
  const modelFailure = loaderFailure ?? reloadFailure?.message ?? warmupFailure;
  const desiredModel = spec.inference.modelUrl;
  const loaded = loadedModels(observed.inferencePods, observed.inferenceServers, hot ? desiredModel : undefined);
  // Ready servers that have not said yet which model they serve (asked as they turn ready).
  const unasked = Object.values(loaded).reduce((n, x) => n + x, 0) < iReadyPods(observed.inferencePods);
  const onDesired = loaded[desiredModel] ?? 0;
  // Ready pods still serving another model: a rollout in progress or stuck.
  const stillServing = describeLoaded(loaded, desiredModel);
  const stalled = deploy && !inferenceDone ? stalledRollout(deploy) : undefined;
  const crashing = crashLooping(observed.inferencePods, 'inference') ?? cannotStart(observed.inferencePods, 'inference');
  // Every replica is on the current template and none is surplus, yet fewer
  // are ready than desired, on a platform that was serving: servers were lost
  // (a crash, a failed liveness probe, an eviction), which is not a rollout.
  const rolledOut = onCurrentTemplate(deploy, iDesired);
  // Not by the phase alone: the pod's watch event often comes before the
  // Deployment's, and the pass in between writes Loading (a ready count the
  // pods do not show yet); the inference condition it wrote stays True.
  const inferenceWasReady = (p.status?.conditions ?? []).some(
    c => c.type === ConditionType.InferenceReady && c.status === 'True' && iDesired > 0 && c.observedGeneration === p.metadata.generation,
  );
  const wasServing = p.status?.phase === 'Ready' || p.status?.phase === 'Degraded' || inferenceWasReady;
  const lostServers = !inferenceDone && rolledOut && wasServing && iDesired > 0 ? notReadyServers(observed.inferencePods, 'inference') || 'not ready' : undefined;

  const scaleDown = observed.qdrantScaleDown;
  const clusterView = observed.qdrantCluster;
  const clusterProblem = qdrantClusterProblem(clusterView, sts?.metadata?.name ?? '', sts?.spec?.replicas ?? qDesired);
  // Scaling up: every pod is ready, but Raft does not list each peer yet.
  const members = clusterView?.reachable ? clusterView.peers?.length ?? 0 : undefined;
  const joining =
    members !== undefined && members > 0 && members < qDesired ? `waiting for Qdrant peers to join the Raft cluster: ${members}/${qDesired}` : undefined;
  // Every pod ready, but Qdrant not asked yet: Ready waits for its own view.
  const unread = !clusterView && qdrantAllReady ? "reading Qdrant's cluster state" : undefined;
  const scaleDownBlocked = scaleDown?.step === 'Blocked';
  const scaleDownText = scaleDown
    ? `Qdrant scale-down from ${scaleDown.fromReplicas} to ${scaleDown.toReplicas} peers ${scaleDownBlocked ? 'blocked' : 'in progress'}: ${scaleDown.message}`
    : '';
  let qdrantNotReadyReason: string = Reason.QdrantPeersNotReady;
  if (qUnschedulable) qdrantNotReadyReason = Reason.PodsUnschedulable;
  else if (qdrantRolling) qdrantNotReadyReason = Reason.QdrantRollingUpdate;
  let qdrantCond: ConditionInput = qdrantAllReady
    ? { type: ConditionType.QdrantReady, status: 'True', reason: Reason.QdrantPeersReady, message: `${qReady}/${qDesired} Qdrant peers ready` }
    : {
        type: ConditionType.QdrantReady,
        status: 'False',
        reason: qdrantNotReadyReason,
        message: qUnschedulable ?? `${qReady}/${qDesired} Qdrant peers ready${qVolumeWait ? `; ${qVolumeWait}` : ''}`,
      };
  if (qdrantAllReady && clusterProblem) {
    qdrantCond = { type: ConditionType.QdrantReady, status: 'False', reason: clusterProblem.reason, message: clusterProblem.message };
  } else if (qdrantAllReady && joining) {
    qdrantCond = { type: ConditionType.QdrantReady, status: 'False', reason: Reason.QdrantPeersJoining, message: joining };
  } else if (unread) {
    qdrantCond = { type: ConditionType.QdrantReady, status: 'False', reason: Reason.QdrantClusterUnknown, message: unread };
  }
  if (qdrantRolling && observed.qdrantUpgrade?.needsDowntime) {
    qdrantCond = { type: ConditionType.QdrantReady, status: 'False', reason: Reason.QdrantUpgradeNeedsDowntime, message: observed.qdrantUpgrade.waiting ?? '' };
  }
  if (scaleDown) {
    qdrantCond = { type: ConditionType.QdrantReady, status: 'False', reason: scaleDownBlocked ? Reason.ScaleDownBlocked : Reason.QdrantScalingDown, message: scaleDownText };
  }

  let inferenceCond: ConditionInput;
  if (!deploy) {
    inferenceCond = { type: ConditionType.InferenceReady, status: 'False', reason: Reason.WaitingForQdrant, message: 'inference servers start once every Qdrant peer is ready' };
  } else if (inferenceDone) {
    inferenceCond = iDesired === 0
      ? { type: ConditionType.InferenceReady, status: 'True', reason: Reason.ScaledToZero, message: 'scaled to zero' }
      : { type: ConditionType.InferenceReady, status: 'True', reason: Reason.InferenceAvailable, message: `${iReady}/${iDesired} inference servers ready` };
  } else if (crashing) {
    inferenceCond = { type: ConditionType.InferenceReady, status: 'False', reason: Reason.ContainerCrashLooping, message: crashing };
  } else if (lostServers) {
    inferenceCond = { type: ConditionType.InferenceReady, status: 'False', reason: Reason.ServersNotReady, message: `${iReady}/${iDesired} inference servers ready: ${lostServers}` };
  } else if (stalled) {
    inferenceCond = {
      type: ConditionType.InferenceReady,
      status: 'False',
      reason: Reason.ProgressDeadlineExceeded,
      message: `rollout stalled: ${stalled}${iUnschedulable ? `; ${iUnschedulable}` : ''}`,
    };
  } else {
    inferenceCond = {
      type: ConditionType.InferenceReady,
      status: 'False',
      reason: iUnschedulable ? Reason.PodsUnschedulable : Reason.InferenceRollingOut,
      message: iUnschedulable ?? `${iReady}/${iDesired} inference servers ready`,
    };
  }

  let modelCond: ConditionInput;
  if (modelFailure) {
    let reason: string = Reason.ModelDownloadFailed;
    if (!loaderFailure && reloadFailure) reason = reloadFailure.rejected ? Reason.ModelRejected : Reason.ModelReloadFailed;
    else if (!loaderFailure) reason = Reason.WarmupTimeout;
    modelCond = { type: ConditionType.ModelLoaded, status: 'False', reason, message: modelFailure };
  } else if (unasked && !stillServing) {
    modelCond = { type: ConditionType.ModelLoaded, status: 'Unknown', reason: Reason.ModelLoading, message: ASKING_SERVERS };
  } else if (onDesired > 0 && !stillServing) {
    modelCond = { type: ConditionType.ModelLoaded, status: 'True', reason: Reason.ModelLoaded, message: `model ${desiredModel} loaded on ${onDesired} ready ${podWord(onDesired)}` };
  } else if (stillServing) {
    modelCond = {
      type: ConditionType.ModelLoaded,
      status: 'False',
      reason: updatingReason,
      message: `model ${desiredModel} on ${onDesired} ready ${podWord(onDesired)}; still serving ${stillServing}`,
    };
  } else if (!deploy) {
    modelCond = { type: ConditionType.ModelLoaded, status: 'Unknown', reason: Reason.WaitingForQdrant, message: 'the model is loaded once inference servers start' };
  } else if (iDesired === 0) {
    modelCond = { type: ConditionType.ModelLoaded, status: 'Unknown', reason: Reason.ScaledToZero, message: 'no inference servers are running' };
  } else {
    modelCond = { type: ConditionType.ModelLoaded, status: 'False', reason: Reason.ModelLoading, message: `loading model ${spec.inference.modelUrl}` };
  }

  let phase: Phase;
  let message: string;
  if (observed.reconcileError) {
    phase = 'Failed';
    message = observed.reconcileError;
  } else if (modelFailure) {
    // Old servers that still answer make it Degraded; nothing serving, Failed.
    phase = stillServing ? 'Degraded' : 'Failed';
    message = stillServing ? `${modelFailure}; still serving ${stillServing}` : modelFailure;
  } else if (scaleDown) {
    // Every peer still serves while it drains; a blocked drain needs someone to act.
    phase = scaleDownBlocked ? 'Degraded' : 'Loading';
    message = scaleDownText;
  } else if (qdrantRolling && observed.qdrantUpgrade?.needsDowntime) {
    phase = 'Degraded';
    message = `Qdrant upgrade to ${spec.qdrant.version} not started: ${observed.qdrantUpgrade.waiting}`;
  } else if (!qdrantAllReady) {
    if (deploy && !qdrantRolling && !qUnschedulable) {
      phase = 'Degraded';
      message = `${qReady}/${qDesired} Qdrant peers ready`;
    } else {
      phase = qdrantRolling && deploy ? 'Loading' : 'Pending';
      const upgradeWait = observed.qdrantUpgrade?.waiting;
      const rollingText = `rolling Qdrant to ${spec.qdrant.version}: ${sts?.status?.updatedReplicas ?? 0}/${qDesired} peers restarted${upgradeWait ? `; ${upgradeWait}` : ''}`;
      message = qUnschedulable ?? (qdrantRolling ? rollingText : `waiting for Qdrant: ${qReady}/${qDesired} peers ready`);
    }
  } else if (clusterProblem) {
    phase = 'Degraded';
    message = `Qdrant: ${clusterProblem.message}`;
  } else if (joining) {
    phase = 'Loading';
    message = joining;
  } else if (!inferenceDone && crashing) {
    phase = iReady > 0 ? 'Degraded' : 'Failed';
    message = crashing;
  } else if (lostServers) {
    phase = iReady > 0 ? 'Degraded' : 'Failed';
    message = `inference ${iReady}/${iDesired} ready: ${lostServers}`;
  } else if (stalled) {
    phase = iReady > 0 ? 'Degraded' : 'Failed';
    message = `inference rollout stalled (${stalled})${iUnschedulable ? `: ${iUnschedulable}` : ''}`;
  } else if (!inferenceDone) {
    phase = iUnschedulable ? 'Pending' : 'Loading';
    message = iUnschedulable ?? `rolling out inference: ${iReady}/${iDesired} ready`;
  } else if (stillServing) {
    // Counts say done, but a pod still serves another model.
    phase = 'Loading';
    message = `${hot ? 'hot reloading' : 'rolling out'} model ${desiredModel}: still serving ${stillServing}`;
  } else if (unread) {
    phase = 'Loading';
    message = unread;
  } else if (unasked) {
    phase = 'Loading';
    message = ASKING_SERVERS;
  } else if (iDesired > 0 && onDesired < iReady) {
    // The Deployment counts ready servers the pod cache has not seen yet
    // (its watch lags): their model is unknown, so not Ready until they say.
    phase = 'Loading';
    message = ASKING_SERVERS;
  } else {
    phase = 'Ready';
    message = `Qdrant ${qReady}/${qDesired}, inference ${iReady}/${iDesired} ready`;
  }

  const readyCond: ConditionInput =
    phase === 'Ready'
      ? { type: ConditionType.Ready, status: 'True', reason: Reason.AllComponentsReady, message }
      : { type: ConditionType.Ready, status: 'False', reason: observed.reconcileError ? Reason.ReconcileFailed : Reason.ComponentsNotReady, message };

  // The usual summary pair (as Deployments and cluster operators have it), by
  // the first part that is not where it should be.
  const cause = [qdrantCond, inferenceCond, modelCond].find(c => c.status !== 'True');
  const moving = phase === 'Pending' || phase === 'Loading';
  const stuck = phase === 'Degraded' || phase === 'Failed';
  const progressingCond: ConditionInput = moving
    ? { type: ConditionType.Progressing, status: 'True', reason: cause?.reason ?? Reason.ComponentsNotReady, message }
    : { type: ConditionType.Progressing, status: 'False', reason: stuck ? Reason.Blocked : Reason.Converged, message: stuck ? message : 'nothing in progress' };
  const degradedCond: ConditionInput = stuck
    ? { type: ConditionType.Degraded, status: 'True', reason: observed.reconcileError ? Reason.ReconcileFailed : cause?.reason ?? Reason.ComponentsNotReady, message }
    : { type: ConditionType.Degraded, status: 'False', reason: Reason.AsExpected, message: 'no part has failed' };

  const inputs = [readyCond, progressingCond, degradedCond, qdrantCond, inferenceCond, modelCond];
  if (deploy) {
    inputs.push(
      stillServing
        ? {
            type: ConditionType.ModelUpdating,
            status: 'True',
            reason: modelFailure ? Reason.Blocked : updatingReason,
            message: `${onDesired} ready ${podWord(onDesired)} on ${desiredModel}; still serving ${stillServing}`,
          }
        : { type: ConditionType.ModelUpdating, status: 'False', reason: Reason.ModelUpToDate, message: `every ready server serves ${desiredModel}` },
    );
  }
  const small = volumesBelow(observed.qdrantVolumes ?? [], String(spec.qdrant.storageSize));
  if (small.length) {
    inputs.push({
      type: ConditionType.ResizeUnsupported,
      status: 'True',
      reason: Reason.VolumeExpansionRefused,
      message: `${small.join(', ')} below spec.qdrant.storage.size ${spec.qdrant.storageSize}: the StorageClass does not allow expansion (new peers get the new size)`,
    });
  }
  const singleCopy = (clusterView?.collections ?? []).filter(c => (c.replicationFactor ?? 1) < 2).map(c => c.name);
  if (spec.qdrant.replicas >= 2 && (spec.qdrant.replicationFactor === 1 || singleCopy.length)) {
    const which = singleCopy.length
      ? `collection${singleCopy.length === 1 ? '' : 's'} ${singleCopy.join(', ')} keep${singleCopy.length === 1 ? 's' : ''} one copy of each shard`
      : 'collections are created with replication factor 1';
    inputs.push({
      type: ConditionType.DataAtRisk,
      status: 'True',
      reason: Reason.ReplicationFactorOne,
      message: `${which} on ${spec.qdrant.replicas} peers: a lost peer or volume loses its shards, and a rolling restart makes them unavailable; set spec.qdrant.replicationFactor to 2 or more (existing collections keep theirs)`,
    });
  }
  if (observed.autoscalingUnavailable) {
    inputs.push({ type: ConditionType.AutoscalingUnavailable, status: 'True', reason: Reason.KedaNotInstalled, message: observed.autoscalingUnavailable });
  }
  const onCpu = spec.inference.gpu.count > 0 ? gpuFallbacks(observed.inferenceServers) : undefined;
  if (onCpu) inputs.push({ type: ConditionType.GPUUnused, status: 'True', reason: Reason.CudaUnavailable, message: onCpu });
  if (scaleDown) {
    inputs.push(
      scaleDownBlocked
        ? { type: ConditionType.ScaleDownBlocked, status: 'True', reason: scaleDown.reason ?? Reason.ScaleDownBlocked, message: scaleDown.message }
        : { type: ConditionType.ScaleDownBlocked, status: 'False', reason: Reason.DrainingPeers, message: scaleDown.message },
    );
  }
  const cluster = observed.qdrantCluster;
  if (cluster) {
    inputs.push(
      cluster.reachable
        ? { type: ConditionType.QdrantClusterReachable, status: 'True', reason: Reason.ClusterInfoAvailable, message: `${cluster.peers?.length ?? 0} peers, leader ${cluster.raftLeader ?? 'unknown'}` }
        : { type: ConditionType.QdrantClusterReachable, status: 'False', reason: Reason.ClusterInfoUnavailable, message: cluster.message ?? 'Qdrant REST API unreachable' },
    );
  }
  const canary = spec.inference.canary && observed.canary ? canaryStatus(spec, observed.canary, Date.parse(now)) : undefined;
  if (canary) inputs.push(canary.condition);
  const cReady = canary?.status.readyReplicas ?? 0;
  const allLoaded = observed.canary ? mergeCounts(loaded, loadedModels(observed.canary.pods)) : loaded;
  const version = runningVersions(observed.qdrantPods);
  const generation = p.metadata.generation;
  const prev = p.status?.conditions;
  return {
    phase,
    message,
    observedGeneration: generation,
    conditions: inputs.map(c => setCondition(prev, c, generation, now)),
    qdrantReplicas: qDesired,
    qdrantReadyReplicas: qReady,
    inferenceReplicas: (deploy?.status?.replicas ?? 0) + (observed.canary?.deployment?.status?.replicas ?? 0),
    inferenceReadyReplicas: iReady + cReady,
    qdrantReadiness: `${qReady}/${qDesired}`,
    inferenceReadiness: `${iReady + cReady}/${observed.canary?.platformReplicas ?? iDesired}`,
    inferenceSelector: selectorString(selectorLabels(p, 'inference')),
    ...(cluster ? { qdrantCluster: cluster } : {}),
    ...(scaleDown || version ? { qdrant: { ...(version ? { version } : {}), ...(scaleDown ? { scaleDown } : {}) } } : {}),
    ...(deploy ? { model: { desired: desiredModel, loaded: allLoaded } } : {}),
    ...(canary ? { canary: canary.status } : {}),
  };
}
