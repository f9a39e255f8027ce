import {
  createTestNamespace,
  deleteTestNamespace,
  eventually,
  testApi,
  testKubeconfigPath,
  testQdrantUrlTemplates,
} from '@cv-platform/local-cluster';
import {
  API_VERSION,
  InferencePlatform,
  InferencePlatformV1beta1,
  sampleInferencePlatform,
  toV1beta1,
} from '@cv-platform/inference-platform-api';
import { loadKubeConfig } from '../kube/loadKubeConfig';
import { Operator, OperatorOptions } from '../Operator';
import { QdrantFleetDouble, podPeerUri } from './qdrantCluster/QdrantFleetDouble';

export const api = testApi();
export { eventually };

const PLATFORMS = '/apis/cv.platform.tech/v1beta1';

/**
 * A platform as the API server stores it (v1beta1). Tests shape platforms
 * in the layout the operator works in (the sample, v1alpha1's) and write
 * them at the storage version: the shared test cluster runs no conversion
 * webhook (the webhook has its own test, on its own control plane).
 */
export function stored(p: InferencePlatform | InferencePlatformV1beta1): InferencePlatformV1beta1 {
  return p.apiVersion === API_VERSION ? toV1beta1(p as InferencePlatform) : (p as InferencePlatformV1beta1);
}

export function platformPath(ns: string, name?: string, sub?: string) {
  return `${PLATFORMS}/namespaces/${ns}/inferenceplatforms${name ? `/${name}` : ''}${sub ? `/${sub}` : ''}`;
}

export async function createPlatform(p: InferencePlatform | InferencePlatformV1beta1): Promise<any> {
  const res = await api.request('POST', platformPath(p.metadata.namespace!), stored(p));
  if (res.status >= 300) throw new Error(`create failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function getPlatform(ns: string, name: string): Promise<any> {
  return (await api.request('GET', platformPath(ns, name))).body;
}

export async function patchPlatform(ns: string, name: string, patch: unknown) {
  const res = await api.request('PATCH', platformPath(ns, name), patch, 'application/merge-patch+json');
  if (res.status >= 300) throw new Error(`patch failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function get(path: string) {
  return api.request('GET', path);
}

export function sample(ns: string, name = 'image-retrieval-prod'): InferencePlatform {
  return sampleInferencePlatform(name, ns);
}

/**
 * Qdrant clusters a test shapes itself (peers, collections, transfers,
 * failures): an operator reaches them with `...qdrantFleet.options`. Without
 * it, operators from newOperator reach the test run's simulated Qdrant, which
 * follows the pods of the simulated nodes.
 */
export const qdrantFleet = new QdrantFleetDouble();

/**
 * For a test file: a function that starts an operator and remembers it;
 * every operator started in a test is stopped after it.
 */
export function operatorsStoppedAfterEach(): (op: Operator) => Promise<Operator> {
  let running: Operator[] = [];
  beforeAll(() => qdrantFleet.start());
  afterAll(() => qdrantFleet.stop());
  afterEach(async () => {
    await Promise.all(running.map(o => o.stop()));
    running = [];
  });
  return async op => {
    running.push(op);
    await op.start();
    return op;
  };
}

/** An operator watching only the test's namespace, with a short cluster-info TTL. */
export function newOperator(ns: string, extra: Partial<OperatorOptions> = {}): Operator {
  return new Operator({
    kubeConfig: loadKubeConfig({ kubeconfigPath: testKubeconfigPath() }),
    namespaces: [ns],
    workers: 2,
    clusterInfoTtlMs: 1000,
    ...testQdrantUrlTemplates(),
    drainPollMs: 200,
    ...extra,
  });
}

export async function waitForPhase(ns: string, name: string, phase: string, timeoutMs = 60_000) {
  let last: any;
  return eventually(
    `${name} phase ${phase}`,
    async () => {
      const p = await getPlatform(ns, name);
      last = p.status;
      return p.status?.phase === phase && p.status?.observedGeneration === p.metadata.generation ? p : undefined;
    },
    timeoutMs,
  ).catch(e => {
    // Say where it stopped: the phase, its message and every condition not as hoped.
    const conditions = (last?.conditions ?? []).map((c: any) => `${c.type}=${c.status} ${c.reason}: ${c.message}`);
    throw new Error(`${e.message}; last status: ${last?.phase} (${last?.message})\n  ${conditions.join('\n  ')}`);
  });
}

export async function withNamespace(prefix: string, fn: (ns: string) => Promise<void>) {
  const ns = await createTestNamespace(api, prefix);
  try {
    await fn(ns);
  } finally {
    await deleteTestNamespace(api, ns);
  }
}

export const condition = (p: any, type: string) =>
  (p.status?.conditions ?? []).find((c: any) => c.type === type);

/** A logger that keeps its info lines ("message {meta}") for assertions. */
export function capturingLogger() {
  const lines: string[] = [];
  const logger = {
    info: (m: string, meta?: object) => lines.push(`${m} ${JSON.stringify(meta)}`),
    warn: () => {},
    error: () => {},
  };
  return { lines, logger };
}

/** The p2p URI a platform's Qdrant peer announces, as Raft lists it. */
export const peerUri = (ns: string, name: string, ordinal: number) => podPeerUri(ns, name, `${name}-qdrant-${ordinal}`);

/** A platform's Qdrant StatefulSet as the API server has it. */
export const qdrantSts = async (ns: string, name: string) => (await get(`/apis/apps/v1/namespaces/${ns}/statefulsets/${name}-qdrant`)).body;

/** Events in a namespace with a reason. */
export const eventsWithReason = async (ns: string, reason: string) =>
  (await api.request('GET', `/api/v1/namespaces/${ns}/events?fieldSelector=reason%3D${reason}`)).body.items;

/** Warning Events in a namespace: what a person would be asked to look at. */
export const warningEvents = async (ns: string) =>
  (await api.request('GET', `/api/v1/namespaces/${ns}/events?fieldSelector=type%3DWarning`)).body.items;
