import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { convertKerasModel, KerasModelConfig } from '../onnx/convertKerasModel';
import { decodeTfjsWeights, TfjsWeightSpec } from '../onnx/decodeTfjsWeights';
import { modelCacheDir } from '../onnx/modelCacheDir';

/** The nsfwjs MobileNetV2 as TF.js layers-model artifacts. */
export interface NsfwjsArtifacts {
  version: string;
  modelTopology: { model_config: { config: KerasModelConfig } } & Record<
    string,
    unknown
  >;
  weightSpecs: TfjsWeightSpec[];
  weightData: Uint8Array;
}

/** Layer whose output is the 1280-d pooled MobileNetV2 feature vector. */
export const FEATURE_LAYER = 'flatten_1';
/** nsfwjs feeds 224x224 RGB scaled to [0, 1]. */
export const MOBILENET_INPUT_SIZE = 224;

function nsfwjsVersion(): string {
  // package.json is not in nsfwjs' "exports", so find it from the entry point.
  let dir = path.dirname(require.resolve('nsfwjs'));
  while (
    !fs.existsSync(path.join(dir, 'package.json')) ||
    dir.endsWith('cjs')
  ) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('nsfwjs package.json not found');
    dir = parent;
  }
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
    .version;
}

/** Loads the MobileNetV2 bundled (base64, uint8-quantised) in the nsfwjs package. */
export async function loadNsfwjsArtifacts(): Promise<NsfwjsArtifacts> {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { MobileNetV2Model } = require('nsfwjs/models/mobilenet_v2');
  const modelJson = await MobileNetV2Model.modelJson();
  const shards: string[] = [];
  for (const load of MobileNetV2Model.weightBundles) {
    const mod = await load();
    shards.push(typeof mod === 'string' ? mod : mod.default);
  }
  const manifest = modelJson.weightsManifest as Array<{
    paths: string[];
    weights: TfjsWeightSpec[];
  }>;
  if (manifest.length !== 1 || manifest[0].paths.length !== shards.length) {
    throw new Error('unexpected nsfwjs weight manifest layout');
  }
  const weightData = new Uint8Array(
    Buffer.concat(shards.map(s => Buffer.from(s, 'base64'))),
  );
  return {
    version: nsfwjsVersion(),
    modelTopology: modelJson.modelTopology,
    weightSpecs: manifest[0].weights,
    weightData,
  };
}

/** Converts the nsfwjs MobileNetV2 into an ONNX model exposing the pooled features. */
export function convertNsfwjsMobileNetV2(
  artifacts: NsfwjsArtifacts,
): Uint8Array {
  const weights = decodeTfjsWeights(
    artifacts.weightSpecs,
    artifacts.weightData,
  );
  return convertKerasModel(
    artifacts.modelTopology.model_config.config,
    weights,
    {
      outputs: [
        { layer: FEATURE_LAYER, name: 'features' },
        { layer: 'dense_3', name: 'probabilities' },
      ],
      producerVersion: `nsfwjs-${artifacts.version}`,
      metadata: {
        source: `nsfwjs@${artifacts.version} MobileNetV2`,
        license: 'MIT',
      },
    },
  );
}

const CONVERTER_SOURCES = [
  path.join(__dirname, 'nsfwjsMobileNetV2.ts'),
  ...[
    'convertKerasModel.ts',
    'decodeTfjsWeights.ts',
    'OnnxGraphBuilder.ts',
    'onnxProto.ts',
  ].map(f => path.join(__dirname, '..', 'onnx', f)),
];

/** Cache key: a new nsfwjs release or any converter change makes a new model. */
export function mobileNetV2CacheKey(): string {
  const hash = createHash('sha256');
  for (const file of CONVERTER_SOURCES) {
    hash.update(fs.readFileSync(file));
  }
  return `mobilenetv2-nsfwjs-${nsfwjsVersion()}-${hash
    .digest('hex')
    .slice(0, 12)}`;
}

/**
 * Path of the converted MobileNetV2 ONNX model, converting it on first use.
 * Written via rename so concurrent test workers never see a partial file.
 */
export async function ensureMobileNetV2Onnx(): Promise<string> {
  const dir = path.join(modelCacheDir(), mobileNetV2CacheKey());
  const file = path.join(dir, 'model.onnx');
  if (fs.existsSync(file)) return file;
  const bytes = convertNsfwjsMobileNetV2(await loadNsfwjsArtifacts());
  fs.mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(tmp, bytes);
  fs.renameSync(tmp, file);
  return file;
}
