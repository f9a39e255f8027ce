'use strict';
// Worker-thread entry point. Deliberately plain CommonJS: worker threads do
// not inherit jest's or tsx's TypeScript loaders, and a .cjs file loads the
// same way under jest, `tsx src/main.ts` and a compiled build.
const { parentPort, workerData } = require('node:worker_threads');
const ort = require('onnxruntime-node');

let session;

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

async function createSession(executionProviders) {
  return ort.InferenceSession.create(workerData.modelPath, {
    executionProviders,
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
}

// CUDA when asked for; CPU, saying why, when the CUDA provider cannot load
// (no driver, no GPU, libraries missing), so a GPU platform still serves.
async function init() {
  let executionProvider = 'cpu';
  let fallbackReason;
  if (workerData.executionProvider === 'cuda') {
    try {
      session = await createSession(['cuda']);
      executionProvider = 'cuda';
    } catch (err) {
      fallbackReason = String((err && err.message) || err).split('\n')[0];
    }
  }
  if (!session) session = await createSession(['cpu']);
  return {
    inputs: describe(session.inputMetadata),
    outputs: describe(session.outputMetadata),
    executionProvider,
    fallbackReason,
  };
}

// The input arrives packed (see WorkerPool.run): this thread only runs the model.
async function run(msg) {
  const { spec, count, data } = msg;
  const dims =
    spec.layout === 'NCHW'
      ? [count, 3, spec.height, spec.width]
      : [count, spec.height, spec.width, 3];
  const feeds = { [spec.inputName]: new ort.Tensor('float32', data, dims) };
  const started = process.hrtime.bigint();
  const result = await session.run(feeds, [spec.outputName]);
  const runNs = Number(process.hrtime.bigint() - started);
  const output = result[spec.outputName];
  const rows = output.dims[0];
  const dim = output.data.length / rows;
  if (rows !== count || dim !== spec.dim) {
    throw new Error(
      `output ${spec.outputName} has shape [${output.dims}], expected [${count}, ${spec.dim}]`,
    );
  }
  const embeddings = l2NormalizeRows(output.data, rows, dim);
  for (const t of Object.values(result)) t.dispose?.();
  return { embeddings, runNs };
}

// The pool may send the next batch while one runs: run them one at a time,
// in order, so a queued batch starts the moment the previous one ends.
let queue = Promise.resolve();
parentPort.on('message', msg => {
  if (msg.type !== 'run') return;
  queue = queue.then(() =>
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
    ),
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
