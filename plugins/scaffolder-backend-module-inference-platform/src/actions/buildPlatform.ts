import {
  API_VERSION_V1BETA1,
  CATALOG_ENTITY_ANNOTATION,
  InferencePlatformSpecV1beta1,
  InferencePlatformV1beta1,
  KIND,
  ModelUpdateStrategy,
  OWNER_ANNOTATION,
} from '@cv-platform/inference-platform-api';

/**
 * Records which scaffolder task created a platform, so a re-run can recognise its own object.
 *
 * @public
 */
export const SCAFFOLDER_TASK_ANNOTATION = 'cv.platform.tech/scaffolder-task';

/**
 * A Kubernetes quantity: `10Gi`, `500m`, or a number.
 *
 * @public
 */
export type Quantity = string | number;

/**
 * What the `inference-platform:create` action needs to build the custom
 * resource: `qdrant` and `inference` are spec.qdrant and spec.inference in
 * the cv.platform.tech/v1beta1 layout.
 *
 * @public
 */
export interface PlatformParameters {
  name: string;
  namespace: string;
  owner?: string;
  entityRef?: string;
  qdrant: {
    version: string;
    replicas?: number;
    /** spec.qdrant.storage: the Qdrant data volumes. */
    storage?: {
      size?: Quantity;
      className?: string;
      [field: string]: unknown;
    };
    [field: string]: unknown;
  };
  inference: {
    image: string;
    /** spec.inference.model: the ONNX model the servers run. */
    model: {
      url: string;
      source?: {
        mode?: 'emptyDir' | 'pvc';
        sizeLimit?: Quantity;
        storageClassName?: string;
        [field: string]: unknown;
      };
      update?: ModelUpdateStrategy;
      [field: string]: unknown;
    };
    replicas?: number;
    resources?: {
      requests?: Record<string, Quantity | undefined>;
      limits?: Record<string, Quantity | undefined>;
    };
    gpu?: { count?: number; type?: string };
    [field: string]: unknown;
  };
  /** spec.backup: scheduled snapshots of the Qdrant collections. */
  backup?: { schedule: string; [field: string]: unknown };
}

/**
 * Drops empty strings, nulls and empty objects. Forms send '' for optional
 * fields left blank, which would otherwise reach the API server as values
 * (an empty gpu.type, for one, trips the CRD's "type needs count" rule).
 */
export function pruneEmpty<T>(value: T): T | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (Array.isArray(value)) {
    return value.map(pruneEmpty).filter(v => v !== undefined) as T;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => [k, pruneEmpty(v)] as const)
      .filter(([, v]) => v !== undefined);
    return entries.length ? (Object.fromEntries(entries) as T) : undefined;
  }
  return value;
}

/**
 * Builds the cv.platform.tech/v1beta1 InferencePlatform the parameters describe. Values are passed on
 * unchanged, without defaults or checks: the API server applies the CRD's
 * defaults and rules, and its answer is the one users see.
 *
 * @public
 */
export function buildPlatform(
  params: PlatformParameters,
  options: { taskId?: string } = {},
): InferencePlatformV1beta1 {
  const annotations = pruneEmpty<Record<string, string | undefined>>({
    [OWNER_ANNOTATION]: params.owner,
    [CATALOG_ENTITY_ANNOTATION]: params.entityRef,
    [SCAFFOLDER_TASK_ANNOTATION]: options.taskId,
  }) as Record<string, string> | undefined;
  const spec = pruneEmpty({
    qdrant: params.qdrant,
    inference: params.inference,
    backup: params.backup,
  }) as InferencePlatformSpecV1beta1;
  return {
    apiVersion: API_VERSION_V1BETA1,
    kind: KIND,
    metadata: {
      name: params.name,
      namespace: params.namespace,
      ...(annotations ? { annotations } : {}),
    },
    spec,
  };
}
