import {
  condition,
  createPlatform,
  eventually,
  eventsWithReason,
  get,
  getPlatform,
  newOperator,
  operatorsStoppedAfterEach,
  patchPlatform,
  qdrantFleet,
  qdrantSts,
  sample,
  waitForPhase,
  warningEvents,
  withNamespace,
} from './__testUtils__/operatorTestEnv';

/**
 * Scaling the Qdrant tier down against the API server, with each platform's
 * peers played by the Qdrant cluster test double (shaped by the answers
 * recorded from a real cluster). The same drain runs against real Qdrant
 * peers on real pods in qdrantScaleDown.realPods.test.ts.
 */
jest.setTimeout(120_000);
const start = operatorsStoppedAfterEach();

/** An operator that reaches Qdrant through the test's own clusters. */
const fleetOperator = (ns: string, extra: Parameters<typeof newOperator>[1] = {}) => newOperator(ns, { ...qdrantFleet.options, ...extra });

/** The platform's peers, joined as their pods would, with a collection placed over them. */
async function clusterWith(ns: string, name: string, peers: number, collection: { shards: number; rf: number; points: number }) {
  const cluster = qdrantFleet.clusterWithPeers(ns, name, peers);
  cluster.createCollection('images', { shardNumber: collection.shards, replicationFactor: collection.rf });
  const points = Array.from({ length: collection.points }, (_, id) => ({ id, vector: [1, 0, 0, 0, 0, 0, 0, 0], payload: { n: id } }));
  const res = await fetch(`${cluster.urlOf(cluster.members()[0])}/collections/images/points?wait=true`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ points }),
  });
  expect(res.status).toBe(200);
  expect(cluster.pointCount('images')).toBe(collection.points);
  return cluster;
}

const adminCalls = (cluster: ReturnType<typeof qdrantFleet.cluster>) =>
  cluster.calls.filter(c => c.method !== 'GET' && !c.path.endsWith('/points'));

describe('scaling Qdrant', () => {
  it('drains a leaving peer and removes it from Raft before its pod goes, losing no point', async () => {
    await withNamespace('q-drain', async ns => {
      const p = sample(ns, 'drain');
      p.spec.qdrant.replicas = 3;
      p.spec.inference.replicas = 1;
      await createPlatform(p);
      const cluster = await clusterWith(ns, 'drain', 3, { shards: 6, rf: 1, points: 1000 });
      await start(fleetOperator(ns));
      await waitForPhase(ns, 'drain', 'Ready');
      const leaving = cluster.members()[2];
      expect(cluster.peersHoldingShards().has(leaving.id)).toBe(true);
      // What the StatefulSet asked for at the moment Qdrant was told to remove the peer.
      const replicasAtRemoval: number[] = [];
      cluster.beforeAnswer = async call => {
        if (call.method === 'DELETE') replicasAtRemoval.push((await qdrantSts(ns, 'drain')).spec.replicas);
      };

      await patchPlatform(ns, 'drain', { spec: { qdrant: { replicas: 2 } } });
      const down = await waitForPhase(ns, 'drain', 'Ready');
      expect(down.status).toMatchObject({ qdrantReadyReplicas: 2 });
      expect(down.status.qdrant?.scaleDown).toBeUndefined();
      expect(condition(down, 'ScaleDownBlocked')).toBeUndefined();
      expect((await qdrantSts(ns, 'drain')).spec.replicas).toBe(2);

      expect(cluster.pointCount('images')).toBe(1000);
      expect(cluster.peersHoldingShards().has(leaving.id)).toBe(false);
      expect(cluster.members().map(m => m.id)).not.toContain(leaving.id);
      expect(replicasAtRemoval).toEqual([3]);
      // Every move went from the leaving peer to a staying one, each shard once, through a staying peer.
      const moves = adminCalls(cluster).filter(c => (c.body as any)?.move_shard);
      expect(moves).toHaveLength(2);
      for (const m of moves) {
        expect((m.body as any).move_shard.from_peer_id).toBe(leaving.id);
        expect(m.peer).not.toBe(leaving.id);
      }
      expect(adminCalls(cluster).map(c => `${c.method} ${c.path}`).pop()).toBe(`DELETE /cluster/peer/${leaving.id}`);
      expect((await eventsWithReason(ns, 'DrainingQdrantPeer')).length).toBeGreaterThan(0);
      expect((await eventsWithReason(ns, 'RemovedQdrantPeer'))[0].message).toContain(`Removed peer ${leaving.id} (drain-qdrant-2)`);
      // The drained peer's volume goes with it (its Raft identity must not come back on a scale-up).
      await eventually('storage-drain-qdrant-2 deleted', async () =>
        (await get(`/api/v1/namespaces/${ns}/persistentvolumeclaims/storage-drain-qdrant-2`)).status === 404,
      );
      expect((await get(`/api/v1/namespaces/${ns}/persistentvolumeclaims/storage-drain-qdrant-1`)).status).toBe(200);
      // A scale-down that went as planned asks nobody to look at anything (the scheduler's and volume controller's own Events aside).
      const operatorWarnings = (await warningEvents(ns)).filter((e: any) => e.reportingComponent === 'inference-platform-operator');
      expect(operatorWarnings.map((e: any) => `${e.reason}: ${e.message}`)).toEqual([]);
    });
  });

  it('changes nothing and says why when the new size is below a replication factor', async () => {
    await withNamespace('q-block', async ns => {
      const p = sample(ns, 'block');
      p.spec.qdrant.replicas = 2;
      p.spec.inference.replicas = 1;
      await createPlatform(p);
      const cluster = await clusterWith(ns, 'block', 2, { shards: 2, rf: 2, points: 100 });
      await start(fleetOperator(ns));
      await waitForPhase(ns, 'block', 'Ready');

      await patchPlatform(ns, 'block', { spec: { qdrant: { replicas: 1 } } });
      const blocked = await waitForPhase(ns, 'block', 'Degraded');
      expect(condition(blocked, 'ScaleDownBlocked')).toMatchObject({
        status: 'True',
        reason: 'ReplicationFactorTooHigh',
        message: expect.stringContaining('collection images has replication factor 2, more than the 1 peers that would remain'),
      });
      expect(blocked.status.message).toContain('Qdrant scale-down from 2 to 1 peers blocked');
      expect(blocked.status.qdrant.scaleDown).toMatchObject({ step: 'Blocked', fromReplicas: 2, toReplicas: 1 });
      expect((await qdrantSts(ns, 'block')).spec.replicas).toBe(2);
      expect(adminCalls(cluster)).toEqual([]);
      expect(cluster.pointCount('images')).toBe(100);

      // Undoing the edit clears it.
      await patchPlatform(ns, 'block', { spec: { qdrant: { replicas: 2 } } });
      const back = await waitForPhase(ns, 'block', 'Ready');
      expect(condition(back, 'ScaleDownBlocked')).toBeUndefined();
      expect(adminCalls(cluster)).toEqual([]);
    });
  });

  it('resumes a drain after an operator restart without issuing a transfer twice', async () => {
    await withNamespace('q-resume', async ns => {
      const p = sample(ns, 'resume');
      p.spec.qdrant.replicas = 3;
      p.spec.inference.replicas = 1;
      await createPlatform(p);
      const cluster = await clusterWith(ns, 'resume', 3, { shards: 6, rf: 1, points: 600 });
      const first = await start(fleetOperator(ns));
      await waitForPhase(ns, 'resume', 'Ready');
      // Transfers stay in flight until the test lets them finish.
      cluster.transferMs = undefined;

      await patchPlatform(ns, 'resume', { spec: { qdrant: { replicas: 2 } } });
      await eventually('transfers in flight', async () => {
        const s = (await getPlatform(ns, 'resume')).status;
        return s?.qdrant?.scaleDown?.transfersInFlight === 2 ? s : undefined;
      });
      const draining = await getPlatform(ns, 'resume');
      expect(draining.status.phase).toBe('Loading');
      expect(condition(draining, 'ScaleDownBlocked')).toMatchObject({ status: 'False', reason: 'DrainingPeers' });
      expect(draining.status.qdrant.scaleDown.leavingPeers).toEqual([`resume-qdrant-2 (peer ${cluster.members()[2].id})`]);
      await first.stop();

      // A new operator looks at Qdrant afresh: the moves in flight are waited for, not repeated.
      const callsBefore = cluster.calls.length;
      await start(fleetOperator(ns));
      await eventually('the new operator has looked', async () => cluster.calls.slice(callsBefore).some(c => c.path === '/cluster'));
      await eventually('a few more looks', async () => cluster.calls.slice(callsBefore).filter(c => c.path === '/cluster').length >= 6);
      cluster.completeTransfers();
      await waitForPhase(ns, 'resume', 'Ready');
      expect((await qdrantSts(ns, 'resume')).spec.replicas).toBe(2);
      expect(adminCalls(cluster).filter(c => (c.body as any)?.move_shard)).toHaveLength(2);
      expect(cluster.pointCount('images')).toBe(600);
    });
  });

  it('after a scale-up, moves shards onto the new peer until every peer holds as many (spec.qdrant.rebalance)', async () => {
    await withNamespace('q-rebalance', async ns => {
      const p = sample(ns, 'even');
      p.spec.qdrant.replicas = 2;
      p.spec.inference.replicas = 1;
      await createPlatform(p);
      const cluster = await clusterWith(ns, 'even', 2, { shards: 6, rf: 1, points: 600 });
      await start(fleetOperator(ns, { qdrantUrl: () => cluster.urlOf(cluster.members()[0]) }));
      await waitForPhase(ns, 'even', 'Ready');
      expect(adminCalls(cluster)).toEqual([]);

      await patchPlatform(ns, 'even', { spec: { qdrant: { replicas: 3 } } });
      // The new pod is Ready; its peer joins Raft as a started pod would.
      await eventually('peer 2 waited for', async () => condition(await getPlatform(ns, 'even'), 'QdrantReady')?.reason === 'QdrantPeersJoining');
      const joined = qdrantFleet.peerUrl({ metadata: { namespace: ns, name: 'even' } }, 'even-qdrant-2');
      expect(joined).toContain('/peer/');
      const even = await eventually('even placement', async () => {
        const x = await waitForPhase(ns, 'even', 'Ready');
        const perPeer = x.status.qdrantCluster?.collections?.[0]?.perPeer;
        return perPeer && Object.values(perPeer).length === 3 && Object.values(perPeer).every(n => n === 2) ? x : undefined;
      });
      expect(even.status.qdrantCluster.collections[0].transfers).toBe(0);
      const moves = adminCalls(cluster).filter(c => (c.body as any)?.move_shard);
      expect(moves).toHaveLength(2);
      const newPeer = cluster.members()[2].id;
      for (const m of moves) expect((m.body as any).move_shard.to_peer_id).toBe(newPeer);
      expect(cluster.pointCount('images')).toBe(600);
      expect((await eventsWithReason(ns, 'RebalancingShards')).length).toBeGreaterThan(0);
    });
  });

  it('leaves the placement alone with rebalance: false', async () => {
    await withNamespace('q-norebalance', async ns => {
      const p = sample(ns, 'keep');
      p.spec.qdrant.replicas = 3;
      p.spec.qdrant.rebalance = false;
      p.spec.inference.replicas = 1;
      await createPlatform(p);
      const cluster = await clusterWith(ns, 'keep', 3, { shards: 6, rf: 1, points: 60 });
      const ids = cluster.members().map(m => m.id);
      cluster.createCollection('lopsided', { shardNumber: 4, replicationFactor: 1, placement: [[ids[0]], [ids[0]], [ids[0]], [ids[1]]] });
      await start(fleetOperator(ns, { qdrantUrl: () => cluster.urlOf(cluster.members()[0]) }));
      const ready = await eventually('Ready with the lopsided collection seen', async () => {
        const x = await waitForPhase(ns, 'keep', 'Ready');
        return x.status.qdrantCluster?.collections?.length === 2 ? x : undefined;
      });
      expect(ready.status.qdrantCluster.collections.find((c: any) => c.name === 'lopsided').perPeer).toEqual({ [ids[0]]: 3, [ids[1]]: 1, [ids[2]]: 0 });
      const looks = cluster.calls.length;
      await eventually('several looks at Qdrant', async () => cluster.calls.slice(looks).filter(c => c.path === '/cluster').length >= 4);
      expect(adminCalls(cluster)).toEqual([]);
    });
  });
});
