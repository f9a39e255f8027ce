import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { sampleInferencePlatform, withDefaults } from '@cv-platform/inference-platform-api';
import { inferenceDeployment } from './reconcile/inferenceChildren';
import { qdrantStatefulSet } from './reconcile/qdrantChildren';

const root = path.resolve(__dirname, '../..');

/** The images this repository builds, and the Dockerfile each comes from. */
const DOCKERFILES: Array<[RegExp, string]> = [
  [/inference-platform-operator/, 'operator/Dockerfile'],
  [/cv-inference|inference-service/, 'inference-service/Dockerfile'],
];

/** The last USER of the final stage, or undefined (root). */
function imageUser(image: string): string | undefined {
  const file = DOCKERFILES.find(([re]) => re.test(image))?.[1];
  if (!file) return undefined;
  const stages = fs.readFileSync(path.join(root, file), 'utf8').split(/^FROM /m);
  const users = [...stages[stages.length - 1].matchAll(/^USER\s+(\S+)/gm)];
  return users.length ? users[users.length - 1][1] : undefined;
}

const numeric = (user: string | undefined) => !!user && /^\d+(:\d+)?$/.test(user);

/**
 * Every container that asks for runAsNonRoot and the user it would run as:
 * the kubelet starts it only when that user is numeric and not 0.
 */
function nonRootContainers(podSpec: any, owner: string) {
  return [...(podSpec.initContainers ?? []), ...podSpec.containers]
    .filter(c => (c.securityContext?.runAsNonRoot ?? podSpec.securityContext?.runAsNonRoot) === true)
    .map(c => {
      const uid = c.securityContext?.runAsUser ?? podSpec.securityContext?.runAsUser;
      return { container: `${owner}/${c.name}`, user: uid !== undefined ? String(uid) : imageUser(c.image) ?? '(image default: root)' };
    });
}

describe('containers that ask for runAsNonRoot', () => {
  const shipped = (yaml.loadAll(fs.readFileSync(path.join(root, 'deploy/operator/operator.yaml'), 'utf8')) as any[])
    .filter(d => d?.kind === 'Deployment')
    .flatMap(d => nonRootContainers(d.spec.template.spec, `deploy/operator/operator.yaml ${d.metadata.name}`));
  const p = sampleInferencePlatform('p', 'ns');
  p.metadata.uid = 'uid';
  const spec = withDefaults(p.spec);
  const generated = [
    ...nonRootContainers(inferenceDeployment(p, spec).spec.template.spec, 'inference Deployment'),
    ...nonRootContainers(qdrantStatefulSet(p, spec).spec.template.spec, 'Qdrant StatefulSet'),
  ];

  it('are found in the shipped manifests and in what the operator generates', () => {
    expect(shipped.map(c => c.container)).toEqual(['deploy/operator/operator.yaml inference-platform-operator/operator']);
    expect(generated.map(c => c.container)).toEqual([
      'inference Deployment/model-loader',
      'inference Deployment/inference',
      'Qdrant StatefulSet/qdrant',
    ]);
  });

  it.each([...shipped, ...generated].map(c => [c.container, c.user]))('%s runs as a numeric non-root user (%s)', (_c, user) => {
    expect(numeric(user)).toBe(true);
    expect(user.split(':')[0]).not.toBe('0');
  });

  it('the images this repository builds name their user by number', () => {
    for (const [, file] of DOCKERFILES) {
      const stages = fs.readFileSync(path.join(root, file), 'utf8').split(/^FROM /m);
      const user = [...stages[stages.length - 1].matchAll(/^USER\s+(\S+)/gm)].pop()?.[1];
      expect({ file, numeric: numeric(user) }).toEqual({ file, numeric: true });
    }
  });
});
