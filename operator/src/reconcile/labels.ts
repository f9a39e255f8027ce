import { InferencePlatform } from '@cv-platform/inference-platform-api';

/** @public */
export const MANAGED_BY = 'inference-platform-operator';
/** @public */
export const FIELD_MANAGER = 'inference-platform-operator';

/** @public */
export const LABEL_NAME = 'app.kubernetes.io/name';
/** @public */
export const LABEL_INSTANCE = 'app.kubernetes.io/instance';
/** @public */
export const LABEL_COMPONENT = 'app.kubernetes.io/component';
/** @public */
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
/** @public */
export const LABEL_PART_OF = 'app.kubernetes.io/part-of';
/**
 * Label on every child naming its platform; informers filter on it.
 *
 * @public
 */
export const LABEL_PLATFORM = 'cv.platform.tech/platform';

/** @public */
export type Component = 'qdrant' | 'inference';

/**
 * Labels that select a tier's pods; immutable once a workload exists.
 *
 * @public
 */
export function selectorLabels(p: InferencePlatform, component: Component) {
  return {
    [LABEL_NAME]: component === 'qdrant' ? 'qdrant' : 'inference-service',
    [LABEL_INSTANCE]: p.metadata.name!,
    [LABEL_COMPONENT]: component,
  };
}

/** @public */
export function childLabels(p: InferencePlatform, component: Component) {
  return {
    ...selectorLabels(p, component),
    [LABEL_MANAGED_BY]: MANAGED_BY,
    [LABEL_PART_OF]: 'cv-inference-platform',
    [LABEL_PLATFORM]: p.metadata.name!,
  };
}

/** @public */
export function selectorString(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** @public */
export function ownerReference(p: InferencePlatform) {
  return {
    apiVersion: p.apiVersion,
    kind: p.kind,
    name: p.metadata.name!,
    uid: p.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** @public */
export const names = {
  qdrant: (p: InferencePlatform) => `${p.metadata.name}-qdrant`,
  qdrantHeadless: (p: InferencePlatform) => `${p.metadata.name}-qdrant-headless`,
  inference: (p: InferencePlatform) => `${p.metadata.name}-inference`,
  inferenceConfig: (p: InferencePlatform) => `${p.metadata.name}-inference-config`,
  modelPvc: (p: InferencePlatform) => `${p.metadata.name}-model`,
  /** spec.inference.canary: its Deployment and the Service reaching only its servers. */
  inferenceCanary: (p: InferencePlatform) => `${p.metadata.name}-inference-canary`,
  inferenceCanaryConfig: (p: InferencePlatform) => `${p.metadata.name}-inference-canary-config`,
  /** Reaches only the stable servers (a canary forwards its writes there). */
  inferenceStable: (p: InferencePlatform) => `${p.metadata.name}-inference-stable`,
};

/**
 * On inference pods: which model version they serve, stable
 * (spec.inference.modelUrl) or canary. The stable Deployment's selector
 * predates it and stays without it; the canary's selects on it.
 *
 * @public
 */
export const LABEL_TRACK = 'cv.platform.tech/track';
/** @public */
export type Track = 'stable' | 'canary';

/**
 * The inference pods of one track (pods from before the label count as stable).
 *
 * @public
 */
export function isTrack(pod: any, track: Track): boolean {
  return (pod.metadata?.labels?.[LABEL_TRACK] === 'canary') === (track === 'canary');
}
