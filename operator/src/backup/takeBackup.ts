import { rfc3339Seconds } from '../kube/rfc3339Seconds';
import type { BackupRecord, BackupSnapshot } from '@cv-platform/inference-platform-api';
import { Logger } from '../logger';
import { podOfPeerUri, podOrdinal } from '../qdrant/observeCluster';
import { QdrantDownload, QdrantError, QdrantPeerClient } from '../qdrant/QdrantPeerClient';
import { BackupStore } from './BackupStore';

/** What a backup's folder holds besides its snapshots: enough to restore without the platform's status. */
export interface BackupManifest {
  version: 1;
  id: string;
  platform: { namespace: string; name: string };
  trigger: 'Scheduled' | 'Manual';
  startTime: string;
  completionTime: string;
  /** Qdrant peers when the backup was taken; each snapshot names its pod. */
  peers: number;
  collections: BackupCollection[];
}

export interface BackupCollection {
  name: string;
  points: number;
  /** `config.params` of GET /collections/{c}: vectors, shard_number, replication_factor, ... */
  params: Record<string, any>;
  hnswConfig?: unknown;
  optimizersConfig?: unknown;
  quantizationConfig?: unknown;
  /** Payload indexes, as GET /collections/{c} lists them. */
  payloadSchema: Record<string, any>;
  snapshots: BackupSnapshot[];
}

export interface BackupTarget {
  namespace: string;
  platform: string;
  statefulSet: string;
  /** Peers the StatefulSet runs (ordinals 0..replicas-1). */
  replicas: number;
}

/** @public */
export interface QdrantAccess {
  peers: QdrantPeerClient;
  download: QdrantDownload;
  /** A peer's REST URL by pod name. */
  peerUrl: (pod: string) => string;
  apiKey?: string;
  logger: Logger;
}

/**
 * Which pod holds which Active shards of a collection. A single peer (cluster
 * mode off) holds every shard.
 */
export async function activeShardsByPod(q: QdrantAccess, t: BackupTarget, collection: string, shardNumber: number) {
  const url0 = q.peerUrl(`${t.statefulSet}-0`);
  const byPod = new Map<string, number[]>();
  if (t.replicas === 1) {
    byPod.set(`${t.statefulSet}-0`, Array.from({ length: shardNumber }, (_, i) => i));
    return { byPod, peerIdOf: new Map<string, string>() };
  }
  const cluster = await q.peers.cluster(url0, q.apiKey);
  if (!cluster.leader) throw new Error('Qdrant has no Raft leader');
  const podOf = new Map(Object.entries(cluster.peers).map(([id, uri]) => [id, podOfPeerUri(uri)]));
  const peerIdOf = new Map([...podOf].filter(([, pod]) => pod).map(([id, pod]) => [pod!, id]));
  const layout = await q.peers.layout(url0, collection, q.apiKey);
  if (layout.transfers.length) {
    throw new Error(`collection ${collection} has ${layout.transfers.length} shard transfer(s) in flight`);
  }
  for (const r of layout.replicas) {
    if (r.state !== 'Active') continue;
    const pod = podOf.get(r.peerId);
    if (!pod) throw new Error(`peer ${r.peerId} holding shard ${r.shard} of ${collection} has no pod`);
    byPod.set(pod, [...(byPod.get(pod) ?? []), r.shard]);
  }
  const covered = new Set([...byPod.values()].flat());
  const missing = Array.from({ length: layout.shardCount }, (_, i) => i).filter(s => !covered.has(s));
  if (missing.length) throw new Error(`shard(s) ${missing.join(', ')} of ${collection} have no Active replica`);
  return { byPod, peerIdOf };
}


/**
 * Snapshots every collection on every peer that holds an Active replica of
 * one of its shards (a collection snapshot carries only the asking peer's
 * shards), streams each snapshot to the bucket as soon as it exists (Qdrant
 * may remove the file again), checks its SHA-256, deletes it from the peer,
 * and writes the manifest last. A failure removes what was uploaded.
 */
export async function takeBackup(
  q: QdrantAccess,
  store: BackupStore,
  t: BackupTarget,
  id: string,
  trigger: 'Scheduled' | 'Manual',
  now: () => Date,
): Promise<BackupRecord> {
  const seconds = () => rfc3339Seconds(now());
  const startTime = seconds();
  const folder = `${store.platformFolder(t.namespace, t.platform)}${id}/`;
  const url0 = q.peerUrl(`${t.statefulSet}-0`);
  const headers: Record<string, string> = q.apiKey ? { 'api-key': q.apiKey } : {};
  const collections: BackupCollection[] = [];
  try {
    for (const name of await q.peers.collections(url0, q.apiKey)) {
      const info = await q.peers.collectionInfo(url0, name, q.apiKey);
      const params = info?.config?.params ?? {};
      const { byPod } = await activeShardsByPod(q, t, name, params.shard_number ?? 1);
      const points = await q.peers.countPoints(url0, name, q.apiKey);
      const snapshots: BackupSnapshot[] = [];
      for (const pod of [...byPod.keys()].sort((a, b) => podOrdinal(a) - podOrdinal(b))) {
        const url = q.peerUrl(pod);
        const snap = await q.peers.createSnapshot(url, name, q.apiKey);
        const key = `${folder}${name}/${pod}.snapshot`;
        try {
          const body = await q.download({ url: q.peers.snapshotUrl(url, name, snap.name), headers });
          const size = await store.upload(key, body, snap.checksum);
          snapshots.push({ pod, shards: byPod.get(pod)!.sort((a, b) => a - b), key, size, checksum: snap.checksum });
        } finally {
          // The peer's disk is not the backup; a snapshot left there only fills it.
          await q.peers.deleteSnapshot(url, name, snap.name, q.apiKey).catch(e =>
            q.logger.warn('Could not delete a Qdrant snapshot from its peer', { pod, collection: name, snapshot: snap.name, error: String(e) }),
          );
        }
      }
      collections.push({
        name,
        points,
        params,
        hnswConfig: info?.config?.hnsw_config,
        optimizersConfig: info?.config?.optimizer_config,
        quantizationConfig: info?.config?.quantization_config ?? undefined,
        payloadSchema: info?.payload_schema ?? {},
        snapshots,
      });
    }
    const manifest: BackupManifest = {
      version: 1,
      id,
      platform: { namespace: t.namespace, name: t.platform },
      trigger,
      startTime,
      completionTime: seconds(),
      peers: t.replicas,
      collections,
    };
    await store.putJson(`${folder}manifest.json`, manifest);
    return {
      id,
      trigger,
      startTime,
      completionTime: manifest.completionTime,
      result: 'Succeeded',
      location: store.location(folder),
      sizeBytes: collections.reduce((n, c) => n + c.snapshots.reduce((m, s) => m + s.size, 0), 0),
      collections: collections.map(c => ({ name: c.name, points: c.points, snapshots: c.snapshots })),
      message: `${collections.length} collection(s), ${collections.reduce((n, c) => n + c.snapshots.length, 0)} snapshot(s)`,
    };
  } catch (e) {
    await store.deleteFolder(folder).catch(() => undefined);
    throw e instanceof QdrantError ? new Error(`Qdrant: ${e.message}`) : e;
  }
}

/**
 * Deletes the backups retention no longer keeps: beyond the newest `count`
 * (default 7) or older than `maxAgeMs`; never `keep` (the one just taken).
 * Folders without a manifest (a backup cut short by a crash) go once a day old.
 */
export async function pruneBackups(
  store: BackupStore,
  folder: string,
  retention: { count?: number; maxAgeMs?: number },
  keep: string,
  now: Date,
): Promise<string[]> {
  const ids = (await store.folders(folder)).sort().reverse();
  const deleted: string[] = [];
  let kept = 0;
  for (const id of ids) {
    const manifest = await store.getJson<BackupManifest>(`${folder}${id}/manifest.json`);
    const started = Date.parse(manifest?.startTime ?? '') || idTime(id);
    const age = now.getTime() - started;
    let remove: boolean;
    if (id === keep) remove = false;
    else if (!manifest) remove = age > 86_400_000;
    else remove = kept >= (retention.count ?? 7) || (retention.maxAgeMs !== undefined && age > retention.maxAgeMs);
    if (manifest && !remove) kept++;
    if (remove) {
      await store.deleteFolder(`${folder}${id}/`);
      deleted.push(id);
    }
  }
  return deleted;
}

/** 20261204-081507 -> its time (ms); NaN-safe 0 for other names. */
function idTime(id: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})/.exec(id);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : 0;
}
