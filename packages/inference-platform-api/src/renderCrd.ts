import yaml from 'js-yaml';
import { inferencePlatformCrd } from './inferencePlatformCrd';
import { inferencePlatformRestoreCrd } from './restore';

const render = (crd: unknown) =>
  `# Generated from packages/inference-platform-api/src by \`npm run generate -w @cv-platform/inference-platform-api\`. Do not edit.\n${yaml.dump(
    crd,
    { noRefs: true, lineWidth: 120, sortKeys: false },
  )}`;

/**
 * The CRD as committed in deploy/crds (checked by crd.test.ts).
 *
 * @public
 */
export function renderCrdYaml(): string {
  return render(inferencePlatformCrd);
}

/**
 * The InferencePlatformRestore CRD as committed in deploy/crds.
 *
 * @public
 */
export function renderRestoreCrdYaml(): string {
  return render(inferencePlatformRestoreCrd);
}
