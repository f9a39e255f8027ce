'use strict';
// Worker-thread entry point. Deliberately plain CommonJS: worker threads do
// not inherit jest's or tsx's TypeScript loaders, and a .cjs file loads the
// same way under jest, `tsx src/main.ts` and a compiled build.
const { parentPort, workerData } = require('node:worker_threads');
const ort = require('onnxruntime-node');

let session;

/**
 * HWC uint8 RGB pixels -> float tensor data in the model's layout and
 * channel order: value = (pixel * scale - mean[c]) / std[c].
 */
function packBatch(images, spec, pre) {
  const { height, width, layout } = spec;
  const plane = height * width;
  const out = new Float32Array(images.length * plane * 3);
  const src = pre.channelOrder === 'BGR' ? [2, 1, 0] : [0, 1, 2];
  const mul = [0, 1, 2].map(c => pre.scale / pre.std[c]);
  const add = [0, 1, 2].map(c => -pre.mean[c] / pre.std[c]);
  for (let n = 0; n < images.length; n++) {
    const px = images[n];
    if (px.length !== plane * 3) {
      throw new Error(
        `image ${n} has ${px.length} bytes, expected ${plane * 3}`,
      );
    }
    const base = n * plane * 3;
    if (layout === 'NCHW') {
      for (let c = 0; c < 3; c++) {
        const s = src[c];
        const o = base + c * plane;
        const m = mul[c];
        const a = add[c];
        for (let p = 0; p < plane; p++) out[o + p] = px[p * 3 + s] * m + a;
      }
    } else {
      for (let p = 0; p < plane; p++) {
        const i = base + p * 3;
        for (let c = 0; c < 3; c++)
          out[i + c] = px[p * 3 + src[c]] * mul[c] + add[c];
      }
    }
  }
  return out;
}

function l2NormalizeRows(data, rows, dim) {
  const out = new Float32Array(rows * dim);
  for (let r = 0; r < rows; r++) {
    let sum = 0;
    for (let d = 0; d < dim; d++) sum += data[r * dim + d] * data[r * dim + d];
    // An all-zero embedding stays zero rather than becoming NaN.
    const inv = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    for (let d = 0; d < dim; d++) out[r * dim + d] = data[r * dim + d] * inv;
  }
  return out;
}

function describe(values) {
  return values.map(v =>
    v.isTensor
      ? {
          name: v.name,
          isTensor: true,
          type: v.type,
          shape: Array.from(v.shape),
        }
      : { name: v.name, isTensor: false },
  );
}

async function init() {
  session = await ort.InferenceSession.create(workerData.modelPath, {
    intraOpNumThreads: workerData.intraOpThreads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // Spinning threads burn the cores the event loop and other workers need.
    extra: {
      session: {
        intra_op: { allow_spinning: '0' },
        inter_op: { allow_spinning: '0' },
      },
    },
  });
  return {
    inputs: describe(session.inputMetadata),
    outputs: describe(session.outputMetadata),
  };
}

async function run(msg) {
  const { spec, preprocess, images } = msg;
  const data = packBatch(images, spec, preprocess);
  const dims =
    spec.layout === 'NCHW'
      ? [images.length, 3, spec.height, spec.width]
      : [images.length, spec.height, spec.width, 3];
  const feeds = { [spec.inputName]: new ort.Tensor('float32', data, dims) };
  const started = process.hrtime.bigint();
  const result = await session.run(feeds, [spec.outputName]);
  const runNs = Number(process.hrtime.bigint() - started);
  const output = result[spec.outputName];
  const rows = output.dims[0];
  const dim = output.data.length / rows;
  if (rows !== images.length || dim !== spec.dim) {
    throw new Error(
      `output ${spec.outputName} has shape [${output.dims}], expected [${images.length}, ${spec.dim}]`,
    );
  }
  const embeddings = l2NormalizeRows(output.data, rows, dim);
  for (const t of Object.values(result)) t.dispose?.();
  return { embeddings, runNs };
}

parentPort.on('message', msg => {
  if (msg.type !== 'run') return;
  run(msg).then(
    ({ embeddings, runNs }) =>
      parentPort.postMessage({ id: msg.id, embeddings, runNs }, [
        embeddings.buffer,
      ]),
    err =>
      parentPort.postMessage({
        id: msg.id,
        error: String(err && err.message ? err.message : err),
      }),
  );
});

init().then(
  metadata => parentPort.postMessage({ type: 'ready', metadata }),
  err =>
    parentPort.postMessage({
      type: 'failed',
      error: String(err && err.message ? err.message : err),
    }),
);
