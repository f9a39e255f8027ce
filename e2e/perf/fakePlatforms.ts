/**
 * Platforms and status changes shaped like the operator's, for feeding the
 * page without a cluster that could hold 1,000 of them on this machine.
 */
export interface FakePlatform {
  apiVersion: 'cv.platform.tech/v1beta1';
  kind: 'InferencePlatform';
  metadata: Record<string, any>;
  spec: Record<string, any>;
  status: Record<string, any>;
}

let resourceVersion = 1000;

export function fakePlatform(i: number): FakePlatform {
  const qdrant = 1 + (i % 3);
  const inference = 1 + (i % 5);
  return {
    apiVersion: 'cv.platform.tech/v1beta1',
    kind: 'InferencePlatform',
    metadata: {
      name: `platform-${String(i).padStart(4, '0')}`,
      namespace: `team-${i % 20}`,
      uid: `uid-${i}`,
      resourceVersion: String(resourceVersion++),
      generation: 1,
      creationTimestamp: new Date(Date.now() - i * 60_000).toISOString(),
    },
    spec: {
      qdrant: {
        version: 'v1.9.0',
        replicas: qdrant,
        storage: { size: '10Gi' },
      },
      inference: {
        image: 'cv-platform/inference-service:1.0',
        model: {
          url: `s3://models/${i % 7 === 0 ? 'clip' : 'resnet50'}-v${
            1 + (i % 4)
          }.onnx`,
        },
        replicas: inference,
      },
    },
    status: {
      phase: 'Ready',
      observedGeneration: 1,
      qdrantReplicas: qdrant,
      qdrantReadyReplicas: qdrant,
      inferenceReplicas: inference,
      inferenceReadyReplicas: inference,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'AllComponentsReady',
          message: 'ready',
          lastTransitionTime: new Date().toISOString(),
        },
      ],
    },
  };
}

/** A status change as the operator would write while pods come and go. */
export function fakeChange(
  p: FakePlatform,
  random: () => number,
): FakePlatform {
  const inferenceDesired = p.spec.inference.replicas;
  const qdrantDesired = p.spec.qdrant.replicas;
  const inferenceReady = Math.floor(random() * (inferenceDesired + 1));
  const qdrantReady =
    random() < 0.8 ? qdrantDesired : Math.floor(random() * qdrantDesired);
  let phase = 'Ready';
  if (qdrantReady === 0 || inferenceReady === 0)
    phase = random() < 0.5 ? 'Loading' : 'Failed';
  else if (qdrantReady < qdrantDesired || inferenceReady < inferenceDesired)
    phase = 'Degraded';
  return {
    ...p,
    metadata: { ...p.metadata, resourceVersion: String(resourceVersion++) },
    status: {
      ...p.status,
      phase,
      qdrantReadyReplicas: qdrantReady,
      inferenceReadyReplicas: inferenceReady,
      message: `Qdrant ${qdrantReady}/${qdrantDesired}, inference ${inferenceReady}/${inferenceDesired} ready`,
    },
  };
}
