import { API_VERSION, InferencePlatform, KIND } from './types';

/**
 * The seed example from the project's design: a 3-peer Qdrant and 5 inference servers.
 *
 * @public
 */
export function sampleInferencePlatform(
  name = 'image-retrieval-prod',
  namespace = 'default',
): InferencePlatform {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name, namespace },
    spec: {
      qdrant: {
        version: 'v1.14.1',
        replicas: 3,
        storageClassName: 'gp2',
        storageSize: '10Gi',
      },
      inference: {
        modelUrl: 's3://models/resnet50-v2-7.onnx',
        replicas: 5,
        image: 'my-repo/cv-inference:latest',
        resources: {
          requests: { cpu: '1', memory: '2Gi' },
          limits: { cpu: '2', memory: '4Gi' },
        },
      },
    },
  };
}
