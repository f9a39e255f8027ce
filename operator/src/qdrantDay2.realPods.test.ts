/* eslint-disable no-console */
import { sampleInferencePlatform, toV1beta1 } from '@cv-platform/inference-platform-api';
import { LocalCluster, eventually, qdrantBinaryTags, realQdrantBinary } from '@cv-platform/local-cluster';
import { loadKubeConfig } from './kube/loadKubeConfig';
import { Operator } from './Operator';

/**
 * Day-2 operations on real Qdrant peers: the operator's StatefulSet runs
 * Qdrant binaries on the local cluster's real node (qdrantBinaries.ts: the
 * provided releases by tag), and the operator, outside the cluster, talks to
 * each peer through the API server's pod proxy. Without a binary the tests
 * say they are skipped, and fail in CI (the same logic runs against the
 * recorded-answer double in Operator.qdrantUpgrade.test.ts and
 * Operator.qdrantScaleDown.test.ts). One platform of three peers: first an
 * ordered upgrade (across two real releases when two binaries of adjacent
 * minors are here), then a scale-down to two.
 */
jest.setTimeout(900_000);

const ns = 'drain';
const name = 'drain';
const bin = realQdrantBinary('upgrading and draining real Qdrant peers on real pods');

/**
 * The upgrade's from and to: two real releases of adjacent minors when their
 * binaries are here (the oldest such pair's newer minor is the target), else
 * the one binary's tag to its next patch, which the real node serves with
 * the nearest binary of that minor, so the same Qdrant restarts in order.
 */
function upgradePath(tags: string[]): { from: string; to: string; across: boolean; peersReport?: string } {
  const minor = (t: string) => Number(t.split('.')[1]);
  for (let i = tags.length - 1; i > 0; i--) {
    const older = [...tags.slice(0, i)].reverse().find(t => minor(t) === minor(tags[i]) - 1);
    if (older && minor(older) >= 8) return { from: older, to: tags[i], across: true, peersReport: tags[i].replace(/^v/, '') };
  }
  const only = tags[tags.length - 1] ?? sampleInferencePlatform(name, ns).spec.qdrant.version;
  const [major, min, patch] = only.replace(/^v/, '').split('.');
  // The one binary serves both tags; QDRANT_BIN's version is its own.
  return { from: only, to: `v${major}.${min}.${Number(patch) + 1}`, across: false, peersReport: tags.length ? only.replace(/^v/, '') : undefined };
}
const upgrade = upgradePath(qdrantBinaryTags());
let cluster: LocalCluster;
let operator: Operator;

const platformsPath = `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`;
const platformPath = `${platformsPath}/${name}`;
const peer = (ordinal: number, path: string) => `/api/v1/namespaces/${ns}/pods/http:${name}-qdrant-${ordinal}:6333/proxy${path}`;

async function qdrant(ordinal: number, method: string, path: string, body?: unknown): Promise<any> {
  const res = await cluster.request(method, peer(ordinal, path), body);
  if (res.status >= 300) throw new Error(`${method} ${path} on peer ${ordinal}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result;
}

async function waitForPhase(phase: string, replicas: number) {
  let seen = '';
  try {
    return await eventually(
      `${name} ${phase} with ${replicas} peers`,
      async () => {
        const p = (await cluster.request('GET', platformPath)).body;
        seen = `${p.status?.phase}: ${p.status?.message}`;
        return p.status?.phase === phase && p.status?.observedGeneration === p.metadata.generation && p.status?.qdrantReadyReplicas === replicas ? p : undefined;
      },
      600_000,
      1000,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last seen ${seen}`);
  }
}

const describeWithQdrant = bin ? describe : describe.skip;

const points = (n: number) =>
  Array.from({ length: n }, (_, id) => ({ id, vector: Array.from({ length: 8 }, (_x, k) => ((id * 7 + k * 13) % 97) / 97 + 0.01), payload: { n: id } }));

/**
 * Searches the RF 2 collection through Qdrant's client Service (the API
 * server's service proxy picks a ready peer) every 200 ms, bounded, while
 * `during` runs. A search the proxy could not deliver (an endpoint that was
 * going away) is retried once, as any client of a Service would; what fails
 * twice, or any answer from Qdrant other than 200, is an error.
 */
async function searchesDuring<T>(during: () => Promise<T>): Promise<{ result: T; searches: number; retried: number; errors: string[] }> {
  const errors: string[] = [];
  let searches = 0;
  let retried = 0;
  let running = true;
  const search = () =>
    cluster.request('POST', `/api/v1/namespaces/${ns}/services/http:${name}-qdrant:6333/proxy/collections/rf2/points/query`, {
      query: points(1)[0].vector,
      limit: 3,
    });
  const loop = (async () => {
    const deadline = Date.now() + 600_000;
    while (running && Date.now() < deadline && searches < 5000) {
      let res = await search();
      if (res.status === 503 && /error trying to reach service/.test(JSON.stringify(res.body))) {
        retried++;
        await new Promise(r => setTimeout(r, 200));
        res = await search();
      }
      if (res.status !== 200) errors.push(`${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      searches++;
      await new Promise(r => setTimeout(r, 200));
    }
  })();
  try {
    return { result: await during(), searches, retried, errors };
  } finally {
    running = false;
    await loop;
  }
}

describeWithQdrant('day-2 operations on real Qdrant peers on real pods', () => {
  beforeAll(async () => {
    cluster = await LocalCluster.start({ realNode: true });
    await cluster.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    operator = new Operator({
      kubeConfig: loadKubeConfig({ kubeconfigPath: cluster.kubeconfigPath }),
      namespaces: [ns],
      workers: 2,
      qdrantAccess: 'apiServerProxy',
      clusterInfoTtlMs: 2000,
      drainPollMs: 1000,
    });
    await operator.start();
  });

  afterAll(async () => {
    await operator?.stop();
    await cluster?.stop();
  });

  it('upgrades one peer at a time from the highest ordinal while an RF 2 collection answers every search', async () => {
    const p = sampleInferencePlatform(name, ns);
    p.spec.qdrant.version = upgrade.from;
    p.spec.qdrant.replicas = 3;
    p.spec.qdrant.storageSize = '1Gi';
    p.spec.qdrant.resources = { requests: { cpu: '100m', memory: '128Mi' } };
    p.spec.inference.replicas = 0;
    expect((await cluster.request('POST', platformsPath, toV1beta1(p))).status).toBe(201);
    await waitForPhase('Ready', 3);
    await qdrant(0, 'PUT', '/collections/rf2', { vectors: { size: 8, distance: 'Cosine' }, shard_number: 2, replication_factor: 2 });
    await qdrant(0, 'PUT', '/collections/rf2/points?wait=true', { points: points(200) });
    const stsPath = `/apis/apps/v1/namespaces/${ns}/statefulsets/${name}-qdrant`;
    const revisionBefore = (await cluster.request('GET', stsPath)).body.status.updateRevision;

    // Across two real releases the peers really change version; with one
    // binary the new tag restarts each peer on the same Qdrant, which is what
    // the ordering is about.
    const order: string[] = [];
    const { searches, retried, errors } = await searchesDuring(async () => {
      const res = await cluster.request('PATCH', platformPath, { spec: { qdrant: { version: upgrade.to } } }, 'application/merge-patch+json');
      expect(res.status).toBe(200);
      await eventually(
        'every peer restarted, in order',
        async () => {
          const sts = (await cluster.request('GET', stsPath)).body;
          const pods = (await cluster.request('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=app.kubernetes.io/component%3Dqdrant`)).body.items;
          for (const pod of pods) {
            const rev = pod.metadata.labels['controller-revision-hash'];
            if (rev !== revisionBefore && rev === sts.status.updateRevision && !order.includes(pod.metadata.name)) order.push(pod.metadata.name);
          }
          const p2 = (await cluster.request('GET', platformPath)).body;
          return p2.status?.phase === 'Ready' && p2.status?.qdrant?.version === upgrade.to && p2.status.observedGeneration === p2.metadata.generation;
        },
        600_000,
        250,
      );
    });
    const versions = await Promise.all([0, 1, 2].map(async o => (await cluster.request('GET', peer(o, '/'))).body.version));
    console.log(
      `upgrade on real Qdrant ${upgrade.from} -> ${upgrade.to} (${upgrade.across ? 'two releases' : 'one binary'}; peers now report ${versions.join(', ')}): ${searches} searches on the RF 2 collection through its Service, ${retried} retried once, ${errors.length} failed; restart order ${order.join(', ')}`,
    );
    expect(order).toEqual([`${name}-qdrant-2`, `${name}-qdrant-1`, `${name}-qdrant-0`]);
    expect(errors).toEqual([]);
    expect(versions).toEqual([0, 1, 2].map(() => upgrade.peersReport ?? versions[0]));
    expect((await qdrant(0, 'POST', '/collections/rf2/points/count', { exact: true })).count).toBe(200);
  });

  it('3 -> 2 keeps all 1,000 points of an RF 1 collection, and an RF 2 collection answers throughout', async () => {
    const before = await qdrant(0, 'GET', '/cluster');
    expect(Object.keys(before.peers)).toHaveLength(3);
    const leavingId = Object.entries(before.peers).find(([, v]: any) => v.uri.startsWith(`http://${name}-qdrant-2.`))![0];

    await qdrant(0, 'PUT', '/collections/images', { vectors: { size: 8, distance: 'Cosine' }, shard_number: 6, replication_factor: 1 });
    for (let i = 0; i < 1000; i += 250) {
      await qdrant(0, 'PUT', '/collections/images/points?wait=true', { points: points(1000).slice(i, i + 250) });
    }
    const onLeaving = (await qdrant(2, 'GET', '/collections/images/cluster')).local_shards.length;
    expect(onLeaving).toBeGreaterThan(0);

    // Samples of (StatefulSet replicas, peer 2 in Raft) and searches on the RF 2 collection, until the scale-down is done.
    const samples: Array<{ replicas: number; leavingInRaft: boolean }> = [];
    const searchErrors: string[] = [];
    let searches = 0;
    let sampling = true;
    const sampler = (async () => {
      const deadline = Date.now() + 600_000;
      while (sampling && Date.now() < deadline && searches < 20_000) {
        const sts = (await cluster.request('GET', `/apis/apps/v1/namespaces/${ns}/statefulsets/${name}-qdrant`)).body;
        try {
          const view = await qdrant(0, 'GET', '/cluster');
          samples.push({ replicas: sts.spec.replicas, leavingInRaft: leavingId in view.peers });
        } catch {
          // peer 0 stays; a failed look is not a sample
        }
        try {
          await qdrant(0, 'POST', '/collections/rf2/points/query', { query: points(1)[0].vector, limit: 3 });
        } catch (e) {
          searchErrors.push((e as Error).message);
        }
        searches++;
        await new Promise(r => setTimeout(r, 200));
      }
    })();

    const res = await cluster.request('PATCH', platformPath, { spec: { qdrant: { replicas: 2 } } }, 'application/merge-patch+json');
    expect(res.status).toBe(200);
    const down = await waitForPhase('Ready', 2);
    sampling = false;
    await sampler;

    expect(down.status.qdrant?.scaleDown).toBeUndefined();
    const after = await qdrant(0, 'GET', '/cluster');
    expect(Object.keys(after.peers).sort()).toEqual(Object.keys(before.peers).filter(id => id !== leavingId).sort());
    expect((await qdrant(0, 'POST', '/collections/images/points/count', { exact: true })).count).toBe(1000);
    expect((await qdrant(1, 'POST', '/collections/images/points/count', { exact: true })).count).toBe(1000);
    const layout = await qdrant(0, 'GET', '/collections/images/cluster');
    expect(layout.remote_shards.map((s: any) => String(s.peer_id))).not.toContain(leavingId);
    expect(layout.local_shards.length + layout.remote_shards.length).toBe(6);
    // The pod went only after its peer had left Raft.
    expect(samples.filter(s => s.replicas < 3 && s.leavingInRaft)).toEqual([]);
    expect(samples.some(s => s.replicas === 3 && s.leavingInRaft)).toBe(true);
    console.log(`scale-down on real Qdrant: ${samples.length} samples, ${searches} searches on the RF 2 collection, ${searchErrors.length} failed`);
    expect(searchErrors).toEqual([]);
  });
});
