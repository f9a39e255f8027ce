import { DefaultedSpec, InferencePlatform, InferencePlatformStatus } from '@cv-platform/inference-platform-api';
import { selectorLabels, selectorString } from '../reconcile/labels';
import { canaryStatus } from './canaryStatus';
import { ConditionInput, setCondition } from './conditions';
import { inferenceStatus, loadedModels, mergeCounts } from './inferenceStatus';
import type { ObservedChildren } from './ObservedChildren';
import { platformSummary } from './platformSummary';
import { qdrantStatus } from './qdrantStatus';

export type { ObservedChildren } from './ObservedChildren';
export {
  cannotStart,
  crashLooping,
  lastLogLine,
  modelLoadFailure,
  notReadyServers,
  unschedulableMessage,
  VOLUME_WAIT_REPORT_MS,
  volumeWaitMessage,
  volumeWaitReportableInMs,
  warmupDeadlineInMs,
  warmupTimeouts,
} from './podProblems';
export { rolloutComplete, stalledRollout } from './rollout';
export { qdrantClusterProblem } from './qdrantClusterProblem';
export { runningVersions, volumesBelow } from './qdrantStatus';
export { gpuFallbacks, loadedModels } from './inferenceStatus';

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
  const q = qdrantStatus(spec, observed, now);
  const i = inferenceStatus(p, spec, observed, now);
  const summary = platformSummary(spec, q, i, observed.reconcileError);
  const canary = spec.inference.canary && observed.canary ? canaryStatus(spec, observed.canary, Date.parse(now)) : undefined;
  // The order conditions were always written in: a reordering alone would be a status write.
  const inputs = [
    summary.ready,
    summary.progressing,
    summary.degraded,
    q.condition,
    i.condition,
    i.modelCondition,
    i.updating,
    ...q.volumes,
    q.dataAtRisk,
    i.autoscaling,
    i.gpu,
    q.scaleDownCondition,
    q.reachable,
    canary?.condition,
  ].filter((c): c is ConditionInput => !!c);
  const deploy = observed.deployment;
  const cReady = canary?.status.readyReplicas ?? 0;
  const allLoaded = observed.canary ? mergeCounts(i.loaded, loadedModels(observed.canary.pods)) : i.loaded;
  const { version, scaleDown } = q;
  const cluster = observed.qdrantCluster;
  const generation = p.metadata.generation;
  const prev = p.status?.conditions;
  return {
    phase: summary.phase,
    message: summary.message,
    observedGeneration: generation,
    conditions: inputs.map(c => setCondition(prev, c, generation, now)),
    qdrantReplicas: q.desired,
    qdrantReadyReplicas: q.ready,
    inferenceReplicas: (deploy?.status?.replicas ?? 0) + (observed.canary?.deployment?.status?.replicas ?? 0),
    inferenceReadyReplicas: i.ready + cReady,
    qdrantReadiness: `${q.ready}/${q.desired}`,
    inferenceReadiness: `${i.ready + cReady}/${observed.canary?.platformReplicas ?? i.desired}`,
    inferenceSelector: selectorString(selectorLabels(p, 'inference')),
    ...(cluster ? { qdrantCluster: cluster } : {}),
    ...(scaleDown || version ? { qdrant: { ...(version ? { version } : {}), ...(scaleDown ? { scaleDown } : {}) } } : {}),
    ...(deploy ? { model: { desired: i.desiredModel, loaded: allLoaded } } : {}),
    ...(canary ? { canary: canary.status } : {}),
  };
}
