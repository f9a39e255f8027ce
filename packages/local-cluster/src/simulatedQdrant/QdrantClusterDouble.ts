import { createHash } from 'node:crypto';
import http from 'node:http';
import { AddressInfo } from 'node:net';

type ShardState = 'Active' | 'Partial' | 'Dead' | 'Initializing' | 'Listener' | 'Resharding';

interface Replica {
  state: ShardState;
  points: Map<string, unknown>;
}

interface Transfer {
  shard_id: number;
  from: number;
  to: number;
  sync: boolean;
  method: 'stream_records';
  /** move (the source replica goes when done) or replicate (it stays). */
  move: boolean;
}

interface Collection {
  shardNumber: number;
  replicationFactor: number;
  vectors: { size: number; distance: string };
  /** shard id -> peer id -> replica */
  shards: Map<number, Map<number, Replica>>;
  transfers: Transfer[];
}

export interface Peer {
  id: number;
  /** The p2p URI it announces (`--uri`), as Raft lists it. */
  uri: string;
  /** Answers requests (false: crashed, its pod gone). */
  up: boolean;
  /** Removed from Raft: still answers (as a real removed peer), no longer a member. */
  removed: boolean;
}

/** What a collection snapshot file of the double holds: the asking peer's shards only, as in Qdrant. */
interface SnapshotContent {
  collection: string;
  shardNumber: number;
  replicationFactor: number;
  vectors: { size: number; distance: string };
  shards: Record<string, Array<[string, unknown]>>;
}

interface SnapshotFile {
  name: string;
  creation_time: string;
  size: number;
  checksum: string;
  bytes: Buffer;
}

export interface RecordedCall {
  peer: number;
  method: string;
  path: string;
  body: unknown;
}

/** A file download (a snapshot), sent as bytes. */
class FileAnswer {
  constructor(readonly bytes: Buffer) {}
}

/** An answer sent as is, without Qdrant's `{result, status, time}` envelope. */
class Unwrapped {
  constructor(readonly json: unknown) {}
}

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/**
 * A Qdrant cluster for tests: several peers, each answering from its own
 * point of view (its `peer_id`, its local shards), with
 * Raft membership and leadership, collections of shards placed on peers,
 * shard transfers that stay in flight until completed, and the refusals a
 * real cluster gives. Shapes, status codes and error texts follow the answers
 * recorded from a real Qdrant 1.14.1 cluster (../shared/qdrant-api/); the
 * replay test keeps it honest. Not Qdrant: no Raft log, no vectors search.
 * All peers share one HTTP server, each under `/peer/<id>`.
 */
export class QdrantClusterDouble {
  readonly peers: Peer[] = [];
  readonly collections = new Map<string, Collection>();
  /** Every call, for asserting what the operator sent and to whom. */
  readonly calls: RecordedCall[] = [];
  /** Runs before a call is answered (a test can look at the world at that moment). */
  beforeAnswer?: (call: RecordedCall) => Promise<void> | void;
  private server?: http.Server;
  /** Where the peers answer: this double's own server, or a fleet's. */
  baseUrl = '';
  leader: number | undefined;
  term = 1;
  commit = 1;
  /** Transfers finish on their own after this long; undefined keeps them in flight until completeTransfers(). */
  transferMs: number | undefined;
  private nextId = 1;
  /** Collection snapshot files on each peer's disk: peer id -> collection -> files. */
  private readonly snapshots = new Map<number, Map<string, SnapshotFile[]>>();
  /** Replicas marked Dead by a recovery with priority `snapshot`, synced from the recovered one later (as Qdrant does). */
  private pendingSyncs: Array<() => void> = [];

  /** transferMs: null keeps transfers in flight until completeTransfers() (default: done after 50 ms). */
  constructor(options: { transferMs?: number | null } = {}) {
    this.transferMs = options.transferMs === null ? undefined : options.transferMs ?? 50;
  }

  /** Starts the HTTP server every peer answers on (each under its own path prefix). */
  async start(): Promise<this> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    await new Promise<void>(resolve => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** A peer that joins the cluster (the first one bootstraps it and leads). */
  addPeer(uri: string, id?: number): Peer {
    const peer: Peer = { id: id ?? 1000 + this.nextId++ * 7919, uri, up: true, removed: false };
    this.peers.push(peer);
    if (this.leader === undefined) this.leader = peer.id;
    this.commit++;
    return peer;
  }

  /**
   * The peer a pod announcing `uri` runs: the latest one with that URI, or a
   * new one joining the cluster (a pod that started and bootstrapped).
   */
  peerFor(uri: string): Peer {
    return [...this.peers].reverse().find(p => p.uri === uri) ?? this.addPeer(uri);
  }

  urlOf(peer: Peer | number): string {
    const p = typeof peer === 'number' ? this.peer(peer) : peer;
    return `${this.baseUrl}/peer/${p.id}`;
  }

  peer(id: number): Peer {
    const p = this.peers.find(x => x.id === id);
    if (!p) throw new Error(`no peer ${id}`);
    return p;
  }

  members(): Peer[] {
    return this.peers.filter(p => !p.removed);
  }

  /**
   * The peer a Service in front of the cluster forwards to: a member that
   * answers, the lowest ordinal first so answers are repeatable; none when
   * every member is down.
   */
  serviceEndpoint(): Peer | undefined {
    return this.members()
      .filter(p => p.up)
      .sort((a, b) => a.uri.localeCompare(b.uri, 'en', { numeric: true }))[0];
  }

  /** Every replica a peer holds, of every shard of every collection. */
  private replicasOn(id: number): Replica[] {
    return [...this.collections.values()].flatMap(c => [...c.shards.values()].flatMap(replicas => replicas.get(id) ?? []));
  }

  /** A peer stops answering (a crash, a deleted pod); a lost leader is replaced by the next live member. */
  kill(id: number): void {
    const peer = this.peer(id);
    peer.up = false;
    for (const r of this.replicasOn(id)) r.state = 'Dead';
    if (this.leader === id) {
      this.leader = this.members().find(p => p.up)?.id;
      this.term++;
      this.commit++;
    }
  }

  /**
   * A peer that was down answers again (its pod back with the same volume):
   * its replicas recover (Qdrant syncs them from an Active copy), and a
   * cluster without a leader elects it.
   */
  revive(id: number): void {
    const peer = this.peer(id);
    peer.up = true;
    for (const r of this.replicasOn(id)) if (r.state === 'Dead') r.state = 'Active';
    if (this.leader === undefined) {
      this.leader = id;
      this.term++;
      this.commit++;
    }
  }

  /** Puts every shard replica where a test (or a recording) says. */
  createCollection(name: string, layout: { shardNumber: number; replicationFactor: number; size?: number; placement?: number[][] }) {
    const members = this.members();
    const shards = new Map<number, Map<number, Replica>>();
    for (let s = 0; s < layout.shardNumber; s++) {
      const on =
        layout.placement?.[s] ??
        Array.from({ length: Math.min(layout.replicationFactor, members.length) }, (_, k) => members[(s + k) % members.length].id);
      shards.set(s, new Map(on.map(id => [id, { state: 'Active' as ShardState, points: new Map() }])));
    }
    this.collections.set(name, {
      shardNumber: layout.shardNumber,
      replicationFactor: layout.replicationFactor,
      vectors: { size: layout.size ?? 8, distance: 'Cosine' },
      shards,
      transfers: [],
    });
    this.commit++;
  }

  /** Finishes every transfer in flight: the target becomes Active with the source's points. */
  completeTransfers(): void {
    for (const c of this.collections.values()) {
      for (const t of [...c.transfers]) this.finish(c, t);
    }
    const syncs = this.pendingSyncs;
    this.pendingSyncs = [];
    for (const sync of syncs) sync();
  }

  /** Points of a collection, counting each shard once (from any Active replica). */
  pointCount(name: string): number {
    const c = this.collections.get(name);
    if (!c) return 0;
    let n = 0;
    for (const replicas of c.shards.values()) {
      const active = [...replicas.values()].find(r => r.state === 'Active');
      n += active?.points.size ?? 0;
    }
    return n;
  }

  /** Peer ids that hold any replica of any collection. */
  peersHoldingShards(): Set<number> {
    const out = new Set<number>();
    for (const c of this.collections.values()) {
      for (const replicas of c.shards.values()) for (const id of replicas.keys()) out.add(id);
    }
    return out;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await closeServer(server);
  }

  private finish(c: Collection, t: Transfer) {
    c.transfers = c.transfers.filter(x => x !== t);
    const replicas = c.shards.get(t.shard_id);
    const source = replicas?.get(t.from);
    const target = replicas?.get(t.to);
    if (!replicas || !source || !target) return;
    target.points = new Map(source.points);
    target.state = 'Active';
    if (t.move) replicas.delete(t.from);
    this.commit++;
  }

  /** Answers one request whose path starts at `/peer/<id>`. */
  handle(req: http.IncomingMessage, res: http.ServerResponse, pathname?: string) {
    const url = new URL(pathname ?? req.url ?? '/', 'http://peer');
    const m = /^\/peer\/(\d+)(\/.*)?$/.exec(url.pathname);
    const peer = m ? this.peers.find(p => p.id === Number(m[1])) : undefined;
    // A peer that is down does not answer at all.
    if (!peer || !peer.up) {
      req.socket.destroy();
      return;
    }
    const path = m![2] ?? '/';
    let raw = '';
    req.on('data', chunk => (raw += chunk));
    req.on('end', async () => {
      const started = process.hrtime.bigint();
      const time = () => Number(process.hrtime.bigint() - started) / 1e9;
      const send = (status: number, json: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        send(400, { status: { error: 'Format error in JSON body: expected value at line 1 column 1' }, time: time() });
        return;
      }
      const call = { peer: peer.id, method: req.method ?? 'GET', path, body };
      this.calls.push(call);
      await this.beforeAnswer?.(call);
      try {
        const answer = await this.route(peer, call.method, path, body);
        if (answer instanceof FileAnswer) {
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': answer.bytes.length }).end(answer.bytes);
        } else if (typeof answer === 'string') {
          res.writeHead(200, { 'content-type': 'text/plain' }).end(answer);
        } else if (answer instanceof Unwrapped) {
          send(200, answer.json);
        } else {
          send(200, { result: answer, status: 'ok', time: time() });
        }
      } catch (e) {
        const err = e instanceof HttpError ? e : new HttpError(500, `Service internal error: ${e}`);
        send(err.status, { status: { error: err.message }, time: time() });
      }
    });
  }

  private collection(name: string): Collection {
    const c = this.collections.get(name);
    if (!c) throw new HttpError(404, `Not found: Collection \`${name}\` doesn't exist!`);
    return c;
  }

  private route(self: Peer, method: string, pathAndQuery: string, body: any): unknown {
    const path = pathAndQuery.split('?')[0];
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    const is = (m: string, ...pattern: string[]) =>
      method === m && parts.length === pattern.length && pattern.every((x, i) => x === '*' || x === parts[i]);
    if (is('GET')) return new Unwrapped({ title: 'qdrant - vector search engine (cluster test double)', version: '1.14.1' });
    if (is('GET', 'readyz')) return 'all shards are ready';
    if (is('GET', 'healthz') || is('GET', 'livez')) return 'healthz check passed';
    if (is('GET', 'cluster')) return this.clusterStatus(self);
    if (is('DELETE', 'cluster', 'peer', '*')) return this.removePeer(Number(parts[2]));
    if (is('GET', 'collections')) return { collections: [...this.collections.keys()].map(name => ({ name })) };
    if (is('GET', 'collections', '*', 'exists')) return { exists: this.collections.has(parts[1]) };
    if (is('PUT', 'collections', '*')) return this.putCollection(parts[1], body);
    if (is('DELETE', 'collections', '*')) {
      this.commit++;
      return this.collections.delete(parts[1]);
    }
    if (is('GET', 'collections', '*')) return this.collectionInfo(parts[1]);
    if (is('GET', 'collections', '*', 'cluster')) return this.collectionCluster(self, parts[1]);
    if (is('POST', 'collections', '*', 'cluster')) return this.clusterOperation(parts[1], body);
    if (is('PUT', 'collections', '*', 'points')) return this.upsert(parts[1], body);
    if (is('POST', 'collections', '*', 'points', 'delete')) return this.deletePoints(parts[1], body);
    if (is('POST', 'collections', '*', 'snapshots')) return this.createSnapshot(self, parts[1]);
    if (is('GET', 'collections', '*', 'snapshots')) {
      this.collection(parts[1]);
      return this.snapshotsOf(self.id, parts[1]).map(({ bytes: _bytes, ...d }) => d);
    }
    if (is('PUT', 'collections', '*', 'snapshots', 'recover')) return this.recover(self, parts[1], body);
    if (is('GET', 'collections', '*', 'snapshots', '*')) return new FileAnswer(this.snapshotFile(self.id, parts[1], parts[3]).bytes);
    if (is('DELETE', 'collections', '*', 'snapshots', '*')) {
      const file = this.snapshotFile(self.id, parts[1], parts[3]);
      const files = this.snapshotsOf(self.id, parts[1]);
      files.splice(files.indexOf(file), 1);
      return true;
    }
    if (is('POST', 'collections', '*', 'points', 'count')) {
      this.collection(parts[1]);
      return { count: this.pointCount(parts[1]) };
    }
    throw new HttpError(404, `Not found: ${method} ${path} (not implemented by the cluster test double)`);
  }

  private clusterStatus(self: Peer) {
    // A removed peer keeps its last view of the cluster, itself included.
    const members = self.removed ? [self, ...this.members()] : this.members();
    const leader = this.leader;
    return {
      status: 'enabled',
      peer_id: self.id,
      peers: Object.fromEntries(members.map(p => [String(p.id), { uri: p.uri }])),
      raft_info: {
        term: this.term,
        commit: this.commit,
        pending_operations: 0,
        leader: leader ?? null,
        role: roleOf(self.id, leader),
        is_voter: true,
      },
      consensus_thread_status: { consensus_thread_status: 'working', last_update: new Date().toISOString() },
      message_send_failures: {},
    };
  }

  private removePeer(id: number) {
    const peer = this.peers.find(p => p.id === id && !p.removed);
    if (!peer) throw new HttpError(404, `Not found: Peer ${id} does not exist`);
    if (this.peersHoldingShards().has(id)) {
      throw new HttpError(400, `Bad request: Cannot remove peer ${id} as there are shards on it`);
    }
    peer.removed = true;
    if (this.leader === id) this.leader = this.members()[0]?.id;
    this.commit++;
    return true;
  }

  private putCollection(name: string, body: any) {
    const v = body?.vectors;
    if (!v || typeof v.size !== 'number' || v.size < 1 || !v.distance) {
      throw new HttpError(400, 'Format error in JSON body: data did not match any variant of untagged enum VectorsConfig at line 1 column 47');
    }
    if (this.collections.has(name)) throw new HttpError(409, `Wrong input: Collection \`${name}\` already exists!`);
    this.createCollection(name, {
      shardNumber: body.shard_number ?? this.members().length,
      replicationFactor: body.replication_factor ?? 1,
      size: v.size,
    });
    this.collections.get(name)!.vectors = { size: v.size, distance: v.distance };
    return true;
  }

  private collectionInfo(name: string) {
    const c = this.collection(name);
    return {
      status: 'green',
      optimizer_status: 'ok',
      indexed_vectors_count: 0,
      points_count: this.pointCount(name),
      segments_count: c.shardNumber * 2,
      config: {
        params: {
          vectors: c.vectors,
          shard_number: c.shardNumber,
          replication_factor: c.replicationFactor,
          write_consistency_factor: 1,
          on_disk_payload: true,
        },
      },
      payload_schema: {},
    };
  }

  private collectionCluster(self: Peer, name: string) {
    const c = this.collection(name);
    const local: any[] = [];
    const remote: any[] = [];
    for (const [shard, replicas] of [...c.shards].sort((a, b) => a[0] - b[0])) {
      for (const [peerId, r] of replicas) {
        if (peerId === self.id) local.push({ shard_id: shard, points_count: r.points.size, state: r.state });
        else remote.push({ shard_id: shard, peer_id: peerId, state: r.state });
      }
    }
    return {
      peer_id: self.id,
      shard_count: c.shardNumber,
      local_shards: local,
      remote_shards: remote,
      shard_transfers: c.transfers.map(({ move: _move, ...t }) => t),
    };
  }

  private clusterOperation(name: string, body: any) {
    const c = this.collection(name);
    const op = body?.move_shard ?? body?.replicate_shard;
    if (op) {
      const replicas = c.shards.get(op.shard_id);
      if (!replicas) throw new HttpError(400, `Bad request: Shard ${op.shard_id} of ${name} does not exist`);
      if (!replicas.has(op.from_peer_id)) {
        throw new HttpError(400, `Bad request: Shard ${op.shard_id} of ${name} does not exist on peer ${op.from_peer_id}`);
      }
      if (!this.members().some(p => p.id === op.to_peer_id)) throw new HttpError(404, `Not found: Peer ${op.to_peer_id} does not exist`);
      if (replicas.has(op.to_peer_id)) {
        throw new HttpError(400, `Bad request: Shard ${op.shard_id} is already involved in transfer or is already present on peer ${op.to_peer_id}`);
      }
      if (c.transfers.some(t => t.shard_id === op.shard_id)) {
        throw new HttpError(400, `Bad request: Shard ${op.shard_id} is already involved in transfer`);
      }
      replicas.set(op.to_peer_id, { state: 'Partial', points: new Map() });
      const t: Transfer = { shard_id: op.shard_id, from: op.from_peer_id, to: op.to_peer_id, sync: false, method: 'stream_records', move: !!body.move_shard };
      c.transfers.push(t);
      this.commit++;
      if (this.transferMs !== undefined) setTimeout(() => this.finish(c, t), this.transferMs).unref();
      return true;
    }
    if (body?.drop_replica) {
      const { shard_id, peer_id } = body.drop_replica;
      const replicas = c.shards.get(shard_id);
      if (!replicas) throw new HttpError(400, `Bad request: Shard ${shard_id} of ${name} does not exist`);
      if (!replicas.has(peer_id)) throw new HttpError(400, `Bad request: Shard ${shard_id} of ${name} does not exist on peer ${peer_id}`);
      if (replicas.size === 1) throw new HttpError(400, `Bad request: Shard ${shard_id} must have at least one replica`);
      replicas.delete(peer_id);
      this.commit++;
      return true;
    }
    throw new HttpError(400, 'Format error in JSON body: data did not match any variant of untagged enum ClusterOperations');
  }

  private snapshotsOf(peer: number, collection: string): SnapshotFile[] {
    let byCollection = this.snapshots.get(peer);
    if (!byCollection) this.snapshots.set(peer, (byCollection = new Map()));
    let files = byCollection.get(collection);
    if (!files) byCollection.set(collection, (files = []));
    return files;
  }

  private snapshotFile(peer: number, collection: string, name: string): SnapshotFile {
    const file = this.snapshotsOf(peer, collection).find(f => f.name === name);
    if (!file) throw new HttpError(404, `Not found: Snapshot file ${name} does not exist`);
    return file;
  }

  /** A snapshot of the shards this peer holds (not the others': a collection snapshot is per peer). */
  private createSnapshot(self: Peer, name: string) {
    const c = this.collection(name);
    const shards: SnapshotContent['shards'] = {};
    for (const [shard, replicas] of c.shards) {
      const r = replicas.get(self.id);
      if (r) shards[shard] = [...r.points.entries()];
    }
    const content: SnapshotContent = {
      collection: name,
      shardNumber: c.shardNumber,
      replicationFactor: c.replicationFactor,
      vectors: c.vectors,
      shards,
    };
    const bytes = Buffer.from(JSON.stringify(content));
    const now = new Date().toISOString().slice(0, 19);
    const files = this.snapshotsOf(self.id, name);
    const file: SnapshotFile = {
      name: `${name}-${self.id}-${now.replace(/[T:]/g, '-')}${files.length ? `-${files.length}` : ''}.snapshot`,
      creation_time: now,
      size: bytes.length,
      checksum: createHash('sha256').update(bytes).digest('hex'),
      bytes,
    };
    files.push(file);
    const { bytes: _bytes, ...description } = file;
    return description;
  }

  /**
   * PUT /collections/{c}/snapshots/recover as Qdrant 1.14 does it: the peer
   * downloads the file itself, checks the checksum, creates a missing
   * collection from the snapshot's config, and recovers the local shards the
   * snapshot carries; with priority `snapshot` the other replicas of those
   * shards go Dead and are synced from the recovered one.
   */
  private async recover(self: Peer, name: string, body: any) {
    const location = String(body?.location ?? '');
    let res: Response;
    try {
      res = await fetch(location);
    } catch {
      throw new HttpError(500, `Service internal error: Http request error: error sending request for url (${location})`);
    }
    if (!res.ok) {
      throw new HttpError(400, `Wrong input: Failed to download snapshot from ${location}: status - ${res.status} ${res.statusText}`);
    }
    const bytes = Buffer.from(await res.arrayBuffer());
    const checksum = createHash('sha256').update(bytes).digest('hex');
    if (body?.checksum && body.checksum !== checksum) {
      throw new HttpError(400, `Wrong input: Snapshot checksum mismatch: expected ${body.checksum}, got ${checksum}`);
    }
    const content = JSON.parse(bytes.toString('utf8')) as SnapshotContent;
    if (!this.collections.has(name)) {
      this.createCollection(name, { shardNumber: content.shardNumber, replicationFactor: content.replicationFactor, size: content.vectors.size });
      this.collections.get(name)!.vectors = content.vectors;
    }
    const c = this.collection(name);
    if (c.vectors.size !== content.vectors.size || c.vectors.distance !== content.vectors.distance) {
      throw new HttpError(400, `Wrong input: Snapshot is not compatible with existing collection: Collection vectors: ${JSON.stringify(c.vectors)} Snapshot Vectors: ${JSON.stringify(content.vectors)}`);
    }
    if (c.shardNumber !== content.shardNumber) {
      throw new HttpError(400, `Wrong input: Snapshot is not compatible with existing collection: Collection shard number: ${c.shardNumber} Snapshot shard number: ${content.shardNumber}`);
    }
    const priority = body?.priority ?? 'replica';
    for (const [shard, replicas] of c.shards) {
      const local = replicas.get(self.id);
      if (!local) continue;
      local.state = 'Partial';
      const points = content.shards[shard];
      if (!points) continue;
      local.points = new Map(points);
      local.state = 'Active';
      const others = [...replicas].filter(([id, r]) => id !== self.id && r.state === 'Active');
      if (priority === 'no_sync' || !others.length) continue;
      const source = local;
      for (const [, r] of others) {
        if (priority === 'snapshot') r.state = 'Dead';
        const sync = () => {
          r.points = new Map(source.points);
          r.state = 'Active';
          this.commit++;
        };
        if (priority === 'replica') {
          // The other replica is the truth: this one is synced from it.
          local.state = 'Partial';
          local.points = new Map(r.points);
          local.state = 'Active';
          break;
        }
        if (this.transferMs === undefined) this.pendingSyncs.push(sync);
        else setTimeout(sync, this.transferMs).unref();
      }
    }
    this.commit++;
    return true;
  }

  private deletePoints(name: string, body: any) {
    const c = this.collection(name);
    for (const id of body?.points ?? []) {
      for (const replicas of c.shards.values()) for (const r of replicas.values()) r.points.delete(String(id));
    }
    return { operation_id: this.commit++, status: 'completed' };
  }

  private upsert(name: string, body: any) {
    const c = this.collection(name);
    for (const point of body?.points ?? []) {
      const key = String(point.id);
      const shard = hash(key) % c.shardNumber;
      const replicas = c.shards.get(shard)!;
      if (![...replicas.values()].some(r => r.state === 'Active')) {
        throw new HttpError(500, `Service internal error: No active replica for shard ${shard}`);
      }
      for (const r of replicas.values()) if (r.state !== 'Dead') r.points.set(key, point.payload ?? {});
    }
    return { operation_id: this.commit++, status: 'completed' };
  }
}

export async function closeServer(server: http.Server | undefined) {
  if (!server) return;
  await new Promise<void>(resolve => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function roleOf(peer: number, leader: number | undefined): string {
  if (leader === undefined) return 'Candidate';
  return leader === peer ? 'Leader' : 'Follower';
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) >>> 0;
  return h;
}
