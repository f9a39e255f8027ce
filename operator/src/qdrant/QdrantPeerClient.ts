import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';

/**
 * One HTTP call to a Qdrant peer's REST API: the answer's status and parsed body.
 *
 * @public
 */
export type QdrantRequest = (call: {
  method: string;
  url: string;
  body?: unknown;
  headers: Record<string, string>;
  timeoutMs: number;
}) => Promise<{ status: number; body: any }>;

// Keep-alive pools: every platform's cluster state is read again each minute,
// and node's http client costs a fraction of fetch's CPU per call.
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

/** Straight to the peer's address: an operator running inside the cluster. */
export const directQdrantRequest: QdrantRequest = ({ method, url, body, headers, timeoutMs }) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const secure = target.protocol === 'https:';
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(Object.assign(new Error(`no answer in ${timeoutMs} ms`), { code: 'ETIMEDOUT' })), timeoutMs);
    // The transport error (or the timeout) is the cause: callers name its code (ECONNREFUSED, ENOTFOUND, ETIMEDOUT).
    const fail = (e: Error) => {
      clearTimeout(timer);
      const reason: Error = abort.signal.aborted ? abort.signal.reason : e;
      reject(new Error(reason.message, { cause: reason }));
    };
    const req = (secure ? https : http).request(
      target,
      {
        method,
        signal: abort.signal,
        agent: agents[secure ? 'https:' : 'http:'],
        headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      res => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', fail);
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
          } catch {
            // plain-text answers (health endpoints, some errors)
            resolve({ status: res.statusCode ?? 0, body: text });
          }
        });
      },
    );
    req.on('error', fail);
    req.end(payload);
  });

/** A Qdrant answer other than 2xx, or no answer at all (status 0). */
export class QdrantError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/**
 * Streams one file (a snapshot) from a peer.
 *
 * @public
 */
export type QdrantDownload = (call: { url: string; headers: Record<string, string>; signal?: AbortSignal }) => Promise<Readable>;

/** Straight from the peer's address. */
export const directQdrantDownload: QdrantDownload = async ({ url, headers, signal }) => {
  const res = await fetch(url, { headers, signal });
  if (!res.ok || !res.body) {
    throw new QdrantError(res.status, `GET ${new URL(url).pathname} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  }
  return Readable.fromWeb(res.body as any);
};

/** @public */
export type ShardState = 'Active' | 'Partial' | 'Dead' | 'Initializing' | 'Listener' | 'PartialSnapshot' | 'Recovery' | 'Resharding' | 'ReshardingScaleDown';

/**
 * `GET /cluster` as one peer sees it (Qdrant's OpenAPI `ClusterStatus`, cluster mode on).
 *
 * @public
 */
export interface PeerClusterStatus {
  peerId: string;
  /** Raft members: each peer id mapped to the p2p URI it announced. */
  peers: Record<string, string>;
  leader?: string;
  role?: string;
  term: number;
  commit: number;
  pendingOperations: number;
  consensusThread: string;
  consensusError?: string;
}

/** @public */
export interface ShardReplica {
  shard: number;
  peerId: string;
  state: ShardState;
}

/** @public */
export interface ShardTransfer {
  shard: number;
  from: string;
  to: string;
}

/**
 * `GET /collections/{c}/cluster`: where every replica of every shard is, and what moves.
 *
 * @public
 */
export interface CollectionLayout {
  shardCount: number;
  replicas: ShardReplica[];
  transfers: ShardTransfer[];
}

/**
 * A snapshot file as Qdrant lists it (`SnapshotDescription`).
 *
 * @public
 */
export interface SnapshotDescription {
  name: string;
  creationTime?: string;
  size: number;
  checksum: string;
}

/** How long a snapshot or a recovery may take (Qdrant answers when done, `wait=true`). */
export const SNAPSHOT_TIMEOUT_MS = 30 * 60_000;

/** @public */
export type ClusterOperation =
  | { move_shard: { shard_id: number; from_peer_id: number; to_peer_id: number } }
  | { replicate_shard: { shard_id: number; from_peer_id: number; to_peer_id: number } }
  | { drop_replica: { shard_id: number; peer_id: number } };

/**
 * Qdrant's cluster-administration REST calls against one peer. Peer ids are
 * below 2^53 (Qdrant keeps them so), exact as JSON numbers; they are kept as
 * strings here, as status shows them.
 *
 * @public
 */
export class QdrantPeerClient {
  constructor(
    private readonly request: QdrantRequest,
    private readonly timeoutMs = 5000,
  ) {}

  async cluster(url: string, apiKey?: string): Promise<PeerClusterStatus> {
    const r = await this.call('GET', url, '/cluster', undefined, apiKey);
    if (r.status !== 'enabled') throw new QdrantError(200, 'cluster mode is disabled on this peer');
    const consensus = r.consensus_thread_status ?? {};
    return {
      peerId: String(r.peer_id),
      peers: Object.fromEntries(Object.entries(r.peers ?? {}).map(([id, v]: [string, any]) => [id, String(v.uri)])),
      leader: r.raft_info?.leader === null || r.raft_info?.leader === undefined ? undefined : String(r.raft_info.leader),
      role: r.raft_info?.role ?? undefined,
      term: r.raft_info?.term ?? 0,
      commit: r.raft_info?.commit ?? 0,
      pendingOperations: r.raft_info?.pending_operations ?? 0,
      consensusThread: consensus.consensus_thread_status ?? 'unknown',
      ...(consensus.err ? { consensusError: String(consensus.err) } : {}),
    };
  }

  async collections(url: string, apiKey?: string): Promise<string[]> {
    const r = await this.call('GET', url, '/collections', undefined, apiKey);
    return (r.collections ?? []).map((c: any) => String(c.name)).sort();
  }

  async replicationFactor(url: string, collection: string, apiKey?: string): Promise<number> {
    const r = await this.call('GET', url, `/collections/${encodeURIComponent(collection)}`, undefined, apiKey);
    return r.config?.params?.replication_factor ?? 1;
  }

  async layout(url: string, collection: string, apiKey?: string): Promise<CollectionLayout> {
    const r = await this.call('GET', url, `/collections/${encodeURIComponent(collection)}/cluster`, undefined, apiKey);
    const self = String(r.peer_id);
    return {
      shardCount: r.shard_count ?? 0,
      replicas: [
        ...(r.local_shards ?? []).map((s: any) => ({ shard: s.shard_id, peerId: self, state: s.state })),
        ...(r.remote_shards ?? []).map((s: any) => ({ shard: s.shard_id, peerId: String(s.peer_id), state: s.state })),
      ].sort((a, b) => a.shard - b.shard || a.peerId.localeCompare(b.peerId)),
      transfers: (r.shard_transfers ?? []).map((t: any) => ({ shard: t.shard_id, from: String(t.from), to: String(t.to) })),
    };
  }

  async operate(url: string, collection: string, op: ClusterOperation, apiKey?: string): Promise<void> {
    await this.call('POST', url, `/collections/${encodeURIComponent(collection)}/cluster`, op, apiKey);
  }

  /** Without force: Qdrant refuses (400) while the peer still holds shards. */
  async removePeer(url: string, peerId: string, apiKey?: string): Promise<void> {
    await this.call('DELETE', url, `/cluster/peer/${peerId}`, undefined, apiKey);
  }

  /** `GET /collections/{c}`: config (params, hnsw, ...), payload schema, counts. */
  async collectionInfo(url: string, collection: string, apiKey?: string): Promise<any> {
    return this.call('GET', url, `/collections/${encodeURIComponent(collection)}`, undefined, apiKey);
  }

  async collectionExists(url: string, collection: string, apiKey?: string): Promise<boolean> {
    const r = await this.call('GET', url, `/collections/${encodeURIComponent(collection)}/exists`, undefined, apiKey);
    return !!r?.exists;
  }

  async createCollection(url: string, collection: string, config: unknown, apiKey?: string): Promise<void> {
    await this.call('PUT', url, `/collections/${encodeURIComponent(collection)}?wait=true`, config, apiKey, 60_000);
  }

  async createPayloadIndex(url: string, collection: string, field: string, schema: unknown, apiKey?: string): Promise<void> {
    await this.call('PUT', url, `/collections/${encodeURIComponent(collection)}/index?wait=true`, { field_name: field, field_schema: schema }, apiKey, 60_000);
  }

  async countPoints(url: string, collection: string, apiKey?: string): Promise<number> {
    const r = await this.call('POST', url, `/collections/${encodeURIComponent(collection)}/points/count`, { exact: true }, apiKey, 60_000);
    return r?.count ?? 0;
  }

  /** A snapshot of the shards this peer holds (a collection snapshot is per peer). */
  async createSnapshot(url: string, collection: string, apiKey?: string): Promise<SnapshotDescription> {
    const r = await this.call('POST', url, `/collections/${encodeURIComponent(collection)}/snapshots?wait=true`, undefined, apiKey, SNAPSHOT_TIMEOUT_MS);
    return { name: String(r.name), creationTime: r.creation_time ?? undefined, size: Number(r.size ?? 0), checksum: String(r.checksum ?? '') };
  }

  snapshotUrl(url: string, collection: string, name: string): string {
    return `${url.replace(/\/$/, '')}/collections/${encodeURIComponent(collection)}/snapshots/${encodeURIComponent(name)}`;
  }

  async deleteSnapshot(url: string, collection: string, name: string, apiKey?: string): Promise<void> {
    await this.call('DELETE', url, `/collections/${encodeURIComponent(collection)}/snapshots/${encodeURIComponent(name)}?wait=true`, undefined, apiKey);
  }

  /**
   * Recovers this peer's shards of a collection from a snapshot the peer
   * downloads itself from `location`; Qdrant refuses a file whose SHA-256 is
   * not `checksum`. Priority `snapshot`: the snapshot's data wins over the
   * other replicas, which Qdrant then syncs from it.
   */
  async recoverSnapshot(
    url: string,
    collection: string,
    source: { location: string; checksum: string; priority: 'snapshot' | 'replica' | 'no_sync' },
    apiKey?: string,
  ): Promise<void> {
    await this.call('PUT', url, `/collections/${encodeURIComponent(collection)}/snapshots/recover?wait=true`, source, apiKey, SNAPSHOT_TIMEOUT_MS);
  }

  private async call(method: string, base: string, path: string, body: unknown, apiKey?: string, timeoutMs = this.timeoutMs): Promise<any> {
    const url = `${base.replace(/\/$/, '')}${path}`;
    let res: { status: number; body: any };
    try {
      res = await this.request({ method, url, body, headers: apiKey ? { 'api-key': apiKey } : {}, timeoutMs });
    } catch (e: any) {
      const cause = e?.cause?.code ?? e?.cause?.message ?? e?.name;
      throw new QdrantError(0, `${method} ${path} failed: ${e?.message ?? e}${cause ? ` (${cause})` : ''}`);
    }
    if (res.status < 200 || res.status >= 300) {
      const why = typeof res.body === 'string' ? res.body : res.body?.status?.error ?? res.body?.message ?? '';
      throw new QdrantError(res.status, `${method} ${path} answered ${res.status}${why ? `: ${String(why).slice(0, 300)}` : ''}`);
    }
    return res.body?.result;
  }
}
