import fs from 'node:fs';
import path from 'node:path';
import { ServiceProcess } from './__testUtils__/ServiceProcess';
import { makeTempDir } from './__testUtils__/tempDir';
import { writeTinyModel } from './__testUtils__/writeTinyModel';

async function getJson(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

// The real entry point, started the way `npm start` does (tsx src/main.ts),
// which also proves the worker threads load outside jest.
describe('main (npm start)', () => {
  jest.setTimeout(60_000);
  const tmp = makeTempDir();
  afterAll(() => tmp.cleanup());

  it('serves, reloads the model on SIGHUP and on SIGTERM drains (not ready, still serving) before it exits cleanly', async () => {
    const modelPath = writeTinyModel(tmp.dir, {
      seed: 1,
      size: 16,
      dim: 8,
    }).path;
    const proc = new ServiceProcess({
      MODEL_PATH: modelPath,
      WORKERS: '1',
      SHUTDOWN_DELAY_SECONDS: '2',
    });
    proc.start();
    try {
      const { port } = await proc.waitForLog(l => l.msg === 'listening');
      const base = `http://127.0.0.1:${port}`;
      await proc.waitForLog(l => l.msg === 'collection ready');
      expect((await getJson(`${base}/readyz`)).body.model.version).toBe(1);

      writeTinyModel(tmp.dir, { seed: 2, size: 16, dim: 8 });
      proc.signal('SIGHUP');
      const reloaded = await proc.waitForLog(l => l.msg === 'model reloaded');
      expect(reloaded.version).toBe(2);
      const ready = await getJson(`${base}/readyz`);
      expect(ready).toMatchObject({
        status: 200,
        body: { ready: true, model: { version: 2 } },
      });

      proc.signal('SIGTERM');
      await proc.waitForLog(l => l.msg === 'draining before shutdown');
      expect(await getJson(`${base}/readyz`)).toMatchObject({
        status: 503,
        body: { ready: false, reasons: ['shutting down'] },
      });
      // New connections still get answers while the endpoints go, each
      // closing its connection so no keep-alive socket outlives the pod.
      const during = await fetch(`${base}/healthz`);
      expect(during.status).toBe(200);
      expect(during.headers.get('connection')).toBe('close');
      await during.arrayBuffer();
      expect(await proc.waitForExit()).toBe(0);
    } finally {
      await proc.stop();
    }
  });

  it('exits with a clear error when the stored collection has another dimension', async () => {
    const modelPath = writeTinyModel(
      tmp.dir,
      { size: 16, dim: 8 },
      'dim8.onnx',
    ).path;
    const storePath = path.join(tmp.dir, 'store.json');
    fs.writeFileSync(
      storePath,
      JSON.stringify({
        format: 'cv-platform-local-store/v1',
        collection: 'images',
        dim: 1280,
        distance: 'Cosine',
        points: [],
      }),
    );
    const proc = new ServiceProcess({
      MODEL_PATH: modelPath,
      LOCAL_STORE_PATH: storePath,
    });
    proc.start();
    try {
      expect(await proc.waitForExit()).toBe(1);
      const fatal = proc.logs.find(l => l.msg === 'fatal startup error');
      expect(fatal?.error).toMatch(/has dimension 1280, the model produces 8/);
    } finally {
      await proc.stop();
    }
  });
});
