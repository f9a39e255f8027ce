import * as tf from '@tensorflow/tfjs';
import {
  ensureMobileNetV2Onnx,
  FEATURE_LAYER,
  loadNsfwjsArtifacts,
  MOBILENET_INPUT_SIZE,
} from '../__testUtils__/nsfwjsMobileNetV2';
import { WorkerPool } from '../inference/WorkerPool';
import { describeModel } from '../model/describeModel';

function l2(v: Float32Array | number[], from: number, to: number): number[] {
  const row = Array.from(v.slice(from, to));
  const n = Math.hypot(...row);
  return row.map(x => x / n);
}

// The converted nsfwjs MobileNetV2 must compute what TF.js computes from the
// very same Keras model: this is what makes the generated ONNX a faithful
// pretrained model rather than "some graph that runs". onnxruntime runs in
// the service's worker pool (onnxruntime's typed arrays do not survive
// jest's VM realm), which also covers the worker's preprocessing.
describe('convertKerasModel on the nsfwjs MobileNetV2', () => {
  // TF.js runs MobileNetV2 in plain JS here: minutes on a loaded 2-core machine.
  jest.setTimeout(360_000);

  it('matches TF.js to ~1e-5 on the 1280-d pooled features and the class probabilities', async () => {
    const artifacts = await loadNsfwjsArtifacts();
    const { weightData } = artifacts;
    const keras = await tf.loadLayersModel({
      load: async () => ({
        modelTopology: artifacts.modelTopology as any,
        weightSpecs: artifacts.weightSpecs as any,
        weightData: weightData.buffer.slice(
          weightData.byteOffset,
          weightData.byteOffset + weightData.byteLength,
        ) as ArrayBuffer,
      }),
    });
    // One forward pass gives both outputs.
    const bothModel = tf.model({
      inputs: keras.inputs,
      outputs: [
        keras.getLayer(FEATURE_LAYER).output as tf.SymbolicTensor,
        keras.outputs[0],
      ],
    });

    const n = 2;
    const size = MOBILENET_INPUT_SIZE;
    const pixels = Array.from({ length: n }, (_, img) => {
      const px = new Uint8Array(size * size * 3);
      let s = 12345 + img;
      for (let i = 0; i < px.length; i++) {
        s = (s * 1103515245 + 12345) & 0x7fffffff;
        px[i] = s & 0xff;
      }
      return px;
    });
    // nsfwjs feeds pixels / 255, channels-last.
    const x = tf.tensor4d(
      Float32Array.from(pixels.flatMap(p => Array.from(p, v => v / 255))),
      [n, size, size, 3],
    );
    const [featuresOut, probsOut] = bothModel.predict(x) as tf.Tensor[];
    const tfFeatures = await featuresOut.data();
    const tfProbs = await probsOut.data();
    tf.disposeVariables();

    const pool = await WorkerPool.create({
      modelPath: await ensureMobileNetV2Onnx(),
      workers: 1,
    });
    try {
      expect(pool.metadata.inputs).toEqual([
        {
          name: 'input_1',
          isTensor: true,
          type: 'float32',
          shape: ['batch', 224, 224, 3],
        },
      ]);
      const features = describeModel(pool.metadata);
      expect(features).toMatchObject({
        layout: 'NHWC',
        outputName: 'features',
        dim: 1280,
      });
      const probabilities = describeModel(pool.metadata, {
        outputName: 'probabilities',
      });
      const pre = {
        mean: [0, 0, 0] as [number, number, number],
        std: [1, 1, 1] as [number, number, number],
        scale: 1 / 255,
        channelOrder: 'RGB' as const,
      };
      const onnxFeatures = (
        await pool.run(
          features,
          pre,
          pixels.map(p => p.slice()),
        )
      ).embeddings;
      const onnxProbs = (
        await pool.run(
          probabilities,
          pre,
          pixels.map(p => p.slice()),
        )
      ).embeddings;

      const diffs: number[] = [];
      for (let i = 0; i < n; i++) {
        const want = l2(tfFeatures as Float32Array, i * 1280, (i + 1) * 1280);
        const got = onnxFeatures.subarray(i * 1280, (i + 1) * 1280);
        for (let j = 0; j < 1280; j++) diffs.push(Math.abs(want[j] - got[j]));
        const wantP = l2(tfProbs as Float32Array, i * 5, (i + 1) * 5);
        for (let j = 0; j < 5; j++)
          expect(Math.abs(wantP[j] - onnxProbs[i * 5 + j])).toBeLessThan(1e-5);
      }
      const maxAbs = Math.max(...diffs);
      // Different runtimes, float32 and different summation orders: agreement
      // is at float rounding level, far below what would change a neighbour.
      expect(maxAbs).toBeLessThan(1e-5);
      expect(maxAbs).toBeGreaterThan(0); // it really is two independent computations
    } finally {
      await pool.close();
    }
  });
});
