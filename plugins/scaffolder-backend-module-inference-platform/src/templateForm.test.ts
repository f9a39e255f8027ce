import fs from 'node:fs';
import path from 'node:path';
import { retrieveSchema, RJSFSchema } from '@rjsf/utils';
import validator from '@rjsf/validator-ajv8';
import yaml from 'js-yaml';

/**
 * The form as the portal runs it: the scaffolder moves `ui:*` keys into the
 * uiSchema and hands the rest to react-jsonschema-form with the ajv8
 * validator, the same library versions as @backstage/plugin-scaffolder-react.
 */
const template = yaml.load(
  fs.readFileSync(
    path.resolve(__dirname, '../templates/inference-platform/template.yaml'),
    'utf8',
  ),
) as any;

const withoutUiKeys = (node: any): any => {
  if (Array.isArray(node)) return node.map(withoutUiKeys);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => !key.startsWith('ui:'))
      .map(([key, value]) => [key, withoutUiKeys(value)]),
  );
};

const pages: RJSFSchema[] = template.spec.parameters.map(withoutUiKeys);
const page = (title: string) => pages.find(p => p.title === title)!;

const errorsOf = (title: string, formData: unknown) =>
  validator
    .validateFormData(formData, page(title))
    .errors.map(e => `${e.property} ${e.message}`);

const valid = {
  name: 'vision',
  namespace: 'default',
  owner: 'group:default/ml-platform',
  qdrant: {
    version: 'v1.14.1',
    replicas: 1,
    storage: { size: '10Gi', className: 'gp3' },
  },
  inference: {
    model: {
      url: 's3://models/resnet50-v2-7.onnx',
      source: { mode: 'emptyDir', sizeLimit: '1Gi' },
    },
    image: 'my-repo/cv-inference:latest',
    replicas: 1,
    resources: {
      requests: { cpu: '500m', memory: '2Gi' },
      limits: { cpu: '2', memory: '4Gi' },
    },
    gpu: { count: 1, type: 'NVIDIA-A100-SXM4-40GB' },
  },
  delivery: 'cluster',
  waitForReady: true,
};

describe('the template form in the browser', () => {
  it('accepts a complete, valid submission on every page', () => {
    expect(pages.map(p => [p.title, errorsOf(p.title!, valid)])).toEqual([
      ['Platform', []],
      ['Qdrant', []],
      ['Inference servers', []],
      ['Delivery', []],
    ]);
  });

  it.each<[string, string, (v: any) => void, string]>([
    [
      'Platform',
      'a name with upper case',
      v => (v.name = 'Vision'),
      '.name must match pattern',
    ],
    [
      'Platform',
      'a name over 45 characters',
      v => (v.name = 'a'.repeat(46)),
      '.name must NOT have more than 45 characters',
    ],
    [
      'Platform',
      'no owner',
      v => delete v.owner,
      "owner must have required property 'Owner'",
    ],
    [
      'Qdrant',
      'a version that is not a release',
      v => (v.qdrant.version = 'latest'),
      '.qdrant.version must match pattern',
    ],
    [
      'Qdrant',
      'zero replicas',
      v => (v.qdrant.replicas = 0),
      '.qdrant.replicas must be >= 1',
    ],
    [
      'Qdrant',
      'a storage size that is not a quantity',
      v => (v.qdrant.storage.size = '10 GB'),
      '.qdrant.storage.size must match pattern',
    ],
    [
      'Inference servers',
      'an ftp:// model URL',
      v => (v.inference.model.url = 'ftp://x/m.onnx'),
      '.inference.model.url must match pattern',
    ],
    [
      'Inference servers',
      'no model URL',
      v => delete v.inference.model.url,
      ".inference.model.url must have required property 'Model URL'",
    ],
    [
      'Inference servers',
      'no model',
      v => delete v.inference.model,
      ".inference.model must have required property 'Model'",
    ],
    [
      'Inference servers',
      'a model volume type the CRD does not know',
      v => (v.inference.model.source.mode = 'hostPath'),
      '.inference.model.source.mode must be equal to one of the allowed values',
    ],
    [
      'Inference servers',
      'a model volume size that is not a quantity',
      v => (v.inference.model.source.sizeLimit = '1 GB'),
      '.inference.model.source.sizeLimit must match pattern',
    ],
    [
      'Inference servers',
      'more than 1000 replicas',
      v => (v.inference.replicas = 1001),
      '.inference.replicas must be <= 1000',
    ],
    [
      'Inference servers',
      'a CPU request that is not a quantity',
      v => (v.inference.resources.requests.cpu = 'lots'),
      '.inference.resources.requests.cpu must match pattern',
    ],
    [
      'Inference servers',
      'more than 16 GPUs',
      v => (v.inference.gpu.count = 17),
      '.inference.gpu.count must be <= 16',
    ],
    [
      'Delivery',
      'GitOps without a repository',
      v => (v.delivery = 'gitops'),
      "repoUrl must have required property 'GitOps repository'",
    ],
  ])('%s page rejects %s', (title, _what, mutate, message) => {
    const v = structuredClone(valid);
    mutate(v);
    expect(errorsOf(title, v).join('\n')).toContain(message);
  });

  it('shows the GPU product field only once GPUs are requested, as the CRD requires', () => {
    const gpuFields = (count: number) => {
      const formData = { inference: { gpu: { count } } };
      const inference: any = retrieveSchema(
        validator,
        page('Inference servers'),
        page('Inference servers'),
        formData,
      );
      const gpu: any = retrieveSchema(
        validator,
        inference.properties.inference.properties.gpu,
        page('Inference servers'),
        formData.inference.gpu,
      );
      return Object.keys(gpu.properties);
    };
    expect(gpuFields(0)).toEqual(['count']);
    expect(gpuFields(2)).toEqual(['count', 'type']);
  });

  it('asks for a repository only for the GitOps deliveries', () => {
    const fields = (delivery: string) =>
      Object.keys(
        (
          retrieveSchema(validator, page('Delivery'), page('Delivery'), {
            delivery,
          }) as any
        ).properties,
      );
    expect(fields('cluster')).toEqual(['delivery', 'waitForReady']);
    expect(fields('cluster-and-gitops')).toEqual([
      'delivery',
      'waitForReady',
      'repoUrl',
      'manifestPath',
    ]);
    expect(fields('gitops')).toContain('repoUrl');
  });
});
