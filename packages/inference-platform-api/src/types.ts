/**
 * TypeScript view of the InferencePlatform custom resource. The CRD schema in
 * `crd.ts` is the source of truth; `types.test.ts` checks that every field
 * declared here exists in the schema and vice versa.
 */

/** @public */
export const GROUP = 'cv.platform.tech';
/** @public */
export const VERSION = 'v1alpha1';
/** @public */
export const API_VERSION = `${GROUP}/${VERSION}`;
/** @public */
export const KIND = 'InferencePlatform';
/** @public */
export const PLURAL = 'inferenceplatforms';
/** @public */
export const SINGULAR = 'inferenceplatform';
/** @public */
export const SHORT_NAME = 'ipf';

/** @public */
export type Quantity = string | number;

/** @public */
export interface ResourceRequirements {
  requests?: Record<string, Quantity>;
  limits?: Record<string, Quantity>;
}

/** @public */
export interface SecretKeyRef {
  name: string;
  key?: string;
}

/** @public */
export interface QdrantSpec {
  /** Qdrant release, e.g. v1.14.1; selects the image tag. */
  version: string;
  replicas?: number;
  storageClassName?: string;
  storageSize?: Quantity;
  /** Overrides the image repository (default qdrant/qdrant). */
  image?: string;
  resources?: ResourceRequirements;
  apiKeySecretRef?: SecretKeyRef;
  /**
   * Replicas of each shard in the collections the inference servers create.
   * Default 2 from two peers (one lost peer or a rolling restart loses no
   * data), else 1. Collections that exist keep theirs.
   */
  replicationFactor?: number;
  /**
   * Lets an upgrade restart peers although a collection keeps one copy per
   * shard (its shards are unavailable while their peer restarts).
   */
  allowDowntime?: boolean;
  /**
   * Move shards onto new peers after a scale-up until every peer holds
   * about as many replicas of each collection (default true).
   */
  rebalance?: boolean;
  /**
   * After Qdrant elects a new Raft leader: Ignore (default: the servers talk
   * to the Qdrant Service, and any peer forwards writes to the leader) or
   * RestartInference (a rolling restart that never takes the servers below
   * their ready count, for clients that pin a connection).
   */
  onLeaderChange?: 'Ignore' | 'RestartInference';
  /** Scheduled snapshots of every collection on every peer, uploaded to S3. */
  backup?: QdrantBackupSpec;
}

/** @public */
export interface QdrantBackupSpec {
  /** Standard 5-field cron expression, evaluated in UTC (e.g. "0 3 * * *"). */
  schedule: string;
  /** Stops scheduled backups; "back up now" requests still run. */
  suspend?: boolean;
  /** Which backups to keep in the bucket; the rest are deleted after each successful backup. */
  retention?: BackupRetention;
  s3: BackupS3Target;
}

/** @public */
export interface BackupRetention {
  /** Keep at most this many successful backups (default 7). */
  count?: number;
  /** Delete backups older than this, e.g. 168h, 30d (Go durations plus d). */
  maxAge?: string;
}

/** @public */
export interface BackupS3Target extends S3SourceSpec {
  bucket: string;
  /** Key prefix; backups go to `<prefix>/<namespace>/<platform>/<backup id>/`. */
  prefix?: string;
}

/** @public */
export type ModelSourceMode = 'emptyDir' | 'pvc';

/** @public */
export interface ModelSourceSpec {
  /** emptyDir (medium: Memory) for small models, pvc for large ones. */
  mode?: ModelSourceMode;
  sizeLimit?: Quantity;
  storageClassName?: string;
  /** Time for one download attempt, enforced by the loader. */
  pullTimeoutSeconds?: number;
  /** Download attempts after the first; then Failed (ModelDownloadFailed), not an endless crash loop. Default 3. */
  maxRetries?: number;
  /** Time a started server may take to become ready; past it Failed or Degraded (WarmupTimeout). Default 600. */
  warmupTimeoutSeconds?: number;
  /** Image of the init container that downloads the model. */
  loaderImage?: string;
  /**
   * Access mode of the model PVC (mode pvc). ReadWriteMany (default) lets
   * servers spread over nodes; ReadWriteOnce suits block storage (e.g. gp2)
   * and places every server on the node the volume is attached to.
   */
  accessMode?: 'ReadWriteMany' | 'ReadWriteOnce';
  /** Where and how s3:// models are fetched. */
  s3?: S3SourceSpec;
}

/** @public */
export interface S3SourceSpec {
  /** An S3-compatible endpoint (MinIO, Ceph, ...); AWS S3 when empty. */
  endpoint?: string;
  region?: string;
  /** Path-style addressing; default true with an endpoint, false without. */
  forcePathStyle?: boolean;
  /**
   * A Secret with static keys. Without it the SDK's default chain applies:
   * a web-identity token (IRSA, via spec.inference.serviceAccountName) or the node's role.
   */
  credentialsSecretRef?: {
    name: string;
    /** Default AWS_ACCESS_KEY_ID. */
    accessKeyIdKey?: string;
    /** Default AWS_SECRET_ACCESS_KEY. */
    secretAccessKeyKey?: string;
  };
}

/** @public */
export interface GpuSpec {
  count?: number;
  /** Required value of the node's GPU product label. */
  type?: string;
}

/** @public */
export interface InferenceSpec {
  image: string;
  modelUrl: string;
  replicas?: number;
  resources?: ResourceRequirements;
  modelSource?: ModelSourceSpec;
  gpu?: GpuSpec;
  readinessProbePath?: string;
  port?: number;
  collection?: string;
  batchMaxSize?: number;
  batchMaxLatencyMs?: number;
  /** Seconds a rollout may make no progress before it counts as stalled. */
  progressDeadlineSeconds?: number;
  /** ServiceAccount of the inference pods (e.g. one annotated for IRSA to read s3:// models). */
  serviceAccountName?: string;
  /**
   * How a new modelUrl reaches running servers. HotReload (default): each
   * server fetches and loads it beside the old one and swaps, no pod
   * restarts; new pods start with it. Rollout: a rolling update of the pods.
   * pvc:// models always roll out (the volume is part of the pod).
   */
  modelUpdate?: ModelUpdateStrategy;
  /** Scales the servers through this platform's scale subresource (HPA for cpu, KEDA for the others). */
  autoscaling?: AutoscalingSpec;
  /** A second model version serving a share of the traffic beside modelUrl. */
  canary?: CanarySpec;
}

/**
 * A canary model. Its servers are a Deployment of their own whose share of
 * spec.inference.replicas follows the weight; the inference Service selects
 * the ready servers of both versions, so traffic splits by ready replicas.
 * Its embeddings go to a collection of its own: vectors of two models are
 * not comparable and never share one.
 *
 * @public
 */
export interface CanarySpec {
  modelUrl: string;
  /** Percent of the servers (and so of the requests) on the canary, 0-100; 0 keeps it defined with no servers. */
  weight: number;
  /** The canary's Qdrant collection; must differ from spec.inference.collection. */
  collection: string;
}

/** @public */
export type ModelUpdateStrategy = 'HotReload' | 'Rollout';

/** @public */
export interface AutoscalingSpec {
  /** Default 1. */
  minReplicas?: number;
  maxReplicas: number;
  /** Default cpu (HorizontalPodAutoscaler); queueDepth and requestsPerSecond need KEDA and Prometheus. */
  metric?: 'cpu' | 'queueDepth' | 'requestsPerSecond';
  /** Per server: CPU percent of the request, images queued, or requests per second. */
  target: number;
  /** The Prometheus KEDA queries (queueDepth, requestsPerSecond). */
  prometheusServerAddress?: string;
}

/** @public */
export interface InferencePlatformSpec {
  qdrant: QdrantSpec;
  inference: InferenceSpec;
}

/** @public */
export type Phase = 'Pending' | 'Loading' | 'Ready' | 'Failed' | 'Degraded';

/** @public */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** @public */
export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** @public */
export interface QdrantPeer {
  id: string;
  uri: string;
}

/**
 * A collection's shards as Qdrant reports them.
 *
 * @public
 */
export interface QdrantCollectionHealth {
  name: string;
  replicationFactor?: number;
  shards: number;
  /** Replicas per state (Active, Partial, Dead, ...). */
  replicas: Record<string, number>;
  /** Replicas per Raft peer id (every member listed, 0 included). */
  perPeer?: Record<string, number>;
  /** Shard transfers in flight. */
  transfers: number;
  /** Replicas that are not Active outside a transfer: "shard 3 on peer 42 is Dead". */
  problems?: string[];
}

/** @public */
export interface QdrantClusterInfo {
  reachable: boolean;
  peerId?: string;
  peers?: QdrantPeer[];
  raftLeader?: string;
  raftTerm?: number;
  raftCommit?: number;
  pendingOperations?: number;
  /** Qdrant's consensus thread: working, stopped, stopped_with_err. */
  consensus?: string;
  collections?: QdrantCollectionHealth[];
  lastChecked?: string;
  message?: string;
}

/**
 * A Qdrant scale-down in progress: peers are drained and leave Raft before their pods go.
 *
 * @public
 */
export interface QdrantScaleDownStatus {
  fromReplicas: number;
  toReplicas: number;
  /** Draining (shards moving off leaving peers), RemovingPeer, Blocked (nothing changes until someone acts), Done. */
  step: 'Draining' | 'RemovingPeer' | 'Blocked' | 'Done';
  /** Why it is blocked (CamelCase), when it is. */
  reason?: string;
  message: string;
  /** Leaving peers still in Raft: `<pod> (peer <id>)`. */
  leavingPeers: string[];
  transfersInFlight: number;
}

/**
 * What the operator knows of the Qdrant tier beyond its pods.
 *
 * @public
 */
export interface QdrantStatus {
  /** What the peers run, from their images ("v1.14.1", or "v1.14.1, v1.15.0" mid-upgrade); spec.qdrant.version is the target. */
  version?: string;
  scaleDown?: QdrantScaleDownStatus;
}

/**
 * One snapshot of one collection on one peer, as uploaded.
 *
 * @public
 */
export interface BackupSnapshot {
  /** The peer's pod, e.g. demo-qdrant-1 (snapshots are restored onto the peer of the same ordinal). */
  pod: string;
  /** Shards this peer held, whose data the snapshot carries. */
  shards: number[];
  /** Object key in the bucket. */
  key: string;
  size: number;
  /** SHA-256 of the snapshot file, as Qdrant computed it and the upload verified it. */
  checksum: string;
}

/** @public */
export interface BackupRecord {
  /** Names the backup (its folder in the bucket); a restore refers to it. */
  id: string;
  trigger: 'Scheduled' | 'Manual';
  startTime: string;
  completionTime?: string;
  result: 'Succeeded' | 'Failed';
  message?: string;
  /** s3://bucket/prefix/... of the backup's folder. */
  location?: string;
  sizeBytes?: number;
  collections?: Array<{ name: string; points?: number; snapshots: BackupSnapshot[] }>;
}

/**
 * Backups of the Qdrant tier (spec.qdrant.backup), written by the operator's backup controller.
 *
 * @public
 */
export interface BackupStatus {
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
  nextScheduleTime?: string;
  /** The value of the backup-requested-at annotation last acted on. */
  lastRequestHandled?: string;
  /** A backup being taken now. */
  running?: { id: string; trigger: 'Scheduled' | 'Manual'; startTime: string };
  /** Newest first, the last 10. */
  history?: BackupRecord[];
}

/** @public */
export interface InferencePlatformStatus {
  phase?: Phase;
  message?: string;
  observedGeneration?: number;
  conditions?: Condition[];
  qdrantReplicas?: number;
  qdrantReadyReplicas?: number;
  inferenceReplicas?: number;
  inferenceReadyReplicas?: number;
  /** "ready/desired", for printer columns. */
  qdrantReadiness?: string;
  inferenceReadiness?: string;
  /** Label selector of the inference pods, for the scale subresource. */
  inferenceSelector?: string;
  qdrantCluster?: QdrantClusterInfo;
  qdrant?: QdrantStatus;
  /** Which model the ready inference servers serve, from the pods themselves. */
  model?: ModelStatus;
  backup?: BackupStatus;
  /** The canary's servers, its share of the traffic and both versions' request metrics. */
  canary?: CanaryStatus;
}

/**
 * Requests answered by one model version's ready servers over the last window (probes and scrapes not counted).
 *
 * @public
 */
export interface TrackMetrics {
  requestsPerSecond: number;
  /** Share of requests answered 5xx, 0-1. */
  errorRate: number;
  /** 95th percentile latency in milliseconds (from the servers' histogram buckets); absent without requests. */
  p95LatencyMs?: number;
}

/** @public */
export interface CanaryStatus {
  modelUrl: string;
  collection: string;
  /** spec.inference.canary.weight. */
  weight: number;
  replicas: number;
  readyReplicas: number;
  /** Percent of the ready servers that run the canary: the share of requests it receives. */
  effectiveWeight: number;
  /** Progressing (servers starting), Serving, Failed (receives no traffic; the stable version serves), Paused (weight 0). */
  state: 'Progressing' | 'Serving' | 'Failed' | 'Paused';
  message?: string;
  /** Per version, from the servers' own metrics; absent until two readings are apart. */
  metrics?: { stable?: TrackMetrics; canary?: TrackMetrics; windowSeconds: number; observedAt: string };
}

/** @public */
export interface ModelStatus {
  /** spec.inference.modelUrl. */
  desired: string;
  /** Ready inference pods per model URL they loaded. */
  loaded: Record<string, number>;
}

/** @public */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: Array<Record<string, unknown>>;
  managedFields?: unknown[];
}

/** @public */
export interface InferencePlatform {
  /**
   * cv.platform.tech/v1alpha1 as served. The operator keeps platforms it
   * reads at v1beta1 in this layout under the version it read them at (what
   * its owner references, Events and status writes name).
   */
  apiVersion: string;
  kind: typeof KIND;
  metadata: ObjectMeta;
  spec: InferencePlatformSpec;
  status?: InferencePlatformStatus;
}

/** @public */
export const ConditionType = {
  Ready: 'Ready',
  QdrantReady: 'QdrantReady',
  InferenceReady: 'InferenceReady',
  ModelLoaded: 'ModelLoaded',
  QdrantClusterReachable: 'QdrantClusterReachable',
  Progressing: 'Progressing',
  Degraded: 'Degraded',
  ScaleDownBlocked: 'ScaleDownBlocked',
  /** Warning: a single lost peer would lose data (replication factor 1 on several peers). */
  DataAtRisk: 'DataAtRisk',
  /** Warning: Qdrant volumes stay below spec.qdrant.storageSize (their StorageClass does not expand). */
  ResizeUnsupported: 'ResizeUnsupported',
  /** Warning: servers given GPUs run the model on the CPU (CUDA not usable there). */
  GPUUnused: 'GPUUnused',
  /** The last backup (spec.qdrant.backup) succeeded (True) or failed (False); written by the backup controller. */
  BackupSucceeded: 'BackupSucceeded',
  /** Warning: spec.inference.autoscaling asks for what the cluster lacks (KEDA's CRDs). */
  AutoscalingUnavailable: 'AutoscalingUnavailable',
  /** True while ready servers still serve another model than spec.inference.modelUrl (a hot reload in progress). */
  ModelUpdating: 'ModelUpdating',
  /** spec.inference.canary: True while its servers serve their share, False while they start or when they fail. */
  CanaryReady: 'CanaryReady',
} as const;

/**
 * Setting it (to the current time, RFC 3339) asks for a backup now, as `kubectl rollout restart` asks for a restart.
 *
 * @public
 */
export const BACKUP_REQUESTED_ANNOTATION = 'cv.platform.tech/backup-requested-at';

/**
 * Annotation linking a platform to the catalog entity that owns it.
 *
 * @public
 */
export const CATALOG_ENTITY_ANNOTATION = 'cv.platform.tech/catalog-entity';
/**
 * Annotation naming the owner of the platform (a catalog user or group ref).
 *
 * @public
 */
export const OWNER_ANNOTATION = 'cv.platform.tech/owner';
