import {
  API_VERSION,
  CATALOG_ENTITY_ANNOTATION,
  InferencePlatform,
  InferencePlatformSpec,
  KIND,
  OWNER_ANNOTATION,
} from '@cv-platform/inference-platform-api';

/** Records which scaffolder task created a platform, so a re-run can recognise its own object. */
export const SCAFFOLDER_TASK_ANNOTATION = 'cv.platform.tech/scaffolder-task';

type Quantity = string | number;

/** What the `inference-platform:create` action needs to build the custom resource. */
export interface PlatformParameters {
  name: string;
  namespace: string;
  owner?: string;
  entityRef?: string;
  qdrant: {
    version: string;
    replicas?: number;
    storageSize?: Quantity;
    storageClassName?: string;
    [field: string]: unknown;
  };
  inference: {
    image: string;
    modelUrl: string;
    replicas?: number;
    resources?: {
      requests?: Record<string, Quantity | undefined>;
      limits?: Record<string, Quantity | undefined>;
    };
    gpu?: { count?: number; type?: string };
    modelSource?: {
      mode?: 'emptyDir' | 'pvc';
      sizeLimit?: Quantity;
      storageClassName?: string;
    };
    [field: string]: unknown;
  };
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
 * Builds the InferencePlatform the parameters describe. Values are passed on
 * unchanged, without defaults or checks: the API server applies the CRD's
 * defaults and rules, and its answer is the one users see.
 */
export function buildPlatform(
  params: PlatformParameters,
  options: { taskId?: string } = {},
): InferencePlatform {
  const annotations = pruneEmpty<Record<string, string | undefined>>({
    [OWNER_ANNOTATION]: params.owner,
    [CATALOG_ENTITY_ANNOTATION]: params.entityRef,
    [SCAFFOLDER_TASK_ANNOTATION]: options.taskId,
  }) as Record<string, string> | undefined;
  const spec = pruneEmpty({
    qdrant: params.qdrant,
    inference: params.inference,
  }) as InferencePlatformSpec;
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: {
      name: params.name,
      namespace: params.namespace,
      ...(annotations ? { annotations } : {}),
    },
    spec,
  };
}
