/** Input/output description as reported by onnxruntime's session metadata. */
export interface ValueMetadata {
  name: string;
  isTensor: boolean;
  type?: string;
  shape?: Array<number | string>;
}

export interface ModelMetadata {
  inputs: ValueMetadata[];
  outputs: ValueMetadata[];
  /** The onnxruntime execution provider the session runs on. */
  executionProvider?: 'cpu' | 'cuda';
  /** Why CUDA was asked for and CPU is used instead. */
  fallbackReason?: string;
}

/** Everything the worker needs to feed the model and read the embedding. */
export interface ModelSpec {
  inputName: string;
  layout: 'NCHW' | 'NHWC';
  height: number;
  width: number;
  outputName: string;
  dim: number;
  /** Largest batch the model accepts (a fixed batch dimension caps it). */
  maxBatch: number;
}

export interface DescribeOptions {
  /** Size to use when the model leaves H/W symbolic: [height, width]. */
  size?: [number, number];
  /** Which output is the embedding; default: the first 2-D float output. */
  outputName?: string;
}

export class ModelSpecError extends Error {}

const fixed = (d: number | string | undefined): d is number =>
  typeof d === 'number' && d > 0;

/**
 * Reads input name, layout and size from the model. Layout comes from where
 * the 3-channel axis is; when both candidates are 3 (a 3x3 NCHW image is
 * not a real case) NCHW wins, the ONNX convention.
 */
export function describeModel(
  metadata: ModelMetadata,
  options: DescribeOptions = {},
): ModelSpec {
  const imageInputs = metadata.inputs.filter(
    i => i.isTensor && i.type === 'float32' && i.shape?.length === 4,
  );
  if (imageInputs.length !== 1 || metadata.inputs.length !== 1) {
    throw new ModelSpecError(
      `expected exactly one float32 4-D image input, model has: ${describeValues(
        metadata.inputs,
      )}`,
    );
  }
  const input = imageInputs[0];
  const shape = input.shape!;
  let layout: 'NCHW' | 'NHWC';
  if (shape[1] === 3) layout = 'NCHW';
  else if (shape[3] === 3) layout = 'NHWC';
  else {
    throw new ModelSpecError(
      `cannot find a 3-channel axis in input ${input.name} [${shape}]`,
    );
  }
  const [hDim, wDim] =
    layout === 'NCHW' ? [shape[2], shape[3]] : [shape[1], shape[2]];
  let height: number;
  let width: number;
  if (fixed(hDim) && fixed(wDim)) {
    [height, width] = [hDim, wDim];
    if (
      options.size &&
      (options.size[0] !== height || options.size[1] !== width)
    ) {
      throw new ModelSpecError(
        `configured size ${options.size.join(
          'x',
        )} conflicts with the model's fixed input ${height}x${width}`,
      );
    }
  } else if (options.size) {
    [height, width] = options.size;
  } else {
    throw new ModelSpecError(
      `input ${input.name} has symbolic spatial size [${shape}]; set PREPROCESS_SIZE`,
    );
  }

  if (fixed(shape[0]) && shape[0] !== 1) {
    throw new ModelSpecError(
      `input ${input.name} has a fixed batch of ${shape[0]}; only 1 or a symbolic batch is supported`,
    );
  }

  const floatOutputs2d = metadata.outputs.filter(
    o => o.isTensor && o.type === 'float32' && o.shape?.length === 2,
  );
  const output = options.outputName
    ? metadata.outputs.find(o => o.name === options.outputName)
    : floatOutputs2d[0];
  if (!output) {
    throw new ModelSpecError(
      options.outputName
        ? `output ${options.outputName} not found; outputs: ${describeValues(
            metadata.outputs,
          )}`
        : `no 2-D float output to use as the embedding; outputs: ${describeValues(
            metadata.outputs,
          )}`,
    );
  }
  if (!floatOutputs2d.includes(output) || !fixed(output.shape![1])) {
    throw new ModelSpecError(
      `embedding output ${output.name} must be float32 [batch, dim] with a fixed dim, got ${output.type} [${output.shape}]`,
    );
  }
  return {
    inputName: input.name,
    layout,
    height,
    width,
    outputName: output.name,
    dim: output.shape![1] as number,
    maxBatch: fixed(shape[0]) ? 1 : Number.MAX_SAFE_INTEGER,
  };
}

function describeValues(values: ValueMetadata[]): string {
  return values
    .map(v =>
      v.isTensor
        ? `${v.name} ${v.type} [${v.shape}]`
        : `${v.name} (non-tensor)`,
    )
    .join(', ');
}
