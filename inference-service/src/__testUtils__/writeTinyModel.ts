import fs from 'node:fs';
import path from 'node:path';
import {
  buildTinyModel,
  TinyModelOptions,
  TinyModelParams,
} from '../onnx/buildTinyModel';

/** Writes the tiny test model to `dir/name` (atomically) and returns its path and weights. */
export function writeTinyModel(
  dir: string,
  options: TinyModelOptions = {},
  name = 'model.onnx',
): { path: string; params: TinyModelParams } {
  const { bytes, params } = buildTinyModel(options);
  const file = path.join(dir, name);
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, bytes);
  fs.renameSync(tmp, file);
  return { path: file, params };
}
