import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '../__testUtils__/tempDir';
import { ConfigError, loadConfig } from './loadConfig';

describe('loadConfig', () => {
  const tmp = makeTempDir();
  afterAll(() => tmp.cleanup());

  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.collection).toBe('images');
    expect(c.qdrant).toBeUndefined();
    expect(c.modelUrl).toBeUndefined();
    expect(c.batch).toEqual({ maxSize: 8, maxLatencyMs: 5, maxQueue: 256 });
    expect(c.limits.maxImageBytes).toBe(10 * 1024 * 1024);
    expect(c.preprocess).toEqual({
      size: undefined,
      mean: [0, 0, 0],
      std: [1, 1, 1],
      scale: 1 / 255,
      channelOrder: 'RGB',
      resize: 'fill',
    });
    expect(c.workers).toBeGreaterThanOrEqual(1);
  });

  it('reads the operator contract variables', () => {
    const c = loadConfig({
      MODEL_PATH: '/models/model.onnx',
      PORT: '9000',
      QDRANT_URL: 'http://qdrant:6333',
      QDRANT_API_KEY: 'secret',
      QDRANT_COLLECTION: 'faces',
      BATCH_MAX_SIZE: '16',
      BATCH_MAX_LATENCY_MS: '3',
      WORKERS: '2',
      MAX_IMAGE_BYTES: '1000',
    });
    expect(c.modelUrl).toBe('/models/model.onnx');
    expect(c.port).toBe(9000);
    expect(c.qdrant).toEqual({ url: 'http://qdrant:6333', apiKey: 'secret' });
    expect(c.collection).toBe('faces');
    expect(c.batch.maxSize).toBe(16);
    expect(c.batch.maxLatencyMs).toBe(3);
    expect(c.workers).toBe(2);
    expect(c.limits.maxImageBytes).toBe(1000);
  });

  it('prefers MODEL_URL over MODEL_PATH', () => {
    expect(
      loadConfig({
        MODEL_URL: 's3://b/k.onnx',
        MODEL_PATH: '/models/model.onnx',
      }).modelUrl,
    ).toBe('s3://b/k.onnx');
  });

  it('merges CONFIG_FILE with the environment winning', () => {
    const file = path.join(tmp.dir, 'config.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        MODEL_URL: 'file:///from/file.onnx',
        BATCH_MAX_SIZE: 32,
        PREPROCESS_MEAN: [0.485, 0.456, 0.406],
        PREPROCESS_STD: [0.229, 0.224, 0.225],
        PREPROCESS_SIZE: 256,
        PREPROCESS_CHANNEL_ORDER: 'BGR',
        WORKERS: 3,
      }),
    );
    const c = loadConfig({
      CONFIG_FILE: file,
      WORKERS: '1',
      PREPROCESS_SIZE: '224x192',
    });
    expect(c.modelUrl).toBe('file:///from/file.onnx');
    expect(c.batch.maxSize).toBe(32);
    expect(c.workers).toBe(1);
    expect(c.preprocess.mean).toEqual([0.485, 0.456, 0.406]);
    expect(c.preprocess.std).toEqual([0.229, 0.224, 0.225]);
    expect(c.preprocess.size).toEqual([224, 192]);
    expect(c.preprocess.channelOrder).toBe('BGR');
  });

  it('parses comma-separated triples from the environment', () => {
    expect(
      loadConfig({ PREPROCESS_MEAN: '0.5, 0.5,0.5' }).preprocess.mean,
    ).toEqual([0.5, 0.5, 0.5]);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ BATCH_MAX_SIZE: '0' }, /BATCH_MAX_SIZE/],
    [{ QDRANT_URL: 'not a url' }, /QDRANT_URL/],
    [{ PREPROCESS_MEAN: '1,2' }, /PREPROCESS_MEAN/],
    [{ PREPROCESS_STD: '1,0,1' }, /PREPROCESS_STD/],
    [{ PREPROCESS_CHANNEL_ORDER: 'RBG' }, /PREPROCESS_CHANNEL_ORDER/],
  ])('rejects invalid settings %j', (env, message) => {
    expect(() => loadConfig(env as NodeJS.ProcessEnv)).toThrow(ConfigError);
    expect(() => loadConfig(env as NodeJS.ProcessEnv)).toThrow(message);
  });

  it('rejects unknown or malformed config files', () => {
    const unknown = path.join(tmp.dir, 'unknown.json');
    fs.writeFileSync(unknown, JSON.stringify({ MODEL_URLL: 'typo' }));
    expect(() => loadConfig({ CONFIG_FILE: unknown })).toThrow(
      /unknown keys: MODEL_URLL/,
    );
    const broken = path.join(tmp.dir, 'broken.json');
    fs.writeFileSync(broken, '{');
    expect(() => loadConfig({ CONFIG_FILE: broken })).toThrow(ConfigError);
    expect(() =>
      loadConfig({ CONFIG_FILE: path.join(tmp.dir, 'missing.json') }),
    ).toThrow(/missing.json/);
  });
});
