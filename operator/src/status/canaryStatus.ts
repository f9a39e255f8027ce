import { CanaryStatus, ConditionType, DefaultedSpec } from '@cv-platform/inference-platform-api';
import { ConditionInput, Reason } from './conditions';
import { cannotStart, crashLooping, modelLoadFailure, warmupTimeouts } from './podProblems';
import { rolloutComplete, stalledRollout } from './rollout';

/** @public */
export interface ObservedCanary {
  /** The canary's Deployment, as the cache shows it. */
  deployment?: any;
  pods: any[];
  /** Of those, the ready ones. */
  ready: number;
  /** Servers the canary's Deployment is asked for (its share of spec.inference.replicas). */
  replicas: number;
  /** spec.inference.replicas: what the platform's readiness counts against. */
  platformReplicas: number;
  /** Ready servers of the stable track, for the share of requests the canary receives. */
  stableReady: number;
  metrics?: CanaryStatus['metrics'];
}

/**
 * What the canary (spec.inference.canary) is doing: its servers, the share of
 * requests it receives (ready canary servers among all ready servers: the
 * Service picks a ready endpoint at random), and why it receives none when it
 * fails. A failed canary does not change the platform's phase: the stable
 * servers keep serving every request.
 */
export function canaryStatus(spec: DefaultedSpec, observed: ObservedCanary, now: number): { status: CanaryStatus; condition: ConditionInput } {
  const c = spec.inference.canary!;
  const ready = observed.ready;
  const total = ready + observed.stableReady;
  const effectiveWeight = total ? Math.round((100 * ready) / total) : 0;
  // The first failure found, with the reason it is reported under.
  const failures: Array<[string, () => string | undefined]> = [
    [Reason.ModelDownloadFailed, () => modelLoadFailure(observed.pods, c.modelUrl)],
    [Reason.ContainerCrashLooping, () => crashLooping(observed.pods, 'inference') ?? cannotStart(observed.pods, 'inference')],
    [Reason.WarmupTimeout, () => warmupTimeouts(observed.pods, spec.inference.modelSource.warmupTimeoutSeconds, now)],
    [Reason.ProgressDeadlineExceeded, () => (observed.deployment ? stalledRollout(observed.deployment) : undefined)],
  ];
  let failure: string | undefined;
  let failureReason: string = Reason.ProgressDeadlineExceeded;
  for (const [reason, find] of failures) {
    failure = find();
    if (failure) {
      failureReason = reason;
      break;
    }
  }
  let state: CanaryStatus['state'];
  let message: string;
  let condition: ConditionInput;
  if (c.weight === 0) {
    state = 'Paused';
    message = 'weight 0: no canary servers run, the stable model serves every request';
    condition = { type: ConditionType.CanaryReady, status: 'False', reason: Reason.CanaryPaused, message };
  } else if (failure) {
    state = 'Failed';
    message = `${failure}; the canary receives ${ready ? `${effectiveWeight}% of requests from its ${ready} ready servers` : 'no requests'}, the stable model serves the rest`;
    condition = { type: ConditionType.CanaryReady, status: 'False', reason: failureReason, message };
  } else if (observed.deployment && rolloutComplete(observed.deployment, observed.replicas) && ready >= observed.replicas) {
    // The Deployment's count and the pods' own readiness (the pod cache may
    // trail the Deployment's): Serving only once both say so.
    state = 'Serving';
    message = `${ready}/${observed.replicas} canary servers ready, ${effectiveWeight}% of requests (weight ${c.weight})`;
    condition = { type: ConditionType.CanaryReady, status: 'True', reason: Reason.CanaryServing, message };
  } else {
    state = 'Progressing';
    message = `${ready}/${observed.replicas} canary servers ready, loading ${c.modelUrl}`;
    condition = { type: ConditionType.CanaryReady, status: 'False', reason: Reason.CanaryProgressing, message };
  }
  return {
    status: {
      modelUrl: c.modelUrl,
      collection: c.collection,
      weight: c.weight,
      replicas: observed.replicas,
      readyReplicas: ready,
      effectiveWeight,
      state,
      message,
      ...(observed.metrics ? { metrics: observed.metrics } : {}),
    },
    condition,
  };
}
