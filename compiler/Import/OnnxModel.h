//===- OnnxModel.h - an ONNX model as plain C++ data ----------------*- C++ -*-===//
//
// The protobuf world (which throws) stays in OnnxModel.cpp; everything after
// it sees these plain structs. Tensor payloads are already little-endian raw
// bytes, external data already read (and its path checked).
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_IMPORT_ONNXMODEL_H
#define TRACT_IMPORT_ONNXMODEL_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tract::onnx {

/// ONNX TensorProto.DataType values.
enum DataType : int32_t {
  kUndefined = 0, kFloat = 1, kUInt8 = 2, kInt8 = 3, kUInt16 = 4, kInt16 = 5,
  kInt32 = 6, kInt64 = 7, kString = 8, kBool = 9, kFloat16 = 10, kDouble = 11,
  kUInt32 = 12, kUInt64 = 13, kComplex64 = 14, kComplex128 = 15, kBFloat16 = 16,
};
const char *dataTypeName(int32_t type);
/// Bytes per element, 0 for types the runtime does not store.
int64_t dataTypeBytes(int32_t type);

struct Tensor {
  std::string name;
  int32_t dataType = kUndefined;
  std::vector<int64_t> dims;
  std::string bytes; // row-major, little-endian, bool as one byte
  int64_t numElements() const;
};

struct Graph;

struct Attribute {
  enum Kind { kFloat, kInt, kString, kTensor, kFloats, kInts, kStrings, kGraph, kOther };
  std::string name;
  Kind kind = kOther;
  float f = 0;
  int64_t i = 0;
  std::string s;
  Tensor t;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::shared_ptr<const Graph> g; // kGraph: a control-flow body
};

struct Node {
  std::string name, opType, domain;
  std::vector<std::string> inputs, outputs;
  std::vector<Attribute> attributes;
  const Attribute *attr(const std::string &attrName) const;
};

struct Dim {
  int64_t value = -1; // -1 when symbolic or unknown
  std::string param;  // the symbol, if any
};

struct ValueInfo {
  std::string name;
  int32_t elemType = kUndefined;
  bool hasShape = false;
  std::vector<Dim> dims;
};

/// A subgraph (If branches, Loop and Scan bodies).
struct Graph {
  std::vector<Node> nodes;
  std::vector<Tensor> initializers;
  std::vector<ValueInfo> inputs, outputs;
};

struct Model {
  std::string path;
  std::string producerName, producerVersion, graphName;
  int64_t irVersion = 0;
  int64_t opset = 0; // of the default domain
  std::vector<Node> nodes;
  std::vector<Tensor> initializers;
  std::vector<ValueInfo> inputs, outputs;
  std::vector<ValueInfo> valueInfos; // shapes the exporter recorded for intermediates
};

/// Parses `path`. On failure returns false and sets `error` to a sentence
/// (without the file name). External data files must stay inside the model's
/// folder.
bool loadModel(const std::string &path, Model &model, std::string &error);

/// The same for a model already in memory (the fuzzer's entry point);
/// external data is looked up in `baseDir`.
bool parseModel(const void *data, size_t size, const std::string &baseDir, Model &model,
                std::string &error);

/// The newest default-domain opset the linked ONNX library defines: a model
/// declaring a newer one is refused.
int64_t newestKnownOpset();

} // namespace tract::onnx

#endif // TRACT_IMPORT_ONNXMODEL_H
