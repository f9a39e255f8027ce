import {
  InferencePlatformV1beta1,
  Phase,
} from '@cv-platform/plugin-inference-platform-common';

let resourceVersion = 100;

/** A platform as the backend sends it, with a status the operator would write. */
export function samplePlatform(
  name: string,
  overrides: {
    namespace?: string;
    phase?: Phase;
    qdrant?: [ready: number, desired: number];
    inference?: [ready: number, desired: number];
    modelUrl?: string;
    createdAt?: string;
    resourceVersion?: string;
  } = {},
): InferencePlatformV1beta1 {
  const [qReady, qDesired] = overrides.qdrant ?? [1, 1];
  const [iReady, iDesired] = overrides.inference ?? [1, 1];
  return {
    apiVersion: 'cv.platform.tech/v1beta1',
    kind: 'InferencePlatform',
    metadata: {
      name,
      namespace: overrides.namespace ?? 'team-a',
      uid: `uid-${name}`,
      resourceVersion: overrides.resourceVersion ?? String(resourceVersion++),
      generation: 1,
      creationTimestamp: overrides.createdAt ?? '2024-05-01T10:00:00Z',
    },
    spec: {
      qdrant: {
        version: 'v1.9.0',
        replicas: qDesired,
        storage: { size: '10Gi' },
      },
      inference: {
        image: 'ghcr.io/cv/inference:1.0',
        model: {
          url:
            overrides.modelUrl ??
            `https://models.example.com/${name}/resnet50.onnx`,
        },
        replicas: iDesired,
      },
    },
    status: {
      phase: overrides.phase ?? 'Ready',
      qdrantReplicas: qDesired,
      qdrantReadyReplicas: qReady,
      inferenceReplicas: iDesired,
      inferenceReadyReplicas: iReady,
      conditions: [
        {
          type: 'Ready',
          status:
            overrides.phase === 'Ready' || !overrides.phase ? 'True' : 'False',
          reason:
            overrides.phase === 'Ready' || !overrides.phase
              ? 'AllReady'
              : 'Waiting',
          message: 'Qdrant and inference are ready',
          lastTransitionTime: '2024-05-01T10:05:00Z',
        },
      ],
    },
  };
}
