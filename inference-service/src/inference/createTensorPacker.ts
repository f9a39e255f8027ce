import type { ModelSpec } from '../model/describeModel';
import type { TensorPreprocess } from './TensorPreprocess';

/** Writes one image's HWC uint8 RGB pixels as model input at `offset` of `out`. */
export type TensorPacker = (pixels: Uint8Array, out: Float32Array, offset: number) => void;

/**
 * HWC uint8 RGB pixels -> float tensor data in the model's layout and
 * channel order: value = (pixel * scale - mean[c]) / std[c]. A pixel has only
 * 256 values per channel, so each channel's mapping is a 256-entry table:
 * one load per value instead of a multiply-add, several times faster in V8.
 */
export function createTensorPacker(
  spec: Pick<ModelSpec, 'height' | 'width' | 'layout'>,
  pre: TensorPreprocess,
): TensorPacker {
  const plane = spec.height * spec.width;
  // Output channel c reads source channel src[c] (BGR models read R last).
  const src = pre.channelOrder === 'BGR' ? [2, 1, 0] : [0, 1, 2];
  const lut = [0, 1, 2].map(c => {
    const t = new Float32Array(256);
    for (let v = 0; v < 256; v++) t[v] = (v * pre.scale - pre.mean[c]) / pre.std[c];
    return t;
  });
  const [l0, l1, l2] = lut;
  const [s0, s1, s2] = src;
  return (px, out, offset) => {
    if (px.length !== plane * 3) {
      throw new Error(`image has ${px.length} bytes, expected ${plane * 3}`);
    }
    if (spec.layout === 'NCHW') {
      const o0 = offset;
      const o1 = offset + plane;
      const o2 = offset + 2 * plane;
      for (let p = 0, i = 0; p < plane; p++, i += 3) {
        out[o0 + p] = l0[px[i + s0]];
        out[o1 + p] = l1[px[i + s1]];
        out[o2 + p] = l2[px[i + s2]];
      }
    } else {
      const end = plane * 3;
      for (let i = 0; i < end; i += 3) {
        out[offset + i] = l0[px[i + s0]];
        out[offset + i + 1] = l1[px[i + s1]];
        out[offset + i + 2] = l2[px[i + s2]];
      }
    }
  };
}
