import type { RestoredCollection } from '@cv-platform/inference-platform-api';
import { podOfPeerUri, podOrdinal } from '../qdrant/observeCluster';
import { CollectionLayout } from '../qdrant/QdrantPeerClient';
import { BackupStore } from './BackupStore';
import { BackupCollection, BackupManifest, BackupTarget, QdrantAccess } from './takeBackup';

export interface RestoreOptions {
  /** Only these collections (default: all in the backup). */
  collections?: string[];
  /** Progress for status.message. */
  progress: (message: string) => Promise<void> | void;
  /** How long Qdrant may take to settle (transfers, replica syncs) after each step. */
  settleTimeoutMs?: number;
  pollMs?: number;
  signal?: AbortSignal;
}

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

/** The body that creates the collection again as it was backed up. */
function createBody(c: BackupCollection) {
  const p = c.params;
  return {
    vectors: p.vectors,
    ...(p.sparse_vectors ? { sparse_vectors: p.sparse_vectors } : {}),
    shard_number: p.shard_number,
    replication_factor: p.replication_factor,
    write_consistency_factor: p.write_consistency_factor,
    on_disk_payload: p.on_disk_payload,
    ...(c.hnswConfig ? { hnsw_config: c.hnswConfig } : {}),
    ...(c.optimizersConfig ? { optimizers_config: c.optimizersConfig } : {}),
    ...(c.quantizationConfig ? { quantization_config: c.quantizationConfig } : {}),
  };
}

/** Problems that keep Qdrant from being settled: transfers in flight, replicas not Active. */
function unsettled(layout: CollectionLayout): string | undefined {
  if (layout.transfers.length) return `${layout.transfers.length} shard transfer(s) in flight`;
  const notActive = layout.replicas.filter(r => r.state !== 'Active');
  return notActive.length ? `replica(s) ${notActive.map(r => `${r.shard}@${r.peerId} ${r.state}`).join(', ')}` : undefined;
}

/**
 * Recovers collections from a backup. Each snapshot carries the shards its
 * peer held, so the collection is first laid out as it was (a missing one is
 * created with the backed-up config, then replicas are added and dropped
 * until every shard sits on the peers of the same ordinals), then each
 * snapshot is recovered on the peer of its ordinal with priority `snapshot`
 * (the backup wins; Qdrant syncs the other replicas from it). A snapshot
 * whose shards earlier ones already restored is skipped: its replicas were
 * synced from them. Re-running it is safe: every step converges.
 */
export async function restoreBackup(
  q: QdrantAccess,
  store: BackupStore,
  t: BackupTarget,
  manifest: BackupManifest,
  o: RestoreOptions,
): Promise<RestoredCollection[]> {
  const wanted = o.collections?.length ? o.collections : manifest.collections.map(c => c.name);
  const unknown = wanted.filter(n => !manifest.collections.some(c => c.name === n));
  if (unknown.length) {
    throw new Error(`backup ${manifest.id} holds no collection ${unknown.join(', ')} (it holds ${manifest.collections.map(c => c.name).join(', ') || 'none'})`);
  }
  const needed = Math.max(0, ...manifest.collections.flatMap(c => c.snapshots.map(s => podOrdinal(s.pod) + 1)));
  if (needed > t.replicas) {
    throw new Error(`backup ${manifest.id} was taken on ${manifest.peers} Qdrant peer(s) and has snapshots up to ${t.statefulSet}-${needed - 1}; the platform runs ${t.replicas}: scale spec.qdrant.replicas to ${needed} first`);
  }
  const url0 = q.peerUrl(`${t.statefulSet}-0`);
  const clustered = t.replicas > 1;
  const peerIdOf = new Map<string, string>();
  if (clustered) {
    const cluster = await q.peers.cluster(url0, q.apiKey);
    if (!cluster.leader) throw new Error('Qdrant has no Raft leader');
    for (const [id, uri] of Object.entries(cluster.peers)) {
      const pod = podOfPeerUri(uri);
      if (pod) peerIdOf.set(pod, id);
    }
  }
  const settle = async (name: string, what: string) => {
    if (!clustered) return;
    const deadline = Date.now() + (o.settleTimeoutMs ?? 10 * 60_000);
    for (;;) {
      const why = unsettled(await q.peers.layout(url0, name, q.apiKey));
      if (!why) return;
      if (Date.now() > deadline) throw new Error(`${name}: Qdrant did not settle after ${what}: ${why}`);
      if (o.signal?.aborted) throw new Error('restore stopped');
      await sleep(o.pollMs ?? 500);
    }
  };
  const results: RestoredCollection[] = [];
  for (const c of manifest.collections.filter(x => wanted.includes(x.name))) {
    if (await q.peers.collectionExists(url0, c.name, q.apiKey)) {
      const info = await q.peers.collectionInfo(url0, c.name, q.apiKey);
      const shards = info?.config?.params?.shard_number;
      if (shards !== c.params.shard_number) {
        throw new Error(`collection ${c.name} has ${shards} shard(s), the backup ${c.params.shard_number}: delete the collection first to restore it`);
      }
    } else {
      await o.progress(`creating collection ${c.name} as backed up`);
      await q.peers.createCollection(url0, c.name, createBody(c), q.apiKey);
      for (const [field, schema] of Object.entries(c.payloadSchema ?? {})) {
        await q.peers.createPayloadIndex(url0, c.name, field, schema?.params ?? schema?.data_type ?? schema, q.apiKey);
      }
    }
    if (clustered) await placeAsBackedUp(q, c, peerIdOf, url0, o, settle);
    const covered = new Set<number>();
    const snapshots = [...c.snapshots].sort((a, b) => a.pod.localeCompare(b.pod, 'en', { numeric: true }));
    for (const [i, s] of snapshots.entries()) {
      if (s.shards.length && s.shards.every(x => covered.has(x))) continue;
      await o.progress(`recovering ${c.name} on ${s.pod} (${i + 1}/${snapshots.length})`);
      const location = await store.presignedGet(s.key);
      await q.peers.recoverSnapshot(q.peerUrl(s.pod), c.name, { location, checksum: s.checksum, priority: 'snapshot' }, q.apiKey);
      for (const x of s.shards) covered.add(x);
      await settle(c.name, `recovering ${s.pod}'s snapshot`);
    }
    results.push({ name: c.name, points: await q.peers.countPoints(url0, c.name, q.apiKey), pointsInBackup: c.points });
  }
  return results;
}

/** Adds and drops replicas until every shard sits on the peers (by ordinal) whose snapshots carry it. */
async function placeAsBackedUp(
  q: QdrantAccess,
  c: BackupCollection,
  peerIdOf: Map<string, string>,
  url0: string,
  o: RestoreOptions,
  settle: (name: string, what: string) => Promise<void>,
) {
  const target = new Map<number, Set<string>>();
  for (const s of c.snapshots) {
    const id = peerIdOf.get(s.pod);
    if (!id) throw new Error(`${s.pod} is not a member of the Qdrant cluster`);
    for (const shard of s.shards) target.set(shard, new Set([...(target.get(shard) ?? []), id]));
  }
  await settle(c.name, 'creating it');
  const current = (layout: CollectionLayout, shard: number) => layout.replicas.filter(r => r.shard === shard).map(r => r.peerId);
  let layout = await q.peers.layout(url0, c.name, q.apiKey);
  let added = 0;
  for (const [shard, peers] of target) {
    const now = current(layout, shard);
    for (const to of peers) {
      if (now.includes(to)) continue;
      await q.peers.operate(url0, c.name, { replicate_shard: { shard_id: shard, from_peer_id: Number(now[0]), to_peer_id: Number(to) } }, q.apiKey);
      added++;
    }
  }
  if (added) {
    await o.progress(`placing ${c.name}'s shards as backed up (${added} replica(s) added)`);
    await settle(c.name, 'adding replicas');
    layout = await q.peers.layout(url0, c.name, q.apiKey);
  }
  for (const [shard, peers] of target) {
    for (const peer of current(layout, shard)) {
      if (peers.has(peer)) continue;
      await q.peers.operate(url0, c.name, { drop_replica: { shard_id: shard, peer_id: Number(peer) } }, q.apiKey);
    }
  }
  await settle(c.name, 'dropping replicas');
}
