import { InferencePlatform } from '@cv-platform/inference-platform-api';
import { KubeClient } from '../kube/KubeClient';
import { readSecretData } from '../kube/readSecretData';

/** The Qdrant API key from spec.qdrant.apiKeySecretRef's Secret; undefined without one. */
export async function readQdrantApiKey(client: KubeClient, p: InferencePlatform): Promise<string | undefined> {
  const ref = p.spec.qdrant.apiKeySecretRef;
  if (!ref) return undefined;
  const read = await readSecretData(client, p.metadata.namespace!, ref.name, 'API key');
  return read(ref.key ?? 'api-key');
}
