/* eslint-disable no-console */
import fs from 'node:fs';
import path from 'node:path';
import { renderCrdYaml } from '../src/renderCrd';

const target = path.resolve(__dirname, '../../../deploy/crds/inferenceplatforms.cv.platform.tech.yaml');
fs.writeFileSync(target, renderCrdYaml());
console.log(`wrote ${target}`);
