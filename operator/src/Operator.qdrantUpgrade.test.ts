import {
  condition,
  createPlatform,
  eventually,
  get,
  getPlatform,
  newOperator,
  operatorsStoppedAfterEach,
  patchPlatform,
  qdrantFleet,
  qdrantSts,
  sample,
  waitForPhase,
  withNamespace,
} from './__testUtils__/operatorTestEnv';

/**
 * Ordered Qdrant upgrades against the API server: the operator drives the
 * StatefulSet's partition, one peer at a time from the highest ordinal, each
 * once Qdrant (the cluster test double, read through its Service) has
 * settled.
 */
jest.setTimeout(120_000);
const start = operatorsStoppedAfterEach();

const pods = async (ns: string, name: string) =>
  (await get(`/api/v1/namespaces/${ns}/pods?labelSelector=cv.platform.tech/platform%3D${name},app.kubernetes.io/component%3Dqdrant`)).body.items;

async function platformWithCluster(ns: string, name: string, rf: number) {
  const cluster = qdrantFleet.clusterWithPeers(ns, name, 3);
  cluster.createCollection('images', { shardNumber: 3, replicationFactor: rf });
  const p = sample(ns, name);
  p.spec.qdrant.replicas = 3;
  p.spec.qdrant.replicationFactor = rf;
  p.spec.inference.replicas = 1;
  await createPlatform(p);
  await start(newOperator(ns, { qdrantUrl: () => cluster.urlOf(cluster.members()[1]), qdrantPeerUrl: qdrantFleet.peerUrl }));
  await waitForPhase(ns, name, 'Ready');
  return cluster;
}

describe('upgrading Qdrant', () => {
  it('restarts one peer at a time from the highest ordinal, the next only once Qdrant has settled', async () => {
    await withNamespace('q-upgrade', async ns => {
      const cluster = await platformWithCluster(ns, 'up', 2);
      const before = await qdrantSts(ns, 'up');
      expect(before.spec.updateStrategy.rollingUpdate.partition).toBe(0);

      // Sample the partition and which pods run the new revision until the upgrade is done.
      const partitions: number[] = [];
      const order: string[] = [];
      let sampling = true;
      const sampler = (async () => {
        for (let i = 0; sampling && i < 1200; i++) {
          const s = await qdrantSts(ns, 'up');
          const partition = s.spec.updateStrategy.rollingUpdate.partition;
          if (partitions[partitions.length - 1] !== partition) partitions.push(partition);
          for (const pod of await pods(ns, 'up')) {
            const updated = s.status.updateRevision !== before.status.updateRevision && pod.metadata.labels['controller-revision-hash'] === s.status.updateRevision;
            if (updated && !order.includes(pod.metadata.name)) order.push(pod.metadata.name);
          }
          await new Promise(r => setTimeout(r, 50));
        }
      })();

      // An unsettled cluster starts no upgrade.
      const leader = cluster.leader;
      cluster.leader = undefined;
      await eventually('the operator has seen it', async () => condition(await getPlatform(ns, 'up'), 'QdrantReady')?.reason === 'QdrantNoLeader');
      await patchPlatform(ns, 'up', { spec: { qdrant: { version: 'v1.15.0' } } });
      const notStarted = await eventually('upgrade held before the first peer', async () => {
        const p = await getPlatform(ns, 'up');
        return /before the first peer: Qdrant has no Raft leader/.test(p.status?.message ?? '') ? p : undefined;
      });
      expect(notStarted.status.message).toMatch(/^rolling Qdrant to v1\.15\.0: 0\/3 peers restarted/);
      expect((await qdrantSts(ns, 'up')).spec.updateStrategy.rollingUpdate.partition).toBe(3);

      // Settled: peer 2 restarts; Raft loses its leader as it comes back, so peer 1 waits.
      let broken = false;
      cluster.beforeAnswer = async call => {
        if (broken || call.path !== '/cluster') return;
        const s = await qdrantSts(ns, 'up');
        const pod2 = (await pods(ns, 'up')).find((x: any) => x.metadata.name === 'up-qdrant-2');
        if (pod2?.metadata.labels['controller-revision-hash'] === s.status.updateRevision && s.status.updateRevision !== before.status.updateRevision) {
          broken = true;
          cluster.leader = undefined;
        }
      };
      cluster.leader = leader;
      const held = await eventually('peer 2 restarted, the rest held', async () => {
        const p = await getPlatform(ns, 'up');
        return /up-qdrant-2 restarted; before the next peer: Qdrant has no Raft leader/.test(p.status?.message ?? '') ? p : undefined;
      });
      expect(held.status.phase).toBe('Loading');
      const callsBefore = cluster.calls.length;
      await eventually('several more looks at Qdrant', async () => cluster.calls.slice(callsBefore).filter(c => c.path === '/cluster').length >= 5);
      expect((await qdrantSts(ns, 'up')).spec.updateStrategy.rollingUpdate.partition).toBe(2);
      expect(order).toEqual(['up-qdrant-2']);

      cluster.leader = leader;
      const done = await eventually('upgraded', async () => {
        const p = await waitForPhase(ns, 'up', 'Ready');
        return p.status.qdrant?.version === 'v1.15.0' ? p : undefined;
      });
      sampling = false;
      await sampler;
      expect(order).toEqual(['up-qdrant-2', 'up-qdrant-1', 'up-qdrant-0']);
      expect(partitions).toEqual([0, 3, 2, 1, 0]);
      expect(condition(done, 'QdrantReady')).toMatchObject({ status: 'True' });
    });
  });

  it('waits for allowDowntime when a collection keeps one copy per shard', async () => {
    await withNamespace('q-downtime', async ns => {
      await platformWithCluster(ns, 'rf1', 1);
      await patchPlatform(ns, 'rf1', { spec: { qdrant: { version: 'v1.15.0' } } });
      const blocked = await eventually('upgrade held', async () => {
        const p = await getPlatform(ns, 'rf1');
        return condition(p, 'QdrantReady')?.reason === 'QdrantUpgradeNeedsDowntime' ? p : undefined;
      });
      expect(blocked.status.phase).toBe('Degraded');
      expect(blocked.status.message).toMatch(/^Qdrant upgrade to v1\.15\.0 not started: collection images keeps one copy per shard, so restarting a peer makes its shards unavailable: set spec\.qdrant\.allowDowntime: true/);
      const held = await qdrantSts(ns, 'rf1');
      expect(held.spec.updateStrategy.rollingUpdate.partition).toBe(3);
      expect((await pods(ns, 'rf1')).every((pod: any) => pod.metadata.labels['controller-revision-hash'] !== held.status.updateRevision)).toBe(true);

      await patchPlatform(ns, 'rf1', { spec: { qdrant: { allowDowntime: true } } });
      await eventually('upgraded with downtime allowed', async () => {
        const p = await waitForPhase(ns, 'rf1', 'Ready');
        return p.status.qdrant?.version === 'v1.15.0' ? p : undefined;
      });
    });
  });
});
