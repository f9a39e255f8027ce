import fs from 'node:fs';
import path from 'node:path';
import {
  inferencePlatformSchemaV1beta1,
  JSONSchemaProps,
} from '@cv-platform/inference-platform-api';
import yaml from 'js-yaml';
import {
  PLATFORM_NAME_MAX_LENGTH,
  PLATFORM_NAME_PATTERN,
} from './actions/createInferencePlatformAction';

const template = yaml.load(
  fs.readFileSync(
    path.resolve(__dirname, '../templates/inference-platform/template.yaml'),
    'utf8',
  ),
) as any;

const RULES = [
  'pattern',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'enum',
] as const;

interface FormField {
  path: string[];
  schema: any;
}

/** Every field of a form schema, including those that `dependencies` reveal. */
function formFields(schema: any, prefix: string[] = []): FormField[] {
  const fields: FormField[] = [];
  const visit = (properties: Record<string, any>, skip?: string) => {
    for (const [key, child] of Object.entries(properties ?? {})) {
      if (key === skip) continue;
      const p = [...prefix, key];
      fields.push({ path: p, schema: child });
      if (child.type === 'object') fields.push(...formFields(child, p));
    }
  };
  visit(schema.properties);
  for (const [key, dep] of Object.entries<any>(schema.dependencies ?? {})) {
    for (const branch of dep.oneOf ?? []) visit(branch.properties, key);
  }
  return fields;
}

function crdNode(p: string[]): JSONSchemaProps | undefined {
  let node: JSONSchemaProps | undefined =
    inferencePlatformSchemaV1beta1.properties!.spec;
  for (const key of p) {
    const additional: JSONSchemaProps | undefined =
      typeof node?.additionalProperties === 'object'
        ? node.additionalProperties
        : undefined;
    node = node?.properties?.[key] ?? additional;
  }
  return node;
}

const pick = (schema: any) =>
  Object.fromEntries(
    RULES.filter(r => schema[r] !== undefined).map(r => [r, schema[r]]),
  );

describe('the template form, against the cv.platform.tech/v1beta1 CRD schema', () => {
  const pages: any[] = template.spec.parameters;
  const specFields = pages
    .flatMap(page => formFields(page))
    .filter(f => f.path[0] === 'qdrant' || f.path[0] === 'inference');

  it('covers the spec fields users set', () => {
    expect(specFields.map(f => f.path.join('.')).sort()).toEqual(
      [
        'inference',
        'inference.gpu',
        'inference.gpu.count',
        'inference.gpu.type',
        'inference.image',
        'inference.model',
        'inference.model.source',
        'inference.model.source.mode',
        'inference.model.source.sizeLimit',
        'inference.model.url',
        'inference.replicas',
        'inference.resources',
        'inference.resources.limits',
        'inference.resources.limits.cpu',
        'inference.resources.limits.memory',
        'inference.resources.requests',
        'inference.resources.requests.cpu',
        'inference.resources.requests.memory',
        'qdrant',
        'qdrant.replicas',
        'qdrant.storage',
        'qdrant.storage.className',
        'qdrant.storage.size',
        'qdrant.version',
      ].sort(),
    );
  });

  it.each(specFields.map(f => [f.path.join('.'), f] as const))(
    '%s has exactly the CRD validation rules and defaults',
    (_path, field) => {
      const crd = crdNode(field.path)!;
      expect(crd).toBeDefined();
      expect(pick(field.schema)).toEqual(pick(crd));
      // Quantities are int-or-string in the CRD and text fields in the form.
      expect(field.schema.type).toBe(crd.type ?? 'string');
      expect(field.schema.required ?? []).toEqual(
        expect.arrayContaining(crd.required ?? []),
      );
      // The form may suggest a value where the CRD has no default, but where
      // the CRD has one the form has the same.
      expect(
        crd.default === undefined ? undefined : field.schema.default,
      ).toEqual(crd.default);
    },
  );

  it('checks the name as the action does', () => {
    const name = pages[0].properties.name;
    expect(name.pattern).toBe(PLATFORM_NAME_PATTERN);
    expect(name.maxLength).toBe(PLATFORM_NAME_MAX_LENGTH);
  });

  it('uses patterns that browsers accept (unicode regular expressions)', () => {
    const invalid = pages
      .flatMap(page => formFields(page))
      .map(f => f.schema.pattern)
      .filter((pattern): pattern is string => typeof pattern === 'string')
      .filter(pattern => {
        try {
          return !new RegExp(pattern, 'u');
        } catch {
          return true;
        }
      });
    expect(invalid).toEqual([]);
  });
});
