import { isPodReady } from './isPodReady';
import { ANNOTATION_MODEL_URL, MODEL_LOADER } from '../reconcile/inferenceChildren';

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

