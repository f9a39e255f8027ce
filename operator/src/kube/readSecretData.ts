import { KubeClient } from './KubeClient';

/**
 * Reads a Secret and returns its decoded values by key. `what` names the
 * Secret's purpose in the error a person reads ("API key", "S3 credentials").
 */
export async function readSecretData(
  client: KubeClient,
  namespace: string,
  name: string,
  what: string,
): Promise<(key: string) => string | undefined> {
  let secret: any;
  try {
    secret = await client.get(`/api/v1/namespaces/${namespace}/secrets/${name}`);
  } catch (e) {
    throw new Error(`cannot read ${what} Secret ${name}: ${e instanceof Error ? e.message : e}`);
  }
  return key => (secret.data?.[key] ? Buffer.from(secret.data[key], 'base64').toString('utf8') : undefined);
}
