/* eslint-disable no-console */
import fs from 'node:fs';
import path from 'node:path';
import { renderCrdYaml, renderRestoreCrdYaml } from '../src/renderCrd';

// The manifests, and the Helm chart's crds/ (installed before its templates).
const dirs = ['../../../deploy/crds', '../../../deploy/helm/inference-platform-operator/crds'].map(d => path.resolve(__dirname, d));
for (const dir of dirs) {
  for (const [file, text] of [
    ['inferenceplatforms.cv.platform.tech.yaml', renderCrdYaml()],
    ['inferenceplatformrestores.cv.platform.tech.yaml', renderRestoreCrdYaml()],
  ]) {
    fs.writeFileSync(path.join(dir, file), text);
    console.log(`wrote ${path.join(dir, file)}`);
  }
}
