/* eslint-disable no-console */
import fs from 'node:fs';
import path from 'node:path';
import { renderCrdYaml, renderRestoreCrdYaml } from '../src/renderCrd';

const dir = path.resolve(__dirname, '../../../deploy/crds');
for (const [file, text] of [
  ['inferenceplatforms.cv.platform.tech.yaml', renderCrdYaml()],
  ['inferenceplatformrestores.cv.platform.tech.yaml', renderRestoreCrdYaml()],
]) {
  fs.writeFileSync(path.join(dir, file), text);
  console.log(`wrote ${path.join(dir, file)}`);
}
