import type { Schemas } from '@qdrant/js-client-rest';
import express, { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { AddressInfo } from 'node:net';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * A stand-in for a Qdrant server implementing only the REST endpoints the
 * service uses, with request/response shapes typed by the client's published
 * OpenAPI types (`Schemas`). It is a test double, not Qdrant: no HNSW, no
 * persistence, only `must`/`match.value` filters. A real Qdrant cannot be
 * installed on the build machines.
 */
export class QdrantTestDouble {
  readonly collections = new Map<
    string,
    {
      params: Schemas['VectorParams'];
      points: Map<
        string | number,
        { vector: number[]; payload: Schemas['Payload'] }
      >;
    }
  >();
  /** Every request seen, for asserting what the client sent. */
  readonly requests: Array<{
    method: string;
    path: string;
    body: unknown;
    apiKey?: string;
  }> = [];
  /** Collection snapshots by collection, then name: this double's own format (JSON), as Qdrant's is its own. */
  readonly snapshots = new Map<
    string,
    Map<string, { bytes: Buffer; creationTime: string; checksum: string }>
  >();
  private server?: http.Server;
  private port = 0;
  private opId = 0;
  /** Qdrant peer ids are random 64-bit-ish integers; this one is fixed. */
  readonly peerId = 4066521096024102;

  constructor(
    private readonly options: {
      apiKey?: string;
      /** Set when the double runs as a pod's Qdrant: it says so in `GET /`. */
      standIn?: boolean;
      /** The p2p URI it announces in `GET /cluster`, as Qdrant's `--uri` (default: from the request's host). */
      peerUri?: string;
      host?: string;
    } = {},
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts listening; a restart after stop() reuses the previous port. */
  async start(port = this.port): Promise<void> {
    const app = express();
    app.use(express.json({ limit: '50mb' }));
    app.use((req, res, next) => {
      this.requests.push({
        method: req.method,
        path: req.path,
        body: req.body,
        apiKey: req.header('api-key'),
      });
      if (
        this.options.apiKey &&
        req.header('api-key') !== this.options.apiKey
      ) {
        res.status(401).json({
          status: { error: 'Unauthorized: invalid API key' },
          time: 0,
        });
        return;
      }
      next();
    });
    app.get('/', (_req, res) => {
      const info: Schemas['VersionInfo'] = {
        title: this.options.standIn
          ? 'qdrant - vector search engine (stand-in: the REST test double, not Qdrant)'
          : 'qdrant - vector search engine (test double)',
        version: '1.15.0',
      };
      res.json(info);
    });
    // As a one-peer Qdrant cluster answers (shape of the recorded
    // ../shared/qdrant-api/cluster-status-3-peers.json, with one peer).
    app.get('/cluster', (req, res) => {
      const self = this.options.peerUri ?? `http://${req.hostname}:6335/`;
      this.ok(res, {
        status: 'enabled',
        peer_id: this.peerId,
        peers: { [String(this.peerId)]: { uri: self } },
        raft_info: {
          term: 1,
          commit: 1,
          pending_operations: 0,
          leader: this.peerId,
          role: 'Leader',
          is_voter: true,
        },
        consensus_thread_status: {
          consensus_thread_status: 'working',
          last_update: new Date().toISOString(),
        },
        message_send_failures: {},
      });
    });
    // As Qdrant's health endpoints: plain text, always ready (one peer, no shards to wait for).
    app.get('/readyz', (_req, res) => {
      res.type('text/plain').send('all shards are ready');
    });
    app.get(['/healthz', '/livez'], (_req, res) => {
      res.type('text/plain').send('healthz check passed');
    });
    app.get('/collections', (_req, res) => {
      const result: Schemas['CollectionsResponse'] = {
        collections: [...this.collections.keys()].map(name => ({ name })),
      };
      this.ok(res, result);
    });
    app.delete('/collections/:name', (req, res) => {
      this.ok(res, this.collections.delete(req.params.name));
    });
    app.post('/collections/:name/points/count', (req, res) => {
      const c = this.collection(req, res);
      if (!c) return;
      const result: Schemas['CountResult'] = { count: c.points.size };
      this.ok(res, result);
    });
    this.snapshotRoutes(app);
    app.get('/collections/:name/exists', (req, res) => {
      const result: Schemas['CollectionExistence'] = {
        exists: this.collections.has(req.params.name),
      };
      this.ok(res, result);
    });
    app.get('/collections/:name', (req, res) => {
      const c = this.collection(req, res);
      if (!c) return;
      const result: Schemas['CollectionInfo'] = {
        status: 'green',
        optimizer_status: 'ok',
        segments_count: 1,
        points_count: c.points.size,
        indexed_vectors_count: 0,
        payload_schema: {},
        config: {
          params: {
            vectors: c.params,
            shard_number: 1,
            replication_factor: 1,
            write_consistency_factor: 1,
            on_disk_payload: true,
          },
          hnsw_config: {
            m: 16,
            ef_construct: 100,
            full_scan_threshold: 10000,
            max_indexing_threads: 0,
            on_disk: false,
          },
          optimizer_config: {
            deleted_threshold: 0.2,
            vacuum_min_vector_number: 1000,
            default_segment_number: 0,
            flush_interval_sec: 5,
            max_optimization_threads: null,
          },
          wal_config: { wal_capacity_mb: 32, wal_segments_ahead: 0 },
        },
      } as Schemas['CollectionInfo'];
      this.ok(res, result);
    });
    app.put('/collections/:name', (req, res) => {
      const body = req.body as Schemas['CreateCollection'];
      const vectors = body.vectors as Schemas['VectorParams'] | undefined;
      if (this.collections.has(req.params.name)) {
        this.error(
          res,
          409,
          `Wrong input: Collection \`${req.params.name}\` already exists!`,
        );
        return;
      }
      if (!vectors || typeof vectors.size !== 'number' || !vectors.distance) {
        this.error(
          res,
          400,
          'Wrong input: this double only supports a single unnamed vector',
        );
        return;
      }
      this.collections.set(req.params.name, {
        params: vectors,
        points: new Map(),
      });
      this.ok(res, true);
    });
    app.put('/collections/:name/points', (req, res) => {
      const c = this.collection(req, res);
      if (!c) return;
      const body = req.body as Schemas['PointInsertOperations'];
      if (!('points' in body)) {
        this.error(
          res,
          400,
          'Wrong input: this double only supports the points list form',
        );
        return;
      }
      for (const p of body.points) {
        const vector = p.vector as number[];
        if (!Array.isArray(vector) || vector.length !== c.params.size) {
          this.error(
            res,
            400,
            `Wrong input: Vector dimension error: expected dim: ${
              c.params.size
            }, got ${Array.isArray(vector) ? vector.length : 'non-array'}`,
          );
          return;
        }
      }
      for (const p of body.points) {
        c.points.set(p.id, {
          vector: normalise(p.vector as number[], c.params.distance),
          payload: (p.payload ?? {}) as Schemas['Payload'],
        });
      }
      this.ok(res, this.updateResult());
    });
    app.post('/collections/:name/points', (req, res) => {
      const c = this.collection(req, res);
      if (!c) return;
      const body = req.body as Schemas['PointRequest'];
      const result: Schemas['Record'][] = body.ids
        .filter(id => c.points.has(id))
        .map(id => ({
          id,
          payload:
            body.with_payload === false ? null : c.points.get(id)!.payload,
        }));
      this.ok(res, result);
    });
    app.post('/collections/:name/points/delete', (req, res) => {
      const c = this.collection(req, res);
      if (!c) return;
      const body = req.body as Schemas['PointsSelector'];
      if (!('points' in body)) {
        this.error(
          res,
          400,
          'Wrong input: this double only supports deleting by id list',
        );
        return;
      }
      for (const id of body.points) c.points.delete(id);
      this.ok(res, this.updateResult());
    });
    app.post('/collections/:name/points/query', (req, res) => {
      const c = this.collection(req, res);
      if (!c) return;
      const body = req.body as Schemas['QueryRequest'];
      const query = body.query as number[];
      if (!Array.isArray(query) || query.length !== c.params.size) {
        this.error(
          res,
          400,
          `Wrong input: Vector dimension error: expected dim: ${
            c.params.size
          }, got ${Array.isArray(query) ? query.length : 'non-array'}`,
        );
        return;
      }
      const must = (body.filter?.must ?? []) as Schemas['FieldCondition'][];
      if (
        body.filter &&
        (body.filter.should ||
          body.filter.must_not ||
          must.some(m => !m.match || !('value' in m.match)))
      ) {
        this.error(
          res,
          400,
          'Wrong input: this double only supports must + match.value filters',
        );
        return;
      }
      const q = normalise(query, c.params.distance);
      const points: Schemas['ScoredPoint'][] = [...c.points]
        .filter(([, p]) =>
          must.every(
            m =>
              p.payload?.[m.key] === (m.match as Schemas['MatchValue']).value,
          ),
        )
        .map(([id, p]) => ({
          id,
          version: 0,
          score: p.vector.reduce((s, v, i) => s + v * q[i], 0),
          payload: body.with_payload === false ? null : p.payload,
        }))
        .sort((a, b) => b.score - a.score)
        .slice(0, body.limit ?? 10);
      const result: Schemas['QueryResponse'] = { points };
      this.ok(res, result);
    });
    app.use((req, res) =>
      this.error(
        res,
        404,
        `double does not implement ${req.method} ${req.path}`,
      ),
    );

    this.server = http.createServer(app);
    await new Promise<void>(resolve =>
      this.server!.listen(port, this.options.host ?? '127.0.0.1', resolve),
    );
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>(resolve => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /**
   * Collection snapshots as Qdrant answers them (the recorded
   * snapshot-create, snapshot-list and snapshot-recover shapes): created on
   * this peer, downloaded, deleted, and recovered from a URL the peer fetches
   * itself, refused when the file's SHA-256 is not the checksum given.
   */
  private snapshotRoutes(app: express.Express) {
    const describe = (
      name: string,
      s: { bytes: Buffer; creationTime: string; checksum: string },
    ): Schemas['SnapshotDescription'] => ({
      name,
      creation_time: s.creationTime,
      size: s.bytes.length,
      checksum: s.checksum,
    });
    app.post('/collections/:name/snapshots', (req, res) => {
      const c = this.collection(req, res);
      if (!c) return;
      const creationTime = new Date().toISOString().slice(0, 19);
      const name = `${req.params.name}-${this.peerId}-${creationTime.replace(
        /[T:]/g,
        '-',
      )}.snapshot`;
      const bytes = Buffer.from(
        JSON.stringify({
          params: c.params,
          points: [...c.points].map(([id, p]) => [id, p.vector, p.payload]),
        }),
      );
      const snap = { bytes, creationTime, checksum: sha256(bytes) };
      const of = this.snapshots.get(req.params.name) ?? new Map();
      of.set(name, snap);
      this.snapshots.set(req.params.name, of);
      this.ok(res, describe(name, snap));
    });
    app.get('/collections/:name/snapshots', (req, res) => {
      const of = this.snapshots.get(req.params.name) ?? new Map();
      this.ok(
        res,
        [...of].map(([name, s]) => describe(name, s)),
      );
    });
    app.get('/collections/:name/snapshots/:snapshot', (req, res) => {
      const s = this.snapshots.get(req.params.name)?.get(req.params.snapshot);
      if (!s) {
        this.error(
          res,
          404,
          `Not found: Snapshot ${req.params.snapshot} not found`,
        );
        return;
      }
      res.type('application/octet-stream').send(s.bytes);
    });
    app.delete('/collections/:name/snapshots/:snapshot', (req, res) => {
      const of = this.snapshots.get(req.params.name);
      if (!of?.delete(req.params.snapshot)) {
        this.error(
          res,
          404,
          `Not found: Snapshot ${req.params.snapshot} not found`,
        );
        return;
      }
      this.ok(res, true);
    });
    app.put('/collections/:name/snapshots/recover', async (req, res) => {
      const body = req.body as Schemas['SnapshotRecover'];
      let download: globalThis.Response;
      try {
        download = await fetch(body.location);
      } catch (e) {
        this.error(
          res,
          500,
          `Service internal error: Http request error: error sending request for url (${body.location})`,
        );
        return;
      }
      if (!download.ok) {
        this.error(
          res,
          400,
          `Wrong input: Failed to download snapshot from ${body.location}: status - ${download.status} ${download.statusText}`,
        );
        return;
      }
      const bytes = Buffer.from(await download.arrayBuffer());
      if (body.checksum && sha256(bytes) !== body.checksum) {
        this.error(
          res,
          400,
          `Wrong input: Snapshot checksum mismatch: expected ${
            body.checksum
          }, got ${sha256(bytes)}`,
        );
        return;
      }
      let parsed: {
        params: Schemas['VectorParams'];
        points: Array<[string | number, number[], Schemas['Payload']]>;
      };
      try {
        parsed = JSON.parse(bytes.toString('utf8'));
      } catch {
        this.error(
          res,
          400,
          'Wrong input: not a snapshot of this double (only its own JSON snapshots recover)',
        );
        return;
      }
      this.collections.set(req.params.name, {
        params: parsed.params,
        points: new Map(
          parsed.points.map(([id, vector, payload]) => [
            id,
            { vector, payload },
          ]),
        ),
      });
      this.ok(res, true);
    });
  }

  private collection(req: Request, res: Response) {
    const c = this.collections.get(req.params.name);
    if (!c)
      this.error(
        res,
        404,
        `Not found: Collection \`${req.params.name}\` doesn't exist!`,
      );
    return c;
  }

  private updateResult(): Schemas['UpdateResult'] {
    return { operation_id: ++this.opId, status: 'completed' };
  }

  private ok(res: Response, result: unknown) {
    res.json({ result, status: 'ok', time: 0.0001 });
  }

  private error(res: Response, code: number, message: string) {
    res.status(code).json({ status: { error: message }, time: 0.0001 });
  }
}

/** Qdrant stores cosine vectors normalised and scores them by dot product. */
function normalise(v: number[], distance: Schemas['Distance']): number[] {
  if (distance !== 'Cosine') return v;
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return n > 0 ? v.map(x => x / n) : v;
}
