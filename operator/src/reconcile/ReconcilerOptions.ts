import type { InferencePlatform } from '@cv-platform/inference-platform-api';
import type { ChildMutator } from './ChildMutator';
import type { KubeClient } from '../kube/KubeClient';
import type { Logger } from '../logger';
import type { EventRecorder } from '../events/EventRecorder';
import type { OperatorMetrics } from '../metrics/OperatorMetrics';
import type { QdrantAdminClient } from '../qdrant/QdrantAdminClient';
import type { SharedInformer } from '../runtime/SharedInformers';
import type { ReadServerState, ReloadServerModel } from '../inference/InferenceServerStates';
import type { ReadServerMetrics } from '../inference/TrackMetrics';
import type { QdrantPeerClient } from '../qdrant/QdrantPeerClient';

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
