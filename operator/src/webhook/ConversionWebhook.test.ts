import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { LocalCluster, boundServiceAccount, eventually, freePort, grantedPermissions, rbacPermission } from '@cv-platform/local-cluster';
import {
  V1ALPHA1_FIELDS_ANNOTATION,
  inferencePlatformCrd,
  renderRestoreCrdYaml,
  sampleInferencePlatform,
} from '@cv-platform/inference-platform-api';
import yaml from 'js-yaml';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../kube/KubeClient';
import { loadKubeConfig } from '../kube/loadKubeConfig';
import { migrateStoredVersions } from '../storage/migrateStoredVersions';
import { Operator } from '../Operator';
import { ConversionWebhook } from './ConversionWebhook';

jest.setTimeout(300_000);

const CRD = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/inferenceplatforms.cv.platform.tech';
const at = (version: string, ns: string, name?: string) =>
  `/apis/cv.platform.tech/${version}/namespaces/${ns}/inferenceplatforms${name ? `/${name}` : ''}`;

const manifests = yaml.loadAll(
  fs.readFileSync(path.resolve(__dirname, '../../../deploy/operator/operator.yaml'), 'utf8'),
) as any[];
// The API server re-initializes a CRD's storage for a moment after each change (a new caBundle,
// a new version); a read in that moment answers 429 or 503, and a client retries it.
async function read(cluster: LocalCluster, urlPath: string) {
  return eventually(`GET ${urlPath}`, async () => {
    const r = await cluster.request('GET', urlPath);
    return r.status === 200 ? r.body : undefined;
  });
}
const doc = (kind: string, name: string) => manifests.find(d => d.kind === kind && d.metadata.name === name);

/** A client with the shipped webhook rules only (bound to a service account of ns), recording what it uses. */
async function webhookClient(cluster: LocalCluster, ns: string) {
  const role = doc('ClusterRole', 'inference-platform-operator-webhook');
  const certRole = doc('Role', 'inference-platform-operator-webhook-certificate');
  const account = await boundServiceAccount(cluster, {
    namespace: ns,
    name: 'operator',
    prefix: 'webhook',
    clusterRoles: [role],
    roles: [certRole],
    adminKubeconfigPath: cluster.kubeconfigPath,
  });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(account.kubeconfig);
  const client = new KubeClient(kubeConfig);
  const used = new Set<string>();
  const request = client.request.bind(client);
  client.request = (async (method: string, p: string, ...rest: any[]) => {
    used.add(rbacPermission(method, p));
    return (request as any)(method, p, ...rest);
  }) as typeof client.request;
  return { client, used, granted: grantedPermissions([...role.rules, ...certRole.rules]) };
}

/** The certificate a TLS server presents, as its SHA-256 fingerprint. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(s.getPeerCertificate().fingerprint256);
      s.end();
    });
    s.on('error', reject);
  });
}

describe('the conversion webhook on a local control plane', () => {
  let cluster: LocalCluster;
  let client: KubeClient;
  let admin: KubeClient;
  let used: Set<string>;
  let granted: Set<string>;
  let webhook: ConversionWebhook | undefined;
  let crdDir: string;
  const ns = 'conversion';

  beforeAll(async () => {
    // The CRD as v1alpha1 shipped it: one version, nothing to convert.
    const previous = structuredClone(inferencePlatformCrd) as any;
    previous.spec.versions = previous.spec.versions
      .filter((v: any) => v.name === 'v1alpha1')
      .map((v: any) => ({ ...v, storage: true }));
    delete previous.spec.conversion;
    crdDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crds-'));
    fs.writeFileSync(path.join(crdDir, 'crd.yaml'), JSON.stringify(previous));
    fs.writeFileSync(path.join(crdDir, 'restore.yaml'), renderRestoreCrdYaml());
    cluster = await LocalCluster.start({ log: () => {}, crdDir });
    await cluster.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    // The webhook and the migration run with the shipped rules and nothing else.
    ({ client, used, granted } = await webhookClient(cluster, ns));
    admin = new KubeClient(loadKubeConfig({ kubeconfigPath: cluster.kubeconfigPath }));
  });
  afterAll(async () => {
    await webhook?.stop();
    client?.close();
    admin?.close();
    await cluster?.stop();
    fs.rmSync(crdDir, { recursive: true, force: true });
  });

  it('serves v1alpha1 and v1beta1 of the same objects, refuses what it cannot convert, rotates its certificate while reads go on, and migrates storage', async () => {
    // Objects stored at v1alpha1, before v1beta1 exists.
    const seed = sampleInferencePlatform('seed', ns);
    const custom = sampleInferencePlatform('custom-probe', ns);
    custom.spec.inference.readinessProbePath = '/healthz';
    for (const p of [seed, custom]) expect((await cluster.request('POST', at('v1alpha1', ns), p)).status).toBe(201);

    // This release's CRD: v1beta1 stored, the webhook converting; the operator points it at itself.
    await cluster.installCrd(inferencePlatformCrd);
    const port = await freePort();
    webhook = new ConversionWebhook(client, {
      port,
      host: '127.0.0.1',
      url: `https://127.0.0.1:${port}/convert`,
      secretNamespace: ns,
      certValidityMs: 3600_000,
      // Every check renews: each is a rotation.
      renewBeforeMs: 2 * 3600_000,
      checkIntervalMs: 3600_000,
    });
    await webhook.start();
    const crd = (await cluster.request('GET', CRD)).body;
    expect(crd.spec.conversion.webhook.clientConfig).toMatchObject({ url: `https://127.0.0.1:${port}/convert` });
    expect(crd.spec.conversion.webhook.clientConfig.service).toBeUndefined();
    expect(webhook.status()).toMatchObject({ serving: true, crdConfigured: true });

    // Stored v1alpha1, read at v1beta1: grouped, the homeless field in the annotation.
    const beta = await read(cluster, at('v1beta1', ns, 'custom-probe'));
    expect(beta.apiVersion).toBe('cv.platform.tech/v1beta1');
    expect(beta.spec.inference.model).toMatchObject({ url: seed.spec.inference.modelUrl, update: 'HotReload' });
    expect(beta.spec.inference.batching).toEqual({ maxSize: 16, maxLatencyMs: 5 });
    expect(beta.spec.qdrant.storage).toMatchObject({ size: seed.spec.qdrant.storageSize });
    expect(beta.spec.inference.modelUrl).toBeUndefined();
    expect(beta.metadata.annotations[V1ALPHA1_FIELDS_ANNOTATION]).toBe('{"inference":{"readinessProbePath":"/healthz"}}');
    // And at v1alpha1 as it was written.
    const alpha = await read(cluster, at('v1alpha1', ns, 'custom-probe'));
    expect(alpha.spec.inference.readinessProbePath).toBe('/healthz');
    expect(alpha.spec.inference.modelUrl).toBe(seed.spec.inference.modelUrl);
    expect(alpha.metadata.annotations?.[V1ALPHA1_FIELDS_ANNOTATION]).toBeUndefined();
    // A list converts many objects in one review, in order.
    const list = await read(cluster, at('v1beta1', ns));
    expect(list.items.map((i: any) => [i.metadata.name, i.spec.inference.model.url])).toEqual([
      ['custom-probe', seed.spec.inference.modelUrl],
      ['seed', seed.spec.inference.modelUrl],
    ]);

    // kubectl get (a Table with the printer columns) and kubectl explain (OpenAPI v3) at both versions.
    for (const [v, modelField] of [
      ['v1alpha1', 'modelUrl'],
      ['v1beta1', 'model'],
    ]) {
      const table = await admin.request('GET', at(v, ns), undefined, 'application/json', undefined, {
        Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
      });
      const columns = table.columnDefinitions.map((c: any) => c.name);
      expect(columns).toEqual(['Name', 'Phase', 'Qdrant', 'Inference', 'Model', 'Canary', 'Age']);
      expect(table.rows.map((r: any) => r.cells[columns.indexOf('Model')])).toEqual([
        seed.spec.inference.modelUrl,
        seed.spec.inference.modelUrl,
      ]);
      // Published a moment after the CRD changes.
      const reader = admin;
      const openapi = await eventually(`OpenAPI v3 of ${v}`, () => reader.request<any>('GET', `/openapi/v3/apis/cv.platform.tech/${v}`));
      const inference = openapi.components.schemas[`tech.platform.cv.${v}.InferencePlatform`].properties.spec.properties.inference;
      expect(inference.properties[modelField].description).toMatch(/model/i);
    }

    // Written at v1beta1, read at v1alpha1.
    const fresh = {
      apiVersion: 'cv.platform.tech/v1beta1',
      kind: 'InferencePlatform',
      metadata: { name: 'fresh', namespace: ns },
      spec: {
        qdrant: { version: 'v1.14.1', replicas: 1, storage: { size: '2Gi' } },
        inference: { image: 'cv-inference:dev', model: { url: 's3://models/v2.onnx', update: 'Rollout' }, batching: { maxSize: 8 } },
      },
    };
    expect((await cluster.request('POST', at('v1beta1', ns), fresh)).status).toBe(201);
    const freshAlpha = await read(cluster, at('v1alpha1', ns, 'fresh'));
    expect(freshAlpha.spec.inference).toMatchObject({ modelUrl: 's3://models/v2.onnx', modelUpdate: 'Rollout', batchMaxSize: 8 });
    expect(freshAlpha.spec.qdrant.storageSize).toBe('2Gi');
    // Both versions refuse the same edit, each naming its own field.
    const shrinkBeta = await cluster.request('PATCH', at('v1beta1', ns, 'fresh'), { spec: { qdrant: { storage: { size: '1Gi' } } } }, 'application/merge-patch+json');
    expect(shrinkBeta.status).toBe(422);
    expect(shrinkBeta.body.message).toContain('spec.qdrant.storage.size cannot shrink from 2Gi to 1Gi');
    const shrinkAlpha = await cluster.request('PATCH', at('v1alpha1', ns, 'fresh'), { spec: { qdrant: { storageSize: '1Gi' } } }, 'application/merge-patch+json');
    expect(shrinkAlpha.status).toBe(422);
    expect(shrinkAlpha.body.message).toContain('spec.qdrant.storageSize cannot shrink from 2Gi to 1Gi');

    // What cannot be converted fails the review with the reason, not the webhook.
    const broken = structuredClone(fresh) as any;
    broken.metadata = { name: 'broken', namespace: ns, annotations: { [V1ALPHA1_FIELDS_ANNOTATION]: 'not json' } };
    expect((await cluster.request('POST', at('v1beta1', ns), broken)).status).toBe(201);
    const refused = await cluster.request('GET', at('v1alpha1', ns, 'broken'));
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(refused.body)).toContain(`is not a JSON object of v1alpha1 spec fields`);
    expect(webhook.status().failures).toBeGreaterThan(0);
    expect((await cluster.request('DELETE', at('v1beta1', ns, 'broken'))).status).toBe(200);

    // Rotation while both versions are read in a loop: no read fails.
    const before = await servedFingerprint(port);
    const bundleBefore = (await cluster.request('GET', CRD)).body.spec.conversion.webhook.clientConfig.caBundle;
    let reading = true;
    const failures: string[] = [];
    let reads = 0;
    let retried = 0;
    const readers = ['v1alpha1', 'v1beta1'].map(async v => {
      while (reading && reads < 5000) {
        reads++;
        let r = await cluster.request('GET', at(v, ns));
        // A CRD change (the new caBundle) re-initializes its storage: the API
        // server answers 429 with Retry-After, which kubectl (client-go) waits out.
        for (let retry = 0; r.status === 429 && retry < 10; retry++) {
          retried++;
          await new Promise(done => setTimeout(done, 100));
          r = await cluster.request('GET', at(v, ns));
        }
        if (r.status !== 200) failures.push(`${v}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      }
    });
    for (let i = 0; i < 3; i++) {
      await webhook.check();
      await new Promise(r => setTimeout(r, 300));
    }
    reading = false;
    await Promise.all(readers);
    expect(failures).toEqual([]);
    expect(reads).toBeGreaterThan(10);
    expect(retried).toBeLessThan(reads);
    expect(await servedFingerprint(port)).not.toBe(before);
    const bundleAfter = Buffer.from(
      (await cluster.request('GET', CRD)).body.spec.conversion.webhook.clientConfig.caBundle,
      'base64',
    ).toString();
    expect(bundleAfter).not.toBe(Buffer.from(bundleBefore, 'base64').toString());
    // The new CA and the one before it.
    expect(bundleAfter.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);

    // Storage: v1alpha1 is still stored, so a CRD without it is refused ...
    const v1beta1Only = structuredClone(inferencePlatformCrd) as any;
    v1beta1Only.spec.versions = v1beta1Only.spec.versions.filter((v: any) => v.name === 'v1beta1');
    delete v1beta1Only.spec.conversion;
    const early = await cluster.request('PUT', CRD, {
      ...v1beta1Only,
      metadata: { ...v1beta1Only.metadata, resourceVersion: (await cluster.request('GET', CRD)).body.metadata.resourceVersion },
    });
    expect(early.status).toBe(422);
    expect(early.body.message).toMatch(/storedVersions\[0\]: Invalid value: "v1alpha1": .*spec\.versions/);
    // ... until every object is rewritten at v1beta1.
    expect((await cluster.request('GET', CRD)).body.status.storedVersions).toEqual(['v1alpha1', 'v1beta1']);
    const migrated = await migrateStoredVersions(client);
    expect(migrated).toEqual({ storageVersion: 'v1beta1', rewritten: 3, before: ['v1alpha1', 'v1beta1'], after: ['v1beta1'] });
    expect((await cluster.request('GET', CRD)).body.status.storedVersions).toEqual(['v1beta1']);
    expect(await migrateStoredVersions(client)).toMatchObject({ rewritten: 0 });
    // The same as the leader's startup step (--migrate-storage): an old
    // version listed again is dropped once an operator leads.
    expect(
      (await cluster.request('PATCH', `${CRD}/status`, { status: { storedVersions: ['v1alpha1', 'v1beta1'] } }, 'application/merge-patch+json')).status,
    ).toBe(200);
    const leader = new Operator({
      kubeConfig: loadKubeConfig({ kubeconfigPath: cluster.kubeconfigPath }),
      namespaces: ['idle'],
      workers: 1,
      leaderElection: { enabled: true, leaseNamespace: ns, retryPeriodMs: 200 },
      migrateStorage: true,
    });
    await leader.start();
    try {
      await eventually('the leader migrated storage', async () => {
        const versions = (await cluster.request('GET', CRD)).body.status.storedVersions;
        return leader.isLeader() && JSON.stringify(versions) === '["v1beta1"]';
      });
    } finally {
      await leader.stop();
    }
    const late = await cluster.request('PUT', CRD, {
      ...v1beta1Only,
      metadata: { ...v1beta1Only.metadata, resourceVersion: (await cluster.request('GET', CRD)).body.metadata.resourceVersion },
    });
    expect(late.status).toBe(200);
    // With the webhook gone, the stored objects read as they were converted.
    await webhook.stop();
    webhook = undefined;
    const after = await read(cluster, at('v1beta1', ns, 'custom-probe'));
    expect(after.spec.inference.model.url).toBe(seed.spec.inference.modelUrl);
    expect(after.metadata.annotations[V1ALPHA1_FIELDS_ANNOTATION]).toBe('{"inference":{"readinessProbePath":"/healthz"}}');

    // Exactly the shipped rules were used: none missing (nothing was refused), none spare.
    expect([...used].sort()).toEqual([...granted].sort());
  });
});
