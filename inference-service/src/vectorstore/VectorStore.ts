export type PayloadValue =
  | string
  | number
  | boolean
  | null
  | PayloadValue[]
  | { [k: string]: PayloadValue };
export type Payload = Record<string, PayloadValue>;

/** Exact-match conditions on top-level payload keys, all of which must hold. */
export type PayloadFilter = Record<string, string | number | boolean>;

export interface PointInput {
  id: string;
  vector: Float32Array;
  payload: Payload;
}

export interface SearchHit {
  id: string;
  /** Cosine similarity. */
  score: number;
  payload: Payload;
}

/**
 * Where embeddings live. Vectors are L2-normalised by the service and the
 * collection uses cosine distance.
 */
export interface VectorStore {
  readonly kind: 'qdrant' | 'local';
  /**
   * Creates the collection with this dimension if missing.
   * @throws DimensionMismatchError if it exists with another dimension/distance.
   */
  ensureCollection(dim: number): Promise<void>;
  upsert(point: PointInput): Promise<void>;
  /** Many points in one write (a batch request's items). */
  upsertMany(points: PointInput[]): Promise<void>;
  search(
    vector: Float32Array,
    k: number,
    filter?: PayloadFilter,
  ): Promise<SearchHit[]>;
  /** @returns false when no point has this id. */
  delete(id: string): Promise<boolean>;
  /** Rejects when the store cannot be reached. */
  health(): Promise<void>;
  close(): Promise<void>;
}

/** An existing collection does not fit the model: refusing beats silent corruption. */
export class DimensionMismatchError extends Error {}
