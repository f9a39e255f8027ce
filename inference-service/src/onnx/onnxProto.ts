import protobuf from 'protobufjs';

/**
 * The subset of onnx/onnx.proto (IR v8+) needed to write inference graphs.
 * Field numbers are the official ones, so files written with this schema are
 * regular ONNX models; messages we never write (sparse tensors, functions,
 * training info) are simply left out.
 */
const ONNX_PROTO_SUBSET = `
syntax = "proto3";
package onnx;

message AttributeProto {
  string name = 1;
  float f = 2;
  int64 i = 3;
  bytes s = 4;
  TensorProto t = 5;
  repeated float floats = 7;
  repeated int64 ints = 8;
  int32 type = 20;
}

message ValueInfoProto {
  string name = 1;
  TypeProto type = 2;
}

message NodeProto {
  repeated string input = 1;
  repeated string output = 2;
  string name = 3;
  string op_type = 4;
  repeated AttributeProto attribute = 5;
  string domain = 7;
}

message StringStringEntryProto {
  string key = 1;
  string value = 2;
}

message ModelProto {
  int64 ir_version = 1;
  string producer_name = 2;
  string producer_version = 3;
  string domain = 4;
  int64 model_version = 5;
  string doc_string = 6;
  GraphProto graph = 7;
  repeated OperatorSetIdProto opset_import = 8;
  repeated StringStringEntryProto metadata_props = 14;
}

message GraphProto {
  repeated NodeProto node = 1;
  string name = 2;
  repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11;
  repeated ValueInfoProto output = 12;
}

message TensorProto {
  repeated int64 dims = 1;
  int32 data_type = 2;
  string name = 8;
  bytes raw_data = 9;
}

message TensorShapeProto {
  message Dimension {
    oneof value {
      int64 dim_value = 1;
      string dim_param = 2;
    }
  }
  repeated Dimension dim = 1;
}

message TypeProto {
  message Tensor {
    int32 elem_type = 1;
    TensorShapeProto shape = 2;
  }
  oneof value {
    Tensor tensor_type = 1;
  }
}

message OperatorSetIdProto {
  string domain = 1;
  int64 version = 2;
}
`;

/** TensorProto.DataType values used here. */
export const OnnxDataType = {
  FLOAT: 1,
  INT64: 7,
} as const;

/** AttributeProto.AttributeType values used here. */
export const OnnxAttributeType = {
  FLOAT: 1,
  INT: 2,
  STRING: 3,
  TENSOR: 4,
  FLOATS: 6,
  INTS: 7,
} as const;

let modelType: protobuf.Type | undefined;

/** The protobuf type for onnx.ModelProto (parsed once, lazily). */
export function onnxModelProtoType(): protobuf.Type {
  if (!modelType) {
    const { root } = protobuf.parse(ONNX_PROTO_SUBSET, { keepCase: true });
    modelType = root.lookupType('onnx.ModelProto');
  }
  return modelType;
}
