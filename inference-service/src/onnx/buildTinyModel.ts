import { OnnxGraphBuilder } from './OnnxGraphBuilder';

export interface TinyModelOptions {
  /** Different seeds give different weights: "model versions" in tests. */
  seed?: number;
  /** Embedding dimension. */
  dim?: number;
  /** Square input size in pixels. */
  size?: number;
  layout?: 'NCHW' | 'NHWC';
  /** Fix the batch dimension instead of leaving it symbolic. */
  fixedBatch?: number;
}

export interface TinyModelParams {
  hidden: number;
  dim: number;
  size: number;
  layout: 'NCHW' | 'NHWC';
  /** [hidden][3] 1x1 conv weights, row-major. */
  convWeight: Float32Array;
  convBias: Float32Array;
  /** [hidden][dim] projection, row-major. */
  projWeight: Float32Array;
  projBias: Float32Array;
}

export interface TinyModel {
  bytes: Uint8Array;
  params: TinyModelParams;
}

/** mulberry32: tiny, seedable and identical on every platform. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomTensor(n: number, rand: () => number): Float32Array {
  return Float32Array.from({ length: n }, () => rand() * 2 - 1);
}

/**
 * A tiny deterministic image model for fast tests: 1x1 conv + ReLU, global
 * average pool, linear projection. Its first output is a 4-D feature map and
 * the embedding is the *second* output, so "first 2-D float output" selection
 * is exercised; a third 2-D output ("scores") can be selected explicitly.
 */
export function buildTinyModel(options: TinyModelOptions = {}): TinyModel {
  const seed = options.seed ?? 1;
  const dim = options.dim ?? 16;
  const size = options.size ?? 32;
  const layout = options.layout ?? 'NCHW';
  const hidden = 8;
  const rand = prng(seed);
  const params: TinyModelParams = {
    hidden,
    dim,
    size,
    layout,
    convWeight: randomTensor(hidden * 3, rand),
    convBias: randomTensor(hidden, rand),
    projWeight: randomTensor(hidden * dim, rand),
    projBias: randomTensor(dim, rand),
  };
  const scoreWeight = randomTensor(hidden * 3, rand);

  const g = new OnnxGraphBuilder();
  const batch = options.fixedBatch ?? 'batch';
  let x: string;
  if (layout === 'NCHW') {
    x = g.input('image', [batch, 3, size, size]);
  } else {
    const nhwc = g.input('image', [batch, size, size, 3]);
    x = g.node('Transpose', [nhwc], { perm: { ints: [0, 3, 1, 2] } });
  }
  const conv = g.node('Conv', [
    x,
    g.floatTensor('conv_w', [hidden, 3, 1, 1], params.convWeight),
    g.floatTensor('conv_b', [hidden], params.convBias),
  ]);
  g.node('Relu', [conv], {}, ['feature_map']);
  const pooled = g.node('GlobalAveragePool', ['feature_map']);
  const flat = g.node('Flatten', [pooled], { axis: { i: 1 } });
  const proj = g.node('MatMul', [
    flat,
    g.floatTensor('proj_w', [hidden, dim], params.projWeight),
  ]);
  g.node('Add', [proj, g.floatTensor('proj_b', [dim], params.projBias)], {}, [
    'embedding',
  ]);
  g.node(
    'MatMul',
    [flat, g.floatTensor('score_w', [hidden, 3], scoreWeight)],
    {},
    ['scores'],
  );
  g.output('feature_map', [batch, hidden, size, size]);
  g.output('embedding', [batch, dim]);
  g.output('scores', [batch, 3]);
  const bytes = g.toBytes({
    producerName: 'cv-platform-tiny-model',
    producerVersion: String(seed),
    metadata: { seed: String(seed) },
  });
  return { bytes, params };
}

/**
 * The tiny model's embedding computed in plain JS from an NCHW float input
 * (one image), un-normalised: the reference that preprocessing tests compare
 * the service against.
 */
export function tinyModelReference(
  params: TinyModelParams,
  chw: Float32Array,
): Float32Array {
  const { hidden, dim, size } = params;
  const plane = size * size;
  const pooled = new Float64Array(hidden);
  for (let h = 0; h < hidden; h++) {
    let sum = 0;
    for (let p = 0; p < plane; p++) {
      let v = params.convBias[h];
      for (let c = 0; c < 3; c++) {
        v += params.convWeight[h * 3 + c] * chw[c * plane + p];
      }
      sum += Math.max(0, v);
    }
    pooled[h] = sum / plane;
  }
  const out = new Float32Array(dim);
  for (let d = 0; d < dim; d++) {
    let v = params.projBias[d];
    for (let h = 0; h < hidden; h++)
      v += pooled[h] * params.projWeight[h * dim + d];
    out[d] = v;
  }
  return out;
}
