import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  failedMarkerOf,
  fetchModelCommand,
  ModelLoaderGaveUp,
} from './fetchModelCommand';

describe('fetch-model (the init container command)', () => {
  let dir: string;
  let server: http.Server;
  let base: string;
  let requests = 0;
  let flaky = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests++;
      if (req.url === '/model.onnx') res.end(Buffer.from('onnx-bytes'));
      else if (req.url === '/flaky.onnx' && ++flaky <= 2) {
        res.statusCode = 503;
        res.end();
      } else if (req.url === '/flaky.onnx') res.end(Buffer.from('flaky-bytes'));
      else if (req.url === '/hang.onnx') {
        // Never answers: only the pull timeout ends the attempt.
      } else if (req.url?.startsWith('/slow.onnx'))
        setTimeout(() => res.end(Buffer.from(`slow-bytes ${req.url}`)), 400);
      else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>(r => server.close(() => r())));
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fetch-model-'));
    requests = 0;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('downloads MODEL_URL to MODEL_PATH once, and again for a new URL', async () => {
    const env = {
      MODEL_URL: `${base}/model.onnx`,
      MODEL_PATH: path.join(dir, 'model.onnx'),
    };
    expect(await fetchModelCommand(env)).toBe(env.MODEL_PATH);
    expect(fs.readFileSync(env.MODEL_PATH, 'utf8')).toBe('onnx-bytes');
    await fetchModelCommand(env);
    expect(requests).toBe(1);
    await fetchModelCommand({
      ...env,
      MODEL_URL: `${base}/model.onnx?v=2`,
      MAX_RETRIES: '0',
    }).catch(() => undefined);
    expect(requests).toBe(2);
  });

  it('copies a file:// model into place', async () => {
    const src = path.join(dir, 'src.onnx');
    fs.writeFileSync(src, 'local-bytes');
    const target = path.join(dir, 'models', 'model.onnx');
    await fetchModelCommand({ MODEL_URL: `file://${src}`, MODEL_PATH: target });
    expect(fs.readFileSync(target, 'utf8')).toBe('local-bytes');
  });

  it('fails clearly for a missing model or a missing MODEL_URL', async () => {
    await expect(
      fetchModelCommand({
        MODEL_URL: `${base}/nope.onnx`,
        MODEL_PATH: path.join(dir, 'm.onnx'),
        MAX_RETRIES: '0',
      }),
    ).rejects.toThrow(/after 1 attempt: .*404/);
    await expect(fetchModelCommand({})).rejects.toThrow(
      /MODEL_URL is required/,
    );
    expect(fs.existsSync(path.join(dir, 'm.onnx'))).toBe(false);
  });

  it('retries a failed download up to MAX_RETRIES times, backing off', async () => {
    flaky = 0;
    const retries: number[] = [];
    const env = {
      MODEL_URL: `${base}/flaky.onnx`,
      MODEL_PATH: path.join(dir, 'model.onnx'),
      MAX_RETRIES: '2',
    };
    expect(
      await fetchModelCommand(env, (_attempt, _error, delayMs) =>
        retries.push(delayMs),
      ),
    ).toBe(env.MODEL_PATH);
    expect(retries).toEqual([2000, 4000]);
    expect(fs.readFileSync(env.MODEL_PATH, 'utf8')).toBe('flaky-bytes');
    expect(fs.existsSync(failedMarkerOf(env.MODEL_PATH))).toBe(false);
  }, 20_000);

  it('gives up after the last retry, each attempt bounded by the pull timeout, and leaves the reason beside the model', async () => {
    const env = {
      MODEL_URL: `${base}/hang.onnx`,
      MODEL_PATH: path.join(dir, 'model.onnx'),
      MAX_RETRIES: '1',
      PULL_TIMEOUT_SECONDS: '1',
    };
    const gaveUp = await fetchModelCommand(env).catch(e => e);
    expect(gaveUp).toBeInstanceOf(ModelLoaderGaveUp);
    expect(gaveUp.message).toMatch(
      /^model download failed after 2 attempts: .*(timed out|timeout|aborted)/i,
    );
    expect(
      JSON.parse(fs.readFileSync(failedMarkerOf(env.MODEL_PATH), 'utf8')),
    ).toMatchObject({ url: env.MODEL_URL, attempts: 2 });
    expect(fs.existsSync(env.MODEL_PATH)).toBe(false);
    // No lock is left behind for the next loader.
    expect(fs.existsSync(`${env.MODEL_PATH}.lock`)).toBe(false);
  }, 20_000);

  it('lets one of several loaders sharing a volume download; the others wait and find the model', async () => {
    const env = {
      MODEL_URL: `${base}/slow.onnx`,
      MODEL_PATH: path.join(dir, 'v1', 'model.onnx'),
    };
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => fetchModelCommand(env)),
    );
    expect(results).toEqual([
      env.MODEL_PATH,
      env.MODEL_PATH,
      env.MODEL_PATH,
      env.MODEL_PATH,
    ]);
    expect(requests).toBe(1);
    expect(fs.readFileSync(env.MODEL_PATH, 'utf8')).toBe(
      'slow-bytes /slow.onnx',
    );
    // Nothing half-written or locked is left beside it.
    expect(fs.readdirSync(path.join(dir, 'v1')).sort()).toEqual([
      'model.onnx',
      'model.onnx.source',
    ]);
  });

  it('runs two loaders as separate processes at once: one download', async () => {
    const env = {
      ...process.env,
      MODEL_URL: `${base}/slow.onnx?p`,
      MODEL_PATH: path.join(dir, 'p', 'model.onnx'),
    };
    const run = () =>
      new Promise<number | null>(resolve => {
        const child = spawn(
          process.execPath,
          [
            '--import',
            'tsx',
            path.resolve(__dirname, '../main.ts'),
            'fetch-model',
          ],
          { env, stdio: 'ignore' },
        );
        child.on('exit', resolve);
      });
    expect(await Promise.all([run(), run()])).toEqual([0, 0]);
    expect(requests).toBe(1);
    expect(fs.readFileSync(env.MODEL_PATH, 'utf8')).toBe(
      'slow-bytes /slow.onnx?p',
    );
  });

  it('takes over the lock of a loader that died', async () => {
    const target = path.join(dir, 'dead', 'model.onnx');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(`${target}.lock`, '');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(`${target}.lock`, old, old);
    await fetchModelCommand({
      MODEL_URL: `${base}/model.onnx`,
      MODEL_PATH: target,
    });
    expect(fs.readFileSync(target, 'utf8')).toBe('onnx-bytes');
    expect(fs.existsSync(`${target}.lock`)).toBe(false);
  });

  it('gives up waiting on a live lock after the pull timeout, naming it', async () => {
    const target = path.join(dir, 'busy', 'model.onnx');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(`${target}.lock`, '');
    await expect(
      fetchModelCommand({
        MODEL_URL: `${base}/model.onnx`,
        MODEL_PATH: target,
        PULL_TIMEOUT_SECONDS: '1',
      }),
    ).rejects.toThrow(
      /timed out after 1 s waiting for another loader .*model\.onnx\.lock/,
    );
    expect(requests).toBe(0);
  });
});
