import fs from 'node:fs';
import yaml from 'js-yaml';
import {
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import { coreServices, createBackendModule, createServiceFactory, PermissionsService } from '@backstage/backend-plugin-api';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import {
  BACKUP_REQUESTED_ANNOTATION,
  BackupRecord,
  inferencePlatformBackupCreatePermission,
  inferencePlatformRestoreCreatePermission,
  inferencePlatformUpdatePermission,
} from '@cv-platform/plugin-inference-platform-common';
import {
  createTestNamespace,
  deleteTestNamespace,
  eventually,
  testApi,
  testKubeconfigPath,
  testQdrantUrlTemplates,
} from '@cv-platform/local-cluster';
import { sampleInferencePlatform, toV1beta1 } from '@cv-platform/inference-platform-api';
import { inferencePlatformOperatorExtensionPoint } from '@cv-platform/plugin-inference-platform-node';
import { permissionsRegistryServiceFactory } from '@backstage/backend-defaults/permissionsRegistry';
import request from 'supertest';
import { inferencePlatformPlugin } from './plugin';
import { openFeed } from './__testUtils__/openFeed';
import { createInferencePlatformConditionalDecision, inferencePlatformConditions } from './permissions/rules';

jest.setTimeout(120_000);

const api = testApi();
let ns: string;
beforeEach(async () => {
  ns = await createTestNamespace(api, 'bp');
});
afterEach(async () => {
  await deleteTestNamespace(api, ns);
});

function config(extra: Record<string, unknown> = {}, top: Record<string, unknown> = {}) {
  return mockServices.rootConfig.factory({
    data: {
      ...top,
      app: { baseUrl: 'http://localhost:3000' },
      inferencePlatform: {
        kubernetes: { kubeconfigPath: testKubeconfigPath() },
        namespaces: [ns],
        operator: { enabled: true, leaderElection: { enabled: false }, ...testQdrantUrlTemplates() },
        ...extra,
      },
    },
  });
}

async function backend(features: any[] = [], extraConfig: Record<string, unknown> = {}, top: Record<string, unknown> = {}) {
  const b = await startTestBackend({ features: [inferencePlatformPlugin, config(extraConfig, top), ...features] });
  await eventually('operator synced', async () => {
    const r = await request(b.server).get('/api/inference-platform/health');
    return r.body.operator?.synced;
  });
  return b;
}

const crPath = (name: string) => `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms/${name}`;

function createBody(name: string, mutate: (b: any) => void = () => {}) {
  // The backend speaks the storage version, v1beta1.
  const body: any = { namespace: ns, name, spec: toV1beta1(sampleInferencePlatform(name, ns)).spec };
  body.spec.qdrant.replicas = 1;
  body.spec.inference.replicas = 1;
  mutate(body);
  return body;
}

describe('inference-platform backend against a real cluster', () => {
  it('lists, gets, creates, patches and deletes platforms, auditing every write', async () => {
    const outcomes: string[] = [];
    const auditor = mockServices.auditor.mock({
      createEvent: async ({ eventId, meta }) => ({
        success: async () => void outcomes.push(`${eventId} ${meta?.namespace}/${meta?.name} ok`),
        fail: async ({ error }) => void outcomes.push(`${eventId} ${meta?.namespace}/${meta?.name} failed: ${error.name}`),
      }),
    });
    const { server } = await backend([auditor.factory]);
    const auth = mockCredentials.user.header();
    const created = await request(server).post('/api/inference-platform/platforms').set('Authorization', auth).send(createBody('crud'));
    expect(created.status).toBe(201);
    expect(created.body.metadata.uid).toBeDefined();
    const again = await request(server).post('/api/inference-platform/platforms').set('Authorization', auth).send(createBody('crud'));
    expect(again.status).toBe(409);

    const ready = await eventually('Ready in list', async () => {
      const r = await request(server).get('/api/inference-platform/platforms').set('Authorization', auth);
      const item = r.body.items.find((i: any) => i.platform.metadata.name === 'crud');
      return item?.platform.status?.phase === 'Ready' ? item : undefined;
    });
    expect(ready.qdrant).toEqual({ ready: 1, desired: 1 });
    expect(ready.inference).toEqual({ ready: 1, desired: 1 });
    expect(ready.recentEvents.length).toBeGreaterThan(0);

    const detail = await request(server).get(`/api/inference-platform/platforms/${ns}/crud`).set('Authorization', auth);
    expect(detail.status).toBe(200);
    expect(detail.body.pods.map((p: any) => p.component).sort()).toEqual(['inference', 'qdrant']);
    expect(detail.body.statefulSet.metadata.name).toBe('crud-qdrant');
    expect(detail.body.events.some((e: any) => e.reason === 'Created')).toBe(true);

    const patched = await request(server)
      .patch(`/api/inference-platform/platforms/${ns}/crud`)
      .set('Authorization', auth)
      .send({ inference: { replicas: 3 }, qdrant: { version: 'v1.15.0' } });
    expect(patched.status).toBe(200);
    expect(patched.body.spec.inference.replicas).toBe(3);
    await eventually('scaled', async () => {
      const r = await request(server).get(`/api/inference-platform/platforms/${ns}/crud`).set('Authorization', auth);
      return r.body.platform.status?.inferenceReadyReplicas === 3 && r.body.platform.status.phase === 'Ready';
    });

    expect((await request(server).delete(`/api/inference-platform/platforms/${ns}/crud`).set('Authorization', auth)).status).toBe(204);
    await eventually('gone', async () =>
      (await request(server).get(`/api/inference-platform/platforms/${ns}/crud`).set('Authorization', auth)).status === 404,
    );
    expect(outcomes).toEqual([
      `platform-create ${ns}/crud ok`,
      `platform-create ${ns}/crud failed: ConflictError`,
      `platform-update ${ns}/crud ok`,
      `platform-delete ${ns}/crud ok`,
    ]);
  });

  it('details rollout state, volumes and every child for the YAML view, and serves logs of the platform\'s own pods only', async () => {
    const { server } = await backend();
    const auth = mockCredentials.user.header();
    expect((await request(server).post('/api/inference-platform/platforms').set('Authorization', auth).send(createBody('views'))).status).toBe(201);
    const detail = await eventually('views Ready with its volume', async () => {
      const r = await request(server).get(`/api/inference-platform/platforms/${ns}/views`).set('Authorization', auth);
      return r.body.platform?.status?.phase === 'Ready' && r.body.volumes?.length === 1 ? r.body : undefined;
    });
    expect(detail.workloads.map((w: any) => [w.kind, w.name, w.role, w.rolling])).toEqual([
      ['StatefulSet', 'views-qdrant', 'qdrant', false],
      ['Deployment', 'views-inference', 'inference', false],
    ]);
    expect(detail.workloads[0]).toMatchObject({ desired: 1, ready: 1, updated: 1, currentRevision: expect.stringMatching(/^views-qdrant-/) });
    expect(detail.workloads[1].conditions.map((c: any) => c.type).sort()).toEqual(['Available', 'Progressing']);
    expect(detail.volumes[0]).toMatchObject({ name: 'storage-views-qdrant-0', phase: 'Bound', accessModes: ['ReadWriteOnce'] });
    const kinds = detail.objects.map((o: any) => `${o.kind}/${o.name}`);
    expect(kinds[0]).toBe('InferencePlatform/views');
    expect(kinds).toEqual(expect.arrayContaining([
      'ConfigMap/views-inference-config',
      'Deployment/views-inference',
      'PersistentVolumeClaim/storage-views-qdrant-0',
      'Service/views-inference',
      'Service/views-qdrant',
      'Service/views-qdrant-headless',
      'StatefulSet/views-qdrant',
    ]));
    // Read live, whole (the operator's cache keeps a slim claim), without managedFields.
    const object = (kind: string, objectName: string) =>
      request(server).get(`/api/inference-platform/platforms/${ns}/views/objects/${kind}/${objectName}`).set('Authorization', auth);
    const claim = await object('PersistentVolumeClaim', 'storage-views-qdrant-0');
    expect(claim.status).toBe(200);
    expect(claim.body.spec.volumeMode).toBe('Filesystem');
    expect(claim.body.metadata.managedFields).toBeUndefined();
    expect((await object('InferencePlatform', 'views')).body.spec.qdrant.version).toBeDefined();
    const notOurs = await object('Secret', 'views-inference');
    expect(notOurs.status).toBe(404);
    expect(notOurs.body.error.message).toBe(`Secret views-inference is not ${ns}/views or one of its children`);
    expect(detail.pods.find((p: any) => p.component === 'inference')).toMatchObject({ initContainers: ['model-loader'], containers: ['inference'] });

    const log = (pod: string, query: string) =>
      request(server).get(`/api/inference-platform/platforms/${ns}/views/pods/${pod}/log?${query}`).set('Authorization', auth);
    const qdrantPod = detail.pods.find((p: any) => p.component === 'qdrant').name;
    const other = await log('not-a-pod-of-views', 'container=qdrant');
    expect(other.status).toBe(404);
    expect(other.body.error.message).toBe(`pod ${ns}/not-a-pod-of-views is not one of ${ns}/views's pods`);
    const badContainer = await log(qdrantPod, 'container=sidecar');
    expect(badContainer.status).toBe(400);
    expect(badContainer.body.error.message).toBe('container must be one of qdrant');
    expect((await log(qdrantPod, 'container=qdrant&tailLines=0')).status).toBe(400);
  });

  it('applies the child mutators its modules add through the extension point, from the first pass', async () => {
    // A module of this plugin, as an adopter would write it.
    const costLabels = createBackendModule({
      pluginId: 'inference-platform',
      moduleId: 'cost-labels',
      register(reg) {
        reg.registerInit({
          deps: { operator: inferencePlatformOperatorExtensionPoint },
          async init({ operator }) {
            operator.addChildMutator((child, platform) => {
              child.metadata.labels = { ...child.metadata.labels, 'example.com/cost-center': platform.metadata.namespace! };
            });
          },
        });
      },
    });
    const { server } = await backend([costLabels]);
    const auth = mockCredentials.user.header();
    expect((await request(server).post('/api/inference-platform/platforms').set('Authorization', auth).send(createBody('labelled'))).status).toBe(201);
    const sts = await eventually('StatefulSet', async () => {
      const r = await api.request('GET', `/apis/apps/v1/namespaces/${ns}/statefulsets/labelled-qdrant`);
      return r.status === 200 ? r.body : undefined;
    });
    expect(sts.metadata.labels['example.com/cost-center']).toBe(ns);
    // Created with it: no apply before the module's mutator was in place.
    expect(sts.metadata.generation).toBe(1);
  });

  it("authenticates with the token a module's credentials provider mints, not a configured one", async () => {
    const admin = yaml.load(fs.readFileSync(testKubeconfigPath(), 'utf8')) as any;
    const cluster = admin.clusters[0].cluster;
    const asked: Array<{ name: string; url: string }> = [];
    const tokenBroker = (moduleId: string) =>
      createBackendModule({
        pluginId: 'inference-platform',
        moduleId,
        register(reg) {
          reg.registerInit({
            deps: { operator: inferencePlatformOperatorExtensionPoint },
            async init({ operator }) {
              operator.setCredentialsProvider({
                getCredentials: async c => {
                  asked.push(c);
                  return { token: admin.users[0].user.token };
                },
              });
            },
          });
        },
      });
    // The cluster without any credential: only the provider's token lets the operator in.
    const brokeredConfig = mockServices.rootConfig.factory({
      data: {
        app: { baseUrl: 'http://localhost:3000' },
        inferencePlatform: {
          kubernetes: {
            clusterDetails: {
              name: 'brokered',
              url: cluster.server,
              ...(cluster['certificate-authority-data'] ? { caData: cluster['certificate-authority-data'] } : { caFile: cluster['certificate-authority'] }),
            },
          },
          namespaces: [ns],
        },
      },
    });
    const { server } = await startTestBackend({ features: [inferencePlatformPlugin, tokenBroker('token-broker'), brokeredConfig] });
    await eventually('synced', async () => (await request(server).get('/api/inference-platform/health')).body.operator?.synced === true);
    expect(asked[0]).toEqual({ name: 'brokered', url: cluster.server.replace(/\/$/, '') });
    expect((await api.request('POST', `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`, toV1beta1(sampleInferencePlatform('brokered', ns)))).status).toBe(201);
    await eventually('listed', async () =>
      (await request(server).get('/api/inference-platform/platforms').set('Authorization', mockCredentials.user.header())).body.items?.some(
        (i: any) => i.platform.metadata.name === 'brokered',
      ),
    );
    // Two modules cannot both decide the identity.
    await expect(
      startTestBackend({ features: [inferencePlatformPlugin, tokenBroker('one'), tokenBroker('two'), brokeredConfig] }),
    ).rejects.toThrow(/credentials provider is already set/);
  });

  it("reaches the cluster the Kubernetes plugin's config names, and serves nothing for a name it does not list", async () => {
    const admin = yaml.load(fs.readFileSync(testKubeconfigPath(), 'utf8')) as any;
    const cluster = admin.clusters[0].cluster;
    const clusterConfig = (name: string) =>
      mockServices.rootConfig.factory({
        data: {
          app: { baseUrl: 'http://localhost:3000' },
          kubernetes: {
            clusterLocatorMethods: [
              {
                type: 'config',
                clusters: [
                  {
                    name: 'local',
                    url: cluster.server,
                    authProvider: 'serviceAccount',
                    serviceAccountToken: admin.users[0].user.token,
                    ...(cluster['certificate-authority-data'] ? { caData: cluster['certificate-authority-data'] } : { caFile: cluster['certificate-authority'] }),
                  },
                ],
              },
            ],
          },
          inferencePlatform: { kubernetes: { cluster: name }, namespaces: [ns] },
        },
      });
    const { server } = await startTestBackend({ features: [inferencePlatformPlugin, clusterConfig('local')] });
    await eventually('synced', async () => (await request(server).get('/api/inference-platform/health')).body.operator?.synced === true);
    expect((await api.request('POST', `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`, toV1beta1(sampleInferencePlatform('via-cluster-config', ns)))).status).toBe(201);
    await eventually('listed', async () =>
      (await request(server).get('/api/inference-platform/platforms').set('Authorization', mockCredentials.user.header())).body.items?.some(
        (i: any) => i.platform.metadata.name === 'via-cluster-config',
      ),
    );
    const unknown = await startTestBackend({ features: [inferencePlatformPlugin, clusterConfig('elsewhere')] });
    expect((await request(unknown.server).get('/api/inference-platform/health')).body.operator).toEqual({ available: false });
  });

  it('returns 400 with the reason for bad requests, including the API server\'s own validation', async () => {
    const { server } = await backend();
    const auth = mockCredentials.user.header();
    const bad = await request(server).post('/api/inference-platform/platforms').set('Authorization', auth).send({ name: 'Not_A_Name' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/namespace/);

    const rejected = await request(server)
      .post('/api/inference-platform/platforms')
      .set('Authorization', auth)
      .send(createBody('badsize', b => (b.spec.qdrant.storage.size = 'lots')));
    expect(rejected.status).toBe(400);
    expect(rejected.body.error.message).toMatch(/spec\.qdrant\.storage\.size: Invalid value: "lots"/);
    // A field v1beta1 does not have (here v1alpha1's name) is refused, not dropped.
    const oldName = await request(server)
      .post('/api/inference-platform/platforms')
      .set('Authorization', auth)
      .send(createBody('oldname', b => (b.spec.qdrant.storageSize = '20Gi')));
    expect(oldName.status).toBe(400);
    expect(oldName.body.error.message).toMatch(/unknown field "spec\.qdrant\.storageSize"/);

    const emptyPatch = await request(server).patch(`/api/inference-platform/platforms/${ns}/x`).set('Authorization', auth).send({});
    expect(emptyPatch.status).toBe(400);
    const unknown = await request(server).patch(`/api/inference-platform/platforms/${ns}/nope`).set('Authorization', auth).send({ inference: { replicas: 1 } });
    expect(unknown.status).toBe(404);
  });

  it('serves the operator\'s and the process\'s metrics to an authenticated caller only', async () => {
    const { server } = await backend([], {
      kubernetes: { kubeconfigPath: testKubeconfigPath(), credentialRefreshSeconds: 1, watchTimeoutSeconds: 1 },
    });
    const none = await request(server).get('/api/inference-platform/metrics').set('Authorization', mockCredentials.none.header());
    expect(none.status).toBe(401);
    // Watches that the server ends every second resume without a LIST.
    const scrape = async () =>
      (await request(server).get('/api/inference-platform/metrics').set('Authorization', mockCredentials.service.header())).text;
    const timeouts = (text: string) =>
      Number(/informer_watch_ends_total\{resource="inferenceplatforms",reason="timeout"\} (\d+)/.exec(text)?.[1] ?? 0);
    await eventually('three watch timeouts', async () => timeouts(await scrape()) >= 3, 30_000, 250);
    const text = await scrape();
    expect(text).toMatch(new RegExp(`informer_list_requests_total\\{resource="inferenceplatforms",namespace="${ns}"\\} 1\n`));
    expect(text).toMatch(/nodejs_heap_size_used_bytes \d+/);
    expect(text).toMatch(/nodejs_eventloop_lag_p99_seconds /);
  });

  it('refuses an unknown qdrantAccess at start, naming the setting', async () => {
    await expect(
      startTestBackend({
        features: [inferencePlatformPlugin, config({ operator: { enabled: true, leaderElection: { enabled: false }, qdrantAccess: 'sideways' } })],
      }),
    ).rejects.toThrow(/inferencePlatform\.operator\.qdrantAccess must be direct or apiServerProxy, not sideways/);
  });

  it('rejects requests without credentials and denies under a deny policy', async () => {
    const { server } = await backend([mockServices.permissions.factory({ result: AuthorizeResult.DENY })]);
    const none = await request(server).get('/api/inference-platform/platforms').set('Authorization', mockCredentials.none.header());
    expect(none.status).toBe(401);
    const denied = await request(server).get('/api/inference-platform/platforms').set('Authorization', mockCredentials.user.header());
    expect(denied.status).toBe(403);
    const createDenied = await request(server).post('/api/inference-platform/platforms').set('Authorization', mockCredentials.user.header()).send(createBody('denied'));
    expect(createDenied.status).toBe(403);
    expect((await api.request('GET', crPath('denied'))).status).toBe(404);
  });

  it('lets only the owner update or delete: the owner-only rule, applied by this plugin for the permission backend', async () => {
    // The policy side: update/delete answer with the plugin's conditional decision.
    const decision = createInferencePlatformConditionalDecision(
      inferencePlatformUpdatePermission,
      inferencePlatformConditions.isPlatformOwner({ claims: ['user:default/alice'] }),
    );
    expect(decision).toMatchObject({ result: AuthorizeResult.CONDITIONAL, pluginId: 'inference-platform', resourceType: 'inference-platform' });

    // The plugin side, over HTTP exactly as the permission backend calls it:
    // the platform is loaded from the cluster and its owners resolved.
    const { server } = await backend([permissionsRegistryServiceFactory]);
    const created = await request(server)
      .post('/api/inference-platform/platforms')
      .set('Authorization', mockCredentials.user.header('user:default/alice'))
      .send({ ...createBody('owned'), owner: 'user:default/alice' });
    expect(created.status).toBe(201);
    await eventually('in cache', async () =>
      (await request(server).get(`/api/inference-platform/platforms/${ns}/owned`).set('Authorization', mockCredentials.user.header())).status === 200,
    );
    const apply = (claims: string[], resourceRef = `${ns}/owned`) =>
      request(server)
        .post('/api/inference-platform/.well-known/backstage/permissions/apply-conditions')
        .set('Authorization', mockCredentials.service.header())
        .send({
          items: [{
            id: '1',
            resourceRef,
            resourceType: 'inference-platform',
            conditions: inferencePlatformConditions.isPlatformOwner({ claims }),
          }],
        });
    expect((await apply(['user:default/alice'])).body.items[0].result).toBe(AuthorizeResult.ALLOW);
    expect((await apply(['user:default/bob', 'group:default/ml-platform'])).body.items[0].result).toBe(AuthorizeResult.DENY);
    expect((await apply(['user:default/alice'], `${ns}/missing`)).body.items[0].result).toBe(AuthorizeResult.DENY);
  });

  it('streams a snapshot, then live changes, and resumes with Last-Event-ID without loss or duplicates', async () => {
    const { server } = await backend();
    await request(server).post('/api/inference-platform/platforms').set('Authorization', mockCredentials.user.header()).send(createBody('live'));
    await eventually('in cache', async () =>
      (await request(server).get(`/api/inference-platform/platforms/${ns}/live`).set('Authorization', mockCredentials.user.header())).status === 200,
    );
    const feed = openFeed(server);
    const snapshot = await eventually('snapshot', async () => feed.frames.find(f => f.event === 'snapshot'));
    expect(snapshot.data.items.map((p: any) => p.metadata.name)).toContain('live');
    expect(snapshot.id).toMatch(/^[0-9a-f]{8}-\d+$/);

    // A kubectl-style edit straight through the Kubernetes API.
    await api.request('PATCH', crPath('live'), { spec: { inference: { replicas: 4 } } }, 'application/merge-patch+json');
    const modified = await eventually('MODIFIED with the edit', async () =>
      feed.frames.find(f => f.event === 'MODIFIED' && f.data.platform.spec.inference.replicas === 4),
    );
    expect(modified.data.type).toBe('MODIFIED');
    const lastSeen = feed.frames[feed.frames.length - 1].id!;
    feed.close();

    // Changes while disconnected...
    await api.request('PATCH', crPath('live'), { metadata: { labels: { edited: 'offline-1' } } }, 'application/merge-patch+json');
    await api.request('PATCH', crPath('live'), { metadata: { labels: { edited: 'offline-2' } } }, 'application/merge-patch+json');
    await eventually('server saw both', async () => {
      const r = await request(server).get(`/api/inference-platform/platforms/${ns}/live`).set('Authorization', mockCredentials.user.header());
      return r.body.platform.metadata.labels?.edited === 'offline-2';
    });
    const resumed = openFeed(server, lastSeen);
    await eventually('replayed offline-2', async () =>
      resumed.frames.find(f => f.data?.platform?.metadata.labels?.edited === 'offline-2'),
    );
    expect(resumed.frames.some(f => f.event === 'snapshot')).toBe(false);
    const ids = resumed.frames.map(f => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    const seqs = ids.map(id => Number(id!.split('-')[1]));
    expect(Math.min(...seqs)).toBe(Number(lastSeen.split('-')[1]) + 1);
    expect(resumed.frames.some(f => f.data?.platform?.metadata.labels?.edited === 'offline-1')).toBe(true);
    resumed.close();

    // An id from another server lifetime gets an explicit reset and a fresh snapshot.
    const stale = openFeed(server, 'deadbeef-1');
    await eventually('reset + snapshot', async () =>
      stale.frames[0]?.event === 'reset' && stale.frames[1]?.event === 'snapshot',
    );
    stale.close();
  });

  it('narrows the feed to one platform, refuses a malformed scope, and ends a stream whose read permission is withdrawn', async () => {
    let allow = true;
    const permissions = mockServices.permissions.mock({
      authorize: async requests => requests.map(() => ({ result: allow ? AuthorizeResult.ALLOW : AuthorizeResult.DENY })),
    });
    const { server } = await backend([permissions.factory], { feed: { permissionRecheckSeconds: 1 } });
    const auth = mockCredentials.user.header();
    for (const name of ['feed-a', 'feed-b']) {
      expect((await request(server).post('/api/inference-platform/platforms').set('Authorization', auth).send(createBody(name))).status).toBe(201);
    }
    await eventually('both in cache', async () =>
      (await request(server).get('/api/inference-platform/platforms').set('Authorization', auth)).body.items.filter((i: any) =>
        ['feed-a', 'feed-b'].includes(i.platform.metadata.name),
      ).length === 2,
    );
    const one = openFeed(server, undefined, `?platform=${ns}/feed-a`);
    const snapshot = await eventually('snapshot', async () => one.frames.find(f => f.event === 'snapshot'));
    expect(snapshot.data.items.map((p: any) => p.metadata.name)).toEqual(['feed-a']);
    await api.request('PATCH', crPath('feed-b'), { metadata: { labels: { edited: 'b' } } }, 'application/merge-patch+json');
    await api.request('PATCH', crPath('feed-a'), { metadata: { labels: { edited: 'a' } } }, 'application/merge-patch+json');
    await eventually('feed-a edited', async () => one.frames.find(f => f.data?.platform?.metadata.labels?.edited === 'a'));
    expect(one.frames.filter(f => f.data?.platform).map(f => f.data.platform.metadata.name).every((n: string) => n === 'feed-a')).toBe(true);

    for (const query of ['?platform=feed-a', '?platform=a/b/c', '?namespace=Not_A_Namespace', `?namespace=other&platform=${ns}/feed-a`]) {
      const bad = await request(server).get(`/api/inference-platform/events${query}`).set('Authorization', auth);
      expect({ query, status: bad.status }).toEqual({ query, status: 400 });
    }

    // The user loses read permission: the open stream ends within the recheck interval.
    allow = false;
    const forbidden = await eventually('forbidden', async () => one.frames.find(f => f.event === 'forbidden'));
    expect(forbidden.data.reason).toBe('read permission withdrawn');
    one.close();
  });

  it('reconciles on exactly one of two backends with leader election', async () => {
    const le = { enabled: true, leaseNamespace: ns, leaseName: 'bp-operator', leaseDurationSeconds: 3, retryPeriodMs: 300 };
    const one = await backend([], { operator: { enabled: true, leaderElection: { ...le, identity: 'one' }, ...testQdrantUrlTemplates() } });
    const two = await backend([], { operator: { enabled: true, leaderElection: { ...le, identity: 'two' }, ...testQdrantUrlTemplates() } });
    await request(one.server).post('/api/inference-platform/platforms').set('Authorization', mockCredentials.user.header()).send(createBody('elected'));
    await eventually('Ready via either backend', async () => {
      const r = await request(two.server).get(`/api/inference-platform/platforms/${ns}/elected`).set('Authorization', mockCredentials.user.header());
      return r.body.platform?.status?.phase === 'Ready';
    });
    const leaders = await Promise.all(
      [one, two].map(async b => (await request(b.server).get('/api/inference-platform/health')).body.operator.leader),
    );
    expect(leaders.filter(Boolean)).toHaveLength(1);
    const lease = await api.request('GET', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/bp-operator`);
    expect(['one', 'two']).toContain(lease.body.spec.holderIdentity);
    expect(leaders[lease.body.spec.holderIdentity === 'one' ? 0 : 1]).toBe(true);
  });
});

describe('backups and restores through the backend', () => {
  const restoresPath = () => `/apis/cv.platform.tech/v1alpha1/namespaces/${ns}/inferenceplatformrestores`;
  const backupSpec = { schedule: '0 3 * * *', s3: { bucket: 'cv-backups', prefix: 'portal-tests' } };
  const history: BackupRecord[] = [
    {
      id: '20240503-030000',
      trigger: 'Scheduled',
      startTime: '2024-05-03T03:00:00Z',
      completionTime: '2024-05-03T03:01:00Z',
      result: 'Failed',
      message: 'upload timed out',
    },
    {
      id: '20240502-030000',
      trigger: 'Manual',
      startTime: '2024-05-02T03:00:00Z',
      completionTime: '2024-05-02T03:02:00Z',
      result: 'Succeeded',
      location: 's3://cv-backups/portal-tests/x/20240502-030000/',
      sizeBytes: 1048576,
      collections: [
        {
          name: 'images',
          points: 1200,
          snapshots: [{ pod: 'p-qdrant-0', shards: [0], key: 'k', size: 1048576, checksum: 'abc' }],
        },
      ],
    },
  ];

  /**
   * The operator only watches here (reconcile off): nothing takes real
   * backups or writes status.backup but the test itself.
   */
  function watchingBackend(features: any[] = []) {
    return backend(features, {
      operator: { enabled: false, leaderElection: { enabled: false }, ...testQdrantUrlTemplates() },
    });
  }

  /** Allows everything but the named permissions. */
  function denying(...names: string[]) {
    const decide = async (requests: Array<{ permission: { name: string } }>) =>
      requests.map(r => ({ result: names.includes(r.permission.name) ? AuthorizeResult.DENY : AuthorizeResult.ALLOW }));
    return createServiceFactory({
      service: coreServices.permissions,
      deps: {},
      factory: () => ({ authorize: decide, authorizeConditional: decide }) as unknown as PermissionsService,
    });
  }

  async function createPlatform(name: string, opts: { backup?: boolean; history?: BackupRecord[] } = {}) {
    const p = sampleInferencePlatform(name, ns);
    if (opts.backup !== false) p.spec.qdrant.backup = backupSpec;
    const created = await api.request('POST', `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`, toV1beta1(p));
    expect(created.status).toBe(201);
    if (opts.history) {
      const status = await api.request(
        'PATCH',
        `${crPath(name)}/status`,
        { status: { backup: { lastSuccessfulTime: '2024-05-02T03:02:00Z', history: opts.history } } },
        'application/merge-patch+json',
      );
      expect(status.status).toBe(200);
    }
    return created.body;
  }

  const restoresOf = async (platform: string) =>
    ((await api.request('GET', restoresPath())).body.items as any[]).filter(r => r.spec.platformName === platform);

  it('backs up now by setting the annotation, and refuses platforms without backups', async () => {
    const { server } = await watchingBackend();
    const auth = mockCredentials.user.header();
    await createPlatform('nightly');
    await createPlatform('plain', { backup: false });

    const before = Date.now();
    const asked = await request(server).post(`/api/inference-platform/platforms/${ns}/nightly/backups`).set('Authorization', auth);
    expect(asked.status).toBe(202);
    expect(Date.parse(asked.body.requestedAt)).toBeGreaterThanOrEqual(before - 1000);
    const cr = await api.request('GET', crPath('nightly'));
    expect(cr.body.metadata.annotations[BACKUP_REQUESTED_ANNOTATION]).toBe(asked.body.requestedAt);
    expect(cr.body.spec.backup).toEqual(backupSpec);

    const unconfigured = await request(server).post(`/api/inference-platform/platforms/${ns}/plain/backups`).set('Authorization', auth);
    expect(unconfigured.status).toBe(409);
    expect(unconfigured.body.error.message).toMatch(/has no spec\.backup/);
    expect((await api.request('GET', crPath('plain'))).body.metadata.annotations?.[BACKUP_REQUESTED_ANNOTATION]).toBeUndefined();

    const missing = await request(server).post(`/api/inference-platform/platforms/${ns}/nope/backups`).set('Authorization', auth);
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe(`inference platform ${ns}/nope not found`);
  });

  it('creates restores only from successful backups, owned by the platform, and lists them newest first', async () => {
    const { server } = await watchingBackend();
    const auth = mockCredentials.user.header();
    const platform = await createPlatform('restored', { history });
    const restore = (body: object) =>
      request(server).post(`/api/inference-platform/platforms/${ns}/restored/restores`).set('Authorization', auth).send(body);

    const noId = await restore({});
    expect(noId.status).toBe(400);
    expect(noId.body.error.message).toMatch(/backupId/);
    const unknown = await restore({ backupId: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toBe(`${ns}/restored has no backup nope; successful backups: 20240502-030000`);
    const failed = await restore({ backupId: '20240503-030000' });
    expect(failed.status).toBe(400);
    expect(failed.body.error.message).toMatch(/did not succeed \(Failed: upload timed out\); successful backups: 20240502-030000/);
    const wrongCollection = await restore({ backupId: '20240502-030000', collections: ['faces'] });
    expect(wrongCollection.status).toBe(400);
    expect(wrongCollection.body.error.message).toBe('backup 20240502-030000 has no collection faces; it holds images');
    const badName = await restore({ backupId: '20240502-030000', collections: ['no spaces'] });
    expect(badName.status).toBe(400);
    expect(badName.body.error.message).toMatch(/collections\.0: must be a collection name/);
    expect(await restoresOf('restored')).toEqual([]);

    const first = await restore({ backupId: '20240502-030000', collections: ['images'] });
    expect(first.status).toBe(201);
    expect(first.body.metadata.name).toMatch(/^restored-restore-[a-z0-9]{5}$/);
    expect(first.body.spec).toEqual({ platformName: 'restored', backupId: '20240502-030000', collections: ['images'] });
    expect(first.body.metadata.ownerReferences).toEqual([
      { apiVersion: 'cv.platform.tech/v1beta1', kind: 'InferencePlatform', name: 'restored', uid: platform.metadata.uid },
    ]);
    // creationTimestamp has a one-second resolution.
    await new Promise(r => setTimeout(r, 1100));
    const second = await restore({ backupId: '20240502-030000' });
    expect(second.status).toBe(201);
    expect(second.body.spec).toEqual({ platformName: 'restored', backupId: '20240502-030000' });

    // Another platform's restore (made with kubectl, say) is not listed.
    const foreign = await api.request('POST', restoresPath(), {
      apiVersion: 'cv.platform.tech/v1alpha1',
      kind: 'InferencePlatformRestore',
      metadata: { name: 'other-restore' },
      spec: { platformName: 'other', backupId: '20240502-030000' },
    });
    expect(foreign.status).toBe(201);

    const list = await eventually('platform in cache', async () => {
      const r = await request(server).get(`/api/inference-platform/platforms/${ns}/restored/restores`).set('Authorization', auth);
      return r.status === 200 ? r : undefined;
    });
    expect(list.body.items.map((r: any) => r.metadata.name)).toEqual([second.body.metadata.name, first.body.metadata.name]);
    const none = await request(server).get(`/api/inference-platform/platforms/${ns}/other/restores`).set('Authorization', auth);
    expect(none.status).toBe(404);
  });

  it('refuses back-up-now and restore without their permissions, while reading still works', async () => {
    const { server } = await watchingBackend([
      denying(inferencePlatformBackupCreatePermission.name, inferencePlatformRestoreCreatePermission.name),
    ]);
    const auth = mockCredentials.user.header();
    await createPlatform('guarded', { history });

    const backup = await request(server).post(`/api/inference-platform/platforms/${ns}/guarded/backups`).set('Authorization', auth);
    expect(backup.status).toBe(403);
    expect(backup.body.error.message).toBe(`not allowed to back up ${ns}/guarded`);
    expect((await api.request('GET', crPath('guarded'))).body.metadata.annotations?.[BACKUP_REQUESTED_ANNOTATION]).toBeUndefined();

    const restore = await request(server)
      .post(`/api/inference-platform/platforms/${ns}/guarded/restores`)
      .set('Authorization', auth)
      .send({ backupId: '20240502-030000' });
    expect(restore.status).toBe(403);
    expect(restore.body.error.message).toBe(`not allowed to restore ${ns}/guarded`);
    expect(await restoresOf('guarded')).toEqual([]);

    const list = await eventually('platform in cache', async () => {
      const r = await request(server).get(`/api/inference-platform/platforms/${ns}/guarded/restores`).set('Authorization', auth);
      return r.status === 200 ? r : undefined;
    });
    expect(list.body.items).toEqual([]);

    const none = await request(server).post(`/api/inference-platform/platforms/${ns}/guarded/backups`).set('Authorization', mockCredentials.none.header());
    expect(none.status).toBe(401);
  });
});
