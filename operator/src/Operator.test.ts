import http from 'node:http';
import { AddressInfo } from 'node:net';
import {
  api,
  capturingLogger,
  condition,
  createPlatform,
  eventually,
  get,
  getPlatform,
  newOperator,
  operatorsStoppedAfterEach,
  patchPlatform,
  platformPath,
  sample,
  waitForPhase,
  withNamespace,
} from './__testUtils__/operatorTestEnv';

jest.setTimeout(120_000);

const start = operatorsStoppedAfterEach();

const sts = (ns: string, name: string) => get(`/apis/apps/v1/namespaces/${ns}/statefulsets/${name}`);
const deploy = (ns: string, name: string) => get(`/apis/apps/v1/namespaces/${ns}/deployments/${name}`);

describe('InferencePlatform operator', () => {
  it('rolls out the seed sample: Qdrant first, then inference, then Ready', async () => {
    await withNamespace('op-sample', async ns => {
      const created = await createPlatform(sample(ns));
      const op = await start(newOperator(ns));
      const ready = await waitForPhase(ns, 'image-retrieval-prod', 'Ready');

      const owner = { kind: 'InferencePlatform', name: 'image-retrieval-prod', uid: created.metadata.uid, controller: true };
      for (const path of [
        `/api/v1/namespaces/${ns}/services/image-retrieval-prod-qdrant-headless`,
        `/api/v1/namespaces/${ns}/services/image-retrieval-prod-qdrant`,
        `/apis/apps/v1/namespaces/${ns}/statefulsets/image-retrieval-prod-qdrant`,
        `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/image-retrieval-prod-qdrant`,
        `/api/v1/namespaces/${ns}/configmaps/image-retrieval-prod-inference-config`,
        `/apis/apps/v1/namespaces/${ns}/deployments/image-retrieval-prod-inference`,
        `/api/v1/namespaces/${ns}/services/image-retrieval-prod-inference`,
      ]) {
        const res = await get(path);
        expect(res.status).toBe(200);
        expect(res.body.metadata.ownerReferences).toEqual([expect.objectContaining(owner)]);
      }
      const s = (await sts(ns, 'image-retrieval-prod-qdrant')).body;
      expect(s.spec.template.spec.containers[0].image).toBe('qdrant/qdrant:v1.14.1');
      expect(s.spec.volumeClaimTemplates[0].spec).toMatchObject({
        storageClassName: 'gp2',
        resources: { requests: { storage: '10Gi' } },
      });
      expect(s.spec.podManagementPolicy).toBe('Parallel');
      const d = (await deploy(ns, 'image-retrieval-prod-inference')).body;
      expect(d.spec.template.spec.initContainers[0]).toMatchObject({
        name: 'model-loader',
        // Hot reload: new pods' loaders read the model URL from the ConfigMap.
        env: expect.arrayContaining([
          { name: 'MODEL_URL', valueFrom: { configMapKeyRef: { name: 'image-retrieval-prod-inference-config', key: 'MODEL_URL' } } },
        ]),
      });
      expect((await get(`/api/v1/namespaces/${ns}/configmaps/image-retrieval-prod-inference-config`)).body.data.MODEL_URL).toBe(
        's3://models/resnet50-v2-7.onnx',
      );
      expect(d.spec.template.spec.containers[0].resources).toEqual({
        requests: { cpu: '1', memory: '2Gi' },
        limits: { cpu: '2', memory: '4Gi' },
      });
      expect(d.spec.template.spec.containers[0].env).toEqual(
        expect.arrayContaining([
          { name: 'QDRANT_URL', value: `http://image-retrieval-prod-qdrant.${ns}.svc:6333` },
        ]),
      );

      expect(ready.status).toMatchObject({
        qdrantReplicas: 3,
        qdrantReadyReplicas: 3,
        inferenceReplicas: 5,
        inferenceReadyReplicas: 5,
        qdrantReadiness: '3/3',
        inferenceReadiness: '5/5',
      });
      for (const type of ['Ready', 'QdrantReady', 'InferenceReady', 'ModelLoaded']) {
        expect(condition(ready, type)).toMatchObject({ status: 'True', observedGeneration: ready.metadata.generation });
      }
      // Ready only once Qdrant itself (here the simulated Qdrant of the simulated pods) lists every peer.
      expect(condition(ready, 'QdrantClusterReachable')).toMatchObject({ status: 'True', reason: 'ClusterInfoAvailable' });
      expect(ready.status.qdrantCluster.peers).toHaveLength(3);
      expect(ready.status.qdrantCluster.raftLeader).toBeDefined();

      // The inference Deployment only appeared after every Qdrant peer was ready.
      const events = await get(`/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3Dimage-retrieval-prod`);
      const reasons = events.body.items
        .sort((a: any, b: any) => a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp))
        .map((e: any) => `${e.reason}: ${e.message}`);
      // The first pass's children in one Event; the Deployment, created later, in its own.
      expect(reasons).toEqual(
        expect.arrayContaining([
          'Created: Created ConfigMap image-retrieval-prod-inference-config, PodDisruptionBudget image-retrieval-prod-qdrant, Service image-retrieval-prod-inference, Service image-retrieval-prod-qdrant, Service image-retrieval-prod-qdrant-headless, StatefulSet image-retrieval-prod-qdrant',
          'Created: Created Deployment image-retrieval-prod-inference',
        ]),
      );
      const dep = d.metadata.creationTimestamp;
      expect(dep >= s.metadata.creationTimestamp).toBe(true);
      expect(op.reconciles).toBeGreaterThan(0);
      const metrics = await op.metrics.registry.metrics();
      expect(metrics).toMatch(/controller_runtime_reconcile_total\{controller="inferenceplatform",result="(success|requeue_after)"\} [1-9]/);
      expect(metrics).toMatch(/inference_platform_operator_api_writes_total\{kind="StatefulSet",verb="apply"\} 1/);
    });
  });

  it.each<[string, (p: any) => void]>([
    ['an in-memory model', () => {}],
    ['a model on its own PVC', p => (p.spec.inference.modelSource = { mode: 'pvc', sizeLimit: '2Gi' })],
    // No init container: an empty list sent with each apply never matched the live object.
    ['a pvc:// model', p => (p.spec.inference.modelUrl = 'pvc://models/resnet50.onnx')],
    ['GPU servers', p => (p.spec.inference.gpu = { count: 1, type: 'NVIDIA-A100-SXM4-40GB' })],
  ])('issues zero writes when reconciling an unchanged platform with %s', async (_what, mutate) => {
    await withNamespace('op-idem', async ns => {
      await api.request('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
        apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'models' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      });
      const p = sample(ns, 'idem');
      p.spec.inference.replicas = 1;
      mutate(p);
      await createPlatform(p);
      const { lines: applied, logger } = capturingLogger();
      const op = await start(newOperator(ns, { clusterInfoTtlMs: 3_600_000, logger }));
      await waitForPhase(ns, 'idem', 'Ready');
      // Let the caches catch up with our own last writes.
      await eventually('quiet queue', async () => op.queue.length === 0 && op.queue.processingCount === 0);
      await new Promise(r => setTimeout(r, 500));
      const before = op.client.writes;
      applied.length = 0;
      await op.reconciler.reconcile(`${ns}/idem`);
      await op.reconciler.reconcile(`${ns}/idem`);
      expect({ writes: op.client.writes - before, applied }).toEqual({ writes: 0, applied: [] });
    });
  });

  it('does not write or record Events again when a pass runs before the caches show its writes', async () => {
    await withNamespace('op-stale', async ns => {
      await createPlatform(sample(ns, 'stale'));
      const { lines: logged, logger } = capturingLogger();
      // Caches without workers, then frozen: every pass below reads the
      // world as it was before its predecessor wrote, as when another event
      // queues a platform ahead of the watch events of its own last pass.
      const op = newOperator(ns, { logger, reconcile: false });
      await op.start();
      await eventually('platform cached', async () => !!op.platform(ns, 'stale'));
      await op.stop();

      logged.length = 0;
      await op.reconciler.reconcile(`${ns}/stale`);
      const first = logged.filter(l => /^(Created|Updated|Platform phase)/.test(l));
      expect(first).toEqual(
        expect.arrayContaining([expect.stringMatching(/^Created StatefulSet/), expect.stringMatching(/^Platform phase \(none\) -> Pending/)]),
      );
      logged.length = 0;
      // Applies, status writes and deletes (the first pass's Events may still be in flight).
      const writes = async () => (await op.metrics.writes.get()).values.reduce((n, v) => n + v.value, 0);
      const before = await writes();
      await op.reconciler.reconcile(`${ns}/stale`);
      await op.reconciler.reconcile(`${ns}/stale`);
      expect({ writes: (await writes()) - before, logged }).toEqual({ writes: 0, logged: [] });
      const events = await eventually('Created Event', async () => {
        const list = (await get(`/api/v1/namespaces/${ns}/events`)).body.items.filter(
          (e: any) => e.involvedObject.name === 'stale' && e.reason === 'Created',
        );
        return list.length ? list : undefined;
      });
      expect(events.map((e: any) => e.count ?? 1)).toEqual([1]);
    });
  });

  it('follows scaling through the CR and reverts kubectl scale on a child', async () => {
    await withNamespace('op-scale', async ns => {
      const p = sample(ns, 'scale');
      p.spec.qdrant.replicas = 1;
      p.spec.inference.replicas = 1;
      await createPlatform(p);
      await start(newOperator(ns));
      await waitForPhase(ns, 'scale', 'Ready');

      await patchPlatform(ns, 'scale', { spec: { qdrant: { replicas: 3 }, inference: { replicas: 4 } } });
      const up = await waitForPhase(ns, 'scale', 'Ready');
      expect(up.status).toMatchObject({ qdrantReadyReplicas: 3, inferenceReadyReplicas: 4 });
      expect((await get(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/scale-qdrant`)).status).toBe(200);

      // The scale subresource, as `kubectl scale ipf/scale --replicas=2` does it.
      const scaled = await api.request('PATCH', platformPath(ns, 'scale', 'scale'), { spec: { replicas: 2 } }, 'application/merge-patch+json');
      expect(scaled.status).toBe(200);
      await patchPlatform(ns, 'scale', { spec: { qdrant: { replicas: 1 } } });
      const down = await waitForPhase(ns, 'scale', 'Ready');
      expect(down.status).toMatchObject({ qdrantReadyReplicas: 1, inferenceReadyReplicas: 2 });
      await eventually('PDB removed below 2 peers', async () =>
        (await get(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/scale-qdrant`)).status === 404,
      );

      // `kubectl scale deploy scale-inference --replicas=5`: drift, reverted.
      await api.request('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/scale-inference/scale`, { spec: { replicas: 5 } }, 'application/merge-patch+json');
      await eventually('deployment back to 2', async () =>
        (await get(`/apis/apps/v1/namespaces/${ns}/deployments/scale-inference`)).body.spec.replicas === 2,
      );
      // The Event is recorded after the pass's writes, so it may trail the revert.
      await eventually('DriftCorrected Event', async () =>
        (await get(`/api/v1/namespaces/${ns}/events?fieldSelector=reason%3DDriftCorrected`)).body.items.length > 0,
      );
      // `kubectl scale sts scale-qdrant --replicas=5`: peers that joined are
      // removed from Raft again (four dead members would cost Raft its
      // majority), then the StatefulSet is back to 1.
      await api.request('PATCH', `/apis/apps/v1/namespaces/${ns}/statefulsets/scale-qdrant/scale`, { spec: { replicas: 5 } }, 'application/merge-patch+json');
      await eventually('statefulset back to 1', async () => {
        const s = (await sts(ns, 'scale-qdrant')).body;
        return s.spec.replicas === 1 && s.metadata.annotations;
      });
      await waitForPhase(ns, 'scale', 'Ready');
    });
  });

  it('places GPU servers on the GPU node and surfaces an impossible GPU type as Pending', async () => {
    await withNamespace('op-gpu', async ns => {
      const p = sample(ns, 'gpu');
      p.spec.qdrant.replicas = 1;
      p.spec.inference.replicas = 2;
      p.spec.inference.gpu = { count: 1, type: 'NVIDIA-A100-SXM4-40GB' };
      await createPlatform(p);
      const bad = sample(ns, 'nogpu');
      bad.spec.qdrant.replicas = 1;
      bad.spec.inference.replicas = 1;
      bad.spec.inference.gpu = { count: 1, type: 'NVIDIA-H200' };
      await createPlatform(bad);
      await start(newOperator(ns));

      await waitForPhase(ns, 'gpu', 'Ready');
      const pods = await get(`/api/v1/namespaces/${ns}/pods?labelSelector=cv.platform.tech%2Fplatform%3Dgpu,app.kubernetes.io%2Fcomponent%3Dinference`);
      expect(pods.body.items).toHaveLength(2);
      for (const pod of pods.body.items) expect(pod.spec.nodeName).toBe('kwok-gpu-b1');

      const pending = await eventually('nogpu pending with reason', async () => {
        const x = await getPlatform(ns, 'nogpu');
        return x.status?.phase === 'Pending' && /unschedulable/.test(x.status.message) ? x : undefined;
      });
      expect(pending.status.message).toMatch(/node affinity/);
      expect(condition(pending, 'InferenceReady')).toMatchObject({ status: 'False', reason: 'PodsUnschedulable' });
    });
  });

  it('reads Qdrant cluster info into status when Qdrant answers', async () => {
    // A Qdrant REST test double: GET /cluster in the shape of Qdrant's ClusterStatus.
    const server = http.createServer((req, res) => {
      if (req.url === '/cluster') {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({
          result: {
            status: 'enabled',
            peer_id: 11,
            peers: { '11': { uri: 'http://p-0:6335/' }, '12': { uri: 'http://p-1:6335/' } },
            raft_info: { term: 3, commit: 40, pending_operations: 0, leader: 11, role: 'Leader', is_voter: true },
            consensus_thread_status: { consensus_thread_status: 'working' },
            message_send_failures: {},
          },
          status: 'ok',
          time: 0.0001,
        }));
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      await withNamespace('op-qdrant', async ns => {
        const p = sample(ns, 'clustered');
        p.spec.qdrant.replicas = 2;
        p.spec.inference.replicas = 1;
        await createPlatform(p);
        await start(newOperator(ns, { qdrantUrl: () => `http://127.0.0.1:${port}` }));
        const ready = await eventually('cluster info', async () => {
          const x = await getPlatform(ns, 'clustered');
          return x.status?.qdrantCluster?.reachable ? x : undefined;
        });
        expect(ready.status.qdrantCluster).toEqual({
          reachable: true,
          peerId: '11',
          peers: [{ id: '11', uri: 'http://p-0:6335/' }, { id: '12', uri: 'http://p-1:6335/' }],
          raftLeader: '11',
          raftTerm: 3,
          raftCommit: 40,
          pendingOperations: 0,
          consensus: 'working',
        });
        expect(condition(ready, 'QdrantClusterReachable')).toMatchObject({ status: 'True' });
      });
    } finally {
      server.close();
    }
  });

  it('garbage-collects every child when the platform is deleted', async () => {
    await withNamespace('op-delete', async ns => {
      const p = sample(ns, 'gone');
      p.spec.qdrant.replicas = 2;
      p.spec.inference.replicas = 1;
      await createPlatform(p);
      await start(newOperator(ns));
      await waitForPhase(ns, 'gone', 'Ready');
      expect((await api.request('DELETE', platformPath(ns, 'gone'))).status).toBe(200);
      await eventually('children gone', async () => {
        const checks = await Promise.all([
          sts(ns, 'gone-qdrant'),
          deploy(ns, 'gone-inference'),
          get(`/api/v1/namespaces/${ns}/services/gone-qdrant`),
          get(`/api/v1/namespaces/${ns}/configmaps/gone-inference-config`),
        ]);
        return checks.every(c => c.status === 404);
        // The garbage collector discovers a new CRD's kind on its own schedule.
      }, 90_000);
    });
  });

  it('converges after an operator restart mid-rollout', async () => {
    await withNamespace('op-restart', async ns => {
      await createPlatform(sample(ns, 'restart'));
      const first = await start(newOperator(ns));
      await eventually('qdrant created', async () => (await sts(ns, 'restart-qdrant')).status === 200);
      await first.stop();
      const second = await start(newOperator(ns));
      const ready = await waitForPhase(ns, 'restart', 'Ready');
      expect(ready.status.inferenceReadyReplicas).toBe(5);
      expect(second.reconciles).toBeGreaterThan(0);
    });
  });

  it('lets only the leader write, and a standby takes over', async () => {
    await withNamespace('op-leader', async ns => {
      const le = (identity: string) => ({
        enabled: true,
        leaseNamespace: ns,
        leaseName: 'ipf-operator',
        identity,
        leaseDurationSeconds: 3,
        retryPeriodMs: 300,
      });
      const a = await start(newOperator(ns, { leaderElection: le('a') }));
      await eventually('a leads', async () => a.isLeader());
      const b = await start(newOperator(ns, { leaderElection: le('b') }));
      await createPlatform(sample(ns, 'led'));
      await waitForPhase(ns, 'led', 'Ready');
      expect(b.isLeader()).toBe(false);
      expect(b.reconciles).toBe(0);
      expect(a.reconciles).toBeGreaterThan(0);

      await a.stop();
      await eventually('b takes over', async () => b.isLeader(), 20_000);
      const lease = await get(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/ipf-operator`);
      expect(lease.body.spec.holderIdentity).toBe('b');
      await patchPlatform(ns, 'led', { spec: { inference: { replicas: 2 } } });
      const ready = await waitForPhase(ns, 'led', 'Ready');
      expect(ready.status.inferenceReadyReplicas).toBe(2);
      expect(b.reconciles).toBeGreaterThan(0);
    });
  });
});
