import { mockCredentials, mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { permissionsRegistryServiceFactory } from '@backstage/backend-defaults/permissionsRegistry';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import {
  createTestNamespace,
  deleteTestNamespace,
  eventually,
  LocalCluster,
  testApi,
  testKubeconfigPath,
  testQdrantUrlTemplates,
} from '@cv-platform/local-cluster';
import { sampleInferencePlatform, toV1beta1 } from '@cv-platform/inference-platform-api';
import type { JsonObject } from '@backstage/types';
import request from 'supertest';
import { createEmbeddedOperatorServiceFactory } from '@cv-platform/plugin-inference-platform-node';
import yaml from 'js-yaml';
import fs from 'node:fs';
import { inferencePlatformPlugin } from './plugin';
import { openFeed } from './__testUtils__/openFeed';
import { inferencePlatformConditions } from './permissions/rules';

jest.setTimeout(180_000);

/**
 * One portal, two real control planes: the shared test cluster ("east", the
 * default) and a private one ("west"). The same namespace and name exist on
 * both and must stay two platforms through every route and the feed.
 */
const east = testApi();
let west: LocalCluster;
let ns: string;

beforeAll(async () => {
  west = await LocalCluster.start({ log: () => {} });
  ns = await createTestNamespace(east, 'mc');
  await west.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});
afterAll(async () => {
  await west?.stop();
  if (ns) await deleteTestNamespace(east, ns);
});

function clustersConfig(extraClusters: JsonObject[] = []) {
  return mockServices.rootConfig.factory({
    data: {
      app: { baseUrl: 'http://localhost:3000' },
      inferencePlatform: {
        clusters: [
          { name: 'east', kubeconfigPath: testKubeconfigPath(), ...testQdrantUrlTemplates() },
          { name: 'west', kubeconfigPath: west.kubeconfigPath, ...west.qdrantUrlTemplates() },
          ...extraClusters,
        ],
        namespaces: [ns],
        operator: { enabled: true, leaderElection: { enabled: false } },
      },
    },
  });
}

async function backend(features: any[] = [], extraClusters: JsonObject[] = []) {
  const b = await startTestBackend({ features: [inferencePlatformPlugin, clustersConfig(extraClusters), ...features] });
  await eventually('both clusters synced', async () => {
    const r = await request(b.server).get('/api/inference-platform/health');
    return r.body.clusters?.filter((c: any) => c.operator.synced).length === 2;
  });
  return b;
}

const user = mockCredentials.user.header();
const crPath = (name: string) => `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms/${name}`;

function createBody(name: string, replicas: number, cluster?: string) {
  const body: any = { namespace: ns, name, spec: toV1beta1(sampleInferencePlatform(name, ns)).spec, ...(cluster ? { cluster } : {}) };
  body.spec.qdrant.replicas = 1;
  body.spec.inference.replicas = replicas;
  return body;
}

describe('inference-platform backend managing two clusters', () => {
  it('lists, reads, edits, streams and deletes per cluster: the same name on two clusters is two platforms, each reconciled in its own cluster', async () => {
    const { server } = await backend();
    const clusters = await request(server).get('/api/inference-platform/clusters').set('Authorization', user);
    expect(clusters.body.items).toEqual([
      { name: 'east', default: true, available: true },
      { name: 'west', default: false, available: true },
    ]);

    // Without a cluster: the default one. The body's cluster picks another.
    expect((await request(server).post('/api/inference-platform/platforms').set('Authorization', user).send(createBody('search', 1))).status).toBe(201);
    expect((await request(server).post('/api/inference-platform/platforms').set('Authorization', user).send(createBody('search', 2, 'west'))).status).toBe(201);
    expect((await east.request('GET', crPath('search'))).body.spec.inference.replicas).toBe(1);
    expect((await west.request('GET', crPath('search'))).body.spec.inference.replicas).toBe(2);

    const mine = (items: any[]) =>
      items.filter(i => i.platform.metadata.namespace === ns).map(i => `${i.cluster}:${i.platform.spec.inference.replicas}`);
    await eventually('both listed', async () =>
      mine((await request(server).get('/api/inference-platform/platforms').set('Authorization', user)).body.items).length === 2,
    );
    expect(mine((await request(server).get('/api/inference-platform/platforms').set('Authorization', user)).body.items)).toEqual(['east:1', 'west:2']);
    expect(mine((await request(server).get('/api/inference-platform/platforms?cluster=west').set('Authorization', user)).body.items)).toEqual(['west:2']);

    const detail = await request(server).get(`/api/inference-platform/platforms/${ns}/search?cluster=west`).set('Authorization', user);
    expect(detail.status).toBe(200);
    expect(detail.body.cluster).toBe('west');
    expect(detail.body.platform.spec.inference.replicas).toBe(2);

    // Each cluster's operator creates the children in its own cluster; the YAML view reads them from there.
    const sts = (await eventually('west StatefulSet', async () => {
      const d = await request(server).get(`/api/inference-platform/platforms/${ns}/search?cluster=west`).set('Authorization', user);
      return d.body.objects?.find((o: any) => o.kind === 'StatefulSet');
    })) as { name: string };
    expect((await west.request('GET', `/apis/apps/v1/namespaces/${ns}/statefulsets/${sts.name}`)).status).toBe(200);
    await eventually('east StatefulSet', async () => (await east.request('GET', `/apis/apps/v1/namespaces/${ns}/statefulsets/${sts.name}`)).status === 200);
    const yamlView = await request(server)
      .get(`/api/inference-platform/platforms/${ns}/search/objects/InferencePlatform/search?cluster=west`)
      .set('Authorization', user);
    expect(yamlView.body.spec.inference.replicas).toBe(2);

    // The west feed follows west only.
    const feed = openFeed(server, undefined, `?cluster=west&namespace=${ns}`);
    const snapshot = await eventually('snapshot', async () => feed.frames.find(f => f.event === 'snapshot'));
    expect(snapshot.data.cluster).toBe('west');
    expect(snapshot.data.items.map((p: any) => p.spec.inference.replicas)).toEqual([2]);

    // An edit through the portal reaches west only; a kubectl edit in east does not show in west's feed.
    const patched = await request(server)
      .patch(`/api/inference-platform/platforms/${ns}/search?cluster=west`)
      .set('Authorization', user)
      .send({ inference: { replicas: 3 } });
    expect(patched.status).toBe(200);
    await east.request('PATCH', crPath('search'), { metadata: { labels: { edited: 'east' } } }, 'application/merge-patch+json');
    const modified = await eventually('west MODIFIED', async () =>
      feed.frames.find(f => f.event === 'MODIFIED' && f.data.platform.spec.inference.replicas === 3),
    );
    expect(modified.data.cluster).toBe('west');
    await eventually('east edit seen by the portal', async () =>
      (await request(server).get(`/api/inference-platform/platforms/${ns}/search`).set('Authorization', user)).body.platform?.metadata.labels?.edited === 'east',
    );
    expect(feed.frames.some(f => f.data?.platform?.metadata.labels?.edited === 'east')).toBe(false);
    feed.close();
    expect((await east.request('GET', crPath('search'))).body.spec.inference.replicas).toBe(1);

    // The operators' metrics, told apart by cluster.
    const metrics = await request(server).get('/api/inference-platform/metrics').set('Authorization', mockCredentials.service.header());
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/cluster="east"/);
    expect(metrics.text).toMatch(/cluster="west"/);

    // An unknown cluster is named in a 404, wherever it is asked for.
    for (const r of [
      request(server).get('/api/inference-platform/platforms?cluster=nowhere').set('Authorization', user),
      request(server).get(`/api/inference-platform/platforms/${ns}/search?cluster=nowhere`).set('Authorization', user),
      request(server).get('/api/inference-platform/events?cluster=nowhere').set('Authorization', user),
      request(server).post('/api/inference-platform/platforms').set('Authorization', user).send(createBody('other', 1, 'nowhere')),
    ]) {
      const res = await r;
      expect(res.status).toBe(404);
      expect(res.body.error.message).toBe('no cluster nowhere; this portal manages east, west');
    }

    expect((await request(server).delete(`/api/inference-platform/platforms/${ns}/search?cluster=west`).set('Authorization', user)).status).toBe(204);
    await eventually('gone from west', async () => (await west.request('GET', crPath('search'))).status === 404);
    expect((await east.request('GET', crPath('search'))).status).toBe(200);
  });

  it('loads a platform of another cluster for the owner-only rule by <cluster>/<namespace>/<name>', async () => {
    const { server } = await backend([permissionsRegistryServiceFactory]);
    const created = await request(server)
      .post('/api/inference-platform/platforms')
      .set('Authorization', mockCredentials.user.header('user:default/alice'))
      .send({ ...createBody('owned', 1, 'west'), owner: 'user:default/alice' });
    expect(created.status).toBe(201);
    await eventually('in cache', async () =>
      (await request(server).get(`/api/inference-platform/platforms/${ns}/owned?cluster=west`).set('Authorization', user)).status === 200,
    );
    const apply = (resourceRef: string) =>
      request(server)
        .post('/api/inference-platform/.well-known/backstage/permissions/apply-conditions')
        .set('Authorization', mockCredentials.service.header())
        .send({
          items: [{ id: '1', resourceRef, resourceType: 'inference-platform', conditions: inferencePlatformConditions.isPlatformOwner({ claims: ['user:default/alice'] }) }],
        });
    expect((await apply(`west/${ns}/owned`)).body.items[0].result).toBe(AuthorizeResult.ALLOW);
    // The same name on the default cluster is another platform: there is none.
    expect((await apply(`${ns}/owned`)).body.items[0].result).toBe(AuthorizeResult.DENY);
    expect((await apply(`east/${ns}/owned`)).body.items[0].result).toBe(AuthorizeResult.DENY);
  });

  it('keeps serving the reachable clusters when one is not, and says which', async () => {
    const { server } = await backend([], [{ name: 'broken', kubeconfigPath: '/nonexistent/kubeconfig' }]);
    const clusters = await request(server).get('/api/inference-platform/clusters').set('Authorization', user);
    expect(clusters.body.items.map((c: any) => `${c.name}:${c.available}`)).toEqual(['east:true', 'west:true', 'broken:false']);
    const list = await request(server).get('/api/inference-platform/platforms').set('Authorization', user);
    expect(list.status).toBe(200);
    expect(list.body.unavailable).toEqual([{ cluster: 'broken', message: expect.stringContaining('cluster broken not available') }]);
    expect((await request(server).get('/api/inference-platform/platforms?cluster=broken').set('Authorization', user)).status).toBe(503);
  });

  it('refuses cluster names that cannot appear in entity names, and both kubernetes and clusters', async () => {
    const start = (inferencePlatform: JsonObject) =>
      startTestBackend({
        features: [inferencePlatformPlugin, mockServices.rootConfig.factory({ data: { app: { baseUrl: 'http://localhost:3000' }, inferencePlatform } })],
      });
    await expect(start({ clusters: [{ name: 'West_1', kubeconfigPath: testKubeconfigPath() }] })).rejects.toThrow(
      /inferencePlatform.clusters\[0\].name "West_1" must be a DNS label/,
    );
    await expect(
      start({ kubernetes: { kubeconfigPath: testKubeconfigPath() }, clusters: [{ name: 'east', kubeconfigPath: testKubeconfigPath() }] }),
    ).rejects.toThrow(/set either kubernetes \(one cluster\) or clusters \(several\), not both/);
    await expect(
      start({ clusters: [{ name: 'east', kubeconfigPath: testKubeconfigPath() }, { name: 'east', kubeconfigPath: testKubeconfigPath() }] }),
    ).rejects.toThrow(/inferencePlatform.clusters\[1\].name east is used twice/);
  });

  it("manages the clusters a module's cluster supplier hands it, with no cluster in config", async () => {
    const admin = yaml.load(fs.readFileSync(testKubeconfigPath(), 'utf8')) as any;
    const eastCluster = admin.clusters[0].cluster;
    const supplier = createEmbeddedOperatorServiceFactory({
      clusterSupplier: () => ({
        getClusters: async () => [
          {
            name: 'fleet-east',
            details: {
              name: 'fleet-east',
              url: eastCluster.server,
              serviceAccountToken: admin.users[0].user.token,
              ...(eastCluster['certificate-authority-data']
                ? { caData: eastCluster['certificate-authority-data'] }
                : { caFile: eastCluster['certificate-authority'] }),
            },
            namespaces: [ns],
          },
          {
            name: 'fleet-west',
            details: { name: 'fleet-west', url: west.server, serviceAccountToken: west.adminToken, caFile: west.caFile },
            namespaces: [ns],
          },
        ],
      }),
    });
    const { server } = await startTestBackend({
      features: [
        inferencePlatformPlugin,
        supplier,
        mockServices.rootConfig.factory({ data: { app: { baseUrl: 'http://localhost:3000' }, inferencePlatform: { operator: { enabled: false } } } }),
      ],
    });
    await eventually('supplied clusters synced', async () =>
      (await request(server).get('/api/inference-platform/clusters').set('Authorization', user)).body.items?.every((c: any) => c.available),
    );
    const clusters = await request(server).get('/api/inference-platform/clusters').set('Authorization', user);
    expect(clusters.body.items.map((c: any) => c.name)).toEqual(['fleet-east', 'fleet-west']);
    await west.request('POST', `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`, toV1beta1(sampleInferencePlatform('supplied', ns)));
    const listed = await eventually('listed on fleet-west', async () =>
      (await request(server).get('/api/inference-platform/platforms').set('Authorization', user)).body.items?.find(
        (i: any) => i.platform.metadata.name === 'supplied',
      ),
    );
    expect(listed.cluster).toBe('fleet-west');
  });
});
