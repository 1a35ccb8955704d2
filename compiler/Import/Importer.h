//===- Importer.h - ONNX model -> tract dialect -------------------*- C++ -*-===//
#ifndef TRACT_IMPORT_IMPORTER_H
#define TRACT_IMPORT_IMPORTER_H

#include "compiler/Import/NodeContext.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>
#include <vector>

namespace mlir::tract {

struct ImportOptions {
  /// --input-shape NAME=D0,D1,... pins (or overrides) an input's shape.
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// --input-value NAME=V,V,... fixes an input's value at compile time: it
  /// becomes a constant (FixedInputs.h) and leaves the function's arguments.
  std::map<std::string, std::vector<std::string>> inputValues;
};

struct ImportResult {
  OwningOpRef<ModuleOp> module;
  /// True when the failure is an ONNX feature tractc lacks (exit code 2).
  bool unsupported = false;
};

/// Builds `func.func @main` in a new module. Errors are emitted as MLIR
/// diagnostics located at the failing node (NameLoc "node"("OpType")).
ImportResult importModel(MLIRContext &context, const ::tract::onnx::Model &model,
                         const ImportOptions &options);

class Importer {
public:
  Importer(MLIRContext &context, const ::tract::onnx::Model &model);
  ImportResult run(const ImportOptions &options);

  // For NodeContext.
  OpBuilder builder;
  int64_t opset;
  bool unsupported = false;
  GraphValue *lookup(const std::string &name);
  /// Converts a subgraph's nodes inline, its inputs bound to `args`; outer
  /// values stay visible, the body's names are scoped to it.
  FailureOr<SmallVector<GraphValue>> inlineGraph(const ::tract::onnx::Graph &graph,
                                                 ArrayRef<GraphValue> args);
  /// The static type the model declares for a value (graph outputs and
  /// value_info), or null when unknown or not fully static.
  RankedTensorType declaredType(const std::string &name);
  Value materialize(GraphValue &v, const std::string &name);
  void bind(const std::string &name, GraphValue v);

private:
  LogicalResult checkSupported();
  LogicalResult createFunction(const ImportOptions &options);
  LogicalResult replaceEmptyResults(SmallVectorImpl<Operation *> &created,
                                    const ::tract::onnx::Node &node);
  LogicalResult checkDeclaredOutput(const ::tract::onnx::ValueInfo &out, Value computed);
public:
  LogicalResult convertNode(const ::tract::onnx::Node &node);

private:
  LogicalResult finishNode(Operation *lastBefore, const ::tract::onnx::Node &node,
                           Location loc);

  MLIRContext &context;
  const ::tract::onnx::Model &model;
  ConverterTable converters;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  std::map<std::string, GraphValue> values;
  /// Compile-time contents of every constant SSA value created so far.
  llvm::DenseMap<Value, std::shared_ptr<const HostTensor>> constants;
};

/// Every converter of every op family.
void registerAllConverters(ConverterTable &table);
/// (op type, first supported opset), sorted; other domains as "domain.type".
std::vector<std::pair<std::string, int64_t>> supportedOnnxOps();

/// Location of an ONNX node: NameLoc(node name, NameLoc(op type)).
Location nodeLocation(MLIRContext *ctx, llvm::StringRef nodeName, llvm::StringRef opType);
/// The (node name, op type) pairs of a possibly fused location.
SmallVector<std::pair<std::string, std::string>> nodesOfLocation(Location loc);

} // namespace mlir::tract

#endif // TRACT_IMPORT_IMPORTER_H
