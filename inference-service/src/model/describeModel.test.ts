import { describeModel, ModelMetadata, ModelSpecError } from './describeModel';

const input = (shape: Array<number | string>, name = 'input') => ({
  name,
  isTensor: true,
  type: 'float32',
  shape,
});
const output = (
  name: string,
  shape: Array<number | string>,
  type = 'float32',
) => ({ name, isTensor: true, type, shape });

describe('describeModel', () => {
  it('reads an NCHW model with a fixed size and picks the first 2-D float output', () => {
    const meta: ModelMetadata = {
      inputs: [input(['N', 3, 224, 224], 'pixel_values')],
      outputs: [
        output('feature_map', ['N', 8, 7, 7]),
        output('labels', ['N', 1], 'int64'),
        output('embedding', ['N', 512]),
        output('logits', ['N', 1000]),
      ],
    };
    expect(describeModel(meta)).toEqual({
      inputName: 'pixel_values',
      layout: 'NCHW',
      height: 224,
      width: 224,
      outputName: 'embedding',
      dim: 512,
      maxBatch: Number.MAX_SAFE_INTEGER,
    });
  });

  it('reads an NHWC model and a selected output', () => {
    const meta: ModelMetadata = {
      inputs: [input(['batch', 192, 160, 3])],
      outputs: [
        output('features', ['batch', 1280]),
        output('probabilities', ['batch', 5]),
      ],
    };
    const spec = describeModel(meta, { outputName: 'probabilities' });
    expect(spec).toMatchObject({
      layout: 'NHWC',
      height: 192,
      width: 160,
      outputName: 'probabilities',
      dim: 5,
    });
  });

  it('takes the size from config when the model leaves it symbolic', () => {
    const meta: ModelMetadata = {
      inputs: [input(['N', 3, 'H', 'W'])],
      outputs: [output('e', ['N', 64])],
    };
    expect(() => describeModel(meta)).toThrow(/PREPROCESS_SIZE/);
    expect(describeModel(meta, { size: [256, 128] })).toMatchObject({
      height: 256,
      width: 128,
    });
  });

  it('refuses a configured size that contradicts a fixed input', () => {
    const meta: ModelMetadata = {
      inputs: [input([1, 3, 224, 224])],
      outputs: [output('e', [1, 64])],
    };
    expect(() => describeModel(meta, { size: [256, 256] })).toThrow(
      /conflicts/,
    );
  });

  it('caps the batch at 1 for a fixed-batch model', () => {
    const meta: ModelMetadata = {
      inputs: [input([1, 3, 32, 32])],
      outputs: [output('e', [1, 64])],
    };
    expect(describeModel(meta).maxBatch).toBe(1);
    expect(() =>
      describeModel({
        inputs: [input([4, 3, 32, 32])],
        outputs: [output('e', [4, 64])],
      }),
    ).toThrow(/fixed batch of 4/);
  });

  it.each([
    [
      'no image input',
      { inputs: [input(['N', 10])], outputs: [output('e', ['N', 4])] },
      /4-D image input/,
    ],
    [
      'two inputs',
      {
        inputs: [input(['N', 3, 8, 8]), input(['N', 3, 8, 8], 'b')],
        outputs: [output('e', ['N', 4])],
      },
      /exactly one/,
    ],
    [
      'no channel axis',
      { inputs: [input(['N', 5, 8, 8])], outputs: [output('e', ['N', 4])] },
      /3-channel/,
    ],
    [
      'no 2-D output',
      { inputs: [input(['N', 3, 8, 8])], outputs: [output('e', ['N', 4, 4])] },
      /no 2-D float output/,
    ],
    [
      'symbolic dim',
      { inputs: [input(['N', 3, 8, 8])], outputs: [output('e', ['N', 'D'])] },
      /fixed dim/,
    ],
  ])('rejects a model with %s', (_name, meta, message) => {
    expect(() => describeModel(meta as ModelMetadata)).toThrow(ModelSpecError);
    expect(() => describeModel(meta as ModelMetadata)).toThrow(message);
  });

  it('names the outputs when the configured one is missing', () => {
    const meta: ModelMetadata = {
      inputs: [input(['N', 3, 8, 8])],
      outputs: [output('e', ['N', 4])],
    };
    expect(() => describeModel(meta, { outputName: 'nope' })).toThrow(
      /output nope not found; outputs: e float32 \[N,4\]/,
    );
    expect(() =>
      describeModel(
        {
          ...meta,
          outputs: [output('e', ['N', 4]), output('map', ['N', 4, 2, 2])],
        },
        { outputName: 'map' },
      ),
    ).toThrow(/must be float32 \[batch, dim\]/);
  });
});
