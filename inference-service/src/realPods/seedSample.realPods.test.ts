import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  InferencePlatform,
  sampleInferencePlatform,
  toV1beta1,
} from '@cv-platform/inference-platform-api';
import {
  LocalCluster,
  NODE_NETWORK,
  S3TestServer,
  ensureBinaries,
  eventually,
  podProcesses,
  realQdrantBinary,
} from '@cv-platform/local-cluster';
import { Operator, loadKubeConfig, names } from '@cv-platform/operator';
import { ensureMobileNetV2Onnx } from '../__testUtils__/nsfwjsMobileNetV2';
import {
  MODEL_STORE_SECRET,
  modelStoreSecret,
  scaledSeed,
} from '../__testUtils__/scaledSeed';
import { nearDuplicates, renderScene } from '../__testUtils__/syntheticImages';
import { makeTempDir } from '../__testUtils__/tempDir';
import { writeTinyModel } from '../__testUtils__/writeTinyModel';

/**
 * The seed sample on real pods: the operator's StatefulSet and Deployment run
 * as processes on the local cluster's real node, the model-loader init
 * container downloads from an S3-compatible server, the inference servers
 * answer through their Service, and failures are the loader's and the
 * kernel's own.
 */
jest.setTimeout(600_000);

/**
 * The real-Qdrant variant (3 peers, Raft, replication) runs when a binary
 * serves the sample's Qdrant version; without one the pods run the stand-in
 * (one peer), which CI does not accept.
 */
const realQdrant = realQdrantBinary(
  "the seed sample's real-Qdrant variant",
  sampleInferencePlatform('seed', 'seed').spec.qdrant.version,
);

const run = promisify(execFile);
const ns = 'seed';
const MODEL_URL = 's3://models/mobilenet-v2.onnx';
const MODEL_B = 's3://models/mobilenet-v2-b.onnx';
const GPU_PRODUCT = 'NVIDIA-A100-SXM4-40GB';
let cluster: LocalCluster;
let operator: Operator;
const s3 = new S3TestServer();

const platformsPath = (name = '') =>
  `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms${
    name ? `/${name}` : ''
  }`;

async function platform(name: string): Promise<any> {
  return (await cluster.request('GET', platformsPath(name))).body;
}

async function waitForPhase(name: string, phase: string, timeoutMs = 300_000) {
  let seen = '';
  try {
    return await eventually(
      `${name} ${phase}`,
      async () => {
        const p = await platform(name);
        seen = `${p.status?.phase} (generation ${p.metadata.generation}, observed ${p.status?.observedGeneration}): ${p.status?.message}`;
        return p.status?.phase === phase &&
          p.status?.observedGeneration === p.metadata.generation
          ? p
          : undefined;
      },
      timeoutMs,
      500,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last seen ${seen}`);
  }
}

const kubectl = (...args: string[]) =>
  run(
    path.join(ensureBinaries(), 'kubectl'),
    [`--kubeconfig=${cluster.kubeconfigPath}`, '-n', ns, ...args],
    {
      encoding: 'utf8',
      maxBuffer: 16 << 20,
    },
  ).then(r => r.stdout);

/** The seed sample, scaled to one machine: 1 stand-in peer (3 with a Qdrant binary), 2 servers. */
function seed(name: string, modelUrl: string): InferencePlatform {
  return scaledSeed(name, ns, {
    qdrantReplicas: realQdrant ? 3 : 1,
    inferenceReplicas: 2,
    modelUrl,
    s3,
  });
}

/** The scaled seed at its smallest: one Qdrant peer, one server. */
function smallSeed(name: string, modelUrl: string): InferencePlatform {
  return scaledSeed(name, ns, {
    qdrantReplicas: 1,
    inferenceReplicas: 1,
    modelUrl,
    s3,
  });
}

/** The replication factor of the servers' collection, from Qdrant and from the platform's status. */
async function collectionReplication(ready: any) {
  const qdrantSvc = (
    await cluster.request(
      'GET',
      `/api/v1/namespaces/${ns}/services/${names.qdrant(ready)}`,
    )
  ).body;
  const collection = (await (
    await fetch(
      `http://${qdrantSvc.spec.clusterIP}:6333/collections/${
        ready.spec.inference.collection ?? 'images'
      }`,
    )
  ).json()) as any;
  return {
    inQdrant: collection.result.config.params.replication_factor,
    inStatus: ready.status.qdrantCluster.collections.map(
      (c: any) => c.replicationFactor,
    ),
  };
}

async function patchPlatform(name: string, patch: unknown) {
  const res = await cluster.request(
    'PATCH',
    platformsPath(name),
    patch,
    'application/merge-patch+json',
  );
  if (res.status >= 300)
    throw new Error(`patch failed: ${JSON.stringify(res.body)}`);
}

const condition = (p: any, type: string) =>
  (p.status?.conditions ?? []).find((c: any) => c.type === type);

async function pods(selector: string): Promise<any[]> {
  return (
    await cluster.request(
      'GET',
      `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(
        selector,
      )}`,
    )
  ).body.items;
}

/**
 * Searches through a platform's inference Service from `clients` loops,
 * bounded in count (5,000) and time (4 minutes), until stopped: the status of
 * every answer (0 for no answer).
 */
async function searchesThroughService(
  platformObj: any,
  sceneSeed: number,
  clients = 1,
) {
  const svc = (
    await cluster.request(
      'GET',
      `/api/v1/namespaces/${ns}/services/${names.inference(platformObj)}`,
    )
  ).body;
  const base = `http://${svc.spec.clusterIP}:${svc.spec.ports[0].port}`;
  const query = await renderScene(sceneSeed);
  let searching = true;
  const statuses: number[] = [];
  const loops = Array.from({ length: clients }, async () => {
    const until = Date.now() + 240_000;
    while (searching && statuses.length < 5000 && Date.now() < until) {
      const r = await fetch(`${base}/v1/search?k=1`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/octet-stream' },
        body: query,
      }).catch(() => undefined);
      statuses.push(r?.status ?? 0);
      await r?.arrayBuffer();
    }
  });
  return {
    statuses,
    stop: async () => {
      searching = false;
      await Promise.all(loops);
    },
  };
}

beforeAll(async () => {
  cluster = await LocalCluster.start({
    realNode: true,
    realNodeClaimsGpus: { count: 2, product: GPU_PRODUCT },
  });
  // Pods reach the host at the bridge address.
  await s3.start(NODE_NETWORK.gateway);
  // Two keys, two "versions" of the model: what a model update changes is the URL.
  const model = fs.readFileSync(await ensureMobileNetV2Onnx());
  await s3.putObjects('models', {
    'mobilenet-v2.onnx': model,
    'mobilenet-v2-b.onnx': model,
  });
  await s3.putObjects('backups', {});
  await cluster.apply({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  await cluster.apply(modelStoreSecret(ns, s3));
  await eventually(
    'default ServiceAccount',
    async () =>
      (
        await cluster.request(
          'GET',
          `/api/v1/namespaces/${ns}/serviceaccounts/default`,
        )
      ).status === 200,
  );
  operator = new Operator({
    kubeConfig: loadKubeConfig({ kubeconfigPath: cluster.kubeconfigPath }),
    namespaces: [ns],
    workers: 2,
    // The operator runs on the host, outside the cluster: Qdrant through the API server.
    qdrantAccess: 'apiServerProxy',
    clusterInfoTtlMs: 2000,
    canaryMetricsIntervalMs: 5000,
  });
  await operator.start();
});

afterAll(async () => {
  await operator?.stop();
  await cluster?.stop();
  await s3.stop();
});

describe('the seed sample on real pods', () => {
  const p = () => seed('image-retrieval-prod', MODEL_URL);

  it('goes Ready for real and serves near-duplicate search through its Service', async () => {
    const res = await cluster.request('POST', platformsPath(), toV1beta1(p()));
    expect(res.status).toBe(201);
    const ready = await waitForPhase('image-retrieval-prod', 'Ready');
    expect(ready.status.model).toEqual({
      desired: MODEL_URL,
      loaded: { [MODEL_URL]: 2 },
    });

    const servers = await pods('app.kubernetes.io/name=inference-service');
    expect(servers).toHaveLength(2);
    for (const pod of servers) {
      expect(pod.spec.nodeName).toBe('local-node');
      const loader = pod.status.initContainerStatuses.find(
        (s: any) => s.name === 'model-loader',
      );
      expect(loader.state.terminated).toMatchObject({
        exitCode: 0,
        reason: 'Completed',
      });
      expect(
        await kubectl('logs', pod.metadata.name, '-c', 'model-loader'),
      ).toContain('model fetched');
    }
    const peer0 = await kubectl('logs', `${names.qdrant(ready)}-0`);
    // The stand-in says what it is, and which arguments the pod's command
    // line gave it: peer 0 announces its own stable DNS name (the shell
    // expanded $HOSTNAME to the pod's name); a real peer logs its own banner.
    const selfUri = `http://${names.qdrant(ready)}-0.${names.qdrantHeadless(
      ready,
    )}.${ns}.svc:6335`;
    expect(peer0).toMatch(
      realQdrant
        ? /qdrant/i
        : new RegExp(
            `Qdrant stand-in .*ignoring args: --uri ${selfUri.replace(
              /\./g,
              '\\.',
            )}$`,
            'm',
          ),
    );

    const svc = (
      await cluster.request(
        'GET',
        `/api/v1/namespaces/${ns}/services/${names.inference(ready)}`,
      )
    ).body;
    const base = `http://${svc.spec.clusterIP}:${svc.spec.ports[0].port}`;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    const scenes = 20;
    const originals = await Promise.all(
      Array.from({ length: scenes }, (_, i) => renderScene(2000 + i)),
    );
    for (const [i, img] of originals.entries()) {
      const r = await fetch(
        `${base}/v1/index?id=scene-${i}&payload=${encodeURIComponent(
          JSON.stringify({ scene: i }),
        )}`,
        {
          method: 'POST',
          headers: { 'Content-Type': 'image/jpeg' },
          body: img,
        },
      );
      expect(r.status).toBe(200);
    }
    const misses: string[] = [];
    for (const [i, img] of originals.entries()) {
      // Crops and rescales; not the mirror image: among 20 scenes MobileNetV2's
      // features are not mirror-invariant enough (one flip ranks another scene first).
      for (const query of (await nearDuplicates(img)).filter(
        v => v.kind !== 'horizontal-flip',
      )) {
        const r = await fetch(`${base}/v1/search?k=1`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/octet-stream' },
          body: query.image,
        });
        expect(r.status).toBe(200);
        const top = ((await r.json()) as any).results[0];
        if (top?.id !== `scene-${i}`)
          misses.push(`scene-${i} (${query.kind}) -> ${top?.id}`);
      }
    }
    expect(misses).toEqual([]);

    // On real Qdrant, the collection the servers created keeps two copies
    // of every shard: spec.qdrant.replicationFactor defaults to 2 from two
    // peers, through the operator's ConfigMap (Qdrant's own default is 1).
    const replication = realQdrant
      ? await collectionReplication(ready)
      : undefined;
    expect(replication).toEqual(
      realQdrant ? { inQdrant: 2, inStatus: [2] } : undefined,
    );
  });

  it('backs up to S3 and restores a deleted collection: the same search results', async () => {
    const name = 'image-retrieval-prod';
    const ready = await platform(name);
    const collection = ready.spec.inference.collection ?? 'images';
    const qdrantSvc = (
      await cluster.request(
        'GET',
        `/api/v1/namespaces/${ns}/services/${names.qdrant(ready)}`,
      )
    ).body;
    const qdrant = `http://${qdrantSvc.spec.clusterIP}:6333`;
    const svc = (
      await cluster.request(
        'GET',
        `/api/v1/namespaces/${ns}/services/${names.inference(ready)}`,
      )
    ).body;
    const base = `http://${svc.spec.clusterIP}:${svc.spec.ports[0].port}`;
    const queries = await Promise.all(
      [0, 7, 13].map(i => renderScene(2000 + i)),
    );
    const search = async () =>
      Promise.all(
        queries.map(async q => {
          const r = await fetch(`${base}/v1/search?k=3`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/octet-stream' },
            body: q,
          });
          return {
            status: r.status,
            ids: ((await r.json()) as any).results?.map((x: any) => x.id),
          };
        }),
      );
    const before = await search();
    expect(before.map(b => b.ids?.[0])).toEqual([
      'scene-0',
      'scene-7',
      'scene-13',
    ]);

    // A backup target (the model store's server and credentials), and "back up now".
    await patchPlatform(name, {
      metadata: {
        annotations: {
          'cv.platform.tech/backup-requested-at': new Date().toISOString(),
        },
      },
      spec: {
        backup: {
          schedule: '0 3 * * *',
          retention: { count: 3 },
          s3: {
            bucket: 'backups',
            prefix: 'qdrant',
            endpoint: s3.endpoint,
            region: 'us-east-1',
            credentialsSecretRef: { name: MODEL_STORE_SECRET },
          },
        },
      },
    });
    const backedUp = await eventually(
      'backup recorded',
      async () => {
        const rec = (await platform(name)).status?.backup?.history?.[0];
        return rec && rec.result !== undefined ? rec : undefined;
      },
      180_000,
      500,
    );
    expect(backedUp).toMatchObject({ result: 'Succeeded', trigger: 'Manual' });
    const backed = backedUp.collections.find((c: any) => c.name === collection);
    expect(backed.points).toBe(20);
    const keys = await s3.listKeys('backups');
    for (const snap of backed.snapshots) expect(keys).toContain(snap.key);

    // The collection is lost.
    expect(
      (await fetch(`${qdrant}/collections/${collection}`, { method: 'DELETE' }))
        .status,
    ).toBe(200);
    // Every peer answers behind the Service; a real cluster's peers apply the
    // deletion through Raft, each a moment apart.
    await eventually(
      'the collection gone on every peer',
      async () => {
        for (let i = 0; i < 6; i++) {
          const r = (await (
            await fetch(`${qdrant}/collections/${collection}/exists`)
          ).json()) as any;
          if (r.result.exists !== false) return undefined;
        }
        return true;
      },
      30_000,
      200,
    );

    const restore = {
      apiVersion: 'cv.platform.tech/v1alpha1',
      kind: 'InferencePlatformRestore',
      metadata: { name: 'after-loss', namespace: ns },
      spec: { platformName: name, backupId: backedUp.id },
    };
    const restores = `/apis/cv.platform.tech/v1alpha1/namespaces/${ns}/inferenceplatformrestores`;
    expect((await cluster.request('POST', restores, restore)).status).toBe(201);
    const done = await eventually(
      'restore finished',
      async () => {
        const r = (await cluster.request('GET', `${restores}/after-loss`)).body;
        return ['Succeeded', 'Failed'].includes(r.status?.phase)
          ? r
          : undefined;
      },
      300_000,
      500,
    );
    expect(done.status).toMatchObject({ phase: 'Succeeded' });
    expect(done.status.collections).toEqual([
      { name: collection, points: 20, pointsInBackup: 20 },
    ]);
    expect(await search()).toEqual(before);
  });

  it('restarts a killed inference server: restart count rises, Degraded, then Ready again', async () => {
    const [victim] = await pods('app.kubernetes.io/name=inference-service');
    const server = podProcesses(victim.metadata.uid).find(x =>
      x.cmdline.includes('main.ts'),
    );
    expect(server).toBeDefined();
    process.kill(server!.pid, 'SIGKILL');
    await eventually(
      'restart counted',
      async () => {
        const pod = (
          await cluster.request(
            'GET',
            `/api/v1/namespaces/${ns}/pods/${victim.metadata.name}`,
          )
        ).body;
        const s = pod.status.containerStatuses.find(
          (c: any) => c.name === 'inference',
        );
        return s.restartCount >= 1 && s.lastState.terminated?.exitCode === 137;
      },
      60_000,
    );
    await waitForPhase('image-retrieval-prod', 'Ready');
    const events = (
      await cluster.request(
        'GET',
        `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3Dimage-retrieval-prod`,
      )
    ).body.items;
    expect(events.map((e: any) => e.reason)).toContain('Degraded');
  });

  it('drains a deleted server: every search through the Service succeeds while a pod is deleted and replaced', async () => {
    const name = 'image-retrieval-prod';
    const ready = await waitForPhase(name, 'Ready');
    const isReady = (x: any) =>
      x.status?.conditions?.some(
        (c: any) => c.type === 'Ready' && c.status === 'True',
      );
    const [victim] = await pods('app.kubernetes.io/name=inference-service');
    const { statuses, stop } = await searchesThroughService(ready, 2005, 2);
    try {
      await eventually('searches flowing', async () => statuses.length >= 10);
      // A graceful delete, as a drain or a rollout does: SIGTERM, the pod
      // leaves the Service's endpoints, the server finishes what it has.
      expect(
        (
          await cluster.request(
            'DELETE',
            `/api/v1/namespaces/${ns}/pods/${victim.metadata.name}`,
          )
        ).status,
      ).toBe(200);
      await eventually(
        'the deleted pod gone and its replacement ready',
        async () => {
          const now = await pods('app.kubernetes.io/name=inference-service');
          return (
            !now.some(x => x.metadata.uid === victim.metadata.uid) &&
            now.length === 2 &&
            now.every(isReady)
          );
        },
        180_000,
        500,
      );
      await waitForPhase(name, 'Ready');
    } finally {
      await stop();
    }
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter(x => x !== 200)).toEqual([]);
  });

  it('hot-reloads a new model: no pod restarts, no failed search; a model that cannot load or has another dimension leaves the old one serving, Degraded', async () => {
    const name = 'image-retrieval-prod';
    const serverPods = async () =>
      (await pods('app.kubernetes.io/name=inference-service'))
        .map((x: any) => ({
          name: x.metadata.name,
          uid: x.metadata.uid,
          restarts: x.status.containerStatuses.map((c: any) => c.restartCount),
        }))
        .sort((a: any, b: any) => a.name.localeCompare(b.name));
    const before = await serverPods();
    expect(before).toHaveLength(2);
    const deploymentGeneration = async () =>
      (
        await cluster.request(
          'GET',
          `/apis/apps/v1/namespaces/${ns}/deployments/${name}-inference`,
        )
      ).body.metadata.generation;
    const generation = await deploymentGeneration();

    const missing = 's3://models/missing-v2.onnx';
    await patchPlatform(name, {
      spec: { inference: { model: { url: missing } } },
    });
    const degraded = await waitForPhase(name, 'Degraded');
    expect(degraded.status.model).toEqual({
      desired: missing,
      loaded: { [MODEL_URL]: 2 },
    });
    expect(condition(degraded, 'ModelLoaded')).toMatchObject({
      status: 'False',
      reason: 'ModelReloadFailed',
    });
    expect(degraded.status.message).toMatch(
      /could not load s3:\/\/models\/missing-v2\.onnx: reload failed, still serving the previous model: .*; still serving s3:\/\/models\/mobilenet-v2\.onnx on 2 pods/,
    );
    expect(condition(degraded, 'ModelUpdating')).toMatchObject({
      status: 'True',
      reason: 'Blocked',
    });

    // Searches through the Service while the servers swap models.
    const { statuses, stop } = await searchesThroughService(degraded, 2003);
    await patchPlatform(name, {
      spec: { inference: { model: { url: MODEL_B } } },
    });
    const fixed = await waitForPhase(name, 'Ready');
    await stop();
    expect(fixed.status.model).toEqual({
      desired: MODEL_B,
      loaded: { [MODEL_B]: 2 },
    });
    expect(condition(fixed, 'ModelLoaded')).toMatchObject({
      status: 'True',
      message: `model ${MODEL_B} loaded on 2 ready pods`,
    });
    expect(condition(fixed, 'ModelUpdating')).toMatchObject({
      status: 'False',
    });
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter(x => x !== 200)).toEqual([]);
    // The same pods, never restarted, and no rollout.
    expect(await serverPods()).toEqual(before);
    expect(await deploymentGeneration()).toBe(generation);

    // Another embedding dimension: the collection's is fixed.
    const tiny = makeTempDir();
    try {
      const { path: tinyPath } = writeTinyModel(tiny.dir, { dim: 8, size: 16 });
      await s3.putObjects('models', { 'tiny.onnx': fs.readFileSync(tinyPath) });
    } finally {
      tiny.cleanup();
    }
    await patchPlatform(name, {
      spec: { inference: { model: { url: 's3://models/tiny.onnx' } } },
    });
    const refused = await waitForPhase(name, 'Degraded');
    expect(condition(refused, 'ModelLoaded')).toMatchObject({
      status: 'False',
      reason: 'ModelRejected',
    });
    expect(refused.status.message).toMatch(
      /new model produces 8-d embeddings but collection "images" holds 1280-d vectors.*name a new spec\.inference\.collection/,
    );
    await patchPlatform(name, {
      spec: { inference: { model: { url: MODEL_B } } },
    });
    await waitForPhase(name, 'Ready');
    expect(await serverPods()).toEqual(before);
  });

  it('splits requests with a canary by its ready servers, keeps its embeddings in its own collection, forwards its writes, and gives a canary that never turns ready no requests', async () => {
    const name = 'image-retrieval-prod';
    const CANARY = 's3://models/tiny-canary.onnx';
    const tiny = makeTempDir();
    try {
      const { path: tinyPath } = writeTinyModel(tiny.dir, { dim: 8, size: 16 });
      await s3.putObjects('models', {
        'tiny-canary.onnx': fs.readFileSync(tinyPath),
      });
    } finally {
      tiny.cleanup();
    }
    const service = async (svcName: string) => {
      const svc = (
        await cluster.request(
          'GET',
          `/api/v1/namespaces/${ns}/services/${svcName}`,
        )
      ).body;
      return `http://${svc.spec.clusterIP}:${svc.spec.ports[0].port}`;
    };
    // A connection per request: kube-proxy picks an endpoint per connection.
    const post = (url: string, body: Buffer, type = 'image/jpeg') =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = http.request(
          url,
          {
            method: 'POST',
            agent: false,
            headers: { 'Content-Type': type, 'Content-Length': body.length },
          },
          res => {
            const chunks: Buffer[] = [];
            res.on('data', c => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              resolve({
                status: res.statusCode ?? 0,
                body: text.startsWith('{') ? JSON.parse(text) : text,
              });
            });
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const query = await renderScene(2003);
    const stableReplicas = async () =>
      (
        await cluster.request(
          'GET',
          `/apis/apps/v1/namespaces/${ns}/deployments/${name}-inference`,
        )
      ).body.spec.replicas;

    await patchPlatform(name, {
      spec: {
        inference: {
          canary: {
            model: { url: CANARY },
            weight: 50,
            collection: 'images-canary',
          },
        },
      },
    });
    const serving = await eventually(
      'canary serving half the servers',
      async () => {
        const x = await platform(name);
        return x.status?.canary?.state === 'Serving' &&
          x.status.canary.effectiveWeight === 50 &&
          x.status.phase === 'Ready' &&
          (await stableReplicas()) === 1
          ? x
          : undefined;
      },
      300_000,
      1000,
    );
    expect(serving.status.inferenceReadiness).toBe('2/2');
    expect(condition(serving, 'CanaryReady')).toMatchObject({
      status: 'True',
      reason: 'CanaryServing',
    });

    // Requests through the platform's Service reach both versions, told
    // apart by their embedding size; the window's metrics name both.
    const base = await service(names.inference(serving));
    const dims: number[] = [];
    let metrics: any;
    const until = Date.now() + 180_000;
    while (dims.length < 2000 && Date.now() < until) {
      const r = await post(`${base}/v1/embed`, query);
      expect(r.status).toBe(200);
      dims.push(r.body.dim);
      if (dims.length >= 200 && dims.length % 20 === 0) {
        const m = (await platform(name)).status?.canary?.metrics;
        if (
          m?.stable?.requestsPerSecond > 0 &&
          m?.canary?.requestsPerSecond > 0
        ) {
          metrics = m;
          break;
        }
      }
    }
    expect(metrics).toMatchObject({
      stable: { errorRate: 0, p95LatencyMs: expect.any(Number) },
      canary: { errorRate: 0, p95LatencyMs: expect.any(Number) },
    });
    const toCanary = dims.filter(d => d === 8).length;
    const toStable = dims.filter(d => d === 1280).length;
    expect(toCanary + toStable).toBe(dims.length);
    // Half the ready servers: far from none and far from all (binomial, 200+ draws).
    expect(toCanary / dims.length).toBeGreaterThan(0.25);
    expect(toCanary / dims.length).toBeLessThan(0.75);

    // Writes through the Service land on either version; the stable
    // collection gets all of them, the canary's only its own, at its size.
    const written = 12;
    for (let i = 0; i < written; i++) {
      const r = await post(
        `${base}/v1/index?id=canary-${i}&payload=${encodeURIComponent(
          JSON.stringify({ canaryRun: true }),
        )}`,
        await renderScene(3000 + i),
      );
      expect(r.status).toBe(200);
    }
    const filtered = async (svcName: string) => {
      const r = await post(
        `${await service(svcName)}/v1/search?k=50&filter=${encodeURIComponent(
          JSON.stringify({ canaryRun: true }),
        )}`,
        query,
      );
      expect(r.status).toBe(200);
      return r.body.results.map((x: any) => x.id).sort();
    };
    expect(await filtered(names.inferenceStable(serving))).toHaveLength(
      written,
    );
    const onCanary = await filtered(names.inferenceCanary(serving));
    expect(onCanary.length).toBeLessThan(written);
    const qdrant = await service(names.qdrant(serving));
    const vectorSize = async (collection: string) =>
      (
        (await (
          await fetch(
            `${qdrant.replace(/:80$/, ':6333')}/collections/${collection}`,
          )
        ).json()) as any
      ).result.config.params.vectors.size;
    expect(await vectorSize('images')).toBe(1280);
    expect(await vectorSize('images-canary')).toBe(8);

    // Roll back (remove it), then a canary whose model does not exist: it
    // never turns ready, the stable servers keep every request.
    await patchPlatform(name, { spec: { inference: { canary: null } } });
    await eventually(
      'canary removed',
      async () => {
        const x = await platform(name);
        return !x.status?.canary &&
          x.status?.phase === 'Ready' &&
          x.status.inferenceReadiness === '2/2' &&
          (await pods('cv.platform.tech/track=canary')).length === 0
          ? x
          : undefined;
      },
      180_000,
      1000,
    );
    await patchPlatform(name, {
      spec: {
        inference: {
          canary: {
            model: { url: 's3://models/missing-canary.onnx' },
            weight: 50,
            collection: 'images-canary',
          },
        },
      },
    });
    const failed = await eventually(
      'canary failed',
      async () => {
        const x = await platform(name);
        return x.status?.canary?.state === 'Failed' ? x : undefined;
      },
      300_000,
      1000,
    );
    expect(failed.status.phase).toBe('Ready');
    expect(failed.status.canary).toMatchObject({
      readyReplicas: 0,
      effectiveWeight: 0,
    });
    expect(failed.status.canary.message).toMatch(
      /model-loader gave up: .*missing-canary\.onnx.*; the canary receives no requests, the stable model serves the rest/,
    );
    expect(condition(failed, 'CanaryReady')).toMatchObject({
      status: 'False',
      reason: 'ModelDownloadFailed',
    });
    expect(await stableReplicas()).toBe(2);
    for (let i = 0; i < 30; i++) {
      const r = await post(`${base}/v1/embed`, query);
      expect([r.status, r.body.dim]).toEqual([200, 1280]);
    }
    await patchPlatform(name, { spec: { inference: { canary: null } } });
    await waitForPhase(name, 'Ready');
  });

  it("fails a platform whose model cannot be downloaded after its retries with the loader's reason, without a crash loop, and recovers when fixed", async () => {
    const broken = smallSeed('broken-model', 's3://models/missing.onnx');
    broken.spec.inference.modelSource!.maxRetries = 1;
    expect(
      (await cluster.request('POST', platformsPath(), toV1beta1(broken)))
        .status,
    ).toBe(201);
    const failed = await waitForPhase('broken-model', 'Failed');
    expect(condition(failed, 'ModelLoaded')).toMatchObject({
      status: 'False',
      reason: 'ModelDownloadFailed',
    });
    // The loader's own words, from its termination message.
    expect(failed.status.message).toMatch(
      /model-loader gave up: model download failed after 2 attempts: .*missing\.onnx/,
    );
    const [pod] = await pods(
      'app.kubernetes.io/instance=broken-model,app.kubernetes.io/name=inference-service',
    );
    // Not a crash loop: the loader ran once, and the server waits unready saying why.
    const loader = pod.status.initContainerStatuses[0];
    expect(loader).toMatchObject({ restartCount: 0 });
    expect(loader.state.terminated).toMatchObject({ exitCode: 0 });
    const server = pod.status.containerStatuses[0];
    expect(server).toMatchObject({ ready: false, restartCount: 0 });
    expect(server.state.running).toBeDefined();
    const why = /s3:\/\/models\/missing\.onnx.*(NoSuchKey|not found|404)/is;
    const logs = await kubectl('logs', pod.metadata.name, '-c', 'model-loader');
    expect(logs).toMatch(why);
    await patchPlatform('broken-model', {
      spec: { inference: { model: { url: MODEL_URL } } },
    });
    await waitForPhase('broken-model', 'Ready');
  });

  it('bounds each download by pullTimeoutSeconds, and a server that never turns ready by warmupTimeoutSeconds', async () => {
    // An S3 endpoint that accepts connections and never answers.
    const held: net.Socket[] = [];
    const silent = net.createServer(socket => held.push(socket));
    await new Promise<void>(r => silent.listen(0, NODE_NETWORK.gateway, r));
    try {
      const hanging = smallSeed('hanging-store', MODEL_URL);
      hanging.spec.inference.modelSource = {
        ...hanging.spec.inference.modelSource,
        pullTimeoutSeconds: 2,
        maxRetries: 1,
        s3: {
          ...hanging.spec.inference.modelSource!.s3,
          endpoint: `http://${NODE_NETWORK.gateway}:${
            (silent.address() as net.AddressInfo).port
          }`,
        },
      };
      // Ready but never "ready": the probe asks a path the server does not serve.
      const cold = smallSeed('never-warm', MODEL_URL);
      cold.spec.inference.readinessProbePath = '/not-served';
      cold.spec.inference.modelSource!.warmupTimeoutSeconds = 5;
      for (const body of [hanging, cold])
        expect(
          (await cluster.request('POST', platformsPath(), toV1beta1(body)))
            .status,
        ).toBe(201);

      const timedOut = await waitForPhase('hanging-store', 'Failed');
      expect(condition(timedOut, 'ModelLoaded')).toMatchObject({
        status: 'False',
        reason: 'ModelDownloadFailed',
      });
      expect(timedOut.status.message).toMatch(
        /model-loader gave up: model download failed after 2 attempts: /,
      );

      const late = await waitForPhase('never-warm', 'Failed');
      expect(condition(late, 'ModelLoaded')).toMatchObject({
        status: 'False',
        reason: 'WarmupTimeout',
      });
      expect(late.status.message).toMatch(
        /^pod never-warm-inference-[a-z0-9-]+ started more than 5 s ago and is not ready/,
      );
    } finally {
      silent.close();
      for (const socket of held) socket.destroy();
    }
  });

  it('fails a platform whose image no node can run, naming the image', async () => {
    const noImage = smallSeed('no-image', MODEL_URL);
    noImage.spec.inference.image = 'example.com/nothing:1.0';
    expect(
      (await cluster.request('POST', platformsPath(), toV1beta1(noImage)))
        .status,
    ).toBe(201);
    const failed = await waitForPhase('no-image', 'Failed');
    expect(failed.status.message).toMatch(
      /\(ErrImageNeverPull\): Container image "example\.com\/nothing:1\.0"/,
    );
  });

  it('serves a GPU platform on the CPU where CUDA cannot load, and says so in a condition', async () => {
    // The real node claims two A100s it does not have: the GPU servers are
    // scheduled and run for real, asking onnxruntime for CUDA, which is not there.
    const gpu = seed('gpu-fallback', MODEL_URL);
    gpu.spec.qdrant.replicas = 1;
    gpu.spec.inference.gpu = { count: 1, type: GPU_PRODUCT };
    expect(
      (await cluster.request('POST', platformsPath(), toV1beta1(gpu))).status,
    ).toBe(201);
    const ready = await waitForPhase('gpu-fallback', 'Ready');
    const servers = await pods(
      'app.kubernetes.io/instance=gpu-fallback,app.kubernetes.io/component=inference',
    );
    expect(servers).toHaveLength(2);
    for (const pod of servers) {
      expect(pod.spec.nodeName).toBe('local-node');
      expect(pod.spec.containers[0].resources.limits['nvidia.com/gpu']).toBe(
        '1',
      );
      expect(await kubectl('logs', pod.metadata.name)).toContain(
        'CUDA is not usable, running the model on the CPU',
      );
    }
    // Read from the servers themselves (their /readyz, through the API
    // server's pod proxy): a warning, the platform still serves.
    // Each server is asked as it turns ready: wait for both answers.
    const names2 = servers.map(x => x.metadata.name).sort();
    const warned = await eventually(
      'GPUUnused naming both servers',
      async () => {
        const x = await platform('gpu-fallback');
        return condition(x, 'GPUUnused')?.message.startsWith(names2.join(', '))
          ? x
          : undefined;
      },
      60_000,
      500,
    );
    expect(condition(warned, 'GPUUnused')).toMatchObject({
      status: 'True',
      reason: 'CudaUnavailable',
      message: expect.stringMatching(
        new RegExp(
          `^${names2.join(
            ', ',
          )} run the model on the CPU, their GPUs idle: CUDA is not usable \\(.+\\)$`,
        ),
      ),
    });
    expect(warned.status.phase).toBe('Ready');
    expect(ready.status.inferenceReadyReplicas).toBe(2);
  });
  it('autoscales on CPU for real: an HPA on the platform adds servers under load and removes them once it ends', async () => {
    // metrics-server scrapes the real node's /metrics/resource; the
    // controller-manager's HPA controller scales the platform through its
    // scale subresource and the operator carries that to the Deployment.
    const name = 'autoscaled';
    const autoscaled = smallSeed(name, MODEL_URL);
    autoscaled.spec.inference.autoscaling = {
      minReplicas: 1,
      maxReplicas: 3,
      metric: 'cpu',
      target: 50,
    };
    expect(
      (await cluster.request('POST', platformsPath(), toV1beta1(autoscaled)))
        .status,
    ).toBe(201);
    await waitForPhase(name, 'Ready');
    const hpaPath = `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers/${name}-inference`;
    const utilization = (hpa: any): number | undefined =>
      hpa.status?.currentMetrics?.[0]?.resource?.current?.averageUtilization;
    // At rest: the HPA reads the idle server below its target and keeps one
    // (or returns to one: a server loading its model is busy, and the HPA may
    // count that once its short initialization period has passed).
    const idle = await eventually(
      'the HPA to read an idle server and hold one',
      async () => {
        const hpa = (await cluster.request('GET', hpaPath)).body;
        const u = utilization(hpa);
        return u !== undefined &&
          u < 50 &&
          hpa.status?.desiredReplicas === 1 &&
          (await platform(name)).spec.inference.replicas === 1
          ? hpa
          : undefined;
      },
      180_000,
      1000,
    );
    expect(idle.spec.scaleTargetRef).toMatchObject({
      kind: 'InferencePlatform',
      name,
    });

    const svc = (
      await cluster.request(
        'GET',
        `/api/v1/namespaces/${ns}/services/${names.inference(autoscaled)}`,
      )
    ).body;
    const url = `http://${svc.spec.clusterIP}:${svc.spec.ports[0].port}/v1/embed`;
    const query = await renderScene(2011);
    let loading = true;
    let sent = 0;
    const failed: number[] = [];
    // Three clients embedding in a loop, bounded in count and time.
    const clients = Array.from({ length: 3 }, async () => {
      const until = Date.now() + 240_000;
      while (loading && sent < 20_000 && Date.now() < until) {
        sent++;
        const r = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'image/jpeg' },
          body: query,
        }).catch(() => undefined);
        if (r?.status !== 200) failed.push(r?.status ?? 0);
        await r?.arrayBuffer();
      }
    });
    let scaled: any;
    try {
      scaled = await eventually(
        'the HPA to scale the platform up',
        async () => {
          const x = await platform(name);
          return x.spec.inference.replicas > 1 &&
            x.status?.inferenceReadyReplicas === x.spec.inference.replicas
            ? x
            : undefined;
        },
        240_000,
        1000,
      );
    } finally {
      loading = false;
      await Promise.all(clients);
    }
    const hpa = (await cluster.request('GET', hpaPath)).body;
    expect(hpa.status.desiredReplicas).toBeGreaterThan(1);
    expect(
      (
        await cluster.request(
          'GET',
          `/apis/apps/v1/namespaces/${ns}/deployments/${name}-inference`,
        )
      ).body.spec.replicas,
    ).toBe(scaled.spec.inference.replicas);
    expect(sent).toBeGreaterThan(0);
    expect(failed).toEqual([]);

    // Load gone: back to one server after the downscale window.
    const calm = await eventually(
      'the HPA to scale the platform back down',
      async () => {
        const x = await platform(name);
        return x.spec.inference.replicas === 1 &&
          x.status?.inferenceReplicas === 1 &&
          x.status.phase === 'Ready'
          ? x
          : undefined;
      },
      240_000,
      1000,
    );
    expect(calm.status.inferenceReadiness).toBe('1/1');
  });
});
