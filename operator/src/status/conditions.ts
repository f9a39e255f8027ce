import { Condition, ConditionStatus } from '@cv-platform/inference-platform-api';

/**
 * Reasons are part of the API: constants, CamelCase.
 *
 * @public
 */
export const Reason = {
  QdrantPeersReady: 'QdrantPeersReady',
  QdrantPeersNotReady: 'QdrantPeersNotReady',
  QdrantRollingUpdate: 'QdrantRollingUpdate',
  QdrantScalingDown: 'QdrantScalingDown',
  ScaleDownBlocked: 'ScaleDownBlocked',
  DrainingPeers: 'DrainingPeers',
  ReplicationFactorOne: 'ReplicationFactorOne',
  QdrantUnreachable: 'QdrantUnreachable',
  QdrantClusterUnknown: 'QdrantClusterUnknown',
  QdrantNoLeader: 'QdrantNoLeader',
  QdrantConsensusStopped: 'QdrantConsensusStopped',
  QdrantUnbackedPeers: 'QdrantUnbackedPeers',
  QdrantShardsUnhealthy: 'QdrantShardsUnhealthy',
  QdrantPeersJoining: 'QdrantPeersJoining',
  QdrantUpgradeNeedsDowntime: 'QdrantUpgradeNeedsDowntime',
  VolumeExpansionRefused: 'VolumeExpansionRefused',
  CudaUnavailable: 'CudaUnavailable',
  PodsUnschedulable: 'PodsUnschedulable',
  WaitingForQdrant: 'WaitingForQdrant',
  InferenceAvailable: 'InferenceAvailable',
  InferenceRollingOut: 'InferenceRollingOut',
  ScaledToZero: 'ScaledToZero',
  ModelLoaded: 'ModelLoaded',
  ModelLoading: 'ModelLoading',
  ModelDownloadFailed: 'ModelDownloadFailed',
  ModelRollingOut: 'ModelRollingOut',
  ModelHotReloading: 'ModelHotReloading',
  ModelReloadFailed: 'ModelReloadFailed',
  ModelRejected: 'ModelRejected',
  ModelUpToDate: 'ModelUpToDate',
  WarmupTimeout: 'WarmupTimeout',
  KedaNotInstalled: 'KedaNotInstalled',
  ProgressDeadlineExceeded: 'ProgressDeadlineExceeded',
  ContainerCrashLooping: 'ContainerCrashLooping',
  ServersNotReady: 'ServersNotReady',
  ClusterInfoAvailable: 'ClusterInfoAvailable',
  ClusterInfoUnavailable: 'ClusterInfoUnavailable',
  AllComponentsReady: 'AllComponentsReady',
  Converged: 'Converged',
  Blocked: 'Blocked',
  AsExpected: 'AsExpected',
  ComponentsNotReady: 'ComponentsNotReady',
  ReconcileFailed: 'ReconcileFailed',
  CanaryServing: 'CanaryServing',
  CanaryProgressing: 'CanaryProgressing',
  CanaryPaused: 'CanaryPaused',
} as const;

/** @public */
export interface ConditionInput {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
}

/**
 * Sets a condition, keeping lastTransitionTime when the status did not change
 * (so an unchanged world produces an identical status and no write).
 *
 * @public
 */
export function setCondition(
  existing: Condition[] | undefined,
  input: ConditionInput,
  generation: number | undefined,
  now: string,
): Condition {
  const prev = existing?.find(c => c.type === input.type);
  return {
    type: input.type,
    status: input.status,
    reason: input.reason,
    message: input.message,
    observedGeneration: generation,
    lastTransitionTime: prev && prev.status === input.status ? prev.lastTransitionTime : now,
  };
}
