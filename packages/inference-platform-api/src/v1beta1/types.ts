/**
 * cv.platform.tech/v1beta1, the storage version. What v1alpha1 taught us,
 * grouped: the model (where it comes from, how it is loaded, how a new one
 * reaches running servers) is one object, `spec.inference.model`; Qdrant's
 * volumes are `spec.qdrant.storage`; request batching is
 * `spec.inference.batching`; backups are `spec.backup`, a platform-level
 * day-2 concern rather than a Qdrant setting. `readinessProbePath` is gone:
 * the operator reads the servers' own /readyz (model version, GPU state), so
 * another path was never a real choice. A v1alpha1 object that set it keeps
 * it through a round trip in the `cv.platform.tech/v1alpha1-fields`
 * annotation.
 */
import type {
  AutoscalingSpec,
  GpuSpec,
  InferencePlatformStatus,
  KIND,
  ModelSourceSpec,
  ModelUpdateStrategy,
  ObjectMeta,
  Quantity,
  QdrantBackupSpec,
  QdrantSpec,
  ResourceRequirements,
} from '../types';
import { GROUP } from '../types';

/** @public */
export const VERSION_V1BETA1 = 'v1beta1';
/** @public */
export const API_VERSION_V1BETA1 = `${GROUP}/${VERSION_V1BETA1}` as const;

/** @public */
export interface QdrantStorageSpec {
  /** Size of each Qdrant data volume; only grows. Default 10Gi. */
  size?: Quantity;
  /** StorageClass of the data volumes; empty uses the cluster default. Immutable. */
  className?: string;
}

/** @public */
export interface QdrantSpecV1beta1
  extends Omit<QdrantSpec, 'storageSize' | 'storageClassName' | 'backup'> {
  storage?: QdrantStorageSpec;
}

/** @public */
export interface ModelSpec {
  /** Where the ONNX model is loaded from: `s3://`, `http(s)://`, `pvc://<claim>/<path>` or `file://`. */
  url: string;
  /** How a new url reaches running servers: HotReload (default) or Rollout. */
  update?: ModelUpdateStrategy;
  /** How the model is fetched and held before a server starts. */
  source?: ModelSourceSpec;
}

/** @public */
export interface BatchingSpec {
  /** Images embedded in one model run. Default 16. */
  maxSize?: number;
  /** Time the first image of a batch waits for more. Default 5. */
  maxLatencyMs?: number;
}

/** @public */
export interface CanarySpecV1beta1 {
  model: { url: string };
  weight: number;
  collection: string;
}

/** @public */
export interface InferenceSpecV1beta1 {
  image: string;
  model: ModelSpec;
  replicas?: number;
  resources?: ResourceRequirements;
  gpu?: GpuSpec;
  port?: number;
  collection?: string;
  batching?: BatchingSpec;
  progressDeadlineSeconds?: number;
  serviceAccountName?: string;
  autoscaling?: AutoscalingSpec;
  canary?: CanarySpecV1beta1;
}

/** @public */
export interface InferencePlatformSpecV1beta1 {
  qdrant: QdrantSpecV1beta1;
  inference: InferenceSpecV1beta1;
  /** Scheduled snapshots of every collection on every Qdrant peer, uploaded to S3. */
  backup?: QdrantBackupSpec;
}

/** @public */
export interface InferencePlatformV1beta1 {
  apiVersion: typeof API_VERSION_V1BETA1;
  kind: typeof KIND;
  metadata: ObjectMeta;
  spec: InferencePlatformSpecV1beta1;
  /** The same in both versions. */
  status?: InferencePlatformStatus;
}
