import { ConditionType, DefaultedSpec, Phase } from '@cv-platform/inference-platform-api';
import { ConditionInput, Reason } from './conditions';
import { ASKING_SERVERS, InferenceTierStatus } from './inferenceStatus';
import type { QdrantTierStatus } from './qdrantStatus';

/** The platform's phase and message, then Ready, Progressing and Degraded derived from them. */
export interface PlatformSummary {
  phase: Phase;
  message: string;
  ready: ConditionInput;
  progressing: ConditionInput;
  degraded: ConditionInput;
}

/**
 * One phase for the whole platform from what each tier reports: the first
 * thing in this order that is not where it should be decides it, because a
 * person fixes a failure before waiting on a rollout.
 */
function phaseOf(spec: DefaultedSpec, q: QdrantTierStatus, i: InferenceTierStatus, reconcileError?: string): { phase: Phase; message: string } {
  if (reconcileError) return { phase: 'Failed', message: reconcileError };
  if (i.modelFailure) {
    // Old servers that still answer make it Degraded; nothing serving, Failed.
    return i.stillServing
      ? { phase: 'Degraded', message: `${i.modelFailure}; still serving ${i.stillServing}` }
      : { phase: 'Failed', message: i.modelFailure };
  }
  // Every peer still serves while it drains; a blocked drain needs someone to act.
  if (q.scaleDown) return { phase: q.scaleDownBlocked ? 'Degraded' : 'Loading', message: q.scaleDownText };
  if (q.needsDowntime) return { phase: 'Degraded', message: `Qdrant upgrade to ${spec.qdrant.version} not started: ${q.upgradeWaiting}` };
  if (!q.allReady) {
    if (q.shrinking) return { phase: 'Loading', message: q.shrinking };
    if (i.deployed && !q.rolling && !q.unschedulable) return { phase: 'Degraded', message: `${q.ready}/${q.desired} Qdrant peers ready` };
    return {
      phase: q.rolling && i.deployed ? 'Loading' : 'Pending',
      message: q.unschedulable ?? (q.rolling ? q.rollingText : `waiting for Qdrant: ${q.ready}/${q.desired} peers ready`),
    };
  }
  if (q.clusterProblem) return { phase: 'Degraded', message: `Qdrant: ${q.clusterProblem.message}` };
  if (q.joining) return { phase: 'Loading', message: q.joining };
  const servingOrFailed: Phase = i.ready > 0 ? 'Degraded' : 'Failed';
  if (!i.done && i.crashing) return { phase: servingOrFailed, message: i.crashing };
  if (i.lostServers) return { phase: servingOrFailed, message: `inference ${i.ready}/${i.desired} ready: ${i.lostServers}` };
  if (i.stalled) return { phase: servingOrFailed, message: `inference rollout stalled (${i.stalled})${i.unschedulable ? `: ${i.unschedulable}` : ''}` };
  if (!i.done) return { phase: i.unschedulable ? 'Pending' : 'Loading', message: i.unschedulable ?? `rolling out inference: ${i.ready}/${i.desired} ready` };
  // Counts say done, but a pod still serves another model.
  if (i.stillServing) return { phase: 'Loading', message: `${i.hot ? 'hot reloading' : 'rolling out'} model ${i.desiredModel}: still serving ${i.stillServing}` };
  if (q.unread) return { phase: 'Loading', message: q.unread };
  if (i.unasked) return { phase: 'Loading', message: ASKING_SERVERS };
  // The Deployment counts ready servers the pod cache has not seen yet
  // (its watch lags): their model is unknown, so not Ready until they say.
  if (i.desired > 0 && i.onDesired < i.ready) return { phase: 'Loading', message: ASKING_SERVERS };
  // Serving, but a resize is not finished: Ready must not claim space the peers do not have yet.
  const growing = q.notGrown.length ? `; volumes not grown yet: ${q.notGrown.join(', ')}` : '';
  return { phase: 'Ready', message: `Qdrant ${q.ready}/${q.desired}, inference ${i.ready}/${i.desired} ready${growing}` };
}

/** The platform's phase and its summary conditions, from both tiers' reports. */
export function platformSummary(spec: DefaultedSpec, q: QdrantTierStatus, i: InferenceTierStatus, reconcileError?: string): PlatformSummary {
  const { phase, message } = phaseOf(spec, q, i, reconcileError);
  const ready: ConditionInput =
    phase === 'Ready'
      ? { type: ConditionType.Ready, status: 'True', reason: Reason.AllComponentsReady, message }
      : { type: ConditionType.Ready, status: 'False', reason: reconcileError ? Reason.ReconcileFailed : Reason.ComponentsNotReady, message };
  // The usual summary pair (as Deployments and cluster operators have it), by
  // the first part that is not where it should be.
  const cause = [q.condition, i.condition, i.modelCondition].find(c => c.status !== 'True');
  const moving = phase === 'Pending' || phase === 'Loading';
  const stuck = phase === 'Degraded' || phase === 'Failed';
  const progressing: ConditionInput = moving
    ? { type: ConditionType.Progressing, status: 'True', reason: cause?.reason ?? Reason.ComponentsNotReady, message }
    : { type: ConditionType.Progressing, status: 'False', reason: stuck ? Reason.Blocked : Reason.Converged, message: stuck ? message : 'nothing in progress' };
  const degraded: ConditionInput = stuck
    ? { type: ConditionType.Degraded, status: 'True', reason: reconcileError ? Reason.ReconcileFailed : cause?.reason ?? Reason.ComponentsNotReady, message }
    : { type: ConditionType.Degraded, status: 'False', reason: Reason.AsExpected, message: 'no part has failed' };
  return { phase, message, ready, progressing, degraded };
}
