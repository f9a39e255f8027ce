import fs from 'node:fs';
import sharp from 'sharp';
import request from 'supertest';
import { hugePngHeader } from '../__testUtils__/badImages';
import { makeTempDir } from '../__testUtils__/tempDir';
import { testConfig } from '../__testUtils__/testConfig';
import { writeTinyModel } from '../__testUtils__/writeTinyModel';
import { createService, Service } from '../server/createService';

const MAX_BYTES = 200_000;

const solid = (r: number, g: number, b: number, w = 64, h = 48) =>
  sharp({
    create: { width: w, height: h, channels: 3, background: { r, g, b } },
  })
    .jpeg()
    .toBuffer();

describe('HTTP API (tiny model, local store)', () => {
  const tmp = makeTempDir();
  let service: Service;
  let red: Buffer;
  let blue: Buffer;

  beforeAll(async () => {
    const model = writeTinyModel(tmp.dir, { size: 16, dim: 8 });
    service = createService(
      testConfig({
        MODEL_PATH: model.path,
        MAX_IMAGE_BYTES: String(MAX_BYTES),
        SEARCH_MAX_K: '50',
      }),
    );
    await service.started;
    red = await solid(220, 20, 20);
    blue = await solid(20, 20, 220);
  });
  afterAll(async () => {
    await service.close();
    tmp.cleanup();
  });

  it('reports liveness and readiness', async () => {
    await request(service.app).get('/healthz').expect(200, { status: 'ok' });
    const ready = await request(service.app).get('/readyz').expect(200);
    expect(ready.body).toMatchObject({
      ready: true,
      reasons: [],
      model: { version: 1, dim: 8 },
      vectorStore: 'local',
    });
  });

  it('embeds a raw JPEG body into a unit vector', async () => {
    const res = await request(service.app)
      .post('/v1/embed')
      .set('Content-Type', 'image/jpeg')
      .send(red)
      .expect(200);
    expect(res.body.dim).toBe(8);
    expect(res.body.vector).toHaveLength(8);
    expect(Math.hypot(...res.body.vector)).toBeCloseTo(1, 5);
    expect(res.body.model).toEqual({ version: 1 });
  });

  it('gives the same vector for multipart, raw octet-stream and binary responses', async () => {
    const raw = await request(service.app)
      .post('/v1/embed')
      .set('Content-Type', 'application/octet-stream')
      .send(red)
      .expect(200);
    const multipart = await request(service.app)
      .post('/v1/embed')
      .attach('image', red, 'red.jpg')
      .expect(200);
    expect(multipart.body.vector).toEqual(raw.body.vector);
    const binary = await request(service.app)
      .post('/v1/embed')
      .set('Content-Type', 'image/jpeg')
      .set('Accept', 'application/octet-stream')
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks)));
      })
      .send(red)
      .expect(200);
    expect(binary.headers['x-embedding-dim']).toBe('8');
    const body = binary.body as Buffer;
    const floats = Array.from(
      new Float32Array(
        body.buffer.slice(body.byteOffset, body.byteOffset + body.length),
      ),
    );
    floats.forEach((v, i) => expect(v).toBeCloseTo(raw.body.vector[i], 6));
  });

  it('indexes, searches with k and a payload filter, and deletes', async () => {
    await request(service.app)
      .post('/v1/index')
      .field('id', 'red-1')
      .field('payload', JSON.stringify({ color: 'red', n: 1 }))
      .attach('image', red, 'red.jpg')
      .expect(200, {
        id: 'red-1',
        upserted: true,
        dim: 8,
        model: { version: 1 },
      });
    await request(service.app)
      .post('/v1/index')
      .query({ id: 'blue-1', payload: JSON.stringify({ color: 'blue' }) })
      .set('Content-Type', 'image/jpeg')
      .send(blue)
      .expect(200);

    const search = await request(service.app)
      .post('/v1/search')
      .query({ k: 2 })
      .set('Content-Type', 'image/jpeg')
      .send(red)
      .expect(200);
    expect(search.body.k).toBe(2);
    expect(search.body.results.map((r: { id: string }) => r.id)).toEqual([
      'red-1',
      'blue-1',
    ]);
    expect(search.body.results[0].score).toBeCloseTo(1, 5);
    expect(search.body.results[0].payload).toEqual({ color: 'red', n: 1 });

    const filtered = await request(service.app)
      .post('/v1/search')
      .field('k', '5')
      .field('filter', JSON.stringify({ color: 'blue' }))
      .attach('image', red, 'red.jpg')
      .expect(200);
    expect(filtered.body.results.map((r: { id: string }) => r.id)).toEqual([
      'blue-1',
    ]);

    await request(service.app)
      .delete('/v1/points/red-1')
      .expect(200, { id: 'red-1', deleted: true });
    const after = await request(service.app)
      .post('/v1/search')
      .set('Content-Type', 'image/jpeg')
      .send(red)
      .expect(200);
    expect(after.body.results.map((r: { id: string }) => r.id)).toEqual([
      'blue-1',
    ]);
  });

  describe('bad input gets a 4xx JSON error with a reason', () => {
    /** Status, error code and whether a human-readable reason came along. */
    const errorOf = (res: request.Response) => ({
      status: res.status,
      code: res.body?.error?.code,
      hasReason:
        typeof res.body?.error?.message === 'string' &&
        res.body.error.message.length > 5,
    });

    it('empty body', async () => {
      expect(
        errorOf(
          await request(service.app)
            .post('/v1/embed')
            .set('Content-Type', 'image/jpeg')
            .send(Buffer.alloc(0)),
        ),
      ).toEqual({ status: 400, code: 'empty_body', hasReason: true });
    });

    it('wrong content type', async () => {
      expect(
        errorOf(
          await request(service.app)
            .post('/v1/embed')
            .set('Content-Type', 'application/json')
            .send('{"image":"x"}'),
        ),
      ).toEqual({
        status: 415,
        code: 'unsupported_content_type',
        hasReason: true,
      });
      expect(
        errorOf(
          await request(service.app)
            .post('/v1/embed')
            .set('Content-Type', 'text/plain')
            .send('hello'),
        ),
      ).toEqual({
        status: 415,
        code: 'unsupported_content_type',
        hasReason: true,
      });
    });

    it('truncated JPEG', async () => {
      const big = await sharp({
        create: {
          width: 200,
          height: 200,
          channels: 3,
          background: { r: 9, g: 99, b: 199 },
        },
      })
        .composite([
          { input: await solid(250, 250, 0, 50, 50), left: 20, top: 30 },
        ])
        .jpeg()
        .toBuffer();
      const res = await request(service.app)
        .post('/v1/embed')
        .set('Content-Type', 'image/jpeg')
        .send(big.subarray(0, Math.floor(big.length * 0.6)));
      expect(errorOf(res)).toEqual({
        status: 422,
        code: 'corrupt_image',
        hasReason: true,
      });
    });

    it('garbage bytes', async () => {
      const garbage = Buffer.from(
        Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256),
      );
      expect(
        errorOf(
          await request(service.app)
            .post('/v1/embed')
            .set('Content-Type', 'image/png')
            .send(garbage),
        ),
      ).toEqual({
        status: 422,
        code: 'unsupported_image_format',
        hasReason: true,
      });
    });

    it('a PNG whose header claims 100000x100000 pixels', async () => {
      const res = await request(service.app)
        .post('/v1/embed')
        .set('Content-Type', 'image/png')
        .send(hugePngHeader(100_000, 100_000));
      expect(errorOf(res)).toEqual({
        status: 413,
        code: 'image_dimensions_too_large',
        hasReason: true,
      });
    });

    it('an image over the byte limit (raw and multipart)', async () => {
      const tooBig = Buffer.concat([red, Buffer.alloc(MAX_BYTES)]);
      expect(
        errorOf(
          await request(service.app)
            .post('/v1/embed')
            .set('Content-Type', 'image/jpeg')
            .send(tooBig),
        ),
      ).toEqual({ status: 413, code: 'payload_too_large', hasReason: true });
      expect(
        errorOf(
          await request(service.app)
            .post('/v1/embed')
            .attach('image', tooBig.subarray(0, MAX_BYTES + 10), 'big.jpg'),
        ),
      ).toEqual({ status: 413, code: 'payload_too_large', hasReason: true });
    });

    it.each(['0', '51', '-1', '2.5', 'ten'])('k out of range (%s)', async k => {
      const res = await request(service.app)
        .post('/v1/search')
        .query({ k })
        .set('Content-Type', 'image/jpeg')
        .send(red);
      expect(errorOf(res)).toEqual({
        status: 400,
        code: 'invalid_k',
        hasReason: true,
      });
    });

    it('unknown id', async () => {
      expect(
        errorOf(await request(service.app).delete('/v1/points/never-indexed')),
      ).toEqual({ status: 404, code: 'point_not_found', hasReason: true });
    });

    it('missing id, bad payload and bad filter', async () => {
      expect(
        errorOf(
          await request(service.app)
            .post('/v1/index')
            .set('Content-Type', 'image/jpeg')
            .send(red),
        ),
      ).toEqual({ status: 400, code: 'missing_id', hasReason: true });
      expect(
        errorOf(
          await request(service.app)
            .post('/v1/index')
            .query({ id: 'x', payload: '[1,2]' })
            .set('Content-Type', 'image/jpeg')
            .send(red),
        ),
      ).toEqual({ status: 400, code: 'invalid_payload', hasReason: true });
      expect(
        errorOf(
          await request(service.app)
            .post('/v1/search')
            .query({ filter: '{"a":{"b":1}}' })
            .set('Content-Type', 'image/jpeg')
            .send(red),
        ),
      ).toEqual({ status: 400, code: 'invalid_filter', hasReason: true });
      expect(
        errorOf(
          await request(service.app)
            .post('/v1/embed')
            .field('note', 'no file here'),
        ),
      ).toEqual({ status: 400, code: 'missing_image', hasReason: true });
    });

    it('survives a stream of bad requests with bounded memory', async () => {
      const bomb = hugePngHeader(100_000, 100_000);
      const tooBig = Buffer.alloc(MAX_BYTES * 2, 1);
      const truncated = red.subarray(0, red.length >> 1);
      global.gc?.();
      const before = process.memoryUsage().rss;
      for (let round = 0; round < 15; round++) {
        await Promise.all([
          request(service.app)
            .post('/v1/embed')
            .set('Content-Type', 'image/png')
            .send(bomb)
            .expect(413),
          request(service.app)
            .post('/v1/embed')
            .set('Content-Type', 'image/jpeg')
            .send(tooBig)
            .expect(413),
          request(service.app)
            .post('/v1/embed')
            .set('Content-Type', 'image/jpeg')
            .send(truncated)
            .expect(422),
        ]);
      }
      const growthMb = (process.memoryUsage().rss - before) / 1e6;
      // A decoded 100000x100000 bomb alone would be 30 GB; a generous bound
      // still proves nothing was decoded or accumulated.
      expect(growthMb).toBeLessThan(300);
      await request(service.app)
        .post('/v1/embed')
        .set('Content-Type', 'image/jpeg')
        .send(red)
        .expect(200);
    });
  });

  it('exposes Prometheus metrics for requests, batches, model load and queue', async () => {
    const res = await request(service.app).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    for (const name of [
      'inference_http_requests_total{method="POST",route="/v1/embed",status="200"}',
      'inference_http_request_duration_seconds_bucket',
      'inference_batch_size_bucket',
      'inference_session_run_seconds_bucket',
      'inference_model_load_seconds',
      'inference_queue_depth 0',
      'inference_images_rejected_total{reason="image_dimensions_too_large"}',
      'inference_model_ready 1',
      'process_cpu_seconds_total',
    ]) {
      expect(res.text).toContain(name);
    }
  });

  it('splits each search into decode, embed and vector-store time, beside its total', async () => {
    const count = async () => {
      const text = (await request(service.app).get('/metrics').expect(200)).text;
      const of = (stage: string) => {
        const m = new RegExp(`^inference_search_stage_seconds_count\\{stage="${stage}"\\} (\\d+)$`, 'm').exec(text);
        return m ? Number(m[1]) : 0;
      };
      const sum = (stage: string) => {
        const m = new RegExp(`^inference_search_stage_seconds_sum\\{stage="${stage}"\\} ([0-9.e-]+)$`, 'm').exec(text);
        return m ? Number(m[1]) : 0;
      };
      return { decode: of('decode'), embed: of('embed'), store: of('vector_store'), total: of('total'), sums: ['decode', 'embed', 'vector_store', 'total'].map(sum) };
    };
    const before = await count();
    for (let i = 0; i < 3; i++) {
      await request(service.app).post('/v1/search?k=1').set('Content-Type', 'image/jpeg').send(blue).expect(200);
    }
    const after = await count();
    expect([after.decode - before.decode, after.embed - before.embed, after.store - before.store, after.total - before.total]).toEqual([3, 3, 3, 3]);
    const [decode, embed, store, total] = after.sums.map((v, i) => v - before.sums[i]);
    expect(Math.min(decode, embed, store)).toBeGreaterThan(0);
    // The parts happen inside the total.
    expect(decode + embed + store).toBeLessThanOrEqual(total);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await request(service.app).get('/v2/nothing').expect(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

/** Polls /readyz until the first model load attempt has finished. */
async function readinessAfterFirstAttempt(
  service: Service,
): Promise<request.Response> {
  for (;;) {
    const ready = await request(service.app).get('/readyz');
    if (!ready.body.reasons?.includes('model loading')) return ready;
    await new Promise(r => setTimeout(r, 20));
  }
}

describe('HTTP API without a loadable model', () => {
  it('is alive but not ready, says why, and refuses image requests with 503', async () => {
    const tmp = makeTempDir();
    const service = createService(
      testConfig({ MODEL_PATH: `${tmp.dir}/missing.onnx` }),
    );
    try {
      await request(service.app).get('/healthz').expect(200);
      const ready = await readinessAfterFirstAttempt(service);
      expect(ready.status).toBe(503);
      expect(ready.body.ready).toBe(false);
      expect(ready.body.reason).toMatch(
        /model not loaded: .*missing\.onnx: no such file/,
      );
      const red = await solid(200, 0, 0);
      const res = await request(service.app)
        .post('/v1/embed')
        .set('Content-Type', 'image/jpeg')
        .send(red)
        .expect(503);
      expect(res.body.error.code).toBe('model_not_ready');
    } finally {
      await service.close();
      tmp.cleanup();
    }
  });

  it('becomes ready once a corrupt model is replaced, retrying with backoff', async () => {
    const tmp = makeTempDir();
    const file = `${tmp.dir}/model.onnx`;
    fs.writeFileSync(file, 'corrupt bytes, not protobuf');
    const service = createService(testConfig({ MODEL_PATH: file }));
    try {
      const ready = await readinessAfterFirstAttempt(service);
      expect(ready.status).toBe(503);
      expect(ready.body.reason).toMatch(
        /model not loaded: .*(protobuf|parse|load)/i,
      );
      const loadsBefore =
        (await service.metrics.modelLoads.get()).values.find(
          v => v.labels.result === 'failure',
        )?.value ?? 0;
      expect(loadsBefore).toBeGreaterThanOrEqual(1);
      writeTinyModel(tmp.dir, { size: 8, dim: 4 });
      await service.started;
      await request(service.app).get('/readyz').expect(200);
    } finally {
      await service.close();
      tmp.cleanup();
    }
  });
});
