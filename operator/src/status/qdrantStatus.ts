import { ConditionType, DefaultedSpec, QdrantScaleDownStatus } from '@cv-platform/inference-platform-api';
import { ConditionInput, Reason } from './conditions';
import type { ObservedChildren } from './ObservedChildren';
import { parseQuantity } from '../reconcile/isSubset';
import { qdrantClusterProblem } from './qdrantClusterProblem';
import { unschedulableMessage, volumeWaitMessage } from './podProblems';
import { rolloutComplete } from './rollout';

/**
 * Said while a resize has reached the claims but not the volumes behind them.
 * Kept out of the API's ConditionType/Reason: it reports, it never blocks.
 */
export const VOLUMES_RESIZING = 'QdrantVolumesResizing';
export const VOLUME_EXPANSION_PENDING = 'VolumeExpansionPending';

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


/**
 * Claims that ask for the spec's size while their volume has not grown to it
 * yet (status.capacity below the request): the expansion is under way, and
 * the peers still have only the old space.
 */
export function volumesNotGrown(pvcs: any[], storageSize: string): string[] {
  const want = parseQuantity(storageSize);
  if (want === undefined) return [];
  return pvcs
    .filter(c => !c.metadata?.deletionTimestamp)
    .filter(c => {
      const asked = parseQuantity(c.spec?.resources?.requests?.storage);
      const has = parseQuantity(c.status?.capacity?.storage);
      return asked !== undefined && asked >= want && has !== undefined && has < want;
    })
    .map(c => `PersistentVolumeClaim ${c.metadata.name} (${c.status.capacity.storage} of ${c.spec.resources.requests.storage})`)
    .sort();
}

/** What the Qdrant tier reports: its condition, the facts the summary needs, and its own extra conditions. */
export interface QdrantTierStatus {
  condition: ConditionInput;
  desired: number;
  ready: number;
  rolling: boolean;
  allReady: boolean;
  /** Every peer that stays is ready, the StatefulSet shrank, and surplus pods are still stopping. */
  shrinking?: string;
  unschedulable?: string;
  clusterProblem?: { reason: string; message: string };
  joining?: string;
  unread?: string;
  scaleDown?: QdrantScaleDownStatus;
  scaleDownBlocked: boolean;
  scaleDownText: string;
  needsDowntime: boolean;
  /** "rolling Qdrant to v1.15.0: 1/3 peers restarted; ..." */
  rollingText: string;
  upgradeWaiting?: string;
  /** Volumes whose expansion is under way, to be said until they have grown. */
  notGrown: string[];
  /** Conditions after the tiers' own, in the order they are written. */
  volumes: ConditionInput[];
  dataAtRisk?: ConditionInput;
  scaleDownCondition?: ConditionInput;
  reachable?: ConditionInput;
  version?: string;
}

/** The Qdrant tier's conditions from the StatefulSet, its pods, its volumes and Qdrant's own view. */
export function qdrantStatus(spec: DefaultedSpec, observed: ObservedChildren, now: string): QdrantTierStatus {
  const desired = spec.qdrant.replicas;
  const sts = observed.statefulSet;
  const ready = sts?.status?.readyReplicas ?? 0;
  const rolling = !!sts?.status?.updateRevision && sts.status.updateRevision !== sts.status.currentRevision;
  const allReady = rolloutComplete(sts, desired) && (!rolling || (sts.status.updatedReplicas ?? 0) >= desired);
  // A finished scale-down: the StatefulSet asks for fewer pods than still run.
  // The leaving peers have left Raft already; their pods stopping is the plan, not a fault.
  const surplus = (sts?.status?.replicas ?? 0) - desired;
  const shrinking =
    !allReady && !rolling && sts?.spec?.replicas === desired && surplus > 0 && ready >= desired
      ? `Qdrant scaled down to ${desired} ${desired === 1 ? 'peer' : 'peers'}: ${surplus} leaving ${surplus === 1 ? 'pod' : 'pods'} stopping`
      : undefined;
  const unschedulable = unschedulableMessage(observed.qdrantPods);
  const volumeWait = volumeWaitMessage(observed.qdrantPods, now);
  const scaleDown = observed.qdrantScaleDown;
  const cluster = observed.qdrantCluster;
  const clusterProblem = qdrantClusterProblem(cluster, sts?.metadata?.name ?? '', sts?.spec?.replicas ?? desired);
  // Scaling up: every pod is ready, but Raft does not list each peer yet.
  const members = cluster?.reachable ? cluster.peers?.length ?? 0 : undefined;
  const joining =
    members !== undefined && members > 0 && members < desired ? `waiting for Qdrant peers to join the Raft cluster: ${members}/${desired}` : undefined;
  // Every pod ready, but Qdrant not asked yet: Ready waits for its own view.
  const unread = !cluster && allReady ? "reading Qdrant's cluster state" : undefined;
  const scaleDownBlocked = scaleDown?.step === 'Blocked';
  const scaleDownText = scaleDown
    ? `Qdrant scale-down from ${scaleDown.fromReplicas} to ${scaleDown.toReplicas} peers ${scaleDownBlocked ? 'blocked' : 'in progress'}: ${scaleDown.message}`
    : '';
  const needsDowntime = rolling && !!observed.qdrantUpgrade?.needsDowntime;
  const upgradeWaiting = observed.qdrantUpgrade?.waiting;
  const rollingText = `rolling Qdrant to ${spec.qdrant.version}: ${sts?.status?.updatedReplicas ?? 0}/${desired} peers restarted${upgradeWaiting ? `; ${upgradeWaiting}` : ''}`;

  let notReadyReason: string = Reason.QdrantPeersNotReady;
  if (unschedulable) notReadyReason = Reason.PodsUnschedulable;
  else if (rolling) notReadyReason = Reason.QdrantRollingUpdate;
  else if (shrinking) notReadyReason = Reason.QdrantScalingDown;
  let condition: ConditionInput = allReady
    ? { type: ConditionType.QdrantReady, status: 'True', reason: Reason.QdrantPeersReady, message: `${ready}/${desired} Qdrant peers ready` }
    : {
        type: ConditionType.QdrantReady,
        status: 'False',
        reason: notReadyReason,
        message: unschedulable ?? (shrinking ? `${shrinking}` : `${ready}/${desired} Qdrant peers ready${volumeWait ? `; ${volumeWait}` : ''}`),
      };
  if (allReady && clusterProblem) {
    condition = { type: ConditionType.QdrantReady, status: 'False', reason: clusterProblem.reason, message: clusterProblem.message };
  } else if (allReady && joining) {
    condition = { type: ConditionType.QdrantReady, status: 'False', reason: Reason.QdrantPeersJoining, message: joining };
  } else if (unread) {
    condition = { type: ConditionType.QdrantReady, status: 'False', reason: Reason.QdrantClusterUnknown, message: unread };
  }
  if (needsDowntime) {
    condition = { type: ConditionType.QdrantReady, status: 'False', reason: Reason.QdrantUpgradeNeedsDowntime, message: upgradeWaiting ?? '' };
  }
  if (scaleDown) {
    condition = { type: ConditionType.QdrantReady, status: 'False', reason: scaleDownBlocked ? Reason.ScaleDownBlocked : Reason.QdrantScalingDown, message: scaleDownText };
  }

  const volumes: ConditionInput[] = [];
  const size = String(spec.qdrant.storageSize);
  const small = volumesBelow(observed.qdrantVolumes ?? [], size);
  if (small.length) {
    volumes.push({
      type: ConditionType.ResizeUnsupported,
      status: 'True',
      reason: Reason.VolumeExpansionRefused,
      message: `${small.join(', ')} below spec.qdrant.storage.size ${spec.qdrant.storageSize}: the StorageClass does not allow expansion (new peers get the new size)`,
    });
  }
  const notGrown = volumesNotGrown(observed.qdrantVolumes ?? [], size);
  if (notGrown.length) {
    volumes.push({
      type: VOLUMES_RESIZING,
      status: 'True',
      reason: VOLUME_EXPANSION_PENDING,
      message: `${notGrown.join(', ')}: not grown to spec.qdrant.storage.size ${spec.qdrant.storageSize} yet`,
    });
  }

  const singleCopy = (cluster?.collections ?? []).filter(c => (c.replicationFactor ?? 1) < 2).map(c => c.name);
  let dataAtRisk: ConditionInput | undefined;
  if (desired >= 2 && (spec.qdrant.replicationFactor === 1 || singleCopy.length)) {
    const which = singleCopy.length
      ? `collection${singleCopy.length === 1 ? '' : 's'} ${singleCopy.join(', ')} keep${singleCopy.length === 1 ? 's' : ''} one copy of each shard`
      : 'collections are created with replication factor 1';
    dataAtRisk = {
      type: ConditionType.DataAtRisk,
      status: 'True',
      reason: Reason.ReplicationFactorOne,
      message: `${which} on ${desired} peers: a lost peer or volume loses its shards, and a rolling restart makes them unavailable; set spec.qdrant.replicationFactor to 2 or more (existing collections keep theirs)`,
    };
  }
  let scaleDownCondition: ConditionInput | undefined;
  if (scaleDown) {
    scaleDownCondition = scaleDownBlocked
      ? { type: ConditionType.ScaleDownBlocked, status: 'True', reason: scaleDown.reason ?? Reason.ScaleDownBlocked, message: scaleDown.message }
      : { type: ConditionType.ScaleDownBlocked, status: 'False', reason: Reason.DrainingPeers, message: scaleDown.message };
  }
  let reachable: ConditionInput | undefined;
  if (cluster) {
    reachable = cluster.reachable
      ? { type: ConditionType.QdrantClusterReachable, status: 'True', reason: Reason.ClusterInfoAvailable, message: `${cluster.peers?.length ?? 0} peers, leader ${cluster.raftLeader ?? 'unknown'}` }
      : { type: ConditionType.QdrantClusterReachable, status: 'False', reason: Reason.ClusterInfoUnavailable, message: cluster.message ?? 'Qdrant REST API unreachable' };
  }
  return {
    condition,
    desired,
    ready,
    rolling,
    allReady,
    shrinking,
    unschedulable,
    clusterProblem,
    joining,
    unread,
    scaleDown,
    scaleDownBlocked,
    scaleDownText,
    needsDowntime,
    rollingText,
    upgradeWaiting,
    notGrown,
    volumes,
    dataAtRisk,
    scaleDownCondition,
    reachable,
    version: runningVersions(observed.qdrantPods),
  };
}
