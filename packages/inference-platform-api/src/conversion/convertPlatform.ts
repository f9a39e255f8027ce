import { API_VERSION, InferencePlatform, InferenceSpec, KIND, QdrantSpec } from '../types';
import {
  API_VERSION_V1BETA1,
  InferencePlatformV1beta1,
  InferenceSpecV1beta1,
  QdrantSpecV1beta1,
} from '../v1beta1/types';

/**
 * Spec fields of v1alpha1 with no home in v1beta1, as JSON shaped like the
 * spec (`{"inference":{"readinessProbePath":"/healthz"}}`), so that a
 * v1alpha1 client reads back what it wrote.
 *
 * @public
 */
export const V1ALPHA1_FIELDS_ANNOTATION = 'cv.platform.tech/v1alpha1-fields';

/**
 * Every served version of InferencePlatform.
 *
 * @public
 */
export type AnyInferencePlatform = InferencePlatform | InferencePlatformV1beta1;

/**
 * A conversion that cannot be made; its message goes back to the API server as the review's Failure.
 *
 * @public
 */
export class ConversionError extends Error {
  readonly name = 'ConversionError';
}

// v1alpha1 defaults readinessProbePath to this; v1beta1 always probes it.
const DEFAULT_READINESS_PATH = '/readyz';

/** Copies own keys of `from` whose values are defined; keeps objects free of `key: undefined`. */
function defined<T extends object>(from: T): T {
  return Object.fromEntries(Object.entries(from).filter(([, v]) => v !== undefined)) as T;
}

function toV1beta1Qdrant(q: QdrantSpec): QdrantSpecV1beta1 {
  const { storageSize, storageClassName, backup: _backup, ...rest } = q;
  const storage = defined({ size: storageSize, className: storageClassName });
  return defined({ ...rest, storage: Object.keys(storage).length ? storage : undefined });
}

function toV1alpha1Qdrant(q: QdrantSpecV1beta1): QdrantSpec {
  const { storage, ...rest } = q;
  return defined({ ...rest, storageSize: storage?.size, storageClassName: storage?.className } as QdrantSpec);
}

function toV1beta1Inference(i: InferenceSpec): { spec: InferenceSpecV1beta1; homeless: Record<string, unknown> } {
  const {
    modelUrl,
    modelSource,
    modelUpdate,
    batchMaxSize,
    batchMaxLatencyMs,
    readinessProbePath,
    canary,
    ...rest
  } = i;
  const batching = defined({ maxSize: batchMaxSize, maxLatencyMs: batchMaxLatencyMs });
  const spec = defined({
    ...rest,
    model: defined({ url: modelUrl, update: modelUpdate, source: modelSource }),
    batching: Object.keys(batching).length ? batching : undefined,
    canary: canary ? { model: { url: canary.modelUrl }, weight: canary.weight, collection: canary.collection } : undefined,
  }) as InferenceSpecV1beta1;
  // The default needs no keeping: v1alpha1's schema puts it back on read.
  const homeless =
    readinessProbePath !== undefined && readinessProbePath !== DEFAULT_READINESS_PATH ? { readinessProbePath } : {};
  return { spec, homeless };
}

function toV1alpha1Inference(i: InferenceSpecV1beta1, kept: Record<string, unknown>): InferenceSpec {
  const { model, batching, canary, ...rest } = i;
  if (!model || typeof model.url !== 'string') {
    throw new ConversionError('spec.inference.model.url is required to convert to v1alpha1');
  }
  return defined({
    ...rest,
    modelUrl: model.url,
    modelUpdate: model.update,
    modelSource: model.source,
    batchMaxSize: batching?.maxSize,
    batchMaxLatencyMs: batching?.maxLatencyMs,
    readinessProbePath: typeof kept.readinessProbePath === 'string' ? kept.readinessProbePath : undefined,
    canary: canary ? { modelUrl: canary.model?.url, weight: canary.weight, collection: canary.collection } : undefined,
  } as InferenceSpec);
}

function keptFields(obj: InferencePlatformV1beta1): Record<string, any> {
  const raw = obj.metadata?.annotations?.[V1ALPHA1_FIELDS_ANNOTATION];
  if (raw === undefined) return {};
  try {
    const parsed = JSON.parse(raw);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  } catch {
    // reported below
  }
  throw new ConversionError(
    `metadata.annotations["${V1ALPHA1_FIELDS_ANNOTATION}"] is not a JSON object of v1alpha1 spec fields: ${JSON.stringify(raw).slice(0, 200)}`,
  );
}

function withAnnotations<M extends { annotations?: Record<string, string> }>(
  metadata: M,
  set: Record<string, string | undefined>,
): M {
  const annotations = defined({ ...metadata.annotations, ...set });
  const { annotations: _old, ...rest } = metadata;
  return (Object.keys(annotations).length ? { ...rest, annotations } : rest) as M;
}

/**
 * v1alpha1 to v1beta1 (pure; the input is not changed).
 *
 * @public
 */
export function toV1beta1(obj: InferencePlatform): InferencePlatformV1beta1 {
  const { apiVersion: _v, spec, metadata, status, ...rest } = obj as any;
  if (!spec?.qdrant || !spec?.inference) {
    throw new ConversionError('spec.qdrant and spec.inference are required');
  }
  const { backup, ...qdrantRest } = spec.qdrant as QdrantSpec;
  const inference = toV1beta1Inference(spec.inference);
  const homeless = Object.keys(inference.homeless).length ? { inference: inference.homeless } : undefined;
  return defined({
    ...rest,
    apiVersion: API_VERSION_V1BETA1,
    kind: KIND,
    metadata: withAnnotations(metadata ?? {}, {
      [V1ALPHA1_FIELDS_ANNOTATION]: homeless ? JSON.stringify(homeless) : undefined,
    }),
    spec: defined({ ...spec, qdrant: toV1beta1Qdrant(qdrantRest), inference: inference.spec, backup }),
    status,
  });
}

/**
 * v1beta1 to v1alpha1 (pure; the input is not changed).
 *
 * @public
 */
export function toV1alpha1(obj: InferencePlatformV1beta1): InferencePlatform {
  const { apiVersion: _v, spec, metadata, status, ...rest } = obj as any;
  if (!spec?.qdrant || !spec?.inference) {
    throw new ConversionError('spec.qdrant and spec.inference are required');
  }
  const kept = keptFields(obj);
  const { backup, ...specRest } = spec;
  return defined({
    ...rest,
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: withAnnotations(metadata ?? {}, { [V1ALPHA1_FIELDS_ANNOTATION]: undefined }),
    spec: {
      ...specRest,
      qdrant: defined({ ...toV1alpha1Qdrant(spec.qdrant), backup }),
      inference: toV1alpha1Inference(spec.inference, kept.inference ?? {}),
    },
    status,
  });
}

/**
 * Converts an InferencePlatform of any served version to `apiVersion`, as the conversion webhook does.
 *
 * @public
 */
export function convertPlatform(obj: AnyInferencePlatform, apiVersion: string): AnyInferencePlatform {
  if (obj?.kind !== KIND) {
    throw new ConversionError(`cannot convert kind ${JSON.stringify((obj as any)?.kind)}: only ${KIND}`);
  }
  const known = [API_VERSION, API_VERSION_V1BETA1] as string[];
  for (const v of [obj.apiVersion, apiVersion]) {
    if (!known.includes(v)) {
      throw new ConversionError(`unknown apiVersion ${JSON.stringify(v)}: this operator serves ${known.join(' and ')}`);
    }
  }
  if (obj.apiVersion === apiVersion) return obj;
  return apiVersion === API_VERSION_V1BETA1
    ? toV1beta1(obj as InferencePlatform)
    : toV1alpha1(obj as InferencePlatformV1beta1);
}
