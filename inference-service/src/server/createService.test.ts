import fs from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import request from 'supertest';
import { QdrantTestDouble } from '../__testUtils__/QdrantTestDouble';
import { makeTempDir } from '../__testUtils__/tempDir';
import { testConfig } from '../__testUtils__/testConfig';
import { writeTinyModel } from '../__testUtils__/writeTinyModel';
import { DimensionMismatchError } from '../vectorstore/VectorStore';
import { createService } from './createService';

const image = (r: number, g: number, b: number) =>
  sharp({
    create: { width: 40, height: 40, channels: 3, background: { r, g, b } },
  })
    .composite([
      {
        input: {
          create: {
            width: 10,
            height: 20,
            channels: 3,
            background: { r: b, g: r, b: g },
          },
        },
        left: 5,
        top: 7,
      },
    ])
    .jpeg()
    .toBuffer();

describe('hot reload', () => {
  it('swaps versions under load without dropping a request, staying ready throughout', async () => {
    const tmp = makeTempDir();
    writeTinyModel(tmp.dir, { seed: 1, size: 16, dim: 8 });
    const service = createService(
      testConfig({
        MODEL_PATH: path.join(tmp.dir, 'model.onnx'),
        WORKERS: '2',
        BATCH_MAX_SIZE: '4',
      }),
    );
    try {
      await service.started;
      const img = await image(200, 100, 30);
      const embed = () =>
        request(service.app)
          .post('/v1/embed')
          .set('Content-Type', 'image/jpeg')
          .send(img);
      const v1 = (await embed().expect(200)).body;
      expect(v1.model.version).toBe(1);

      // The operator (or a person) drops a new model version in place.
      writeTinyModel(tmp.dir, { seed: 2, size: 16, dim: 8 });

      let reloading = true;
      const readinessDuringSwap: number[] = [];
      const probe = (async () => {
        while (reloading) {
          readinessDuringSwap.push(
            (await request(service.app).get('/readyz')).status,
          );
        }
      })();
      const traffic = (async () => {
        const responses: request.Response[] = [];
        while (reloading)
          responses.push(
            ...(await Promise.all(Array.from({ length: 6 }, embed))),
          );
        return responses;
      })();
      const reload = await request(service.app)
        .post('/v1/model/reload')
        .expect(200);
      reloading = false;
      const responses = await traffic;
      await probe;

      expect(reload.body).toMatchObject({ version: 2, dim: 8 });
      expect(responses.length).toBeGreaterThan(0);
      expect(responses.map(r => r.status).filter(s => s !== 200)).toEqual([]);
      expect(readinessDuringSwap.filter(s => s !== 200)).toEqual([]);
      // Each answer is internally consistent: the version it reports produced it.
      const v2 = (await embed().expect(200)).body;
      expect(v2.model.version).toBe(2);
      expect(v2.vector).not.toEqual(v1.vector);
      for (const r of responses) {
        expect(r.body.vector).toEqual(
          r.body.model.version === 1 ? v1.vector : v2.vector,
        );
      }
    } finally {
      await service.close();
      tmp.cleanup();
    }
  });

  it('rejects a new version with another dimension and keeps serving the old one', async () => {
    const tmp = makeTempDir();
    writeTinyModel(tmp.dir, { seed: 1, size: 16, dim: 8 });
    const service = createService(
      testConfig({ MODEL_PATH: path.join(tmp.dir, 'model.onnx') }),
    );
    try {
      await service.started;
      writeTinyModel(tmp.dir, { seed: 1, size: 16, dim: 12 });
      const res = await request(service.app)
        .post('/v1/model/reload')
        .expect(409);
      expect(res.body.error.code).toBe('model_rejected');
      expect(res.body.error.message).toMatch(
        /12-d embeddings but collection "images" holds 8-d vectors/,
      );
      fs.writeFileSync(path.join(tmp.dir, 'model.onnx'), 'corrupt');
      const failed = await request(service.app)
        .post('/v1/model/reload')
        .expect(500);
      expect(failed.body.error.message).toMatch(
        /still serving the previous model/,
      );
      const ready = await request(service.app).get('/readyz').expect(200);
      expect(ready.body.model).toMatchObject({ version: 1, dim: 8 });
      await request(service.app)
        .post('/v1/embed')
        .set('Content-Type', 'image/jpeg')
        .send(await image(1, 2, 3))
        .expect(200);
    } finally {
      await service.close();
      tmp.cleanup();
    }
  });
});

describe('hot reload by URL', () => {
  it('fetches a new model itself, reports the URL it serves, and refuses what it must not fetch', async () => {
    const tmp = makeTempDir();
    const first = writeTinyModel(tmp.dir, { seed: 1, size: 16, dim: 8 });
    // As the model-loader leaves it: the file and the URL it came from.
    fs.writeFileSync(`${first.path}.source`, 's3://models/a.onnx');
    const served = path.join(tmp.dir, 'served');
    fs.mkdirSync(served);
    writeTinyModel(served, { seed: 2, size: 16, dim: 8 }, 'b.onnx');
    const files = http.createServer((req, res) => {
      const file = path.join(served, path.basename(req.url ?? ''));
      if (!fs.existsSync(file)) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200).end(fs.readFileSync(file));
    });
    await new Promise<void>(r => files.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    const service = createService(testConfig({ MODEL_PATH: first.path }));
    try {
      await service.started;
      const before = await request(service.app).get('/readyz').expect(200);
      expect(before.body.model).toMatchObject({
        version: 1,
        url: 's3://models/a.onnx',
      });

      const reloaded = await request(service.app)
        .post('/v1/model/reload')
        .send({ modelUrl: `${base}/b.onnx` })
        .expect(200);
      expect(reloaded.body).toMatchObject({
        version: 2,
        dim: 8,
        url: `${base}/b.onnx`,
      });
      const after = await request(service.app).get('/readyz').expect(200);
      expect(after.body.model).toMatchObject({
        version: 2,
        url: `${base}/b.onnx`,
      });
      // A plain reload (SIGHUP) reloads what is serving now.
      expect((await service.reload()).url).toBe(`${base}/b.onnx`);

      // A model that cannot be fetched leaves the serving one in place.
      const missing = await request(service.app)
        .post('/v1/model/reload')
        .send({ modelUrl: `${base}/missing.onnx` })
        .expect(500);
      expect(missing.body.error.message).toMatch(
        /still serving the previous model/,
      );
      for (const modelUrl of ['file:///etc/passwd', '/models/x.onnx', 42]) {
        const bad = await request(service.app)
          .post('/v1/model/reload')
          .send({ modelUrl })
          .expect(400);
        expect(bad.body.error.code).toBe('invalid_model_url');
      }
      const still = await request(service.app).get('/readyz').expect(200);
      expect(still.body.model).toMatchObject({
        version: 3,
        url: `${base}/b.onnx`,
      });
    } finally {
      await service.close();
      files.close();
      tmp.cleanup();
    }
  });
});

// Qdrant via QdrantTestDouble: a real Qdrant cannot be installed here.
describe('with Qdrant (test double)', () => {
  const qdrant = new QdrantTestDouble({ apiKey: 'secret' });
  const tmp = makeTempDir();
  let modelPath: string;
  beforeAll(async () => {
    await qdrant.start();
    modelPath = writeTinyModel(tmp.dir, { size: 16, dim: 8 }).path;
  });
  afterAll(async () => {
    await qdrant.stop();
    tmp.cleanup();
  });

  const config = (collection: string) =>
    testConfig({
      MODEL_PATH: modelPath,
      QDRANT_URL: qdrant.url,
      QDRANT_API_KEY: 'secret',
      QDRANT_COLLECTION: collection,
    });

  it('creates the collection on first use and serves index/search/delete through it', async () => {
    const service = createService(config('svc'));
    try {
      await service.started;
      expect(qdrant.collections.get('svc')!.params).toEqual({
        size: 8,
        distance: 'Cosine',
      });
      const ready = await request(service.app).get('/readyz').expect(200);
      expect(ready.body.vectorStore).toBe('qdrant');
      const a = await image(250, 10, 10);
      const b = await image(10, 250, 10);
      await request(service.app)
        .post('/v1/index')
        .query({ id: 'a', payload: '{"tag":"A"}' })
        .set('Content-Type', 'image/jpeg')
        .send(a)
        .expect(200);
      await request(service.app)
        .post('/v1/index')
        .query({ id: 'b', payload: '{"tag":"B"}' })
        .set('Content-Type', 'image/jpeg')
        .send(b)
        .expect(200);
      const hits = await request(service.app)
        .post('/v1/search')
        .query({ k: 1 })
        .set('Content-Type', 'image/jpeg')
        .send(b)
        .expect(200);
      expect(hits.body.results).toEqual([
        { id: 'b', score: expect.any(Number), payload: { tag: 'B' } },
      ]);
      expect(hits.body.results[0].score).toBeCloseTo(1, 5);
      await request(service.app).delete('/v1/points/a').expect(200);
      await request(service.app).delete('/v1/points/a').expect(404);
    } finally {
      await service.close();
    }
  });

  it('fails startup clearly when the existing collection has another dimension', async () => {
    qdrant.collections.set('old', {
      params: { size: 512, distance: 'Cosine' },
      points: new Map(),
    });
    const service = createService(config('old'));
    try {
      await expect(service.started).rejects.toThrow(DimensionMismatchError);
      await expect(service.started).rejects.toThrow(
        /collection "old" has Cosine vectors of dimension 512; the model produces 8-d/,
      );
      const ready = await request(service.app).get('/readyz').expect(503);
      expect(ready.body.reason).toMatch(/dimension 512/);
      expect(qdrant.collections.get('old')!.points.size).toBe(0);
    } finally {
      await service.close();
    }
  });

  it('is not ready while Qdrant is unreachable, and ready once it is back', async () => {
    const service = createService(config('flaky'));
    try {
      await service.started;
      await request(service.app).get('/readyz').expect(200);
      await qdrant.stop();
      const down = await request(service.app).get('/readyz').expect(503);
      expect(down.body.reason).toMatch(/vector store unreachable/);
      const res = await request(service.app)
        .post('/v1/search')
        .set('Content-Type', 'image/jpeg')
        .send(await image(1, 1, 1))
        .expect(503);
      expect(res.body.error.code).toBe('vector_store_unavailable');
      await qdrant.start();
      await request(service.app).get('/readyz').expect(200);
    } finally {
      await service.close();
    }
  });
});
