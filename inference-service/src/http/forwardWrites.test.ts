import fs from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import sharp from 'sharp';
import request from 'supertest';
import { makeTempDir } from '../__testUtils__/tempDir';
import { testConfig } from '../__testUtils__/testConfig';
import { writeTinyModel } from '../__testUtils__/writeTinyModel';
import { createService, Service } from '../server/createService';

const jpeg = (r: number, g: number, b: number) =>
  sharp({
    create: { width: 32, height: 32, channels: 3, background: { r, g, b } },
  })
    .jpeg()
    .toBuffer();

const ids = async (service: Service, image: Buffer) =>
  (
    await request(service.app)
      .post('/v1/search')
      .query({ k: 10 })
      .set('Content-Type', 'image/jpeg')
      .send(image)
      .expect(200)
  ).body.results.map((r: { id: string }) => r.id);

describe('a canary server forwards its writes to the stable servers', () => {
  const tmp = makeTempDir();
  const dir = (name: string) => {
    fs.mkdirSync(`${tmp.dir}/${name}`, { recursive: true });
    return `${tmp.dir}/${name}`;
  };
  let stable: Service;
  let canary: Service;
  let stableServer: http.Server;
  let red: Buffer;

  beforeAll(async () => {
    // Two model versions of different embedding sizes: each keeps its own store.
    stable = createService(
      testConfig({
        MODEL_PATH: writeTinyModel(dir('v1'), { size: 16, dim: 8 }).path,
        MAX_IMAGE_BYTES: '20000',
      }),
    );
    await stable.started;
    stableServer = stable.app.listen(0, '127.0.0.1');
    await new Promise(resolve => stableServer.once('listening', resolve));
    const port = (stableServer.address() as AddressInfo).port;
    canary = createService(
      testConfig({
        MODEL_PATH: writeTinyModel(dir('v2'), { size: 16, dim: 12 }).path,
        WRITE_FORWARD_URL: `http://127.0.0.1:${port}`,
      }),
    );
    await canary.started;
    red = await jpeg(220, 20, 20);
  });
  afterAll(async () => {
    await new Promise(resolve => stableServer.close(resolve));
    await canary.close();
    await stable.close();
    tmp.cleanup();
  });

  it('indexes into both versions, each with its own model', async () => {
    await request(canary.app)
      .post('/v1/index')
      .query({ id: 'red-1', payload: JSON.stringify({ color: 'red' }) })
      .set('Content-Type', 'image/jpeg')
      .send(red)
      .expect(200, {
        id: 'red-1',
        upserted: true,
        dim: 12,
        model: { version: 1 },
      });
    await request(canary.app)
      .post('/v1/index')
      .field('id', 'red-2')
      .attach('image', red, 'red.jpg')
      .expect(200);
    expect((await ids(canary, red)).sort()).toEqual(['red-1', 'red-2']);
    expect((await ids(stable, red)).sort()).toEqual(['red-1', 'red-2']);
    const hit = await request(stable.app)
      .post('/v1/search')
      .set('Content-Type', 'image/jpeg')
      .send(red)
      .expect(200);
    expect(hit.body.results.find((r: any) => r.id === 'red-1').payload).toEqual(
      { color: 'red' },
    );
  });

  it('deletes from both, and a point only the stable version holds too', async () => {
    await request(stable.app)
      .post('/v1/index')
      .query({ id: 'stable-only' })
      .set('Content-Type', 'image/jpeg')
      .send(red)
      .expect(200);
    await request(canary.app)
      .delete('/v1/points/stable-only')
      .expect(200, { id: 'stable-only', deleted: true });
    await request(canary.app).delete('/v1/points/red-1').expect(200);
    expect(await ids(stable, red)).toEqual(['red-2']);
    expect(await ids(canary, red)).toEqual(['red-2']);
    await request(canary.app).delete('/v1/points/nowhere').expect(404);
  });

  it('fails the write with 502 and the reason when the stable servers are unreachable', async () => {
    const gone = http.createServer().listen(0, '127.0.0.1');
    await new Promise(resolve => gone.once('listening', resolve));
    const port = (gone.address() as AddressInfo).port;
    await new Promise(resolve => gone.close(resolve));
    const orphan = createService(
      testConfig({
        MODEL_PATH: writeTinyModel(dir('v3'), { size: 16, dim: 12 }).path,
        // A port nothing listens on any more.
        WRITE_FORWARD_URL: `http://127.0.0.1:${port}`,
      }),
    );
    await orphan.started;
    try {
      const res = await request(orphan.app)
        .post('/v1/index')
        .query({ id: 'x' })
        .set('Content-Type', 'image/jpeg')
        .send(red)
        .expect(502);
      expect(res.body.error.code).toBe('write_forward_failed');
      expect(res.body.error.message).toMatch(
        /stable servers \(http:\/\/127\.0\.0\.1:\d+\) were not reached: ECONNREFUSED; retry/,
      );
    } finally {
      await orphan.close();
    }
  });

  it("quotes the stable servers' refusal", async () => {
    const noise = await sharp(
      Buffer.from(
        Array.from({ length: 256 * 256 * 3 }, (_, i) => (i * 7919) % 251),
      ),
      {
        raw: { width: 256, height: 256, channels: 3 },
      },
    )
      .jpeg({ quality: 100 })
      .toBuffer();
    expect(noise.length).toBeGreaterThan(20000);
    const res = await request(canary.app)
      .post('/v1/index')
      .query({ id: 'big' })
      .set('Content-Type', 'image/jpeg')
      .send(noise)
      .expect(502);
    expect(res.body.error.message).toMatch(
      /answered 413: .+; retry the request$/,
    );
  });
});
