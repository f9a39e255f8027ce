import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  createTestNamespace,
  deleteTestNamespace,
  ensureBinaries,
  eventually,
  testApi,
  testKubeconfigPath,
} from '@cv-platform/local-cluster';
import {
  InferencePlatformV1beta1,
  renderCrdYaml,
  renderRestoreCrdYaml,
  sampleInferencePlatform,
  toV1beta1,
} from '@cv-platform/inference-platform-api';

// The storage version, which users write; v1alpha1's admission goes through the
// conversion webhook and has its own test (webhook/ConversionWebhook.test.ts).
const sample = (name: string, ns: string) => toV1beta1(sampleInferencePlatform(name, ns));

jest.setTimeout(60_000);

describe('the committed CRD', () => {
  it.each(['deploy/crds', 'deploy/helm/inference-platform-operator/crds'])('in %s is exactly what crd.ts generates', dir => {
    const committed = fs.readFileSync(
      path.resolve(__dirname, '../..', dir, 'inferenceplatforms.cv.platform.tech.yaml'),
      'utf8',
    );
    expect(committed).toBe(renderCrdYaml());
    const restore = fs.readFileSync(
      path.resolve(__dirname, '../..', dir, 'inferenceplatformrestores.cv.platform.tech.yaml'),
      'utf8',
    );
    expect(restore).toBe(renderRestoreCrdYaml());
  });
});

describe('kubectl', () => {
  it('explains the schema and prints the printer columns', async () => {
    const kubectl = path.join(ensureBinaries(), 'kubectl');
    const run = (...args: string[]) =>
      execFileSync(kubectl, [`--kubeconfig=${testKubeconfigPath()}`, ...args], { encoding: 'utf8' });
    // The OpenAPI of a new CRD is published a moment after it is established.
    const explained = await eventually('kubectl explain', async () => {
      try {
        return run('explain', 'ipf.spec.qdrant');
      } catch {
        return undefined;
      }
    }, 30_000);
    expect(explained).toMatch(/The Qdrant vector database tier/);
    expect(explained).toMatch(/version\s+<string> -required-/);
    expect(explained).toMatch(/^VERSION:\s+v1beta1$/m);
    expect(explained).toMatch(/storage\s+<Object>/);
    // And the version still served, as it was.
    const alpha = run('explain', 'ipf.spec.qdrant', '--api-version=cv.platform.tech/v1alpha1');
    expect(alpha).toMatch(/^VERSION:\s+v1alpha1$/m);
    expect(alpha).toMatch(/storageSize\s+<(IntOrString|Object)>/);
    const api = testApi();
    const ns = await createTestNamespace(api, 'kubectl');
    try {
      await api.request('POST', `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`, sample('shown', ns));
      const table = run('get', 'ipf', '-n', ns).split('\n');
      expect(table[0]).toMatch(/^NAME\s+PHASE\s+QDRANT\s+INFERENCE\s+AGE$/);
      expect(table[1]).toMatch(/^shown\s/);
      expect(run('get', 'ipf', '-n', ns, '-o', 'wide').split('\n')[0]).toMatch(/MODEL/);
    } finally {
      await deleteTestNamespace(api, ns);
    }
  });
});

describe('validation by the API server', () => {
  const api = testApi();
  let ns: string;
  beforeAll(async () => {
    ns = await createTestNamespace(api, 'crd');
  });
  afterAll(async () => {
    await deleteTestNamespace(api, ns);
  });

  const create = (mutate: (p: any) => void, name = 'p') => {
    const p: any = sampleInferencePlatform(name, ns);
    mutate(p);
    return api.request('POST', `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms?dryRun=All`, toV1beta1(p));
  };

  it('accepts the seed sample and fills in defaults', async () => {
    const res = await create(p => {
      delete p.spec.qdrant.replicas;
      delete p.spec.inference.replicas;
    });
    expect(res.status).toBe(201);
    const created = res.body as InferencePlatformV1beta1;
    expect(created.spec.qdrant.replicas).toBe(1);
    expect(created.spec.inference.replicas).toBe(1);
    expect(created.spec.inference.model.source).toMatchObject({ mode: 'emptyDir', sizeLimit: '1Gi', pullTimeoutSeconds: 600 });
    expect(created.spec.inference.model.update).toBe('HotReload');
    expect(created.spec.inference.batching).toEqual({ maxSize: 16, maxLatencyMs: 5 });
    expect(created.spec.qdrant.storage).toEqual({ size: '10Gi', className: 'gp2' });
    expect((created.spec.inference as any).readinessProbePath).toBeUndefined();
  });

  it.each<[string, (p: any) => void, RegExp]>([
    ['missing version', p => delete p.spec.qdrant.version, /spec\.qdrant\.version: Required value/],
    ['bad version', p => (p.spec.qdrant.version = 'latest'), /spec\.qdrant\.version: Invalid value: "latest"/],
    ['zero qdrant replicas', p => (p.spec.qdrant.replicas = 0), /spec\.qdrant\.replicas: Invalid value: 0: spec\.qdrant\.replicas in body should be greater than or equal to 1/],
    ['negative inference replicas', p => (p.spec.inference.replicas = -1), /spec\.inference\.replicas: Invalid value: -1/],
    ['bad storage size', p => (p.spec.qdrant.storageSize = 'ten gigs'), /spec\.qdrant\.storage\.size: Invalid value: "ten gigs"/],
    ['zero storage size', p => (p.spec.qdrant.storageSize = '0'), /spec\.qdrant\.storage\.size: Invalid value: spec\.qdrant\.storage\.size must be greater than 0/],
    ['bad model scheme', p => (p.spec.inference.modelUrl = 'ftp://x/model.onnx'), /spec\.inference\.model\.url: Invalid value: "ftp:\/\/x\/model\.onnx"/],
    ['bad pvc url', p => (p.spec.inference.modelUrl = 'pvc://Bad_Claim'), /spec\.inference\.model\.url: Invalid value: spec\.inference\.model\.url: pvc:\/\/ URLs must be pvc:\/\/<claim-name>\/<path>/],
    ['missing image', p => delete p.spec.inference.image, /spec\.inference\.image: Required value/],
    ['bad resource quantity', p => (p.spec.inference.resources.requests.cpu = 'lots'), /spec\.inference\.resources\.requests\.cpu: Invalid value: "lots"/],
    ['limit below request', p => (p.spec.inference.resources.limits.memory = '1Gi'), /spec\.inference\.resources: Invalid value: inference resources: every limit must be >= its request/],
    ['gpu type without count', p => (p.spec.inference.gpu = { type: 'NVIDIA-A100-SXM4-40GB' }), /spec\.inference\.gpu\.type: Invalid value: spec\.inference\.gpu\.type needs spec\.inference\.gpu\.count > 0/],
    // The seed sample as the design articles wrote it: Qdrant 1.6.0 has no
    // GET /collections/{name}/exists, which the inference servers call.
    ['the seed\'s Qdrant v1.6.0', p => (p.spec.qdrant.version = 'v1.6.0'), /spec\.qdrant\.version: Invalid value: .*spec\.qdrant\.version v1\.6\.0 is not supported: supported Qdrant versions are v1\.8\.0 and later v1\.x releases/],
    ['Qdrant 1.7.2', p => (p.spec.qdrant.version = '1.7.2'), /supported Qdrant versions are v1\.8\.0 and later/],
    ['Qdrant 2.0.0', p => (p.spec.qdrant.version = 'v2.0.0'), /spec\.qdrant\.version v2\.0\.0 is not supported/],
    ['autoscaling min above max', p => (p.spec.inference.autoscaling = { minReplicas: 5, maxReplicas: 2, target: 70 }), /spec\.inference\.autoscaling\.minReplicas: Invalid value: .*must not exceed maxReplicas/],
    [
      'queue-depth autoscaling without Prometheus',
      p => (p.spec.inference.autoscaling = { maxReplicas: 4, metric: 'queueDepth', target: 8 }),
      /spec\.inference\.autoscaling\.prometheusServerAddress: Invalid value: .*is required for the queueDepth and requestsPerSecond metrics/,
    ],
    [
      'CPU autoscaling without a CPU request',
      p => {
        delete p.spec.inference.resources.requests.cpu;
        p.spec.inference.autoscaling = { maxReplicas: 4, target: 70 };
      },
      /spec\.inference\.autoscaling: Invalid value: .*resources\.requests\.cpu is required to autoscale on cpu/,
    ],
    ['unknown model update strategy', p => (p.spec.inference.modelUpdate = 'Instant'), /spec\.inference\.model\.update: Unsupported value: "Instant"/],
    ['no retries below zero', p => (p.spec.inference.modelSource = { maxRetries: -1 }), /spec\.inference\.model\.source\.maxRetries: Invalid value: -1/],
    [
      'a canary sharing the stable collection',
      p => (p.spec.inference.canary = { modelUrl: 's3://models/v2.onnx', weight: 10, collection: 'images' }),
      /spec\.inference\.canary\.collection: Invalid value: .*must differ from spec\.inference\.collection: embeddings of two models never share a collection/,
    ],
    [
      'a canary of the serving model',
      p => (p.spec.inference.canary = { modelUrl: p.spec.inference.modelUrl, weight: 10, collection: 'images-v2' }),
      /spec\.inference\.canary\.model\.url: Invalid value: .*is the model already serving/,
    ],
    ['a canary weight above 100', p => (p.spec.inference.canary = { modelUrl: 's3://models/v2.onnx', weight: 120, collection: 'v2' }), /spec\.inference\.canary\.weight: Invalid value: 120/],
    ['a canary without a collection', p => (p.spec.inference.canary = { modelUrl: 's3://models/v2.onnx', weight: 10 }), /spec\.inference\.canary\.collection: Required value/],
  ])('rejects %s with a message naming the field', async (_name, mutate, message) => {
    const res = await create(mutate);
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(message);
  });
});

describe('admission of names and of edits that would lose data', () => {
  const api = testApi();
  let ns: string;
  beforeAll(async () => {
    ns = await createTestNamespace(api, 'crd-edit');
  });
  afterAll(async () => {
    await deleteTestNamespace(api, ns);
  });
  const base = `/apis/cv.platform.tech/v1beta1/namespaces`;

  it.each<[string, string, RegExp]>([
    ['46 characters', `a${'b'.repeat(45)}`, /metadata\.name: Too long: may not be more than 45/],
    ['a leading digit', '9lives', /metadata\.name: Invalid value: "9lives": metadata\.name in body should match/],
  ])('rejects a name of %s, saying why', async (_what, name, message) => {
    const res = await api.request('POST', `${base}/${ns}/inferenceplatforms?dryRun=All`, sample(name, ns));
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(message);
  });

  it('accepts a name of exactly 45 characters', async () => {
    const res = await api.request('POST', `${base}/${ns}/inferenceplatforms?dryRun=All`, sample(`a${'b'.repeat(44)}`, ns));
    expect(res.status).toBe(201);
  });

  it.each<[string, any, RegExp | undefined]>([
    ['a patch upgrade', { version: 'v1.14.2' }, undefined],
    ['the next minor', { version: 'v1.15.0' }, undefined],
    ['a downgrade', { version: 'v1.13.0' }, /spec\.qdrant\.version: Forbidden: spec\.qdrant\.version cannot go back from v1\.14\.1 to v1\.13\.0/],
    ['a patch downgrade', { version: 'v1.14.0' }, /cannot go back from v1\.14\.1 to v1\.14\.0/],
    ['a skipped minor', { version: 'v1.16.0' }, /spec\.qdrant\.version: Forbidden: spec\.qdrant\.version cannot jump from v1\.14\.1 to v1\.16\.0: Qdrant upgrades one minor version at a time/],
    ['a larger volume', { storage: { size: '20Gi' } }, undefined],
    ['the same size spelt otherwise', { storage: { size: '10240Mi' } }, undefined],
    ['a smaller volume', { storage: { size: '5Gi' } }, /spec\.qdrant\.storage\.size: Forbidden: spec\.qdrant\.storage\.size cannot shrink from 10Gi to 5Gi: volumes can only grow/],
    ['another StorageClass', { storage: { className: 'standard' } }, /spec\.qdrant\.storage\.className: Forbidden: spec\.qdrant\.storage\.className is immutable/],
    ['dropping the StorageClass', { storage: { className: null } }, /spec\.qdrant\.storage\.className is immutable/],
    ['a replication factor the peers can hold', { replicationFactor: 3 }, undefined],
    ['fewer peers than the replication factor', { replicas: 1, replicationFactor: 2 }, /spec\.qdrant\.replicationFactor: Invalid value: .*spec\.qdrant\.replicationFactor must not exceed spec\.qdrant\.replicas: each replica of a shard needs its own peer/],
  ])('%s of a platform', async (_what, qdrant, message) => {
    const name = `edit-${Math.random().toString(36).slice(2, 8)}`;
    const created = await api.request('POST', `${base}/${ns}/inferenceplatforms`, sample(name, ns));
    expect(created.status).toBe(201);
    const res = await api.request(
      'PATCH',
      `${base}/${ns}/inferenceplatforms/${name}`,
      { spec: { qdrant } },
      'application/merge-patch+json',
    );
    const refusal = res.status === 422 ? String(res.body.message) : undefined;
    expect({ status: res.status, matches: refusal === undefined ? undefined : message?.test(refusal) }).toEqual({
      status: message ? 422 : 200,
      matches: message ? true : undefined,
    });
  });
});
