import {
  condition,
  createPlatform,
  eventually,
  peerUri,
  eventsWithReason,
  get,
  getPlatform,
  newOperator,
  operatorsStoppedAfterEach,
  patchPlatform,
  qdrantFleet,
  sample,
  waitForPhase,
  withNamespace,
} from './__testUtils__/operatorTestEnv';

/**
 * Qdrant's own view in the platform's status: the operator reads the
 * cluster through its client Service (here: one peer of the cluster test
 * double, shaped by the recorded real-Qdrant answers) and a platform whose
 * Qdrant has no leader, lists peers no pod backs, or has shards that are not
 * Active is not Ready.
 */
jest.setTimeout(120_000);
const start = operatorsStoppedAfterEach();


/** The platform's Qdrant cluster with `peers` members, and the operator pointed at peer 1 as its Service. */
function clusterOf(ns: string, name: string, peers: number) {
  const cluster = qdrantFleet.clusterWithPeers(ns, name, peers);
  const service = cluster.members()[Math.min(1, peers - 1)];
  return { cluster, qdrantUrl: () => cluster.urlOf(service) };
}


async function phaseWith(ns: string, name: string, phase: string, reason: string) {
  return eventually(`${name} ${phase} (${reason})`, async () => {
    const p = await getPlatform(ns, name);
    return p.status?.phase === phase && condition(p, 'QdrantReady')?.reason === reason ? p : undefined;
  });
}

describe("Qdrant's own view of its cluster", () => {
  it('reports collections and the leader, records a leader change, and is Degraded while a replica is Dead', async () => {
    await withNamespace('q-health', async ns => {
      const p = sample(ns, 'health');
      p.spec.qdrant.replicas = 3;
      p.spec.inference.replicas = 1;
      const { cluster, qdrantUrl } = clusterOf(ns, 'health', 3);
      cluster.createCollection('images', { shardNumber: 2, replicationFactor: 2 });
      const [peer0, peer1] = cluster.members();
      await createPlatform(p);
      await start(newOperator(ns, { qdrantUrl, qdrantPeerUrl: qdrantFleet.peerUrl }));
      const ready = await eventually('Ready with collections', async () => {
        const x = await waitForPhase(ns, 'health', 'Ready');
        return x.status.qdrantCluster?.collections ? x : undefined;
      });
      expect(ready.status.qdrantCluster).toMatchObject({
        reachable: true,
        raftLeader: String(peer0.id),
        consensus: 'working',
        collections: [{ name: 'images', replicationFactor: 2, shards: 2, replicas: { Active: 4 }, transfers: 0 }],
      });
      expect(condition(ready, 'DataAtRisk')).toBeUndefined();

      // The leader's pod dies: a survivor takes over, its replicas are Dead.
      cluster.kill(peer0.id);
      const degraded = await phaseWith(ns, 'health', 'Degraded', 'QdrantShardsUnhealthy');
      expect(degraded.status.message).toBe(`Qdrant: shard 0 of images on peer ${peer0.id} (health-qdrant-0) is Dead`);
      expect(degraded.status.qdrantCluster.raftLeader).toBe(String(peer1.id));
      await eventually('QdrantLeaderChanged Event', async () => {
        const [e] = await eventsWithReason(ns, 'QdrantLeaderChanged');
        return e?.message === `Qdrant Raft leader changed from peer ${peer0.id} (health-qdrant-0) to peer ${peer1.id} (health-qdrant-1) in term 2` ? e : undefined;
      });
    });
  });

  it('replaces a replica that stays Dead: replicated from a healthy copy onto a peer without one, then dropped', async () => {
    await withNamespace('q-repair', async ns => {
      const p = sample(ns, 'repair');
      p.spec.qdrant.replicas = 3;
      p.spec.inference.replicas = 1;
      const { cluster, qdrantUrl } = clusterOf(ns, 'repair', 3);
      // Shard 0 on peers 0 and 1, shard 1 on peers 1 and 2.
      cluster.createCollection('images', { shardNumber: 2, replicationFactor: 2 });
      const [peer0, peer1, peer2] = cluster.members();
      await createPlatform(p);
      await start(newOperator(ns, { qdrantUrl, qdrantPeerUrl: qdrantFleet.peerUrl, deadReplicaGraceMs: 1000 }));
      await waitForPhase(ns, 'repair', 'Ready');

      // Peer 2 is lost for good (peer 1 plays the Service): its replicas are Dead.
      cluster.kill(peer2.id);
      const holders = (shard: number) =>
        [...cluster.collections.get('images')!.shards.get(shard)!].map(([id, r]) => `${id}:${r.state}`).sort();
      const healthy = [`${peer0.id}:Active`, `${peer1.id}:Active`].sort();
      await eventually('shard 1 back at two Active copies, the Dead one dropped', async () =>
        JSON.stringify([holders(0), holders(1)]) === JSON.stringify([healthy, healthy]),
      );
      const repairs = await eventually('RepairingShards Events', async () => {
        const es = await eventsWithReason(ns, 'RepairingShards');
        return es.length >= 2 ? es.map((e: any) => e.message).sort() : undefined;
      });
      expect(repairs).toEqual([
        `Repairing Qdrant: drop the Dead replica of shard 1 of images on peer ${peer2.id} (repair-qdrant-2): 2 Active copies remain`,
        `Repairing Qdrant: replicate shard 1 of images from peer ${peer1.id} (repair-qdrant-1) to peer ${peer0.id} (repair-qdrant-0), replacing the Dead replica on peer ${peer2.id} (repair-qdrant-2)`,
      ]);
      // Peer 2 comes back holding nothing of images; the rebalancer gives it its share.
      cluster.revive(peer2.id);
      await waitForPhase(ns, 'repair', 'Ready');
    });
  });

  it('is Degraded without a Raft leader or with a peer no pod backs, and Loading while new peers join', async () => {
    await withNamespace('q-raft', async ns => {
      const p = sample(ns, 'raft');
      p.spec.qdrant.replicas = 2;
      p.spec.inference.replicas = 1;
      const { cluster, qdrantUrl } = clusterOf(ns, 'raft', 2);
      cluster.createCollection('images', { shardNumber: 2, replicationFactor: 1 });
      await createPlatform(p);
      await start(newOperator(ns, { qdrantUrl, qdrantPeerUrl: qdrantFleet.peerUrl }));
      const ready = await waitForPhase(ns, 'raft', 'Ready');
      const leader = cluster.leader;

      // Collections with one copy per shard on two peers: a warning, not a failure.
      const risky = await eventually('DataAtRisk', async () => {
        const x = await getPlatform(ns, 'raft');
        return condition(x, 'DataAtRisk') ? x : undefined;
      });
      expect(condition(risky, 'DataAtRisk')).toMatchObject({ status: 'True', reason: 'ReplicationFactorOne', message: expect.stringMatching(/^collection images keeps one copy of each shard on 2 peers/) });
      expect(risky.status.phase).toBe('Ready');
      expect(ready.metadata.generation).toBe(1);

      cluster.leader = undefined;
      const leaderless = await phaseWith(ns, 'raft', 'Degraded', 'QdrantNoLeader');
      expect(leaderless.status.message).toBe('Qdrant: the Qdrant cluster has no Raft leader');
      cluster.leader = leader;
      await waitForPhase(ns, 'raft', 'Ready');

      // A peer left in Raft by a pod that no longer exists (ordinal 5 of a
      // 2-peer StatefulSet), holding a replica: named, left to a person.
      const stray = cluster.addPeer(peerUri(ns, 'raft', 5));
      const shard0 = cluster.collections.get('images')!.shards.get(0)!;
      shard0.set(stray.id, { state: 'Active', points: new Map() });
      const unbacked = await phaseWith(ns, 'raft', 'Degraded', 'QdrantUnbackedPeers');
      expect(unbacked.status.message).toContain(`peer ${stray.id} (${peerUri(ns, 'raft', 5)})`);
      expect(cluster.members()).toContainEqual(expect.objectContaining({ id: stray.id }));
      // Once it holds nothing, the operator removes it from Raft itself.
      shard0.delete(stray.id);
      await waitForPhase(ns, 'raft', 'Ready');
      await eventually('stray peer removed', async () => !cluster.members().some(m => m.id === stray.id));
      // Events are recorded after the pass's writes: wait for it.
      const removed = await eventually('RemovedQdrantPeer Event', async () => (await eventsWithReason(ns, 'RemovedQdrantPeer'))[0]);
      expect(removed.message).toContain(`Removed peer ${stray.id} (raft-qdrant-5)`);

      // Scaling up: the new pod is ready before its peer has joined Raft.
      await patchPlatform(ns, 'raft', { spec: { qdrant: { replicas: 3 } } });
      const joining = await phaseWith(ns, 'raft', 'Loading', 'QdrantPeersJoining');
      expect(joining.status.message).toBe('waiting for Qdrant peers to join the Raft cluster: 2/3');
      // Progressing, not Degraded.
      expect(condition(joining, 'Progressing')).toMatchObject({ status: 'True', reason: 'QdrantPeersJoining' });
      expect(condition(joining, 'Degraded')).toMatchObject({ status: 'False' });
      cluster.peerFor(peerUri(ns, 'raft', 2));
      const up = await waitForPhase(ns, 'raft', 'Ready');
      expect(up.status.qdrantCluster.peers).toHaveLength(3);
    });
  });

  it('is not Ready while its Qdrant does not answer, and is again once it does', async () => {
    await withNamespace('q-silent', async ns => {
      const p = sample(ns, 'silent');
      p.spec.qdrant.replicas = 2;
      p.spec.inference.replicas = 1;
      const cluster = qdrantFleet.clusterWithPeers(ns, 'silent', 2);
      // The Service answers through whichever member is up; none is.
      for (const m of cluster.members()) cluster.kill(m.id);
      await createPlatform(p);
      await start(newOperator(ns, qdrantFleet.options));
      // Every pod is ready, yet nobody can tell whether the cluster is whole.
      const silent = await phaseWith(ns, 'silent', 'Degraded', 'QdrantUnreachable');
      expect(silent.status.message).toMatch(/^Qdrant: its REST API does not answer the operator: GET http:\/\/127\.0\.0\.1:\d+\/c\/.*\/cluster failed/);
      expect(silent.status).toMatchObject({ qdrantReadyReplicas: 2 });
      expect(condition(silent, 'QdrantClusterReachable')).toMatchObject({ status: 'False', reason: 'ClusterInfoUnavailable' });
      expect(condition(silent, 'Ready')).toMatchObject({ status: 'False' });
      expect(condition(silent, 'Degraded')).toMatchObject({ status: 'True', reason: 'QdrantUnreachable' });
      expect(condition(silent, 'Progressing')).toMatchObject({ status: 'False', reason: 'Blocked' });

      for (const m of cluster.members()) cluster.revive(m.id);
      const back = await waitForPhase(ns, 'silent', 'Ready');
      expect(condition(back, 'QdrantClusterReachable')).toMatchObject({ status: 'True' });
      expect(condition(back, 'Degraded')).toMatchObject({ status: 'False', reason: 'AsExpected' });
      expect(condition(back, 'Progressing')).toMatchObject({ status: 'False', reason: 'Converged' });
    });
  });

  it('asks a settled platform\'s Qdrant again every TTL without a pass, and passes once the answer changes', async () => {
    await withNamespace('q-look', async ns => {
      const p = sample(ns, 'look');
      p.spec.qdrant.replicas = 1;
      p.spec.inference.replicas = 1;
      const { cluster, qdrantUrl } = clusterOf(ns, 'look', 1);
      let asked = 0;
      const counted = () => {
        asked++;
        return qdrantUrl();
      };
      await createPlatform(p);
      // The test environment's TTL is 1 s.
      const op = await start(newOperator(ns, { qdrantUrl: counted, qdrantPeerUrl: qdrantFleet.peerUrl }));
      await waitForPhase(ns, 'look', 'Ready');
      const [askedBefore, passesBefore] = [asked, op.reconciles];
      await eventually('Qdrant asked 4 more times', async () => asked - askedBefore >= 4);
      // Each answer was the same: no pass needed it (a pass per look was the old cost).
      expect(op.reconciles - passesBefore).toBeLessThan(asked - askedBefore - 1);

      cluster.createCollection('images', { shardNumber: 1, replicationFactor: 1 });
      const seen = await eventually('the new collection in the status', async () => {
        const x = await getPlatform(ns, 'look');
        return x.status?.qdrantCluster?.collections?.length ? x : undefined;
      });
      expect(seen.status.qdrantCluster.collections).toEqual([expect.objectContaining({ name: 'images', shards: 1 })]);
    });
  });

  it('rolls the inference servers after a leader change only with onLeaderChange: RestartInference', async () => {
    await withNamespace('q-leader', async ns => {
      const deployment = async (name: string) => (await get(`/apis/apps/v1/namespaces/${ns}/deployments/${name}-inference`)).body;
      const setUp = async (name: string, policy?: 'RestartInference') => {
        const p = sample(ns, name);
        p.spec.qdrant.replicas = 3;
        p.spec.inference.replicas = 2;
        if (policy) p.spec.qdrant.onLeaderChange = policy;
        const { cluster, qdrantUrl } = clusterOf(ns, name, 3);
        await createPlatform(p);
        return { cluster, qdrantUrl };
      };
      const restarting = await setUp('restart', 'RestartInference');
      const ignoring = await setUp('ignore');
      await start(newOperator(ns, { qdrantUrl: p => (p.metadata.name === 'restart' ? restarting : ignoring).qdrantUrl(), qdrantPeerUrl: qdrantFleet.peerUrl }));
      await waitForPhase(ns, 'restart', 'Ready');
      await waitForPhase(ns, 'ignore', 'Ready');
      await eventually('term 1 remembered', async () => (await deployment('restart')).metadata.annotations?.['cv.platform.tech/qdrant-leader-term'] === '1');
      const before = { restart: await deployment('restart'), ignore: await deployment('ignore') };
      expect(before.restart.spec.template.metadata.annotations?.['cv.platform.tech/restarted-for-leader-term']).toBeUndefined();

      for (const { cluster } of [restarting, ignoring]) cluster.kill(cluster.leader!);
      const rolled = await eventually('restart rolled', async () => {
        const d = await deployment('restart');
        return d.spec.template.metadata.annotations?.['cv.platform.tech/restarted-for-leader-term'] === '2' ? d : undefined;
      });
      expect(rolled.spec.strategy.rollingUpdate).toEqual({ maxUnavailable: 0, maxSurge: 1 });
      expect(rolled.metadata.annotations['cv.platform.tech/qdrant-leader-term']).toBe('2');
      await eventually('ignore saw the new leader', async () => (await getPlatform(ns, 'ignore')).status?.qdrantCluster?.raftTerm === 2);
      const ignored = await deployment('ignore');
      expect(ignored.spec.template).toEqual(before.ignore.spec.template);
      expect(ignored.metadata.generation).toBe(before.ignore.metadata.generation);
    });
  });
});
