import fs from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { S3TestServer } from '@cv-platform/local-cluster';
import { makeTempDir } from '../__testUtils__/tempDir';
import { fetchModel, ModelFetchError } from './fetchModel';

describe('fetchModel', () => {
  const tmp = makeTempDir();
  const cacheDir = path.join(tmp.dir, 'cache');
  const modelFile = path.join(tmp.dir, 'model.onnx');
  const bytes = Buffer.from('pretend these are onnx bytes');
  beforeAll(() => fs.writeFileSync(modelFile, bytes));
  afterAll(() => tmp.cleanup());

  it('uses plain paths (the operator init container / PVC) and file:// URLs in place', async () => {
    expect(await fetchModel(modelFile, { cacheDir })).toEqual({
      path: modelFile,
      temporary: false,
      source: modelFile,
    });
    const viaUrl = await fetchModel(pathToFileURL(modelFile).toString(), {
      cacheDir,
    });
    expect(viaUrl.path).toBe(modelFile);
    expect(viaUrl.temporary).toBe(false);
  });

  it('reports missing and empty local files', async () => {
    await expect(
      fetchModel(path.join(tmp.dir, 'nope.onnx'), { cacheDir }),
    ).rejects.toThrow(/no such file/);
    const empty = path.join(tmp.dir, 'empty.onnx');
    fs.writeFileSync(empty, '');
    await expect(fetchModel(empty, { cacheDir })).rejects.toThrow(
      /empty model file/,
    );
    await expect(
      fetchModel('gs://bucket/model.onnx', { cacheDir }),
    ).rejects.toThrow(/unsupported scheme/);
  });

  describe('http(s)', () => {
    let server: http.Server;
    let base: string;
    beforeAll(async () => {
      server = http.createServer((req, res) => {
        if (req.url === '/model.onnx') res.end(bytes);
        else if (req.url === '/big.onnx') res.end(Buffer.alloc(4096));
        else res.writeHead(req.url === '/broken' ? 500 : 404).end('nope');
      });
      await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise(r => server.close(r)));

    it('downloads into the cache directory', async () => {
      const got = await fetchModel(`${base}/model.onnx`, { cacheDir });
      expect(got.temporary).toBe(true);
      expect(path.dirname(got.path)).toBe(cacheDir);
      expect(fs.readFileSync(got.path)).toEqual(bytes);
    });

    it('fails with the HTTP status, the size limit, or the connection error', async () => {
      await expect(
        fetchModel(`${base}/missing.onnx`, { cacheDir }),
      ).rejects.toThrow(/HTTP 404/);
      await expect(fetchModel(`${base}/broken`, { cacheDir })).rejects.toThrow(
        /HTTP 500/,
      );
      await expect(
        fetchModel(`${base}/big.onnx`, { cacheDir, maxBytes: 1000 }),
      ).rejects.toThrow(/larger than 1000 bytes/);
      await expect(
        fetchModel('http://127.0.0.1:1/model.onnx', { cacheDir }),
      ).rejects.toBeInstanceOf(ModelFetchError);
      // Failed downloads leave nothing behind.
      const left = fs
        .readdirSync(cacheDir)
        .filter(
          f => fs.readFileSync(path.join(cacheDir, f)).length !== bytes.length,
        );
      expect(left).toEqual([]);
    });
  });

  // A real S3-compatible server (versitygw, built from the Go module proxy
  // into the cache on first run), checking SigV4 signatures like S3 does.
  describe('s3:// against versitygw on 127.0.0.1', () => {
    const s3 = new S3TestServer();
    const savedEnv = { ...process.env };
    beforeAll(async () => {
      await s3.start();
      process.env.AWS_ACCESS_KEY_ID = s3.accessKeyId;
      process.env.AWS_SECRET_ACCESS_KEY = s3.secretAccessKey;
      process.env.AWS_REGION = 'us-east-1';
      await s3.putObjects('models', { 'mobilenet/v3/model.onnx': bytes });
    }, 600_000);
    afterAll(async () => {
      process.env = savedEnv;
      await s3.stop();
    });

    it('downloads an object with credentials from the environment', async () => {
      const got = await fetchModel('s3://models/mobilenet/v3/model.onnx', {
        cacheDir,
        s3: { endpoint: s3.endpoint },
      });
      expect(got.temporary).toBe(true);
      expect(fs.readFileSync(got.path)).toEqual(bytes);
    });

    it('honours AWS_ENDPOINT_URL_S3 when no endpoint is configured', async () => {
      process.env.AWS_ENDPOINT_URL_S3 = s3.endpoint;
      try {
        const got = await fetchModel('s3://models/mobilenet/v3/model.onnx', {
          cacheDir,
        });
        expect(fs.readFileSync(got.path)).toEqual(bytes);
      } finally {
        delete process.env.AWS_ENDPOINT_URL_S3;
      }
    });

    it('reports a missing key, a missing bucket and bad credentials', async () => {
      const opts = { cacheDir, s3: { endpoint: s3.endpoint } };
      await expect(fetchModel('s3://models/nope.onnx', opts)).rejects.toThrow(
        /NoSuchKey.*HTTP 404/,
      );
      await expect(
        fetchModel('s3://no-bucket/model.onnx', opts),
      ).rejects.toThrow(/NoSuchBucket/);
      process.env.AWS_SECRET_ACCESS_KEY = 'wrong-secret';
      try {
        await expect(
          fetchModel('s3://models/mobilenet/v3/model.onnx', opts),
        ).rejects.toThrow(/SignatureDoesNotMatch.*HTTP 403/);
      } finally {
        process.env.AWS_SECRET_ACCESS_KEY = s3.secretAccessKey;
      }
      await expect(fetchModel('s3://just-a-bucket', opts)).rejects.toThrow(
        /expected s3:\/\/bucket\/key/,
      );
    });
  });
});
