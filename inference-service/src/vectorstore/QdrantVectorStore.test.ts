import { QdrantTestDouble } from '../__testUtils__/QdrantTestDouble';
import { pointUuid } from './pointUuid';
import { ID_KEY, QdrantVectorStore } from './QdrantVectorStore';
import { DimensionMismatchError } from './VectorStore';

const unit = (...v: number[]) => {
  const n = Math.hypot(...v);
  return Float32Array.from(v.map(x => x / n));
};

// Runs against QdrantTestDouble (see its doc comment): a real Qdrant server
// cannot be installed on the build machines.
describe('QdrantVectorStore', () => {
  const qdrant = new QdrantTestDouble({ apiKey: 'k3y' });
  beforeAll(() => qdrant.start());
  afterAll(() => qdrant.stop());

  const store = (collection: string, apiKey = 'k3y') =>
    new QdrantVectorStore({ url: qdrant.url, apiKey, collection });

  it('creates the collection with cosine distance on first use and accepts it afterwards', async () => {
    await store('first').ensureCollection(4);
    expect(qdrant.collections.get('first')!.params).toEqual({
      size: 4,
      distance: 'Cosine',
    });
    await store('first').ensureCollection(4);
    const creates = qdrant.requests.filter(
      r => r.method === 'PUT' && r.path === '/collections/first',
    );
    expect(creates).toHaveLength(1);
    expect(creates[0].apiKey).toBe('k3y');
  });

  it('creates the collection with the configured replication factor', async () => {
    await new QdrantVectorStore({
      url: qdrant.url,
      apiKey: 'k3y',
      collection: 'replicated',
      replicationFactor: 2,
    }).ensureCollection(4);
    const create = qdrant.requests.find(
      r => r.method === 'PUT' && r.path === '/collections/replicated',
    );
    expect(create?.body).toEqual({
      vectors: { size: 4, distance: 'Cosine' },
      replication_factor: 2,
    });
    // Without one, Qdrant's default applies (the request does not name it).
    const first = qdrant.requests.find(
      r => r.method === 'PUT' && r.path === '/collections/first',
    );
    expect(first?.body).not.toHaveProperty('replication_factor');
  });

  it('refuses an existing collection with another dimension or distance', async () => {
    await store('dims').ensureCollection(4);
    await expect(store('dims').ensureCollection(8)).rejects.toThrow(
      DimensionMismatchError,
    );
    await expect(store('dims').ensureCollection(8)).rejects.toThrow(
      /dimension 4; the model produces 8-d/,
    );
    qdrant.collections.set('dot', {
      params: { size: 8, distance: 'Dot' },
      points: new Map(),
    });
    await expect(store('dot').ensureCollection(8)).rejects.toThrow(
      /Dot vectors/,
    );
  });

  it('upserts, searches with a payload filter and deletes by the caller id', async () => {
    const s = store('points');
    await s.ensureCollection(3);
    await s.upsert({
      id: 'cat.jpg',
      vector: unit(1, 0, 0),
      payload: { label: 'cat' },
    });
    await s.upsert({
      id: 'dog.jpg',
      vector: unit(0.8, 0.6, 0),
      payload: { label: 'dog' },
    });
    const stored = qdrant.collections
      .get('points')!
      .points.get(pointUuid('cat.jpg'))!;
    expect(stored.payload).toEqual({ label: 'cat', [ID_KEY]: 'cat.jpg' });

    const hits = await s.search(unit(1, 0, 0), 5);
    expect(hits.map(h => h.id)).toEqual(['cat.jpg', 'dog.jpg']);
    expect(hits[0].score).toBeCloseTo(1, 6);
    expect(hits[1].score).toBeCloseTo(0.8, 6);
    expect(hits[0].payload).toEqual({ label: 'cat' });

    expect(
      (await s.search(unit(1, 0, 0), 5, { label: 'dog' })).map(h => h.id),
    ).toEqual(['dog.jpg']);
    const query = qdrant.requests
      .filter(r => r.path === '/collections/points/points/query')
      .pop()!;
    expect(query.body).toMatchObject({
      limit: 5,
      filter: { must: [{ key: 'label', match: { value: 'dog' } }] },
      with_payload: true,
    });

    expect(await s.delete('cat.jpg')).toBe(true);
    expect(await s.delete('cat.jpg')).toBe(false);
    expect((await s.search(unit(1, 0, 0), 5)).map(h => h.id)).toEqual([
      'dog.jpg',
    ]);
  });

  it('maps ids to stable UUIDs', () => {
    expect(pointUuid('a')).toBe(pointUuid('a'));
    expect(pointUuid('a')).not.toBe(pointUuid('b'));
    expect(pointUuid('any id / with spaces')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('surfaces a wrong API key and an unreachable server', async () => {
    await expect(store('first', 'wrong').health()).rejects.toThrow(/401/);
    const down = new QdrantVectorStore({
      url: 'http://127.0.0.1:1',
      collection: 'x',
      timeoutMs: 2000,
    });
    await expect(down.health()).rejects.toThrow();
  });
});
