import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '../__testUtils__/tempDir';
import { LocalVectorStore } from './LocalVectorStore';
import { DimensionMismatchError } from './VectorStore';

const unit = (...v: number[]) => {
  const n = Math.hypot(...v);
  return Float32Array.from(v.map(x => x / n));
};

describe('LocalVectorStore', () => {
  const tmp = makeTempDir();
  afterAll(() => tmp.cleanup());

  it('returns exact cosine neighbours, best first, with payloads and filters', async () => {
    const store = new LocalVectorStore({ collection: 'images' });
    await store.ensureCollection(3);
    await store.upsert({
      id: 'x',
      vector: unit(1, 0, 0),
      payload: { kind: 'axis', n: 1 },
    });
    await store.upsert({
      id: 'y',
      vector: unit(0, 1, 0),
      payload: { kind: 'axis', n: 2 },
    });
    await store.upsert({
      id: 'xy',
      vector: unit(1, 1, 0),
      payload: { kind: 'diag' },
    });
    const hits = await store.search(unit(1, 0.1, 0), 2);
    expect(hits.map(h => h.id)).toEqual(['x', 'xy']);
    expect(hits[0].score).toBeCloseTo(1 / Math.hypot(1, 0.1), 6);
    expect(hits[0].payload).toEqual({ kind: 'axis', n: 1 });
    expect(
      (await store.search(unit(1, 0.1, 0), 10, { kind: 'axis', n: 2 })).map(
        h => h.id,
      ),
    ).toEqual(['y']);
    await store.upsert({
      id: 'x',
      vector: unit(0, 0, 1),
      payload: { kind: 'moved' },
    });
    expect((await store.search(unit(0, 0, 1), 1))[0]).toMatchObject({
      id: 'x',
      payload: { kind: 'moved' },
    });
    expect(await store.delete('x')).toBe(true);
    expect(await store.delete('x')).toBe(false);
    expect(store.size).toBe(2);
  });

  it('persists to a file and refuses to reopen it with another dimension', async () => {
    const file = path.join(tmp.dir, 'store', 'vectors.json');
    const a = new LocalVectorStore({ collection: 'images', path: file });
    await a.ensureCollection(2);
    await a.upsert({ id: 'p1', vector: unit(3, 4), payload: { tag: 'a' } });
    await a.upsert({ id: 'p2', vector: unit(4, 3), payload: {} });
    await a.delete('p2');
    await a.close();

    const b = new LocalVectorStore({ collection: 'images', path: file });
    await b.ensureCollection(2);
    const [hit] = await b.search(unit(3, 4), 5);
    expect(hit).toMatchObject({ id: 'p1', payload: { tag: 'a' } });
    expect(hit.score).toBeCloseTo(1, 6);
    expect(b.size).toBe(1);

    const c = new LocalVectorStore({ collection: 'images', path: file });
    await expect(c.ensureCollection(3)).rejects.toThrow(DimensionMismatchError);
    await expect(c.ensureCollection(3)).rejects.toThrow(
      /dimension 2, the model produces 3/,
    );
  });

  it('rejects vectors of the wrong dimension', async () => {
    const store = new LocalVectorStore({ collection: 'images' });
    await store.ensureCollection(2);
    await expect(
      store.upsert({ id: 'a', vector: unit(1, 2, 3), payload: {} }),
    ).rejects.toThrow(DimensionMismatchError);
  });

  it('fails clearly on an unreadable store file', () => {
    const file = path.join(tmp.dir, 'garbage.json');
    fs.writeFileSync(file, 'not json');
    expect(
      () => new LocalVectorStore({ collection: 'images', path: file }),
    ).toThrow(/unreadable/);
  });
});
