import { inferencePlatformSchema, JSONSchemaProps } from '../crd';

/**
 * v1alpha1 field paths (relative to the object a CEL rule sits on) and where
 * v1beta1 keeps them. The rules and messages of the moved fields are the
 * v1alpha1 ones with their paths rewritten, so both versions refuse the
 * same edits, each naming its own fields.
 */
const QDRANT_MOVES: Array<[string, string]> = [
  ['storageSize', 'storage.size'],
  ['storageClassName', 'storage.className'],
];
const INFERENCE_MOVES: Array<[string, string]> = [
  ['canary.modelUrl', 'canary.model.url'],
  ['modelUrl', 'model.url'],
];

function rewrite(text: string, prefix: string, moves: Array<[string, string]>): string {
  let out = text;
  for (const [from, to] of moves) {
    for (const root of ['self.', 'oldSelf.', `${prefix}.`, '.']) {
      out = out.split(`${root}${from}`).join(`${root}${to}`);
    }
  }
  return out;
}

function rewriteRules(schema: JSONSchemaProps, prefix: string, moves: Array<[string, string]>): void {
  for (const rule of schema['x-kubernetes-validations'] ?? []) {
    rule.rule = rewrite(rule.rule, prefix, moves);
    for (const key of ['message', 'messageExpression', 'fieldPath'] as const) {
      if (rule[key] !== undefined) rule[key] = rewrite(rule[key]!, prefix, moves);
    }
  }
}

function mention(schema: JSONSchemaProps, moves: Array<[RegExp, string]>): JSONSchemaProps {
  if (schema.description) {
    for (const [from, to] of moves) schema.description = schema.description.replace(from, to);
  }
  return schema;
}

/** The v1beta1 schema: v1alpha1's, regrouped (see v1beta1/types.ts). */
function buildSchema(): JSONSchemaProps {
  const root = structuredClone(inferencePlatformSchema);
  const spec = root.properties!.spec;
  const qdrant = spec.properties!.qdrant;
  const inference = spec.properties!.inference;

  const { storageSize, storageClassName, backup, ...qdrantRest } = qdrant.properties!;
  qdrant.properties = {
    ...qdrantRest,
    storage: {
      type: 'object',
      description: 'The Qdrant data volumes, one per peer.',
      default: {},
      properties: {
        size: { ...storageSize, description: 'Size of each Qdrant data volume; volumes only grow.' },
        className: { ...storageClassName, description: 'StorageClass of the data volumes; empty uses the cluster default. Immutable.' },
      },
    },
  };
  rewriteRules(qdrant, 'spec.qdrant', QDRANT_MOVES);

  const {
    modelUrl,
    modelSource,
    modelUpdate,
    batchMaxSize,
    batchMaxLatencyMs,
    readinessProbePath: _dropped,
    canary,
    ...inferenceRest
  } = inference.properties!;
  const { modelUrl: canaryModelUrl, ...canaryRest } = canary.properties!;
  inference.required = ['image', 'model'];
  inference.properties = {
    ...inferenceRest,
    model: {
      type: 'object',
      description: 'The ONNX model the servers run: where it comes from, how it is fetched, how a new one reaches running servers.',
      required: ['url'],
      properties: {
        url: modelUrl,
        update: mention(modelUpdate, [[/new modelUrl/, 'new url']]),
        source: modelSource,
      },
    },
    batching: {
      type: 'object',
      description: 'How the servers batch images into one model run.',
      default: {},
      properties: {
        maxSize: { ...batchMaxSize, description: 'Images embedded in one model run.' },
        maxLatencyMs: { ...batchMaxLatencyMs, description: 'Milliseconds the first image of a batch waits for more.' },
      },
    },
    canary: mention(
      {
        ...canary,
        required: ['model', 'weight', 'collection'],
        properties: {
          model: {
            type: 'object',
            required: ['url'],
            properties: { url: { ...canaryModelUrl, description: 'The canary model, in the forms model.url takes.' } },
          },
          ...canaryRest,
        },
      },
      [
        [/beside modelUrl/, 'beside model.url'],
        [/set modelUrl and collection/, 'set model.url and collection'],
      ],
    ),
  };
  rewriteRules(inference, 'spec.inference', INFERENCE_MOVES);

  spec.properties = { ...spec.properties, backup };
  mention(root.properties!.status.properties!.backup, [[/spec\.qdrant\.backup/, 'spec.backup']]);
  return root;
}

/** @public */
export const inferencePlatformSchemaV1beta1: JSONSchemaProps = buildSchema();
