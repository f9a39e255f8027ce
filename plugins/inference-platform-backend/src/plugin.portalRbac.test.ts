import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { mockCredentials, mockServices, startTestBackend } from '@backstage/backend-test-utils';
import {
  boundServiceAccount,
  BoundServiceAccount,
  createTestNamespace,
  deleteTestNamespace,
  eventually,
  testApi,
  testKubeconfigPath,
  testQdrantUrlTemplates,
} from '@cv-platform/local-cluster';
import { loadKubeConfig, Operator } from '@cv-platform/operator';
import { sampleInferencePlatform, toV1beta1 } from '@cv-platform/inference-platform-api';
import request from 'supertest';
import { inferencePlatformPlugin } from './plugin';

jest.setTimeout(180_000);

const role = (yaml.loadAll(fs.readFileSync(path.resolve(__dirname, '../../../deploy/portal/rbac.yaml'), 'utf8')) as any[]).find(
  d => d.kind === 'ClusterRole',
);

/**
 * The portal as the docs recommend it in production: the embedded operator
 * off (the default), the standalone operator reconciling, and the backend's
 * credentials those of a service account bound to deploy/portal/rbac.yaml
 * only. Every page, edit and log read it serves must work under that role.
 */
describe("the portal's least-privilege ClusterRole", () => {
  const api = testApi();
  let ns: string;
  let dir: string;
  let operator: Operator | undefined;
  let account: BoundServiceAccount | undefined;
  beforeAll(async () => {
    ns = await createTestNamespace(api, 'portal');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-rbac-'));
  });
  afterAll(async () => {
    await operator?.stop();
    await account?.cleanup();
    await deleteTestNamespace(api, ns);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves the list, a platform page with its events, YAML and logs, edits, back-up-now and delete, and reconciles nothing itself', async () => {
    account = await boundServiceAccount(api, {
      namespace: ns,
      name: 'portal',
      prefix: `ipp-${ns}`,
      clusterRoles: [role],
      adminKubeconfigPath: testKubeconfigPath(),
    });
    const kubeconfigPath = path.join(dir, 'kubeconfig');
    fs.writeFileSync(kubeconfigPath, account.kubeconfig, { mode: 0o600 });

    // The standalone operator reconciles, with its own (admin) credentials.
    operator = new Operator({
      kubeConfig: loadKubeConfig({ kubeconfigPath: testKubeconfigPath() }),
      namespaces: [ns],
      workers: 2,
      ...testQdrantUrlTemplates(),
    });
    await operator.start();

    const { server } = await startTestBackend({
      features: [
        inferencePlatformPlugin,
        mockServices.rootConfig.factory({
          data: {
            app: { baseUrl: 'http://localhost:3000' },
            // No operator settings: the embedded operator is off by default.
            inferencePlatform: { kubernetes: { kubeconfigPath }, namespaces: [ns] },
          },
        }),
      ],
    });
    const auth = mockCredentials.user.header();
    const get = (p: string) => request(server).get(`/api/inference-platform${p}`).set('Authorization', auth);
    await eventually('caches synced', async () => (await get('/health')).body.operator?.synced === true);
    expect((await get('/health')).body.operator.leader).toBe(false);

    const p = sampleInferencePlatform('viewed', ns);
    p.spec.qdrant.replicas = 1;
    p.spec.inference.replicas = 1;
    p.spec.qdrant.backup = { schedule: '0 3 * * *', s3: { bucket: 'backups' } };
    const created = await request(server)
      .post('/api/inference-platform/platforms')
      .set('Authorization', auth)
      .send({ namespace: ns, name: 'viewed', spec: toV1beta1(p).spec });
    expect(created.status).toBe(201);
    const detail = await eventually('Ready, pods and volume seen', async () => {
      const r = await get(`/platforms/${ns}/viewed`);
      return r.body.platform?.status?.phase === 'Ready' && r.body.pods?.length === 2 && r.body.volumes?.length === 1 ? r.body : undefined;
    });
    expect((await get('/platforms')).body.items.map((i: any) => i.platform.metadata.name)).toEqual(['viewed']);
    expect(detail.events.length).toBeGreaterThan(0);
    for (const o of detail.objects) {
      const r = await get(`/platforms/${ns}/viewed/objects/${o.kind}/${o.name}`);
      expect({ object: `${o.kind}/${o.name}`, status: r.status }).toEqual({ object: `${o.kind}/${o.name}`, status: 200 });
    }
    // Simulated pods have no logs; what matters is that the request is not refused.
    const pod = detail.pods.find((x: any) => x.component === 'inference');
    const log = await get(`/platforms/${ns}/viewed/pods/${pod.name}/log?container=inference`);
    expect(log.status).not.toBe(403);
    expect((await get(`/platforms/${ns}/viewed/restores`)).status).toBe(200);

    const scaled = await request(server)
      .patch(`/api/inference-platform/platforms/${ns}/viewed`)
      .set('Authorization', auth)
      .send({ inference: { replicas: 2 } });
    expect(scaled.status).toBe(200);
    expect((await request(server).post(`/api/inference-platform/platforms/${ns}/viewed/backups`).set('Authorization', auth).send({})).status).toBe(202);
    expect((await request(server).delete(`/api/inference-platform/platforms/${ns}/viewed`).set('Authorization', auth)).status).toBe(204);
  });
});
