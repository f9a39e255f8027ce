import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { toV1beta1 } from '@cv-platform/inference-platform-api';
import {
  LocalCluster,
  NODE_NETWORK,
  S3TestServer,
  ensureHelm,
  eventually,
  findRepoRoot,
  qdrantBinary,
} from '@cv-platform/local-cluster';
import { ensureMobileNetV2Onnx } from '../__testUtils__/nsfwjsMobileNetV2';
import { modelStoreSecret, scaledSeed } from '../__testUtils__/scaledSeed';

/**
 * The Helm chart installed as a platform team would, on the local cluster's
 * real node: its Deployment's two operator replicas run as processes from
 * the operator image (mapped to this repository's operator), elect a leader
 * through the chart's Lease, serve the conversion webhook, and the leader
 * reconciles the seed sample (scaled to one machine) to Ready on real pods.
 * The chart's default identity: the operator pods use their in-cluster
 * configuration, the ServiceAccount token the node projects and the chart's
 * RBAC, reaching the API server through the `kubernetes` Service.
 */
jest.setTimeout(900_000);

const run = promisify(execFile);
const system = 'cv-platform-system';
const ns = 'chart-seed';
const release = 'ipo';
const deployment = `${release}-inference-platform-operator`;
const name = 'seed';
let cluster: LocalCluster;
const s3 = new S3TestServer();

async function waitForReady(timeoutMs: number) {
  let seen = '';
  try {
    return await eventually(
      `${ns}/${name} Ready`,
      async () => {
        const p = (
          await cluster.request(
            'GET',
            `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms/${name}`,
          )
        ).body;
        seen = `${p.status?.phase}: ${p.status?.message}`;
        return p.status?.phase === 'Ready' &&
          p.status?.observedGeneration === p.metadata.generation
          ? p
          : undefined;
      },
      timeoutMs,
      1000,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last seen ${seen}`);
  }
}

beforeAll(async () => {
  cluster = await LocalCluster.start({ realNode: true });
  await s3.start(NODE_NETWORK.gateway);
  await s3.putObjects('models', {
    'mobilenet-v2.onnx': fs.readFileSync(await ensureMobileNetV2Onnx()),
  });
  for (const n of [system, ns]) {
    await cluster.apply({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: n },
    });
  }
  await cluster.apply(modelStoreSecret(ns, s3));
});

afterAll(async () => {
  await cluster?.stop();
  await s3.stop();
});

it('installs the chart: two operator replicas on the real node, one leading, reconcile the seed sample to Ready', async () => {
  const helm = ensureHelm();
  const chart = path.join(
    findRepoRoot(),
    'deploy/helm/inference-platform-operator',
  );
  await run(
    helm,
    [
      'install',
      release,
      chart,
      '--namespace',
      system,
      '--kubeconfig',
      cluster.kubeconfigPath,
      '--set',
      `watchNamespaces={${ns}}`,
    ],
    { encoding: 'utf8' },
  );

  const pods = await eventually(
    'both operator replicas Ready',
    async () => {
      const d = (
        await cluster.request(
          'GET',
          `/apis/apps/v1/namespaces/${system}/deployments/${deployment}`,
        )
      ).body;
      if (d.status?.readyReplicas !== 2) return undefined;
      const list = (
        await cluster.request(
          'GET',
          `/api/v1/namespaces/${system}/pods?labelSelector=app.kubernetes.io/instance=${release}`,
        )
      ).body.items;
      return list.length === 2 ? list : undefined;
    },
    300_000,
    1000,
  );
  for (const pod of pods) {
    expect(pod.spec.nodeName).toBe('local-node');
    // No kubeconfig: the service account's projected token is the only credential.
    const volumes = (pod.spec.volumes ?? []).map((v: any) => v.name);
    expect(volumes.some((v: string) => v.startsWith('kube-api-access-'))).toBe(
      true,
    );
    expect(volumes.filter((v: string) => /kubeconfig/.test(v))).toEqual([]);
  }

  // One replica holds the Lease: the one that reconciles.
  const lease = await eventually(
    'the Lease held by an operator pod',
    async () => {
      const l = (
        await cluster.request(
          'GET',
          `/apis/coordination.k8s.io/v1/namespaces/${system}/leases/inference-platform-operator`,
        )
      ).body;
      return l.spec?.holderIdentity ? l : undefined;
    },
    120_000,
  );
  expect(pods.map((p: any) => p.metadata.name)).toContain(
    lease.spec.holderIdentity,
  );

  // The webhook each replica serves is what the CRD now names.
  const crd = (
    await cluster.request(
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/inferenceplatforms.cv.platform.tech',
    )
  ).body;
  expect(crd.spec.conversion.webhook.clientConfig.service).toMatchObject({
    namespace: system,
    name: `${deployment}-webhook`,
  });

  // The seed sample, scaled to one machine.
  const seed = scaledSeed(name, ns, {
    qdrantReplicas: 1,
    inferenceReplicas: 1,
    modelUrl: 's3://models/mobilenet-v2.onnx',
    s3,
  });
  expect(
    (
      await cluster.request(
        'POST',
        `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`,
        toV1beta1(seed),
      )
    ).status,
  ).toBe(201);
  const ready = await waitForReady(600_000);
  expect(ready.status.qdrantReadyReplicas).toBe(1);
  expect(ready.status.inferenceReadyReplicas).toBe(1);
  // A read at v1alpha1: the API server converts it through the webhook
  // Service, i.e. a replica's pod on the real node.
  const alpha = await eventually(
    'a v1alpha1 read through the conversion webhook',
    async () => {
      const r = await cluster.request(
        'GET',
        `/apis/cv.platform.tech/v1alpha1/namespaces/${ns}/inferenceplatforms/${name}`,
      );
      return r.status === 200 ? r.body : undefined;
    },
    120_000,
  );
  expect(alpha.spec.inference.modelUrl).toBe('s3://models/mobilenet-v2.onnx');
  // eslint-disable-next-line no-console
  console.log(
    `chart on the real node: ${name} Ready, reconciled by ${
      lease.spec.holderIdentity
    } (${qdrantBinary() ? 'Qdrant binary' : 'Qdrant stand-in'})`,
  );
});
