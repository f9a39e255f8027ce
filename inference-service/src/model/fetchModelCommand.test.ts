import fs from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fetchModelCommand } from './fetchModelCommand';

describe('fetch-model (the init container command)', () => {
  let dir: string;
  let server: http.Server;
  let base: string;
  let requests = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests++;
      if (req.url === '/model.onnx') res.end(Buffer.from('onnx-bytes'));
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
    const env = { MODEL_URL: `${base}/model.onnx`, MODEL_PATH: path.join(dir, 'model.onnx') };
    expect(await fetchModelCommand(env)).toBe(env.MODEL_PATH);
    expect(fs.readFileSync(env.MODEL_PATH, 'utf8')).toBe('onnx-bytes');
    await fetchModelCommand(env);
    expect(requests).toBe(1);
    await fetchModelCommand({ ...env, MODEL_URL: `${base}/model.onnx?v=2` }).catch(() => undefined);
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
    await expect(fetchModelCommand({ MODEL_URL: `${base}/nope.onnx`, MODEL_PATH: path.join(dir, 'm.onnx') })).rejects.toThrow(/404/);
    await expect(fetchModelCommand({})).rejects.toThrow(/MODEL_URL is required/);
    expect(fs.existsSync(path.join(dir, 'm.onnx'))).toBe(false);
  });
});
