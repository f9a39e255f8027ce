import fs from 'node:fs';
import path from 'node:path';
import {
  DimensionMismatchError,
  Payload,
  PayloadFilter,
  PointInput,
  SearchHit,
  VectorStore,
} from './VectorStore';

interface StoredPoint {
  vector: Float32Array;
  payload: Payload;
}

interface PersistedFile {
  format: 'cv-platform-local-store/v1';
  collection: string;
  dim: number;
  distance: 'Cosine';
  points: Array<{ id: string; vector: string; payload: Payload }>;
}

export interface LocalVectorStoreOptions {
  collection: string;
  /** Persist to this JSON file (written atomically after each change). */
  path?: string;
}

export function matchesFilter(
  payload: Payload,
  filter?: PayloadFilter,
): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([k, v]) => payload[k] === v);
}

/**
 * Embedded exact-search store so the service runs without Qdrant: brute-force
 * dot products over normalised vectors (= cosine), fine up to ~10^5 points.
 */
export class LocalVectorStore implements VectorStore {
  readonly kind = 'local' as const;
  private dim?: number;
  private readonly points = new Map<string, StoredPoint>();
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;

  constructor(private readonly options: LocalVectorStoreOptions) {
    if (options.path && fs.existsSync(options.path))
      this.loadFile(options.path);
  }

  get size(): number {
    return this.points.size;
  }

  async ensureCollection(dim: number): Promise<void> {
    if (this.dim !== undefined && this.dim !== dim) {
      throw new DimensionMismatchError(
        `collection "${this.options.collection}"${
          this.options.path ? ` in ${this.options.path}` : ''
        } has dimension ${this.dim}, the model produces ${dim}`,
      );
    }
    if (this.dim === undefined) {
      this.dim = dim;
      await this.persist();
    }
  }

  async upsert(point: PointInput): Promise<void> {
    await this.upsertMany([point]);
  }

  async upsertMany(points: PointInput[]): Promise<void> {
    for (const point of points) this.checkDim(point.vector);
    for (const point of points) {
      this.points.set(point.id, {
        vector: Float32Array.from(point.vector),
        payload: point.payload,
      });
    }
    await this.persist();
  }

  async search(
    vector: Float32Array,
    k: number,
    filter?: PayloadFilter,
  ): Promise<SearchHit[]> {
    this.checkDim(vector);
    const hits: SearchHit[] = [];
    for (const [id, p] of this.points) {
      if (!matchesFilter(p.payload, filter)) continue;
      let dot = 0;
      for (let i = 0; i < vector.length; i++) dot += vector[i] * p.vector[i];
      hits.push({ id, score: dot, payload: p.payload });
    }
    hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    return hits.slice(0, k);
  }

  async delete(id: string): Promise<boolean> {
    const existed = this.points.delete(id);
    if (existed) await this.persist();
    return existed;
  }

  async health(): Promise<void> {}

  async close(): Promise<void> {
    await this.writing;
  }

  private checkDim(vector: Float32Array): void {
    if (this.dim === undefined) throw new Error('collection not initialised');
    if (vector.length !== this.dim) {
      throw new DimensionMismatchError(
        `vector has dimension ${vector.length}, collection has ${this.dim}`,
      );
    }
  }

  private loadFile(file: string): void {
    let data: PersistedFile;
    try {
      data = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(
        `local vector store ${file} is unreadable: ${(err as Error).message}`,
      );
    }
    if (data.format !== 'cv-platform-local-store/v1') {
      throw new Error(
        `local vector store ${file}: unknown format ${String(data.format)}`,
      );
    }
    this.dim = data.dim;
    for (const p of data.points) {
      const buf = Buffer.from(p.vector, 'base64');
      const vector = new Float32Array(
        buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength),
      );
      if (vector.length !== data.dim)
        throw new Error(
          `local vector store ${file}: point ${p.id} has the wrong dimension`,
        );
      this.points.set(p.id, { vector, payload: p.payload });
    }
  }

  /**
   * Writes are serialised and coalesced: at most one write in flight plus
   * one pending, each a full snapshot written to a temp file and renamed.
   */
  private persist(): Promise<void> {
    const file = this.options.path;
    if (!file) return Promise.resolve();
    if (this.dirty) return this.writing;
    this.dirty = true;
    this.writing = this.writing
      .catch(() => undefined)
      .then(async () => {
        this.dirty = false;
        const snapshot: PersistedFile = {
          format: 'cv-platform-local-store/v1',
          collection: this.options.collection,
          dim: this.dim!,
          distance: 'Cosine',
          points: [...this.points].map(([id, p]) => ({
            id,
            vector: Buffer.from(
              p.vector.buffer,
              p.vector.byteOffset,
              p.vector.byteLength,
            ).toString('base64'),
            payload: p.payload,
          })),
        };
        await fs.promises.mkdir(path.dirname(file), { recursive: true });
        const tmp = `${file}.${process.pid}.tmp`;
        await fs.promises.writeFile(tmp, JSON.stringify(snapshot));
        await fs.promises.rename(tmp, file);
      });
    return this.writing;
  }
}
