import { BACKUP_REQUESTED_ANNOTATION, InferencePlatform } from '@cv-platform/inference-platform-api';
import { S3TestServer } from '@cv-platform/local-cluster';
import {
  api,
  condition,
  createPlatform,
  eventually,
  eventsWithReason,
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
 * Backups and restores of a platform's Qdrant, against the cluster test
 * double (snapshots per peer, recovery by URL with checksum, shapes from the
 * recorded real-Qdrant answers) and a real S3-compatible server.
 */
jest.setTimeout(180_000);
const start = operatorsStoppedAfterEach();
const s3 = new S3TestServer();

// The first run on a machine builds versitygw from the Go module proxy.
beforeAll(async () => {
  await s3.start();
  await s3.putObjects('backups', {});
}, 900_000);
afterAll(() => s3.stop());

function platform(ns: string, name: string, schedule = '0 3 * * *', retentionCount = 7): InferencePlatform {
  const p = sample(ns, name);
  p.spec.qdrant.replicas = 3;
  p.spec.inference.replicas = 1;
  p.spec.qdrant.backup = {
    schedule,
    retention: { count: retentionCount },
    s3: { bucket: 'backups', prefix: 'qdrant', endpoint: s3.endpoint, credentialsSecretRef: { name: 'backup-store' } },
  };
  return p;
}

async function secret(ns: string, secretAccessKey = s3.secretAccessKey) {
  const res = await api.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'backup-store' },
    stringData: { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey },
  });
  expect(res.status).toBe(201);
}

/** A 3-peer cluster with an RF 2 and an RF 1 collection holding points. */
function seededCluster(ns: string, name: string) {
  const cluster = qdrantFleet.clusterWithPeers(ns, name, 3);
  cluster.createCollection('images', { shardNumber: 3, replicationFactor: 2, size: 4 });
  cluster.createCollection('rf1', { shardNumber: 3, replicationFactor: 1, size: 4 });
  return cluster;
}

async function upsert(url: string, collection: string, ids: number[]) {
  const res = await fetch(`${url}/collections/${collection}/points`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ points: ids.map(id => ({ id, vector: [id, 1, 0, 0], payload: { n: id } })) }),
  });
  expect(res.status).toBe(200);
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

async function requestBackup(ns: string, name: string, at: string) {
  await patchPlatform(ns, name, { metadata: { annotations: { [BACKUP_REQUESTED_ANNOTATION]: at } } });
}

async function historyWith(ns: string, name: string, n: number) {
  return eventually(`${n} backup(s) recorded`, async () => {
    const p = await getPlatform(ns, name);
    const h = p.status?.backup?.history ?? [];
    return h.length >= n && !p.status.backup.running ? p : undefined;
  });
}

const keys = (prefix: string) => s3.listKeys('backups', prefix);

const restorePath = (ns: string, name = '') =>
  `/apis/cv.platform.tech/v1alpha1/namespaces/${ns}/inferenceplatformrestores${name ? `/${name}` : ''}`;

async function restore(ns: string, name: string, platformName: string, backupId: string, phase: 'Succeeded' | 'Failed') {
  const res = await api.request('POST', restorePath(ns), {
    apiVersion: 'cv.platform.tech/v1alpha1',
    kind: 'InferencePlatformRestore',
    metadata: { name },
    spec: { platformName, backupId },
  });
  expect(res.status).toBe(201);
  return eventually(`restore ${name} ${phase}`, async () => {
    const r = (await api.request('GET', restorePath(ns, name))).body;
    if (r.status?.phase === 'Failed' && phase !== 'Failed') throw new Error(`restore failed: ${r.status.message}`);
    return r.status?.phase === phase ? r : undefined;
  });
}

/** "shard@pod" of every replica, to compare layouts across peer ids. */
function placement(cluster: ReturnType<typeof seededCluster>, collection: string): string[] {
  const podOf = new Map(cluster.members().map(p => [p.id, /\/\/([^.]+)/.exec(p.uri)![1]]));
  return [...cluster.collections.get(collection)!.shards]
    .flatMap(([shard, replicas]) => [...replicas.keys()].map(id => `${shard}@${podOf.get(id)}`))
    .sort();
}

describe('Qdrant backups and restores', () => {
  it('backs up every collection on every peer to S3 on request, restores a deleted collection with its layout and points', async () => {
    await withNamespace('q-backup', async ns => {
      await secret(ns);
      const cluster = seededCluster(ns, 'bk');
      const peer0 = cluster.urlOf(cluster.members()[0]);
      await upsert(peer0, 'images', range(200));
      await upsert(peer0, 'rf1', range(90));
      const layout = placement(cluster, 'images');
      await createPlatform(platform(ns, 'bk'));
      await start(newOperator(ns, qdrantFleet.options));
      const ready = await waitForPhase(ns, 'bk', 'Ready');
      expect(ready.status.backup.nextScheduleTime).toMatch(/T03:00:00Z$/);

      await requestBackup(ns, 'bk', '2026-12-04T08:00:00Z');
      const backedUp = await historyWith(ns, 'bk', 1);
      const [record] = backedUp.status.backup.history;
      expect(record).toMatchObject({ trigger: 'Manual', result: 'Succeeded', location: `s3://backups/qdrant/${ns}/bk/${record.id}/` });
      expect(backedUp.status.backup.lastRequestHandled).toBe('2026-12-04T08:00:00Z');
      expect(backedUp.status.backup.lastSuccessfulTime).toBe(record.completionTime);
      expect(record.collections.map((c: any) => [c.name, c.points, c.snapshots.length])).toEqual([
        ['images', 200, 3],
        ['rf1', 90, 3],
      ]);
      // Each snapshot carries the shards its peer holds: together, every replica.
      const images = record.collections[0];
      expect(images.snapshots.flatMap((s: any) => s.shards.map((x: number) => `${x}@${s.pod}`)).sort()).toEqual(layout);
      for (const s of images.snapshots) expect(s.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(await keys(`qdrant/${ns}/bk/${record.id}/`)).toEqual(
        [
          'manifest.json',
          ...['images', 'rf1'].flatMap(c => [0, 1, 2].map(i => `${c}/bk-qdrant-${i}.snapshot`)),
        ].map(k => `qdrant/${ns}/bk/${record.id}/${k}`).sort(),
      );
      // Snapshots do not stay on the peers' disks.
      for (const peer of cluster.members()) {
        const listed = await (await fetch(`${cluster.urlOf(peer)}/collections/images/snapshots`)).json();
        expect(listed.result).toEqual([]);
      }
      expect(condition(backedUp, 'BackupSucceeded')).toMatchObject({ status: 'True', reason: 'BackupCompleted' });
      expect(backedUp.status.phase).toBe('Ready');
      const [event] = await eventsWithReason(ns, 'BackupSucceeded');
      expect(event.message).toContain(`Backup ${record.id} to s3://backups/qdrant/${ns}/bk/${record.id}/`);

      // Lose a collection and change the other; restore both.
      await fetch(`${peer0}/collections/images`, { method: 'DELETE' });
      await upsert(peer0, 'rf1', range(200).map(i => i + 1000));
      expect(cluster.pointCount('rf1')).toBe(290);
      const done = await restore(ns, 'bk-restore', 'bk', record.id, 'Succeeded');
      expect(done.status.collections).toEqual([
        { name: 'images', points: 200, pointsInBackup: 200 },
        { name: 'rf1', points: 90, pointsInBackup: 90 },
      ]);
      expect(done.status.message).toBe('restored images (200 points, 200 in the backup), rf1 (90 points, 90 in the backup)');
      expect(placement(cluster, 'images')).toEqual(layout);
      expect(cluster.collections.get('images')!.replicationFactor).toBe(2);
      await eventually('RestoreSucceeded Event', async () => (await eventsWithReason(ns, 'RestoreSucceeded'))[0]);

      // An id that is not a backup fails with the reason, and nothing changes.
      const failed = await restore(ns, 'bk-nope', 'bk', '20200101-000000', 'Failed');
      expect(failed.status.message).toBe(`backup 20200101-000000 not found: no s3://backups/qdrant/${ns}/bk/20200101-000000/manifest.json`);
      expect(cluster.pointCount('images')).toBe(200);
    });
  });

  it('takes scheduled backups, keeps only what retention allows, and records failures without stopping', async () => {
    await withNamespace('q-sched', async ns => {
      await secret(ns);
      const cluster = seededCluster(ns, 'sched');
      await upsert(cluster.urlOf(cluster.members()[0]), 'images', range(10));
      await createPlatform(platform(ns, 'sched', '* * * * *', 2));
      await start(newOperator(ns, qdrantFleet.options));
      await waitForPhase(ns, 'sched', 'Ready');
      // The first minute after the platform was created.
      const scheduled = await historyWith(ns, 'sched', 1);
      expect(scheduled.status.backup.history[0]).toMatchObject({ trigger: 'Scheduled', result: 'Succeeded' });
      const { lastScheduleTime, history } = scheduled.status.backup;
      expect(lastScheduleTime).toMatch(/:00Z$/);
      expect(Date.parse(lastScheduleTime)).toBeLessThanOrEqual(Date.parse(history[0].startTime));
      // Suspended: no more scheduled runs, requests still run.
      await patchPlatform(ns, 'sched', { spec: { backup: { suspend: true } } });
      await eventually('no next run while suspended', async () => !(await getPlatform(ns, 'sched')).status.backup.nextScheduleTime);
      // Backup ids are start times to the second: requests a second apart.
      for (const [i, at] of ['2026-12-04T09:00:00Z', '2026-12-04T09:00:01Z'].entries()) {
        await new Promise(r => setTimeout(r, 1100));
        await requestBackup(ns, 'sched', at);
        await historyWith(ns, 'sched', 2 + i);
      }
      const p = await getPlatform(ns, 'sched');
      const ids = p.status.backup.history.slice(0, 2).map((r: any) => r.id).sort();
      const folders = [...new Set((await keys(`qdrant/${ns}/sched/`)).map(k => k.split('/')[3]))].sort();
      expect(folders).toEqual(ids);

      // Wrong credentials: the backup fails, is recorded, and the platform stays Ready.
      await api.request('PUT', `/api/v1/namespaces/${ns}/secrets/backup-store`, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'backup-store' },
        stringData: { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: 'wrong' },
      });
      await new Promise(r => setTimeout(r, 1100));
      await requestBackup(ns, 'sched', '2026-12-04T09:00:02Z');
      const failed = await eventually('a failed backup', async () => {
        const x = await getPlatform(ns, 'sched');
        return x.status.backup.history[0]?.result === 'Failed' ? x : undefined;
      });
      expect(condition(failed, 'BackupSucceeded')).toMatchObject({ status: 'False', reason: 'BackupFailed' });
      expect(failed.status.phase).toBe('Ready');
      await eventually('BackupFailed Event', async () => (await eventsWithReason(ns, 'BackupFailed'))[0]);
    });
  });
});
