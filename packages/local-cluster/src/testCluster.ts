import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { ApiRequester } from './ApiRequester';

/**
 * The kubeconfig of the control plane shared by the whole test run; the test
 * command (`local-cluster run -- ...`) starts one and exports its path.
 */
export function testKubeconfigPath(): string {
  const path = process.env.CV_TEST_KUBECONFIG;
  if (!path || !fs.existsSync(path)) {
    throw new Error(
      'CV_TEST_KUBECONFIG is not set: run tests through `npm run test:all`, or wrap the jest command in `npx tsx packages/local-cluster/src/cli.ts run -- ...`, so that a local control plane is started',
    );
  }
  return path;
}

/**
 * Where the test run's simulated Qdrant answers for the Qdrant pods of the
 * simulated nodes (operator options `qdrantUrlTemplate`, `qdrantPeerUrlTemplate`).
 */
export function testQdrantUrlTemplates(): { qdrantUrlTemplate: string; qdrantPeerUrlTemplate: string } {
  const qdrantUrlTemplate = process.env.CV_QDRANT_URL_TEMPLATE;
  const qdrantPeerUrlTemplate = process.env.CV_QDRANT_PEER_URL_TEMPLATE;
  if (!qdrantUrlTemplate || !qdrantPeerUrlTemplate) {
    throw new Error('CV_QDRANT_URL_TEMPLATE is not set: run tests through `npm run test:all` or `local-cluster run -- ...` (simulated nodes), which start the simulated Qdrant');
  }
  return { qdrantUrlTemplate, qdrantPeerUrlTemplate };
}

export function testApi(): ApiRequester {
  return ApiRequester.fromKubeconfig(testKubeconfigPath());
}

/** A fresh namespace for one test, so suites sharing the cluster never collide. */
export async function createTestNamespace(api: ApiRequester, prefix = 'test'): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  const res = await api.request('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'cv.platform.tech/test': 'true' } },
  });
  if (res.status >= 300) throw new Error(`creating namespace ${name}: ${JSON.stringify(res.body)}`);
  return name;
}

export async function deleteTestNamespace(api: ApiRequester, name: string): Promise<void> {
  await api.request('DELETE', `/api/v1/namespaces/${name}`);
}

/** Polls until check returns a truthy value; the value is returned. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false | null>,
  timeoutMs = 60_000,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ''}`);
    }
    await new Promise(r => setTimeout(r, intervalMs));
  }
}
