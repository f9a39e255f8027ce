import { ConditionType, DefaultedSpec, InferencePlatform } from '@cv-platform/inference-platform-api';
import type { InferenceServerState } from '../inference/InferenceServerStates';
import type { ReloadFailure } from '../inference/ModelHotReload';
import { ANNOTATION_MODEL_URL, hotReload } from '../reconcile/inferenceChildren';
import { ConditionInput, Reason } from './conditions';
import { isPodReady } from './isPodReady';
import type { ObservedChildren } from './ObservedChildren';
import { cannotStart, crashLooping, modelLoadFailure, notReadyServers, unschedulableMessage, warmupTimeouts } from './podProblems';
import { onCurrentTemplate, rolloutComplete, stalledRollout } from './rollout';

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

export function mergeCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, n] of Object.entries(b)) out[k] = (out[k] ?? 0) + n;
  return out;
}

const podWord = (n: number) => (n === 1 ? 'pod' : 'pods');

const describeLoaded = (loaded: Record<string, number>, except?: string) =>
  Object.entries(loaded)
    .filter(([url]) => url !== except)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([url, n]) => `${url} on ${n} ${podWord(n)}`)
    .join(', ');

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


/** Why the platform is not Ready while ready servers have not said which model they serve. */
export const ASKING_SERVERS = 'asking the ready servers which model they serve';

const readyPods = (pods: any[]) => pods.filter(isPodReady).length;

/** What servers' failed hot reloads say, for the status (undefined when none failed). */
function reloadFailureText(failures: ReloadFailure[] | undefined): { message: string; rejected: boolean } | undefined {
  if (!failures?.length) return undefined;
  const rejected = failures.some(f => f.rejected);
  const parts = failures.map(f => `pod ${f.pod} could not load ${f.url}: ${f.message}`);
  const hint = rejected ? ' (the collection\'s dimension is fixed: to change it, name a new spec.inference.collection as well; the pods then roll)' : '';
  return { message: `${parts.join('; ')}${hint}`, rejected };
}

/** What the inference tier reports: its two conditions, the facts the summary needs, and its own extra conditions. */
export interface InferenceTierStatus {
  condition: ConditionInput;
  modelCondition: ConditionInput;
  desired: number;
  ready: number;
  done: boolean;
  hot: boolean;
  deployed: boolean;
  unschedulable?: string;
  crashing?: string;
  lostServers?: string;
  stalled?: string;
  loaderFailure?: string;
  modelFailure?: string;
  /** Ready pods still serving another model: "m1 on 2 pods". */
  stillServing: string;
  unasked: boolean;
  onDesired: number;
  desiredModel: string;
  loaded: Record<string, number>;
  updating?: ConditionInput;
  autoscaling?: ConditionInput;
  gpu?: ConditionInput;
}

/** The inference tier's conditions from the stable Deployment, its pods and what the servers say. */
export function inferenceStatus(p: InferencePlatform, spec: DefaultedSpec, observed: ObservedChildren, now: string): InferenceTierStatus {
  const desired = spec.inference.replicas;
  const deploy = observed.deployment;
  const pods = observed.inferencePods;
  const ready = deploy?.status?.readyReplicas ?? 0;
  const done = deploy ? rolloutComplete(deploy, desired) : false;
  const unschedulable = unschedulableMessage(pods);
  const hot = hotReload(spec);
  const updatingReason = hot ? Reason.ModelHotReloading : Reason.ModelRollingOut;
  const reloadFailure = reloadFailureText(observed.modelReloadFailures);
  const loaderFailure = modelLoadFailure(pods, spec.inference.modelUrl, hot);
  const warmupFailure = loaderFailure ? undefined : warmupTimeouts(pods, spec.inference.modelSource.warmupTimeoutSeconds, Date.parse(now));
  const modelFailure = loaderFailure ?? reloadFailure?.message ?? warmupFailure;
  const desiredModel = spec.inference.modelUrl;
  const loaded = loadedModels(pods, observed.inferenceServers, hot ? desiredModel : undefined);
  // Ready servers that have not said yet which model they serve (asked as they turn ready).
  const unasked = Object.values(loaded).reduce((n, x) => n + x, 0) < readyPods(pods);
  const onDesired = loaded[desiredModel] ?? 0;
  const stillServing = describeLoaded(loaded, desiredModel);
  const stalled = deploy && !done ? stalledRollout(deploy) : undefined;
  const crashing = crashLooping(pods, 'inference') ?? cannotStart(pods, 'inference');
  // Every replica is on the current template and none is surplus, yet fewer
  // are ready than desired, on a platform that was serving: servers were lost
  // (a crash, a failed liveness probe, an eviction), which is not a rollout.
  const rolledOut = onCurrentTemplate(deploy, desired);
  // Not by the phase alone: the pod's watch event often comes before the
  // Deployment's, and the pass in between writes Loading (a ready count the
  // pods do not show yet); the inference condition it wrote stays True.
  const wasReady = (p.status?.conditions ?? []).some(
    c => c.type === ConditionType.InferenceReady && c.status === 'True' && desired > 0 && c.observedGeneration === p.metadata.generation,
  );
  const wasServing = p.status?.phase === 'Ready' || p.status?.phase === 'Degraded' || wasReady;
  const lostServers = !done && rolledOut && wasServing && desired > 0 ? notReadyServers(pods, 'inference') || 'not ready' : undefined;

  let condition: ConditionInput;
  if (!deploy) {
    condition = { type: ConditionType.InferenceReady, status: 'False', reason: Reason.WaitingForQdrant, message: 'inference servers start once every Qdrant peer is ready' };
  } else if (done) {
    condition = desired === 0
      ? { type: ConditionType.InferenceReady, status: 'True', reason: Reason.ScaledToZero, message: 'scaled to zero' }
      : { type: ConditionType.InferenceReady, status: 'True', reason: Reason.InferenceAvailable, message: `${ready}/${desired} inference servers ready` };
  } else if (crashing) {
    condition = { type: ConditionType.InferenceReady, status: 'False', reason: Reason.ContainerCrashLooping, message: crashing };
  } else if (lostServers) {
    condition = { type: ConditionType.InferenceReady, status: 'False', reason: Reason.ServersNotReady, message: `${ready}/${desired} inference servers ready: ${lostServers}` };
  } else if (stalled) {
    condition = {
      type: ConditionType.InferenceReady,
      status: 'False',
      reason: Reason.ProgressDeadlineExceeded,
      message: `rollout stalled: ${stalled}${unschedulable ? `; ${unschedulable}` : ''}`,
    };
  } else {
    condition = {
      type: ConditionType.InferenceReady,
      status: 'False',
      reason: unschedulable ? Reason.PodsUnschedulable : Reason.InferenceRollingOut,
      message: unschedulable ?? `${ready}/${desired} inference servers ready`,
    };
  }

  let modelCondition: ConditionInput;
  if (modelFailure) {
    let reason: string = Reason.ModelDownloadFailed;
    if (!loaderFailure && reloadFailure) reason = reloadFailure.rejected ? Reason.ModelRejected : Reason.ModelReloadFailed;
    else if (!loaderFailure) reason = Reason.WarmupTimeout;
    modelCondition = { type: ConditionType.ModelLoaded, status: 'False', reason, message: modelFailure };
  } else if (unasked && !stillServing) {
    modelCondition = { type: ConditionType.ModelLoaded, status: 'Unknown', reason: Reason.ModelLoading, message: ASKING_SERVERS };
  } else if (onDesired > 0 && !stillServing) {
    modelCondition = { type: ConditionType.ModelLoaded, status: 'True', reason: Reason.ModelLoaded, message: `model ${desiredModel} loaded on ${onDesired} ready ${podWord(onDesired)}` };
  } else if (stillServing) {
    modelCondition = {
      type: ConditionType.ModelLoaded,
      status: 'False',
      reason: updatingReason,
      message: `model ${desiredModel} on ${onDesired} ready ${podWord(onDesired)}; still serving ${stillServing}`,
    };
  } else if (!deploy) {
    modelCondition = { type: ConditionType.ModelLoaded, status: 'Unknown', reason: Reason.WaitingForQdrant, message: 'the model is loaded once inference servers start' };
  } else if (desired === 0) {
    modelCondition = { type: ConditionType.ModelLoaded, status: 'Unknown', reason: Reason.ScaledToZero, message: 'no inference servers are running' };
  } else {
    modelCondition = { type: ConditionType.ModelLoaded, status: 'False', reason: Reason.ModelLoading, message: `loading model ${spec.inference.modelUrl}` };
  }

  let updating: ConditionInput | undefined;
  if (deploy) {
    updating = stillServing
      ? {
          type: ConditionType.ModelUpdating,
          status: 'True',
          reason: modelFailure ? Reason.Blocked : updatingReason,
          message: `${onDesired} ready ${podWord(onDesired)} on ${desiredModel}; still serving ${stillServing}`,
        }
      : { type: ConditionType.ModelUpdating, status: 'False', reason: Reason.ModelUpToDate, message: `every ready server serves ${desiredModel}` };
  }
  const autoscaling: ConditionInput | undefined = observed.autoscalingUnavailable
    ? { type: ConditionType.AutoscalingUnavailable, status: 'True', reason: Reason.KedaNotInstalled, message: observed.autoscalingUnavailable }
    : undefined;
  const onCpu = spec.inference.gpu.count > 0 ? gpuFallbacks(observed.inferenceServers) : undefined;
  const gpu: ConditionInput | undefined = onCpu ? { type: ConditionType.GPUUnused, status: 'True', reason: Reason.CudaUnavailable, message: onCpu } : undefined;
  return {
    condition,
    modelCondition,
    desired,
    ready,
    done,
    hot,
    deployed: !!deploy,
    unschedulable,
    crashing,
    lostServers,
    stalled,
    loaderFailure,
    modelFailure,
    stillServing,
    unasked,
    onDesired,
    desiredModel,
    loaded,
    updating,
    autoscaling,
    gpu,
  };
}
