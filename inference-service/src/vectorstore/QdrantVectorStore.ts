import { QdrantClient, Schemas } from '@qdrant/js-client-rest';
import { pointUuid } from './pointUuid';
import {
  DimensionMismatchError,
  Payload,
  PayloadFilter,
  PointInput,
  SearchHit,
  VectorStore,
} from './VectorStore';

export interface QdrantVectorStoreOptions {
  url: string;
  apiKey?: string;
  collection: string;
  timeoutMs?: number;
  /** Replicas of each shard when this store creates the collection (Qdrant's default is 1). */
  replicationFactor?: number;
}

/** Payload key holding the caller's id (Qdrant's own id is a derived UUID). */
export const ID_KEY = '_cv_id';

function statusOf(err: unknown): number | undefined {
  const e = err as { status?: number; message?: string };
  if (typeof e?.status === 'number') return e.status;
  const m = /Unexpected Response: (\d{3})/.exec(e?.message ?? '');
  return m ? Number(m[1]) : undefined;
}

/** Qdrant's client throws bare status texts; keep status and server message. */
export class QdrantError extends Error {
  constructor(readonly status: number | undefined, message: string) {
    super(message);
  }
}

async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const e = err as {
      status?: number;
      data?: { status?: { error?: string } };
      message?: string;
      cause?: { message?: string };
    };
    const status = statusOf(err);
    const detail =
      e.data?.status?.error ?? e.cause?.message ?? e.message ?? String(err);
    throw new QdrantError(
      status,
      `qdrant ${what}: ${status ? `HTTP ${status} ` : ''}${detail}`,
    );
  }
}

function toFilter(filter?: PayloadFilter): Schemas['Filter'] | undefined {
  if (!filter || !Object.keys(filter).length) return undefined;
  return {
    must: Object.entries(filter).map(([key, value]) => ({
      key,
      match: { value },
    })),
  };
}

function unwrap(payload: Record<string, unknown> | null | undefined): {
  id: string;
  payload: Payload;
} {
  const { [ID_KEY]: id, ...rest } = (payload ?? {}) as Record<string, unknown>;
  return { id: String(id), payload: rest as Payload };
}

/** Vectors in a Qdrant collection (cosine), via the official REST client. */
export class QdrantVectorStore implements VectorStore {
  readonly kind = 'qdrant' as const;
  private readonly client: QdrantClient;

  constructor(private readonly options: QdrantVectorStoreOptions) {
    this.client = new QdrantClient({
      url: options.url,
      apiKey: options.apiKey,
      timeout: options.timeoutMs ?? 10_000,
      // The version probe fires an unawaited request at construction time;
      // readiness already reports reachability.
      checkCompatibility: false,
    });
  }

  async ensureCollection(dim: number): Promise<void> {
    const name = this.options.collection;
    const { exists } = await call('collection exists', () =>
      this.client.collectionExists(name),
    );
    if (!exists) {
      try {
        await call('create collection', () =>
          this.client.createCollection(name, {
            vectors: { size: dim, distance: 'Cosine' },
            ...(this.options.replicationFactor
              ? { replication_factor: this.options.replicationFactor }
              : {}),
          }),
        );
        return;
      } catch (err) {
        // Another replica may have created it first; fall through and verify.
        if (statusOf(err) !== 409) throw err;
      }
    }
    const info = await call('get collection', () =>
      this.client.getCollection(name),
    );
    const vectors = info.config.params.vectors as
      | Schemas['VectorParams']
      | Record<string, Schemas['VectorParams']>
      | undefined;
    if (
      !vectors ||
      typeof (vectors as Schemas['VectorParams']).size !== 'number'
    ) {
      throw new DimensionMismatchError(
        `collection "${name}" uses named vectors; the service needs a single unnamed vector of dimension ${dim}`,
      );
    }
    const params = vectors as Schemas['VectorParams'];
    if (params.size !== dim || params.distance !== 'Cosine') {
      throw new DimensionMismatchError(
        `collection "${name}" has ${params.distance} vectors of dimension ${params.size}; the model produces ${dim}-d vectors for Cosine`,
      );
    }
  }

  async upsert(point: PointInput): Promise<void> {
    await this.upsertMany([point]);
  }

  async upsertMany(points: PointInput[]): Promise<void> {
    if (points.length === 0) return;
    await call('upsert', () =>
      this.client.upsert(this.options.collection, {
        wait: true,
        points: points.map(point => ({
          id: pointUuid(point.id),
          vector: Array.from(point.vector),
          payload: { ...point.payload, [ID_KEY]: point.id },
        })),
      }),
    );
  }

  async search(
    vector: Float32Array,
    k: number,
    filter?: PayloadFilter,
  ): Promise<SearchHit[]> {
    const res = await call('query', () =>
      this.client.query(this.options.collection, {
        query: Array.from(vector),
        limit: k,
        filter: toFilter(filter),
        with_payload: true,
      }),
    );
    return res.points.map(p => ({ ...unwrap(p.payload), score: p.score }));
  }

  async delete(id: string): Promise<boolean> {
    const uuid = pointUuid(id);
    const found = await call('retrieve', () =>
      this.client.retrieve(this.options.collection, {
        ids: [uuid],
        with_payload: false,
        with_vector: false,
      }),
    );
    if (!found.length) return false;
    await call('delete', () =>
      this.client.delete(this.options.collection, {
        wait: true,
        points: [uuid],
      }),
    );
    return true;
  }

  async health(): Promise<void> {
    await call('health check', () =>
      this.client.collectionExists(this.options.collection),
    );
  }

  async close(): Promise<void> {}
}
