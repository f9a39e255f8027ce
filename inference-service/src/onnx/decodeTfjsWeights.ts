/** One entry of a TF.js `weightsManifest[].weights` list. */
export interface TfjsWeightSpec {
  name: string;
  shape: number[];
  dtype: 'float32' | 'int32' | string;
  quantization?: {
    dtype: 'uint8' | 'uint16' | string;
    min?: number;
    scale?: number;
  };
}

export interface DecodedWeight {
  shape: number[];
  values: Float32Array;
}

/**
 * Decodes the concatenated TF.js weight shards into float32 arrays, keyed by
 * weight name. Dequantisation mirrors tfjs-core (`q * scale + min`, computed
 * in double and stored as float32) so the ONNX model sees bit-identical
 * weights to the TF.js model it is compared against.
 */
export function decodeTfjsWeights(
  specs: TfjsWeightSpec[],
  data: Uint8Array,
): Map<string, DecodedWeight> {
  const out = new Map<string, DecodedWeight>();
  let offset = 0;
  for (const spec of specs) {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const values = new Float32Array(size);
    const q = spec.quantization;
    if (q) {
      if (q.min === undefined || q.scale === undefined) {
        throw new Error(
          `weight ${spec.name}: only min/scale quantisation is supported`,
        );
      }
      const bytesPer = ({ uint8: 1, uint16: 2 } as Record<string, number>)[
        q.dtype
      ];
      if (!bytesPer) {
        throw new Error(
          `weight ${spec.name}: unsupported quantisation ${q.dtype}`,
        );
      }
      const view = new DataView(
        data.buffer,
        data.byteOffset + offset,
        size * bytesPer,
      );
      for (let i = 0; i < size; i++) {
        const raw =
          bytesPer === 1 ? view.getUint8(i) : view.getUint16(i * 2, true);
        values[i] = raw * q.scale + q.min;
      }
      offset += size * bytesPer;
    } else {
      if (spec.dtype !== 'float32') {
        throw new Error(`weight ${spec.name}: unsupported dtype ${spec.dtype}`);
      }
      const view = new DataView(
        data.buffer,
        data.byteOffset + offset,
        size * 4,
      );
      for (let i = 0; i < size; i++) values[i] = view.getFloat32(i * 4, true);
      offset += size * 4;
    }
    out.set(spec.name.replace(/:0$/, ''), { shape: spec.shape, values });
  }
  if (offset !== data.byteLength) {
    throw new Error(
      `weight data has ${data.byteLength} bytes but the manifest describes ${offset}`,
    );
  }
  return out;
}
