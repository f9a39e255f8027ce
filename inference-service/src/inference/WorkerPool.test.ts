import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '../__testUtils__/tempDir';
import { writeTinyModel } from '../__testUtils__/writeTinyModel';
import { describeModel } from '../model/describeModel';
import { tinyModelReference } from '../onnx/buildTinyModel';
import { ModelLoadError, TensorPreprocess, WorkerPool } from './WorkerPool';

function randomPixels(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    out[i] = s & 0xff;
  }
  return out;
}

/** What the worker should compute, done independently in plain JS. */
function expected(
  params: Parameters<typeof tinyModelReference>[0],
  hwc: Uint8Array,
  pre: TensorPreprocess,
): Float32Array {
  const { size } = params;
  const plane = size * size;
  const chw = new Float32Array(3 * plane);
  const order = pre.channelOrder === 'BGR' ? [2, 1, 0] : [0, 1, 2];
  for (let c = 0; c < 3; c++) {
    for (let p = 0; p < plane; p++) {
      chw[c * plane + p] =
        (hwc[p * 3 + order[c]] * pre.scale - pre.mean[c]) / pre.std[c];
    }
  }
  const raw = tinyModelReference(params, chw);
  const norm = Math.sqrt(raw.reduce((s, v) => s + v * v, 0));
  return raw.map(v => v / norm);
}

describe('WorkerPool', () => {
  const tmp = makeTempDir();
  afterAll(() => tmp.cleanup());

  const plain: TensorPreprocess = {
    mean: [0, 0, 0],
    std: [1, 1, 1],
    scale: 1 / 255,
    channelOrder: 'RGB',
  };
  const imagenet: TensorPreprocess = {
    mean: [0.485, 0.456, 0.406],
    std: [0.229, 0.224, 0.225],
    scale: 1 / 255,
    channelOrder: 'BGR',
  };

  it.each([
    ['NCHW', plain],
    ['NHWC', plain],
    ['NCHW', imagenet],
    ['NHWC', imagenet],
  ] as const)(
    'packs %s input with %j and returns normalised embeddings',
    async (layout, pre) => {
      const model = writeTinyModel(
        tmp.dir,
        { layout, size: 16, dim: 12, seed: 3 },
        `tiny-${layout}.onnx`,
      );
      const pool = await WorkerPool.create({
        modelPath: model.path,
        workers: 1,
      });
      try {
        const spec = describeModel(pool.metadata);
        expect(spec).toMatchObject({
          layout,
          height: 16,
          width: 16,
          outputName: 'embedding',
          dim: 12,
        });
        const images = [
          randomPixels(16 * 16 * 3, 1),
          randomPixels(16 * 16 * 3, 2),
          randomPixels(16 * 16 * 3, 3),
        ];
        const want = images.map(img => expected(model.params, img, pre));
        const { embeddings } = await pool.run(
          spec,
          pre,
          images.map(i => i.slice()),
        );
        expect(embeddings).toHaveLength(3 * 12);
        for (let n = 0; n < 3; n++) {
          const row = embeddings.subarray(n * 12, (n + 1) * 12);
          row.forEach((v, i) => expect(v).toBeCloseTo(want[n][i], 5));
          expect(Math.hypot(...row)).toBeCloseTo(1, 5);
        }
      } finally {
        await pool.close();
      }
    },
  );

  it('spreads concurrent batches over its workers and gives each caller its own result', async () => {
    const model = writeTinyModel(
      tmp.dir,
      { size: 8, dim: 4 },
      'tiny-pool.onnx',
    );
    const pool = await WorkerPool.create({ modelPath: model.path, workers: 2 });
    try {
      expect(pool.size).toBe(2);
      const spec = describeModel(pool.metadata);
      const images = Array.from({ length: 8 }, (_, i) =>
        randomPixels(8 * 8 * 3, i + 10),
      );
      const results = await Promise.all(
        images.map(img => pool.run(spec, plain, [img.slice()])),
      );
      results.forEach(({ embeddings }, i) => {
        const want = expected(model.params, images[i], plain);
        embeddings.forEach((v, j) => expect(v).toBeCloseTo(want[j], 5));
      });
    } finally {
      await pool.close();
    }
  });

  it('reports a corrupt model as a load error', async () => {
    const file = path.join(tmp.dir, 'corrupt.onnx');
    fs.writeFileSync(file, Buffer.from('this is not an onnx model'));
    await expect(
      WorkerPool.create({ modelPath: file, workers: 2 }),
    ).rejects.toBeInstanceOf(ModelLoadError);
  });

  it('rejects a batch whose images have the wrong size without killing the worker', async () => {
    const model = writeTinyModel(
      tmp.dir,
      { size: 8, dim: 4 },
      'tiny-bad-input.onnx',
    );
    const pool = await WorkerPool.create({ modelPath: model.path, workers: 1 });
    try {
      const spec = describeModel(pool.metadata);
      await expect(pool.run(spec, plain, [new Uint8Array(10)])).rejects.toThrow(
        /expected 192/,
      );
      await expect(
        pool.run(spec, plain, [new Uint8Array(192)]),
      ).resolves.toHaveProperty('embeddings');
    } finally {
      await pool.close();
    }
  });
});
