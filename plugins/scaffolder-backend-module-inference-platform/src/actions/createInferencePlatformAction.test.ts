import { mockServices } from '@backstage/backend-test-utils';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { createMockActionContext } from '@backstage/plugin-scaffolder-node-test-utils';
import {
  createTestNamespace,
  deleteTestNamespace,
  testApi,
  testKubeconfigPath,
  testQdrantUrlTemplates,
} from '@cv-platform/local-cluster';
import { KubeClient, loadKubeConfig, Operator } from '@cv-platform/operator';
import yaml from 'js-yaml';
import { createInferencePlatformAction } from './createInferencePlatformAction';
import { SCAFFOLDER_TASK_ANNOTATION } from './buildPlatform';

jest.setTimeout(120_000);

const api = testApi();
const kubeConfig = loadKubeConfig({ kubeconfigPath: testKubeconfigPath() });
const kube = new KubeClient(kubeConfig);
const APP = 'http://portal.test';

const platformsPath = (ns: string, name = '') =>
  `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms${
    name ? `/${name}` : ''
  }`;

async function listPlatforms(ns: string): Promise<any[]> {
  const res = await api.request('GET', platformsPath(ns));
  expect(res.status).toBe(200);
  return res.body.items;
}

function validInput(namespace: string, name = 'vision'): any {
  return {
    name,
    namespace,
    owner: 'group:default/ml-platform',
    // What the form sends: optional fields left blank arrive as ''.
    entityRef: '',
    qdrant: {
      version: 'v1.14.1',
      replicas: 3,
      storage: { size: '10Gi', className: '' },
    },
    inference: {
      image: 'my-repo/cv-inference:latest',
      model: {
        url: 's3://models/resnet50-v2-7.onnx',
        source: { mode: 'emptyDir', sizeLimit: '1Gi', storageClassName: '' },
      },
      replicas: 2,
      resources: {
        requests: { cpu: '1', memory: '2Gi' },
        limits: { cpu: '2', memory: '4Gi' },
      },
      gpu: { count: 0, type: '' },
    },
  };
}

/** A checkpoint store that behaves like the task runner's: a key that succeeded once returns its stored value. */
function checkpointStore() {
  const values = new Map<string, unknown>();
  return {
    values,
    async checkpoint(opts: { key: string; fn: () => Promise<any> }) {
      if (values.has(opts.key)) return values.get(opts.key);
      const value = await opts.fn();
      values.set(opts.key, value);
      return value;
    },
  };
}

function run(
  input: any,
  extra: {
    taskId?: string;
    isDryRun?: boolean;
    checkpoint?: ReturnType<typeof checkpointStore>;
    deny?: boolean;
    waitIntervalMs?: number;
    failedGraceMs?: number;
    clusterNames?: string[];
    kubeClient?: (cluster?: string) => KubeClient;
  } = {},
) {
  const action = createInferencePlatformAction({
    kubeClient: extra.kubeClient ?? (() => kube),
    clusterNames: extra.clusterNames,
    permissions: mockServices.permissions({
      result: extra.deny ? AuthorizeResult.DENY : AuthorizeResult.ALLOW,
    }),
    appBaseUrl: APP,
    waitIntervalMs: extra.waitIntervalMs ?? 200,
    failedGraceMs: extra.failedGraceMs,
  });
  const logger = mockServices.logger.mock();
  const ctx: any = {
    ...createMockActionContext({
      input,
      logger,
      task: { id: extra.taskId ?? 'task-1' },
    }),
    isDryRun: extra.isDryRun,
    ...(extra.checkpoint ? { checkpoint: extra.checkpoint.checkpoint } : {}),
  };
  const outputs = () =>
    Object.fromEntries(
      (ctx.output as jest.Mock).mock.calls as [string, unknown][],
    );
  const logLines = () =>
    [...logger.info.mock.calls, ...logger.warn.mock.calls].map(c =>
      String(c[0]),
    );
  return { promise: action.handler(ctx), outputs, logLines };
}

describe('inference-platform:create', () => {
  let ns: string;
  beforeEach(async () => {
    ns = await createTestNamespace(api, 'scaffold');
  });
  afterEach(async () => {
    await deleteTestNamespace(api, ns);
  });

  it('creates the platform the input describes and outputs its links', async () => {
    const { promise, outputs, logLines } = run(validInput(ns));
    await promise;

    const res = await api.request('GET', platformsPath(ns, 'vision'));
    expect(res.status).toBe(200);
    const p = res.body;
    expect(p.metadata.annotations).toEqual({
      'cv.platform.tech/owner': 'group:default/ml-platform',
      [SCAFFOLDER_TASK_ANNOTATION]: 'task-1',
    });
    expect(p.apiVersion).toBe('cv.platform.tech/v1beta1');
    expect(p.spec.qdrant).toEqual({
      version: 'v1.14.1',
      replicas: 3,
      storage: { size: '10Gi' },
      image: 'qdrant/qdrant',
    });
    expect(p.spec.inference).toMatchObject({
      image: 'my-repo/cv-inference:latest',
      model: {
        url: 's3://models/resnet50-v2-7.onnx',
        source: { mode: 'emptyDir', sizeLimit: '1Gi' },
      },
      replicas: 2,
      resources: {
        requests: { cpu: '1', memory: '2Gi' },
        limits: { cpu: '2', memory: '4Gi' },
      },
      gpu: { count: 0 },
    });

    const out = outputs();
    expect(out).toMatchObject({
      name: 'vision',
      namespace: ns,
      portalUrl: `${APP}/inference-platforms/${ns}/vision`,
      entityRef: `resource:default/${ns}.vision`,
      created: true,
    });
    expect(out.phase).toBeUndefined();
    const manifest = yaml.load(out.manifest as string) as any;
    expect(manifest).toMatchObject({
      apiVersion: 'cv.platform.tech/v1beta1',
      kind: 'InferencePlatform',
      metadata: { name: 'vision', namespace: ns },
      spec: {
        qdrant: { version: 'v1.14.1', replicas: 3, storage: { size: '10Gi' } },
        inference: { model: { url: 's3://models/resnet50-v2-7.onnx' } },
      },
    });
    expect(manifest.spec.qdrant.storage).not.toHaveProperty('className');
    expect(manifest.spec.inference.model.source).not.toHaveProperty(
      'storageClassName',
    );
    expect(manifest.spec.inference.gpu).toEqual({ count: 0 });
    expect(logLines()).toContain(`Created InferencePlatform ${ns}/vision`);
  });

  it.each<[string, (input: any) => void, RegExp]>([
    [
      'a Qdrant version that is not a release',
      i => (i.qdrant.version = 'latest'),
      /spec\.qdrant\.version: Invalid value: "latest"/,
    ],
    [
      'zero Qdrant replicas',
      i => (i.qdrant.replicas = 0),
      /spec\.qdrant\.replicas: Invalid value: 0: spec\.qdrant\.replicas in body should be greater than or equal to 1/,
    ],
    [
      'a storage size that is not a quantity',
      i => (i.qdrant.storage.size = 'ten gigs'),
      /spec\.qdrant\.storage\.size: Invalid value: "ten gigs"/,
    ],
    [
      'a zero storage size (CEL rule)',
      i => (i.qdrant.storage.size = '0'),
      /spec\.qdrant\.storage\.size must be greater than 0/,
    ],
    [
      'an unsupported model URL scheme',
      i => (i.inference.model.url = 'ftp://models/resnet.onnx'),
      /spec\.inference\.model\.url: Invalid value: "ftp:\/\/models\/resnet\.onnx"/,
    ],
    [
      'a pvc:// URL without a claim and path (CEL rule)',
      i => (i.inference.model.url = 'pvc://Bad_Claim'),
      /spec\.inference\.model\.url: pvc:\/\/ URLs must be pvc:\/\/<claim-name>\/<path>/,
    ],
    [
      'a model volume type the CRD does not know',
      i => (i.inference.model.source.mode = 'hostPath'),
      /spec\.inference\.model\.source\.mode: Unsupported value: "hostPath"/,
    ],
    [
      'negative inference replicas',
      i => (i.inference.replicas = -1),
      /spec\.inference\.replicas: Invalid value: -1/,
    ],
    [
      'a limit below its request (CEL rule)',
      i => (i.inference.resources.limits.memory = '1Gi'),
      /inference resources: every limit must be >= its request/,
    ],
    [
      'a GPU type without GPUs (CEL rule)',
      i => (i.inference.gpu = { count: 0, type: 'NVIDIA-A100-SXM4-40GB' }),
      /spec\.inference\.gpu\.type needs spec\.inference\.gpu\.count > 0/,
    ],
    [
      'too many GPUs',
      i => (i.inference.gpu = { count: 17 }),
      /spec\.inference\.gpu\.count: Invalid value: 17/,
    ],
    [
      'a misspelled field',
      i => (i.inference.replica = 2),
      /unknown field "spec\.inference\.replica"/,
    ],
    [
      'a v1alpha1 field (the v1beta1 layout nests it)',
      i => (i.qdrant.storageSize = '10Gi'),
      /unknown field "spec\.qdrant\.storageSize"/,
    ],
    [
      'a v1alpha1 field v1beta1 dropped',
      i => (i.inference.readinessProbePath = '/healthz'),
      /unknown field "spec\.inference\.readinessProbePath"/,
    ],
    [
      'a namespace that does not exist',
      i => (i.namespace = `${i.namespace}-missing`),
      /Namespace ".*-missing" does not exist/,
    ],
  ])(
    'rejects %s with the API server message, creating nothing',
    async (_what, mutate, message) => {
      const input = validInput(ns);
      mutate(input);
      const { promise, outputs } = run(input);
      await expect(promise).rejects.toMatchObject({
        name: 'InputError',
        message: expect.stringMatching(message),
      });
      expect(outputs().created).toBeUndefined();
      expect(await listPlatforms(ns)).toEqual([]);
    },
  );

  it.each([
    ['a leading digit', '9lives'],
    ['upper case', 'Vision'],
    ['more than 45 characters', 'a'.repeat(46)],
  ])(
    'rejects a name with %s before calling the API server',
    async (_what, name) => {
      const before = kube.requests;
      const { promise } = run(validInput(ns, name));
      await expect(promise).rejects.toMatchObject({
        name: 'InputError',
        message: expect.stringContaining(`Invalid platform name "${name}"`),
      });
      expect(kube.requests).toBe(before);
    },
  );

  it('creates in the cluster the input names, and names that cluster in its outputs when the portal manages several', async () => {
    const asked: Array<string | undefined> = [];
    // "west" is the shared test cluster; the default one must not be used.
    const kubeClient = (cluster?: string) => {
      asked.push(cluster);
      if (cluster !== 'west') throw new Error(`asked for cluster ${cluster}`);
      return kube;
    };
    const { promise, outputs } = run(
      { ...validInput(ns), cluster: 'west' },
      { clusterNames: ['east', 'west'], kubeClient },
    );
    await promise;
    expect(asked).toEqual(['west']);
    expect((await api.request('GET', platformsPath(ns, 'vision'))).status).toBe(200);
    expect(outputs()).toMatchObject({
      cluster: 'west',
      entityRef: `resource:default/west.${ns}.vision`,
      portalUrl: `${APP}/inference-platforms/${ns}/vision?cluster=west`,
    });

    const unknown = run(
      { ...validInput(ns, 'other'), cluster: 'north' },
      { clusterNames: ['east', 'west'], kubeClient },
    );
    await expect(unknown.promise).rejects.toThrow(
      'Unknown cluster "north": this portal manages east, west',
    );
  });

  it('refuses users without the create permission', async () => {
    const { promise } = run(validInput(ns), { deny: true });
    await expect(promise).rejects.toMatchObject({
      name: 'NotAllowedError',
      message: expect.stringContaining('inference-platform.create'),
    });
    expect(await listPlatforms(ns)).toEqual([]);
  });

  it.each([
    ['a scaffolder dry run', { isDryRun: true }, {}],
    ['createInCluster false', {}, { createInCluster: false }],
  ])(
    'only validates on %s, but still rejects bad input',
    async (_what, extra, inputExtra) => {
      const ok = run({ ...validInput(ns), ...inputExtra }, extra);
      await ok.promise;
      expect(ok.outputs()).toMatchObject({ name: 'vision', created: false });
      expect(ok.logLines().join('\n')).toMatch(
        /accepted InferencePlatform .* in a server-side dry run; nothing was created/,
      );
      // No task annotation: the manifest is for a repository, not this task.
      expect(
        (yaml.load(ok.outputs().manifest as string) as any).metadata
          .annotations,
      ).toEqual({ 'cv.platform.tech/owner': 'group:default/ml-platform' });

      const bad = validInput(ns);
      bad.qdrant.version = 'latest';
      await expect(
        run({ ...bad, ...inputExtra }, extra).promise,
      ).rejects.toMatchObject({ name: 'InputError' });
      expect(await listPlatforms(ns)).toEqual([]);
    },
  );

  describe('re-running', () => {
    it('does not create again when the task is retried (checkpoint)', async () => {
      const store = checkpointStore();
      const first = run(validInput(ns), { checkpoint: store });
      await first.promise;
      const [created] = await listPlatforms(ns);

      const writes = kube.writes;
      const retry = run(validInput(ns), { checkpoint: store });
      await retry.promise;
      expect(kube.writes).toBe(writes);
      expect(retry.outputs().created).toBe(true);
      const items = await listPlatforms(ns);
      expect(items).toHaveLength(1);
      expect(items[0].metadata.resourceVersion).toBe(
        created.metadata.resourceVersion,
      );
    });

    it('recognises its own platform when the checkpoint was lost', async () => {
      await run(validInput(ns)).promise;
      const [created] = await listPlatforms(ns);

      const again = run(validInput(ns), { checkpoint: checkpointStore() });
      await again.promise;
      expect(again.outputs().created).toBe(false);
      expect(again.logLines().join('\n')).toMatch(
        /already exists from an earlier run of this request/,
      );
      const items = await listPlatforms(ns);
      expect(items).toHaveLength(1);
      expect(items[0].metadata.uid).toBe(created.metadata.uid);
      expect(items[0].metadata.resourceVersion).toBe(
        created.metadata.resourceVersion,
      );
    });

    it('treats the same form submitted by a new task as already done', async () => {
      await run(validInput(ns), { taskId: 'task-1' }).promise;
      const again = run(validInput(ns), { taskId: 'task-2' });
      await again.promise;
      expect(again.outputs().created).toBe(false);
      expect(await listPlatforms(ns)).toHaveLength(1);
    });

    it('refuses to take over a different platform with the same name', async () => {
      await run(validInput(ns), { taskId: 'task-1' }).promise;
      const other = validInput(ns);
      other.inference.replicas = 7;
      const { promise } = run(other, { taskId: 'task-2' });
      await expect(promise).rejects.toMatchObject({
        name: 'ConflictError',
        message: expect.stringMatching(
          /InferencePlatform .*\/vision already exists \(owned by group:default\/ml-platform\) with a different spec/,
        ),
      });
      const items = await listPlatforms(ns);
      expect(items).toHaveLength(1);
      expect(items[0].spec.inference.replicas).toBe(2);
    });

    it('still validates the spec when the name is taken', async () => {
      await run(validInput(ns)).promise;
      const bad = validInput(ns);
      bad.inference.model.url = 'ftp://x/model.onnx';
      await expect(
        run(bad, { taskId: 'task-2' }).promise,
      ).rejects.toMatchObject({
        name: 'InputError',
        message: expect.stringMatching(
          /spec\.inference\.model\.url: Invalid value/,
        ),
      });
    });
  });

  describe('waiting for Ready', () => {
    it('logs progress until the operator reports Ready', async () => {
      const operator = new Operator({
        kubeConfig,
        namespaces: [ns],
        ...testQdrantUrlTemplates(),
        workers: 2,
      });
      await operator.start();
      try {
        const { promise, outputs, logLines } = run({
          ...validInput(ns),
          waitForReady: true,
          timeoutSeconds: 60,
        });
        await promise;
        expect(outputs().phase).toBe('Ready');
        const lines = logLines();
        expect(lines).toContainEqual(
          expect.stringMatching(
            new RegExp(
              `^InferencePlatform ${ns}/vision: phase Ready \\[Qdrant 3/3, inference 2/2\\]`,
            ),
          ),
        );
        // Progress before Ready was logged too, a line per change. A state
        // may recur (readiness can drop back while pods start), so only
        // consecutive lines are required to differ.
        const progress = lines.filter(l =>
          l.startsWith(`InferencePlatform ${ns}/vision: `),
        );
        expect(progress.length).toBeGreaterThan(1);
        progress
          .slice(1)
          .forEach((line, i) => expect(line).not.toBe(progress[i]));
      } finally {
        await operator.stop();
      }
    });

    it('fails with the operator message when the platform fails', async () => {
      const operator = new Operator({
        kubeConfig,
        namespaces: [ns],
        ...testQdrantUrlTemplates(),
        workers: 2,
      });
      // A quota that forbids StatefulSets: the operator's apply is refused
      // and the platform fails with the API server's reason.
      await api.apply({
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: 'no-statefulsets', namespace: ns },
        spec: { hard: { 'count/statefulsets.apps': '0' } },
      });
      await operator.start();
      try {
        const input = validInput(ns);
        const { promise, outputs } = run(
          { ...input, waitForReady: true, timeoutSeconds: 60 },
          { failedGraceMs: 500 },
        );
        await expect(promise).rejects.toThrow(
          new RegExp(
            `InferencePlatform ${ns}/vision was created but did not become Ready: the platform failed: .*exceeded quota`,
          ),
        );
        expect(outputs().created).toBe(true);
        expect(await listPlatforms(ns)).toHaveLength(1);
      } finally {
        await operator.stop();
      }
    });

    it('times out with the last progress when no operator acts on it', async () => {
      const { promise } = run({
        ...validInput(ns),
        waitForReady: true,
        timeoutSeconds: 1,
      });
      await expect(promise).rejects.toThrow(
        /did not become Ready: timed out after 1 s waiting for phase Ready; last seen waiting for the operator to pick it up/,
      );
    });
  });
});
