import {
  InferencePlatform,
  sampleInferencePlatform,
} from '@cv-platform/inference-platform-api';
import type { S3TestServer } from '@cv-platform/local-cluster';

/** The Secret the scaled seed's model source reads its S3 keys from. */
export const MODEL_STORE_SECRET = 'model-store';

/**
 * The seed sample scaled to one small machine: servers that fit in a few
 * hundred MiB, a 1Gi Qdrant volume, and (given a store) the model fetched
 * from an S3 test server with keys from {@link modelStoreSecret}.
 */
export function scaledSeed(
  name: string,
  namespace: string,
  opts: {
    qdrantReplicas: number;
    inferenceReplicas: number;
    modelUrl?: string;
    s3?: S3TestServer;
  },
): InferencePlatform {
  const p = sampleInferencePlatform(name, namespace);
  p.spec.qdrant.replicas = opts.qdrantReplicas;
  p.spec.qdrant.storageSize = '1Gi';
  p.spec.inference.replicas = opts.inferenceReplicas;
  p.spec.inference.resources = {
    requests: { cpu: '100m', memory: '256Mi' },
    limits: { cpu: '1', memory: '1Gi' },
  };
  if (opts.modelUrl) p.spec.inference.modelUrl = opts.modelUrl;
  if (opts.s3) {
    p.spec.inference.modelSource = {
      s3: {
        endpoint: opts.s3.endpoint,
        region: 'us-east-1',
        credentialsSecretRef: { name: MODEL_STORE_SECRET },
      },
    };
  }
  return p;
}

/** The Secret holding the S3 test server's keys, as the model source names it. */
export function modelStoreSecret(namespace: string, s3: S3TestServer) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: MODEL_STORE_SECRET, namespace },
    stringData: {
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    },
  };
}
