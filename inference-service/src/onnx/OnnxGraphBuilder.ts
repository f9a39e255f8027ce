import os from 'node:os';
import {
  OnnxAttributeType,
  OnnxDataType,
  onnxModelProtoType,
} from './onnxProto';

/** A dimension: a fixed size or a symbolic name (e.g. the batch dimension). */
export type Dim = number | string;

export type AttributeValue =
  | { i: number }
  | { f: number }
  | { s: string }
  | { ints: number[] }
  | { floats: number[] };

export interface ModelOptions {
  producerName: string;
  producerVersion?: string;
  docString?: string;
  /** ai.onnx opset; 13 is supported by every onnxruntime release in use. */
  opset?: number;
  metadata?: Record<string, string>;
}

function attribute(name: string, value: AttributeValue) {
  if ('i' in value) return { name, type: OnnxAttributeType.INT, i: value.i };
  if ('f' in value) return { name, type: OnnxAttributeType.FLOAT, f: value.f };
  if ('s' in value) {
    return { name, type: OnnxAttributeType.STRING, s: Buffer.from(value.s) };
  }
  if ('ints' in value) {
    return { name, type: OnnxAttributeType.INTS, ints: value.ints };
  }
  return { name, type: OnnxAttributeType.FLOATS, floats: value.floats };
}

function valueInfo(name: string, dims: Dim[]) {
  return {
    name,
    type: {
      tensor_type: {
        elem_type: OnnxDataType.FLOAT,
        shape: {
          dim: dims.map(d =>
            typeof d === 'number' ? { dim_value: d } : { dim_param: d },
          ),
        },
      },
    },
  };
}

/**
 * Builds an ONNX graph node by node and serialises it. Only float graph
 * inputs/outputs are supported, which is all image models need.
 */
export class OnnxGraphBuilder {
  private readonly nodes: object[] = [];
  private readonly initializers: object[] = [];
  private readonly inputs: object[] = [];
  private readonly outputs: object[] = [];
  private readonly usedNames = new Set<string>();

  input(name: string, dims: Dim[]): string {
    this.inputs.push(valueInfo(name, dims));
    this.usedNames.add(name);
    return name;
  }

  output(name: string, dims: Dim[]): void {
    this.outputs.push(valueInfo(name, dims));
  }

  /** A float32 constant; returns its name. */
  floatTensor(name: string, dims: number[], data: Float32Array): string {
    const expected = dims.reduce((a, b) => a * b, 1);
    if (data.length !== expected) {
      throw new Error(
        `initializer ${name}: ${data.length} values for dims [${dims}]`,
      );
    }
    return this.rawInitializer(name, dims, OnnxDataType.FLOAT, data);
  }

  /** An int64 constant (shapes, axes); returns its name. */
  int64Tensor(name: string, values: number[]): string {
    const data = BigInt64Array.from(values.map(v => BigInt(v)));
    return this.rawInitializer(name, [values.length], OnnxDataType.INT64, data);
  }

  /**
   * Adds a node and returns the name of its (first) output. `outputs` may
   * name the outputs explicitly, which is how graph outputs are bound.
   */
  node(
    opType: string,
    inputs: string[],
    attributes: Record<string, AttributeValue> = {},
    outputs?: string[],
  ): string {
    const outs = outputs ?? [this.uniqueName(opType.toLowerCase())];
    for (const o of outs) this.usedNames.add(o);
    this.nodes.push({
      op_type: opType,
      name: this.uniqueName(`${opType}_node`),
      input: inputs,
      output: outs,
      attribute: Object.entries(attributes).map(([k, v]) => attribute(k, v)),
    });
    return outs[0];
  }

  toBytes(options: ModelOptions): Uint8Array {
    const type = onnxModelProtoType();
    const model = type.fromObject({
      ir_version: 8,
      producer_name: options.producerName,
      producer_version: options.producerVersion ?? '',
      doc_string: options.docString ?? '',
      opset_import: [{ domain: '', version: options.opset ?? 13 }],
      metadata_props: Object.entries(options.metadata ?? {}).map(
        ([key, value]) => ({ key, value }),
      ),
      graph: {
        name: options.producerName,
        node: this.nodes,
        initializer: this.initializers,
        input: this.inputs,
        output: this.outputs,
      },
    });
    return type.encode(model).finish();
  }

  private rawInitializer(
    name: string,
    dims: number[],
    dataType: number,
    data: Float32Array | BigInt64Array,
  ): string {
    // raw_data is little-endian by spec; typed arrays use host order.
    if (os.endianness() !== 'LE') {
      throw new Error(
        'ONNX writing is only implemented for little-endian hosts',
      );
    }
    if (this.usedNames.has(name)) throw new Error(`duplicate tensor ${name}`);
    this.usedNames.add(name);
    this.initializers.push({
      name,
      dims,
      data_type: dataType,
      raw_data: Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    });
    return name;
  }

  private uniqueName(base: string): string {
    let candidate = base;
    for (let n = 1; this.usedNames.has(candidate); n++) {
      candidate = `${base}_${n}`;
    }
    this.usedNames.add(candidate);
    return candidate;
  }
}
