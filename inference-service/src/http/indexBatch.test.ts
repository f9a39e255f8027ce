import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import request from 'supertest';
import { hugePngHeader } from '../__testUtils__/badImages';
import { makeTempDir } from '../__testUtils__/tempDir';
import { testConfig } from '../__testUtils__/testConfig';
import { writeTinyModel } from '../__testUtils__/writeTinyModel';
import { createService, Service } from '../server/createService';
import { ID_KEY } from '../vectorstore/QdrantVectorStore';
import { ndjsonLines } from './ndjsonLines';

const MAX_BYTES = 50_000;

const solid = (r: number, g: number, b: number) =>
  sharp({ create: { width: 32, height: 24, channels: 3, background: { r, g, b } } })
    .png()
    .toBuffer();

const ndjson = (items: object[]) => `${items.map(i => JSON.stringify(i)).join('\n')}\n`;
const answers = (text: string) =>
  text
    .trim()
    .split('\n')
    .map(l => JSON.parse(l));

describe('POST /v1/index/batch (tiny model, local store)', () => {
  const tmp = makeTempDir();
  let service: Service;
  let red: Buffer;
  let blue: Buffer;

  beforeAll(async () => {
    const model = writeTinyModel(tmp.dir, { size: 16, dim: 8 });
    service = createService(testConfig({ MODEL_PATH: model.path, MAX_IMAGE_BYTES: String(MAX_BYTES) }));
    await service.started;
    red = await solid(220, 20, 20);
    blue = await solid(20, 20, 220);
  });
  afterAll(async () => {
    await service.close();
    tmp.cleanup();
  });

  it('answers mixed good and bad items one by one, in order, and indexes the good ones', async () => {
    const items = ndjson([
        { id: 'red', image: red.toString('base64'), payload: { color: 'red' }, source: 's3://images/red.png' },
        { id: 'corrupt', image: Buffer.from('not an image at all').toString('base64') },
        { id: 'huge', image: Buffer.alloc(MAX_BYTES + 1, 1).toString('base64') },
        { id: 'bomb', image: hugePngHeader(30000, 30000).toString('base64') },
        { image: red.toString('base64') },
        { id: 'reserved', image: red.toString('base64'), payload: { [ID_KEY]: 'x' } },
        { id: 'no-image' },
      ]);
    const body = `${items}{not json\n\n${JSON.stringify({ id: 'blue', image: blue.toString('base64') })}\n`;
    const res = await request(service.app)
      .post('/v1/index/batch')
      .set('Content-Type', 'application/x-ndjson')
      .send(body)
      .expect(200)
      .expect('Content-Type', /application\/x-ndjson/);
    const lines = answers(res.text);
    expect(lines.slice(0, -1).map(l => [l.line, l.id, l.ok, l.error?.code])).toEqual([
      [1, 'red', true, undefined],
      [2, 'corrupt', false, 'unsupported_image_format'],
      [3, 'huge', false, 'payload_too_large'],
      [4, 'bomb', false, 'image_dimensions_too_large'],
      [5, undefined, false, 'missing_id'],
      [6, 'reserved', false, 'invalid_payload'],
      [7, 'no-image', false, 'missing_image'],
      [8, undefined, false, 'invalid_json'],
      [10, 'blue', true, undefined],
    ]);
    for (const l of lines.slice(0, -1).filter(x => !x.ok)) expect(l.error.message).toEqual(expect.any(String));
    expect(lines[lines.length - 1]).toEqual({ done: true, items: 9, indexed: 2, failed: 7 });

    // What was indexed is found, with its payload and the source it came from.
    const hit = await request(service.app).post('/v1/search?k=1').set('Content-Type', 'image/png').send(red).expect(200);
    expect(hit.body.results[0]).toMatchObject({ id: 'red', payload: { color: 'red', source: 's3://images/red.png' } });
    const hitBlue = await request(service.app).post('/v1/search?k=1').set('Content-Type', 'image/png').send(blue).expect(200);
    expect(hitBlue.body.results[0].id).toBe('blue');
  });

  it('refuses a body that is not NDJSON with 415 and a reason', async () => {
    const res = await request(service.app).post('/v1/index/batch').set('Content-Type', 'application/json').send('[]').expect(415);
    expect(res.body.error).toEqual({
      code: 'unsupported_content_type',
      message: expect.stringMatching(/application\/x-ndjson/),
    });
  });

  it('streams 10,000 items through a bounded window: memory stays within a stated bound', async () => {
    // The window (32 items) and the line limit bound what a request holds;
    // 10,000 items of ~1 kB images are ~14 MB of body, which must never be
    // buffered whole. Bound: 40 MB of RSS growth over the request.
    const images = await Promise.all([0, 1, 2, 3].map(k => solid(40 * k, 200 - 40 * k, 90)));
    const server = http.createServer(service.app);
    await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const total = 10_000;
    let sent = 0;
    const body = Readable.from(
      (function* lines() {
        for (let i = 0; i < total; i++) {
          sent++;
          yield `${JSON.stringify({ id: `p-${i}`, image: images[i % 4].toString('base64'), payload: { i } })}\n`;
        }
      })(),
    );
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const summary = await new Promise<any>((resolve, reject) => {
      const req = http.request(
        { port, host: '127.0.0.1', method: 'POST', path: '/v1/index/batch', headers: { 'Content-Type': 'application/x-ndjson' } },
        res => {
          let ok = 0;
          let last: any;
          let rest = '';
          res.setEncoding('utf8');
          res.on('data', chunk => {
            const parts = (rest + chunk).split('\n');
            rest = parts.pop()!;
            for (const p of parts) {
              last = JSON.parse(p);
              if (last.ok) ok++;
            }
          });
          res.on('end', () => resolve({ ...last, okLines: ok }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      body.pipe(req);
    });
    clearInterval(sampler);
    await new Promise(r => server.close(r));
    expect(sent).toBe(total);
    expect(summary).toMatchObject({ done: true, items: total, indexed: total, failed: 0, okLines: total });
    const growthMb = (peak - before) / 2 ** 20;
    // eslint-disable-next-line no-console
    console.log(`10,000-item NDJSON batch: RSS grew ${growthMb.toFixed(1)} MB at most (bound 40 MB)`);
    expect(growthMb).toBeLessThan(40);
  }, 300_000);
});

describe('ndjsonLines', () => {
  it('splits across chunks, skips blank lines, and drops an over-long line by its size without holding it', async () => {
    const chunks = ['{"a":1}\n{"b"', ':2}\n\n', 'x'.repeat(30), 'y'.repeat(30), '\n{"c":3}'];
    const out = [];
    for await (const line of ndjsonLines(Readable.from(chunks.map(c => Buffer.from(c))), 40)) out.push(line);
    expect(out).toEqual([
      { n: 1, text: '{"a":1}' },
      { n: 2, text: '{"b":2}' },
      { n: 4, tooLong: 60 },
      { n: 5, text: '{"c":3}' },
    ]);
  });
});
