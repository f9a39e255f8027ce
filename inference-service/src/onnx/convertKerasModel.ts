import { DecodedWeight } from './decodeTfjsWeights';
import { OnnxGraphBuilder } from './OnnxGraphBuilder';

/** A layer of a Keras functional model config (as stored in TF.js model.json). */
export interface KerasLayer {
  name: string;
  class_name: string;
  config: Record<string, any>;
  inbound_nodes: Array<Array<[string, number, number, unknown?]>>;
}

export interface KerasModelConfig {
  layers: KerasLayer[];
  input_layers: Array<[string, number, number]>;
}

export interface ConvertOptions {
  /** Graph outputs, in order: Keras layer name -> ONNX output name. */
  outputs: Array<{ layer: string; name: string }>;
  producerVersion?: string;
  metadata?: Record<string, string>;
}

/** Per-image shape in Keras (channels-last) terms: [H, W, C] or [C]. */
type Shape = number[];

interface Value {
  /** ONNX tensor name; 4-D values are kept NCHW inside the graph. */
  tensor: string;
  shape: Shape;
}

function pair(v: number | number[]): [number, number] {
  return Array.isArray(v) ? [v[0], v[1]] : [v, v];
}

function spatialOut(
  size: number,
  kernel: number,
  stride: number,
  dilation: number,
  padding: string,
): number {
  if (padding === 'same') return Math.ceil(size / stride);
  if (padding === 'valid') {
    return Math.floor((size - (kernel - 1) * dilation - 1) / stride) + 1;
  }
  throw new Error(`unsupported padding ${padding}`);
}

/**
 * Converts a Keras functional model (TF.js layers format) to ONNX for the
 * layer types found in MobileNet-style CNNs. The ONNX model keeps the Keras
 * NHWC input (like tf2onnx does) and computes NCHW internally, which is what
 * onnxruntime's CPU kernels are fastest with.
 */
export function convertKerasModel(
  model: KerasModelConfig,
  weights: Map<string, DecodedWeight>,
  options: ConvertOptions,
): Uint8Array {
  const g = new OnnxGraphBuilder();
  const values = new Map<string, Value>();
  const used = new Set<string>();

  const weight = (layer: string, param: string): DecodedWeight => {
    const key = `${layer}/${param}`;
    const w = weights.get(key);
    if (!w) throw new Error(`missing weight ${key}`);
    used.add(key);
    return w;
  };

  const inputOf = (layer: KerasLayer, index = 0): Value => {
    const node = layer.inbound_nodes[0];
    if (!node || !node[index])
      throw new Error(`layer ${layer.name} has no input ${index}`);
    const v = values.get(node[index][0]);
    if (!v)
      throw new Error(
        `layer ${layer.name}: input ${node[index][0]} not converted yet`,
      );
    return v;
  };

  const activation = (name: string, x: string): string => {
    switch (name) {
      case 'linear':
        return x;
      case 'relu':
        return g.node('Relu', [x]);
      case 'sigmoid':
        return g.node('Sigmoid', [x]);
      case 'tanh':
        return g.node('Tanh', [x]);
      case 'softmax':
        return g.node('Softmax', [x], { axis: { i: -1 } });
      default:
        throw new Error(`unsupported activation ${name}`);
    }
  };

  for (const layer of model.layers) {
    const c = layer.config;
    let out: Value;
    switch (layer.class_name) {
      case 'InputLayer': {
        const [, h, w, ch] = c.batch_input_shape as number[];
        const x = g.input(layer.name, ['batch', h, w, ch]);
        out = {
          tensor: g.node('Transpose', [x], { perm: { ints: [0, 3, 1, 2] } }),
          shape: [h, w, ch],
        };
        break;
      }
      case 'ZeroPadding2D': {
        const x = inputOf(layer);
        const [[t, b], [l, r]] = c.padding as number[][];
        const pads = g.int64Tensor(`${layer.name}/pads`, [
          0,
          0,
          t,
          l,
          0,
          0,
          b,
          r,
        ]);
        out = {
          tensor: g.node('Pad', [x.tensor, pads], { mode: { s: 'constant' } }),
          shape: [x.shape[0] + t + b, x.shape[1] + l + r, x.shape[2]],
        };
        break;
      }
      case 'Conv2D':
      case 'DepthwiseConv2D': {
        const x = inputOf(layer);
        const depthwise = layer.class_name === 'DepthwiseConv2D';
        const kernel = weight(
          layer.name,
          depthwise ? 'depthwise_kernel' : 'kernel',
        );
        const [kh, kw, cin, cout0] = kernel.shape;
        const cout = depthwise ? cin * cout0 : cout0;
        // Keras HWIO (or HW,C,multiplier) -> ONNX OIHW; for depthwise,
        // output channel c*m+k uses input channel c, as in Keras.
        const w = new Float32Array(kernel.values.length);
        for (let i = 0; i < kh; i++) {
          for (let j = 0; j < kw; j++) {
            for (let ci = 0; ci < cin; ci++) {
              for (let co = 0; co < cout0; co++) {
                const src = ((i * kw + j) * cin + ci) * cout0 + co;
                const dst = depthwise
                  ? (ci * cout0 + co) * kh * kw + i * kw + j
                  : ((co * cin + ci) * kh + i) * kw + j;
                w[dst] = kernel.values[src];
              }
            }
          }
        }
        const inputs = [
          x.tensor,
          g.floatTensor(
            `${layer.name}/W`,
            [cout, depthwise ? 1 : cin, kh, kw],
            w,
          ),
        ];
        if (c.use_bias) {
          const bias = weight(
            layer.name,
            depthwise ? 'depthwise_bias' : 'bias',
          );
          inputs.push(g.floatTensor(`${layer.name}/B`, [cout], bias.values));
        }
        const [sh, sw] = pair(c.strides);
        const [dh, dw] = pair(c.dilation_rate ?? 1);
        if (c.data_format && c.data_format !== 'channels_last') {
          throw new Error(`${layer.name}: only channels_last is supported`);
        }
        const conv = g.node('Conv', inputs, {
          kernel_shape: { ints: [kh, kw] },
          strides: { ints: [sh, sw] },
          dilations: { ints: [dh, dw] },
          group: { i: depthwise ? cin : 1 },
          // TF "same" puts the odd padding pixel at the end: SAME_UPPER.
          auto_pad: { s: c.padding === 'same' ? 'SAME_UPPER' : 'VALID' },
        });
        out = {
          tensor: activation(c.activation ?? 'linear', conv),
          shape: [
            spatialOut(x.shape[0], kh, sh, dh, c.padding),
            spatialOut(x.shape[1], kw, sw, dw, c.padding),
            cout,
          ],
        };
        break;
      }
      case 'BatchNormalization': {
        const x = inputOf(layer);
        if (
          c.axis !== -1 &&
          c.axis !== 3 &&
          !(Array.isArray(c.axis) && c.axis[0] === 3)
        ) {
          throw new Error(
            `${layer.name}: only channel-axis batch norm is supported`,
          );
        }
        const ch = x.shape[x.shape.length - 1];
        const ones = new Float32Array(ch).fill(1);
        const zeros = new Float32Array(ch);
        const gamma =
          c.scale === false ? ones : weight(layer.name, 'gamma').values;
        const beta =
          c.center === false ? zeros : weight(layer.name, 'beta').values;
        out = {
          tensor: g.node(
            'BatchNormalization',
            [
              x.tensor,
              g.floatTensor(`${layer.name}/gamma`, [ch], gamma),
              g.floatTensor(`${layer.name}/beta`, [ch], beta),
              g.floatTensor(
                `${layer.name}/mean`,
                [ch],
                weight(layer.name, 'moving_mean').values,
              ),
              g.floatTensor(
                `${layer.name}/var`,
                [ch],
                weight(layer.name, 'moving_variance').values,
              ),
            ],
            { epsilon: { f: c.epsilon } },
          ),
          shape: x.shape,
        };
        break;
      }
      case 'ReLU': {
        const x = inputOf(layer);
        if ((c.negative_slope ?? 0) !== 0 || (c.threshold ?? 0) !== 0) {
          throw new Error(
            `${layer.name}: leaky/thresholded ReLU is not supported`,
          );
        }
        const tensor =
          c.max_value === null || c.max_value === undefined
            ? g.node('Relu', [x.tensor])
            : g.node('Clip', [
                x.tensor,
                g.floatTensor(`${layer.name}/min`, [], new Float32Array([0])),
                g.floatTensor(
                  `${layer.name}/max`,
                  [],
                  new Float32Array([c.max_value]),
                ),
              ]);
        out = { tensor, shape: x.shape };
        break;
      }
      case 'Activation': {
        const x = inputOf(layer);
        out = { tensor: activation(c.activation, x.tensor), shape: x.shape };
        break;
      }
      case 'Add': {
        const inputs = layer.inbound_nodes[0].map((_, i) => inputOf(layer, i));
        let acc = inputs[0].tensor;
        for (const v of inputs.slice(1)) acc = g.node('Add', [acc, v.tensor]);
        out = { tensor: acc, shape: inputs[0].shape };
        break;
      }
      case 'AveragePooling2D':
      case 'MaxPooling2D': {
        const x = inputOf(layer);
        const [kh, kw] = pair(c.pool_size);
        const [sh, sw] = pair(c.strides ?? c.pool_size);
        const avg = layer.class_name === 'AveragePooling2D';
        const attrs: Parameters<typeof g.node>[2] = {
          kernel_shape: { ints: [kh, kw] },
          strides: { ints: [sh, sw] },
          auto_pad: { s: c.padding === 'same' ? 'SAME_UPPER' : 'VALID' },
        };
        // TF averages over the valid pixels only at padded borders.
        if (avg) attrs.count_include_pad = { i: 0 };
        out = {
          tensor: g.node(avg ? 'AveragePool' : 'MaxPool', [x.tensor], attrs),
          shape: [
            spatialOut(x.shape[0], kh, sh, 1, c.padding),
            spatialOut(x.shape[1], kw, sw, 1, c.padding),
            x.shape[2],
          ],
        };
        break;
      }
      case 'GlobalAveragePooling2D': {
        const x = inputOf(layer);
        const pooled = g.node('GlobalAveragePool', [x.tensor]);
        out = {
          tensor: g.node('Flatten', [pooled], { axis: { i: 1 } }),
          shape: [x.shape[2]],
        };
        break;
      }
      case 'Flatten': {
        const x = inputOf(layer);
        // Keras flattens channels-last; go back to NHWC first so the
        // element order matches for any spatial size.
        const nhwc =
          x.shape.length === 3
            ? g.node('Transpose', [x.tensor], { perm: { ints: [0, 2, 3, 1] } })
            : x.tensor;
        out = {
          tensor: g.node('Flatten', [nhwc], { axis: { i: 1 } }),
          shape: [x.shape.reduce((a, b) => a * b, 1)],
        };
        break;
      }
      case 'Dense': {
        const x = inputOf(layer);
        if (x.shape.length !== 1)
          throw new Error(`${layer.name}: Dense needs a 2-D input`);
        const kernel = weight(layer.name, 'kernel');
        const inputs = [
          x.tensor,
          g.floatTensor(`${layer.name}/W`, kernel.shape, kernel.values),
        ];
        if (c.use_bias) {
          const bias = weight(layer.name, 'bias');
          inputs.push(
            g.floatTensor(`${layer.name}/B`, bias.shape, bias.values),
          );
        }
        out = {
          tensor: activation(c.activation ?? 'linear', g.node('Gemm', inputs)),
          shape: [kernel.shape[1]],
        };
        break;
      }
      case 'Dropout':
        out = inputOf(layer);
        break;
      default:
        throw new Error(
          `unsupported Keras layer ${layer.class_name} (${layer.name})`,
        );
    }
    values.set(layer.name, out);
  }

  for (const o of options.outputs) {
    const v = values.get(o.layer);
    if (!v) throw new Error(`output layer ${o.layer} not found`);
    if (v.shape.length !== 1)
      throw new Error(`output ${o.layer} must be 2-D (batch, features)`);
    g.node('Identity', [v.tensor], {}, [o.name]);
    g.output(o.name, ['batch', v.shape[0]]);
  }
  const unused = [...weights.keys()].filter(k => !used.has(k));
  if (unused.length)
    throw new Error(`weights not consumed by any layer: ${unused.join(', ')}`);

  return g.toBytes({
    producerName: 'cv-platform-keras-converter',
    producerVersion: options.producerVersion,
    metadata: options.metadata,
  });
}
