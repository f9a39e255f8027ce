import { InferencePlatform } from '@cv-platform/inference-platform-api';

export const MANAGED_BY = 'inference-platform-operator';
export const FIELD_MANAGER = 'inference-platform-operator';

export const LABEL_NAME = 'app.kubernetes.io/name';
export const LABEL_INSTANCE = 'app.kubernetes.io/instance';
export const LABEL_COMPONENT = 'app.kubernetes.io/component';
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const LABEL_PART_OF = 'app.kubernetes.io/part-of';
/** Label on every child naming its platform; informers filter on it. */
export const LABEL_PLATFORM = 'cv.platform.tech/platform';

export type Component = 'qdrant' | 'inference';

/** Labels that select a tier's pods; immutable once a workload exists. */
export function selectorLabels(p: InferencePlatform, component: Component) {
  return {
    [LABEL_NAME]: component === 'qdrant' ? 'qdrant' : 'inference-service',
    [LABEL_INSTANCE]: p.metadata.name!,
    [LABEL_COMPONENT]: component,
  };
}

export function childLabels(p: InferencePlatform, component: Component) {
  return {
    ...selectorLabels(p, component),
    [LABEL_MANAGED_BY]: MANAGED_BY,
    [LABEL_PART_OF]: 'cv-inference-platform',
    [LABEL_PLATFORM]: p.metadata.name!,
  };
}

export function selectorString(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

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

export const names = {
  qdrant: (p: InferencePlatform) => `${p.metadata.name}-qdrant`,
  qdrantHeadless: (p: InferencePlatform) => `${p.metadata.name}-qdrant-headless`,
  inference: (p: InferencePlatform) => `${p.metadata.name}-inference`,
  inferenceConfig: (p: InferencePlatform) => `${p.metadata.name}-inference-config`,
  modelPvc: (p: InferencePlatform) => `${p.metadata.name}-model`,
};
