import { withDefaults } from '@cv-platform/inference-platform-api';
import { qdrantStatefulSet } from './reconcile/qdrantChildren';
import {
  api,
  condition,
  createPlatform,
  eventually,
  get,
  getPlatform,
  newOperator,
  operatorsStoppedAfterEach,
  patchPlatform,
  sample,
  waitForPhase,
  withNamespace,
} from './__testUtils__/operatorTestEnv';

jest.setTimeout(120_000);

const start = operatorsStoppedAfterEach();

const stsPath = (ns: string, name: string) => `/apis/apps/v1/namespaces/${ns}/statefulsets/${name}-qdrant`;
const pdb = async (ns: string, name: string) =>
  (await get(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/${name}-qdrant`)).body;
const qdrantPods = async (ns: string, name: string) =>
  (await get(`/api/v1/namespaces/${ns}/pods?labelSelector=cv.platform.tech/platform%3D${name},app.kubernetes.io/component%3Dqdrant`)).body.items;
const qdrantPvcs = async (ns: string, name: string) =>
  (await get(`/api/v1/namespaces/${ns}/persistentvolumeclaims`)).body.items.filter((c: any) =>
    c.metadata.name.startsWith(`storage-${name}-qdrant-`),
  );
const events = async (ns: string, reason: string) =>
  (await get(`/api/v1/namespaces/${ns}/events?fieldSelector=reason%3D${reason}`)).body.items;

describe('the Qdrant tier on the API server', () => {
  it('runs Qdrant in cluster mode at every size, so scaling never changes a peer\'s configuration', async () => {
    await withNamespace('q-mode', async ns => {
      const p = sample(ns, 'mode');
      p.spec.qdrant.replicas = 1;
      p.spec.inference.replicas = 1;
      await createPlatform(p);
      await start(newOperator(ns));
      await waitForPhase(ns, 'mode', 'Ready');
      const one = (await get(stsPath(ns, 'mode'))).body;
      const container = one.spec.template.spec.containers[0];
      expect(container.env).toEqual(expect.arrayContaining([{ name: 'QDRANT__CLUSTER__ENABLED', value: 'true' }]));
      // Peer 0 always announces its own URI; a single peer is a one-peer cluster.
      expect(container.command[2]).toMatch(/if \[ "\$\{HOSTNAME##\*-\}" = "0" \]; then\n {2}exec \.\/entrypoint\.sh --uri "http:\/\/\$\{HOSTNAME\}\.mode-qdrant-headless\./);

      await patchPlatform(ns, 'mode', { spec: { qdrant: { replicas: 3 } } });
      await waitForPhase(ns, 'mode', 'Ready');
      const three = (await get(stsPath(ns, 'mode'))).body;
      expect(three.spec.replicas).toBe(3);
      expect(three.spec.template).toEqual(one.spec.template);
      expect(three.metadata.uid).toBe(one.metadata.uid);
    });
  });

  it('keeps a Raft majority with its PodDisruptionBudget at every peer count', async () => {
    await withNamespace('q-pdb', async ns => {
      const p = sample(ns, 'pdb');
      p.spec.qdrant.replicas = 2;
      p.spec.inference.replicas = 1;
      await createPlatform(p);
      await start(newOperator(ns));
      for (const [peers, minAvailable] of [[2, 2], [3, 2], [4, 3], [5, 3]]) {
        await patchPlatform(ns, 'pdb', { spec: { qdrant: { replicas: peers } } });
        const budget = await eventually(`PDB for ${peers} peers`, async () => {
          const b = await pdb(ns, 'pdb');
          return b.spec?.minAvailable === minAvailable ? b : undefined;
        });
        expect(budget.spec.maxUnavailable).toBeUndefined();
      }
    });
  });

  it('re-creates a StatefulSet made OrderedReady by an earlier version as Parallel, keeping its pods and volumes', async () => {
    await withNamespace('q-migrate', async ns => {
      const p = sample(ns, 'legacy');
      p.spec.qdrant.replicas = 3;
      p.spec.inference.replicas = 1;
      const created = await createPlatform(p);
      // What the previous operator version applied: the same set, OrderedReady.
      const legacy = qdrantStatefulSet(created, withDefaults(created.spec));
      legacy.spec.podManagementPolicy = 'OrderedReady';
      const res = await api.request('PATCH', `${stsPath(ns, 'legacy')}?fieldManager=inference-platform-operator`, legacy, 'application/apply-patch+yaml');
      expect(res.status).toBe(201);
      const old = res.body;
      await eventually('legacy peers running', async () => (await qdrantPods(ns, 'legacy')).filter((x: any) => x.status?.phase === 'Running').length === 3);
      const podUids = (await qdrantPods(ns, 'legacy')).map((x: any) => x.metadata.uid).sort();
      const pvcUids = (await qdrantPvcs(ns, 'legacy')).map((x: any) => x.metadata.uid).sort();
      expect(pvcUids).toHaveLength(3);

      await start(newOperator(ns));
      const renewed = await eventually('StatefulSet re-created', async () => {
        const s = (await get(stsPath(ns, 'legacy'))).body;
        return s.metadata?.uid && s.metadata.uid !== old.metadata.uid ? s : undefined;
      });
      expect(renewed.spec.podManagementPolicy).toBe('Parallel');
      await waitForPhase(ns, 'legacy', 'Ready');
      // The same pods, now owned by the new StatefulSet; the same volumes.
      const pods = await eventually('pods adopted', async () => {
        const list = await qdrantPods(ns, 'legacy');
        return list.every((x: any) => x.metadata.ownerReferences?.[0]?.uid === renewed.metadata.uid) ? list : undefined;
      });
      expect(pods.map((x: any) => x.metadata.uid).sort()).toEqual(podUids);
      expect((await qdrantPvcs(ns, 'legacy')).map((x: any) => x.metadata.uid).sort()).toEqual(pvcUids);
      expect((await events(ns, 'RecreatingStatefulSet'))[0].message).toMatch(/podManagementPolicy OrderedReady -> Parallel/);
    });
  });

  it('grows storage: each volume is expanded in place and new peers get the new size', async () => {
    await withNamespace('q-grow', async ns => {
      const p = sample(ns, 'grow');
      p.spec.qdrant.replicas = 2;
      p.spec.inference.replicas = 1;
      p.spec.qdrant.storageSize = '10Gi';
      await createPlatform(p);
      await start(newOperator(ns));
      await waitForPhase(ns, 'grow', 'Ready');
      const before = (await get(stsPath(ns, 'grow'))).body;

      await patchPlatform(ns, 'grow', { spec: { qdrant: { storage: { size: '20Gi' } } } });
      const after = await eventually('StatefulSet with 20Gi volumes', async () => {
        const s = (await get(stsPath(ns, 'grow'))).body;
        return s.metadata?.uid !== before.metadata.uid && s.spec?.volumeClaimTemplates?.[0].spec.resources.requests.storage === '20Gi' ? s : undefined;
      });
      expect(after.spec.replicas).toBe(2);
      const claims = await qdrantPvcs(ns, 'grow');
      expect(claims.map((c: any) => c.spec.resources.requests.storage)).toEqual(['20Gi', '20Gi']);
      await waitForPhase(ns, 'grow', 'Ready');
      // Converged: the next passes write nothing more.
      const rv = after.metadata.resourceVersion;
      await new Promise(r => setTimeout(r, 1500));
      expect((await get(stsPath(ns, 'grow'))).body.metadata.uid).toBe(after.metadata.uid);
      expect((await get(stsPath(ns, 'grow'))).body.metadata.generation).toBe(after.metadata.generation);
      void rv;
    });
  });

  it('says so in a condition when the StorageClass cannot expand the volumes', async () => {
    await withNamespace('q-fixed', async ns => {
      const p = sample(ns, 'fixed');
      p.spec.qdrant.replicas = 1;
      p.spec.qdrant.storageClassName = 'kwok-volume';
      p.spec.inference.replicas = 1;
      await createPlatform(p);
      await start(newOperator(ns));
      await waitForPhase(ns, 'fixed', 'Ready');
      await patchPlatform(ns, 'fixed', { spec: { qdrant: { storage: { size: '20Gi' } } } });
      const refused = await eventually('ResizeUnsupported', async () => {
        const x = await getPlatform(ns, 'fixed');
        return condition(x, 'ResizeUnsupported') ? x : undefined;
      });
      expect(condition(refused, 'ResizeUnsupported')).toMatchObject({
        status: 'True',
        reason: 'VolumeExpansionRefused',
        message: 'PersistentVolumeClaim storage-fixed-qdrant-0 (10Gi, StorageClass kwok-volume) below spec.qdrant.storage.size 20Gi: the StorageClass does not allow expansion (new peers get the new size)',
      });
      expect((await events(ns, 'VolumeExpansionFailed')).length).toBeGreaterThan(0);
      // New peers get the new size.
      await eventually('template at 20Gi', async () => (await get(stsPath(ns, 'fixed'))).body.spec?.volumeClaimTemplates?.[0].spec.resources.requests.storage === '20Gi');
    });
  });
});
