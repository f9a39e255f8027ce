import { InferencePlatform } from '@cv-platform/inference-platform-api';
import { KubeClient } from '../kube/KubeClient';

/** The Qdrant API key from spec.qdrant.apiKeySecretRef's Secret; undefined without one. */
export async function readQdrantApiKey(client: KubeClient, p: InferencePlatform): Promise<string | undefined> {
  const ref = p.spec.qdrant.apiKeySecretRef;
  if (!ref) return undefined;
  try {
    const secret = await client.get(`/api/v1/namespaces/${p.metadata.namespace}/secrets/${ref.name}`);
    const data = secret.data?.[ref.key ?? 'api-key'];
    return data ? Buffer.from(data, 'base64').toString('utf8') : undefined;
  } catch (e) {
    throw new Error(`cannot read API key Secret ${ref.name}: ${e instanceof Error ? e.message : e}`);
  }
}
