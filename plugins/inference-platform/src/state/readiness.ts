import { InferencePlatformV1beta1 } from '@cv-platform/plugin-inference-platform-common';

export interface Readiness {
  ready: number;
  desired: number;
}

/**
 * Desired counts come from the spec (what the user asked for, defaulted to 1
 * like the CRD does), ready counts from the status the operator observed.
 */
export function qdrantReadiness(p: InferencePlatformV1beta1): Readiness {
  return {
    ready: p.status?.qdrantReadyReplicas ?? 0,
    desired: p.spec.qdrant.replicas ?? p.status?.qdrantReplicas ?? 1,
  };
}

export function inferenceReadiness(p: InferencePlatformV1beta1): Readiness {
  return {
    ready: p.status?.inferenceReadyReplicas ?? 0,
    desired: p.spec.inference.replicas ?? p.status?.inferenceReplicas ?? 1,
  };
}
