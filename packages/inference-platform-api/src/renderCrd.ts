import yaml from 'js-yaml';
import { inferencePlatformCrd } from './crd';

/** The CRD as committed in deploy/crds (checked by crd.test.ts). */
export function renderCrdYaml(): string {
  return `# Generated from packages/inference-platform-api/src/crd.ts by \`npm run generate -w @cv-platform/inference-platform-api\`. Do not edit.\n${yaml.dump(
    inferencePlatformCrd,
    { noRefs: true, lineWidth: 120, sortKeys: false },
  )}`;
}
