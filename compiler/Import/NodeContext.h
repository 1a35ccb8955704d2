//===- NodeContext.h - what an op converter sees of its ONNX node --*- C++ -*-===//
//
// Converters (one file per ONNX op family) read inputs, attributes with their
// per-opset defaults and constant inputs through this class, create tract ops
// with `make<OpT>` (type inference that reports failures as node errors
// instead of aborting) and bind the node's outputs.
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_IMPORT_NODECONTEXT_H
#define TRACT_IMPORT_NODECONTEXT_H

#include "compiler/Import/OnnxModel.h"
#include "dialects/tract/IR/TractOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <optional>

namespace mlir::tract {

using HostTensor = ::tract::onnx::Tensor;

/// Limits every tensor the importer creates must respect.
inline constexpr int64_t kMaxTensorRank = 8;
inline constexpr int kMaxElementsLog2 = 36;
/// Element count of a shape, failing on negative dims or counts past the limit.
FailureOr<int64_t> checkedNumElements(ArrayRef<int64_t> shape);
/// Emits an error at `loc` when `type` breaks the limits above.
LogicalResult checkTensorType(RankedTensorType type, Location loc);
/// The largest result the importer computes on the host (folding, fills,
/// generated ranges): folding erases shape subgraphs, it does not precompute
/// the model, and a hostile shape must not exhaust the compiler's memory.
inline constexpr int64_t kMaxFoldElements = int64_t(1) << 16;

/// A named value of the graph: an SSA value, and its contents when known at
/// compile time (initializers, Constant nodes, folded shape computations).
struct GraphValue {
  GraphValue() = default;
  GraphValue(Value value, std::shared_ptr<const HostTensor> constant,
             std::shared_ptr<const SmallVector<Value>> sequence = nullptr)
      : value(value), constant(std::move(constant)), sequence(std::move(sequence)) {}
  Value value;
  std::shared_ptr<const HostTensor> constant;
  /// An ONNX sequence: its length and element shapes are static here, so it
  /// exists only at import time as the list of its tensors.
  std::shared_ptr<const SmallVector<Value>> sequence;
};

class Importer;

class NodeContext {
public:
  NodeContext(Importer &importer, const ::tract::onnx::Node &node, Location loc);

  const ::tract::onnx::Node &node;
  int64_t opset() const;
  OpBuilder &builder();
  Location loc;
  MLIRContext *context();

  // Inputs. An input named "" is absent (ONNX optional inputs).
  size_t numInputs() const { return node.inputs.size(); }
  bool hasInput(size_t i) const { return i < node.inputs.size() && !node.inputs[i].empty(); }
  Value input(size_t i);
  RankedTensorType inputType(size_t i);
  /// The compile-time contents of input i, or null.
  const HostTensor *constInput(size_t i);
  /// Integer contents of a constant input (any integer type), or nullopt.
  std::optional<SmallVector<int64_t>> constInts(size_t i);
  std::optional<SmallVector<double>> constDoubles(size_t i);

  // Attributes (defaults per opset are the converter's business).
  bool hasAttr(llvm::StringRef name) const;
  int64_t attrInt(llvm::StringRef name, int64_t def) const;
  float attrFloat(llvm::StringRef name, float def) const;
  std::string attrString(llvm::StringRef name, llvm::StringRef def) const;
  SmallVector<int64_t> attrInts(llvm::StringRef name, ArrayRef<int64_t> def = {}) const;
  SmallVector<float> attrFloats(llvm::StringRef name) const;
  std::vector<std::string> attrStrings(llvm::StringRef name) const;
  const HostTensor *attrTensor(llvm::StringRef name) const;
  /// "attribute 'strides' is floats, expected ints" for the first attribute
  /// a converter asked for whose ONNX type is not the one it reads (the
  /// importer reports it: a default silently taken instead would compile a
  /// different model); empty when there was none.
  const std::string &attributeTypeError() const { return attrError; }

  // Outputs.
  size_t numOutputs() const { return node.outputs.size(); }
  /// The fully static type the model declares for output i (a graph output
  /// or value_info), or null. Lets ops whose shape operand is only known at
  /// run time (Reshape, Expand, ...) compile when the exporter recorded the
  /// result's shape.
  RankedTensorType declaredOutputType(size_t i);
  void setOutput(size_t i, Value v);
  void setConstOutput(size_t i, HostTensor t);
  /// Binds output i to `scalar` (one element) repeated over `shape`: a host
  /// constant up to kMaxFoldElements, beyond that the scalar broadcast at run
  /// time, so that neither the compiler's memory nor the weights grow with it.
  void setFilledOutput(size_t i, HostTensor scalar, ArrayRef<int64_t> shape);
  /// Binds output i to input j, keeping its compile-time value if known.
  void forward(size_t i, size_t j);
  /// Input i as the importer holds it (value, constant or sequence).
  GraphValue inputValue(size_t i);
  void setOutputValue(size_t i, GraphValue v);
  const ::tract::onnx::Graph *attrGraph(llvm::StringRef name) const;
  /// Converts a control-flow body inline (see Importer::inlineGraph).
  FailureOr<SmallVector<GraphValue>> inlineGraph(const ::tract::onnx::Graph &graph,
                                                 ArrayRef<GraphValue> args);
  /// The SSA value of a graph value, materialising constants.
  Value materialize(GraphValue &v);

  /// The tensors of a sequence input, or null when input i is not one.
  const SmallVector<Value> *sequenceInput(size_t i);
  void setSequenceOutput(size_t i, SmallVector<Value> elements);
  /// Binds output i to a just-created value; passes a failure through.
  LogicalResult bind(FailureOr<Value> v, size_t i = 0);

  /// Creates a tract.const (inline or resource, see ElementsData.h).
  Value constant(const HostTensor &t);
  Value constantI64(ArrayRef<int64_t> values, ArrayRef<int64_t> shape);
  Value constantScalar(Type elementType, double value);

  /// Creates an op whose result type is inferred; on an inference failure the
  /// diagnostic names this node and the result is failure, never an abort.
  template <typename OpT, typename... Args>
  FailureOr<Value> make(Args &&...args) {
    OperationState state(loc, OpT::getOperationName());
    OpT::build(builder(), state, Type(), std::forward<Args>(args)...);
    state.types.clear();
    SmallVector<Type, 1> inferred;
    if (failed(OpT::inferReturnTypes(context(), loc, state.operands,
                                     state.attributes.getDictionary(context()),
                                     state.getRawProperties(), state.regions,
                                     inferred)))
      return failure();
    state.addTypes(inferred);
    return builder().create(state)->getResult(0);
  }
  /// Creates an op with an explicit result type (checked by the verifier
  /// after the node is converted).
  template <typename OpT, typename... Args>
  Value makeTyped(Type type, Args &&...args) {
    return builder().create<OpT>(loc, type, std::forward<Args>(args)...);
  }
  Value reshape(Value v, ArrayRef<int64_t> shape);
  Value cast(Value v, Type elementType);

  /// Reports an error naming the node; returns failure().
  LogicalResult fail(const llvm::Twine &reason);
  /// Reports a valid ONNX feature tractc does not implement (exit code 2).
  LogicalResult unsupported(const llvm::Twine &what);

private:
  // The attribute `name` if its type is `kind` (or `also`), else null,
  // recording attrError when it is present with another type.
  const ::tract::onnx::Attribute *typedAttr(llvm::StringRef name, int kind, int also = -1) const;

  Importer &importer;
  mutable std::string attrError;
};

using ConvertFn = LogicalResult (*)(NodeContext &);

/// (op type, first opset) -> converter. Converters handle the attribute and
/// input changes between opsets themselves.
class ConverterTable {
public:
  /// `minInputs`: how many leading inputs must be present; checked before
  /// the converter runs so converters may rely on them.
  void add(llvm::StringRef opType, int64_t sinceOpset, ConvertFn fn, unsigned minInputs = 1);
  struct Entry {
    int64_t since;
    ConvertFn fn;
    unsigned minInputs;
  };
  /// Null when the op type is unknown or needs a newer opset.
  const Entry *lookup(llvm::StringRef opType, int64_t opset) const;
  /// (op type, first opset it converts from), sorted by op type.
  std::vector<std::pair<std::string, int64_t>> entries() const;

private:
  llvm::StringMap<SmallVector<Entry, 1>> table;
};

// One registration function per op family file.
void registerMathConverters(ConverterTable &table);
void registerNNConverters(ConverterTable &table);
void registerTensorConverters(ConverterTable &table);
void registerReduceConverters(ConverterTable &table);
void registerLossConverters(ConverterTable &table);
void registerIndexingConverters(ConverterTable &table);
void registerGeneratorConverters(ConverterTable &table);
void registerResizeConverters(ConverterTable &table);
void registerQuantConverters(ConverterTable &table);
void registerDetectionConverters(ConverterTable &table);
void registerRecurrentConverters(ConverterTable &table);
/// Ops of other domains register as "<domain>.<op type>".
void registerTrainingConverters(ConverterTable &table);
void registerEinsumConverters(ConverterTable &table);
void registerSequenceConverters(ConverterTable &table);
void registerDataDependentConverters(ConverterTable &table);
void registerControlFlowConverters(ConverterTable &table);
void registerStringConverters(ConverterTable &table);

/// Appends `v` converted to `t`'s element type to its bytes.
void appendScalar(HostTensor &t, double v);

// Element type mapping shared by the importer and the host evaluator.
// Strings only where asked for: they travel through the graph's inputs,
// outputs and Cast, but are never constants (no payload is read for them).
Type elementTypeFor(MLIRContext *ctx, int32_t onnxType, bool allowString = false);
int32_t onnxTypeFor(Type elementType);

} // namespace mlir::tract

#endif // TRACT_IMPORT_NODECONTEXT_H
