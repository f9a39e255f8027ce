/* eslint-disable no-console */
/**
 * Generates the models used by tests, the bench and the demo into the cache
 * (never the repository): the converted nsfwjs MobileNetV2 and the tiny
 * deterministic test model. Prints their paths.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ensureMobileNetV2Onnx } from '../src/__testUtils__/nsfwjsMobileNetV2';
import { buildTinyModel } from '../src/onnx/buildTinyModel';
import { modelCacheDir } from '../src/onnx/modelCacheDir';

async function main() {
  const started = Date.now();
  const mobilenet = await ensureMobileNetV2Onnx();
  const tiny = path.join(modelCacheDir(), 'tiny', 'model.onnx');
  fs.mkdirSync(path.dirname(tiny), { recursive: true });
  fs.writeFileSync(tiny, buildTinyModel().bytes);
  console.log(`mobilenetv2 (1280-d features): ${mobilenet}`);
  console.log(`tiny test model (16-d):        ${tiny}`);
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch(err => {
  console.error(err);
  process.exit(1);
});
