//===- EmitCommon.h - what every backend needs to know of a planned model -*- C++ -*-===//
//
// PlannedModel reads a module after the codegen pipeline once: weights packed
// into one blob, kernels in execution order with their runtime calls, where
// each value lives (caller input, caller output, arena, weights). The C++
// emitter and the report print from it, so they cannot disagree.
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_EMIT_EMITCOMMON_H
#define TRACT_EMIT_EMITCOMMON_H

#include "compiler/Emit/KernelCalls.h"
#include "dialects/tract/IR/TractOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

#include <string>
#include <vector>

namespace mlir::tract {

inline constexpr int kRuntimeAbiVersion = 1;
/// codegen_templates/cpp/*.in, embedded at build time.
extern const char *const kHeaderTemplate;
extern const char *const kMainTemplate;

struct TensorDesc {
  std::string name;
  std::vector<int64_t> shape;
  int32_t onnxType = 0;
  int64_t bytes = 0;
};

struct Kernel {
  Operation *op;
  std::string name; // C identifier, unique
  KernelCall call;
  std::string algorithm;    // tract.algorithm, empty for the reference kernels
  int64_t scratchBytes = 0; // arena scratch while it runs, at scratchOffset
  int64_t scratchOffset = -1;
  SmallVector<std::pair<std::string, std::string>> nodes; // (ONNX node, op type)
  std::string onnxDescription() const;
};

struct OutputCopy {
  int index;
  Value source;
  int64_t bytes;
};

/// An input --input-value fixed at compile time (the module's
/// tract.fixed_inputs): not in the C ABI, described by the header and report.
struct FixedInput {
  std::string name;
  RankedTensorType type;
  std::vector<std::string> values; // row-major, as text
};

struct PlannedModel {
  static FailureOr<PlannedModel> analyze(ModuleOp module);

  std::string producer;
  int64_t opset = 0;
  int64_t arenaBytes = 0;
  std::string weights;
  /// Where each part of `weights` starts (the first at 0). g++ refuses a
  /// string literal past 2^28 bytes, so model.cpp holds the blob as arrays
  /// of at most kWeightsPartBytes, cut at tensor boundaries: kWeights when
  /// there is one, kWeights0, kWeights1, ... when there are more.
  static constexpr int64_t kWeightsPartBytes = int64_t(1) << 27;
  /// A tensor larger than a part gets a part of its own, up to this.
  static constexpr int64_t kMaxWeightTensorBytes = (int64_t(1) << 28) - 64;
  std::vector<int64_t> weightParts;
  /// The C++ name of part `i`.
  std::string weightsArray(size_t i) const;
  std::vector<Kernel> kernels;
  std::vector<TensorDesc> inputs, outputs;
  std::vector<FixedInput> fixedInputs;
  std::vector<OutputCopy> outputCopies;
  std::vector<ConcatOp> concatViews; // concats with no kernel (operands in place)

  llvm::DenseMap<Value, int64_t> weightOffsets, arenaOffsets;
  llvm::DenseMap<Value, int> argIndex, outputIndex;
  llvm::DenseMap<Value, std::string> names;

  /// C++ expression of the pointer to `v` inside PREFIX_run.
  std::string pointer(Value v, bool &usesArena, bool &usesInputs) const;
  std::string tensorName(Value v) const;
};

/// Appends `bytes` as a C string literal, 64 bytes a line.
void appendByteString(std::string &out, llvm::StringRef bytes);
/// `s` made safe inside a /* */ or // comment.
std::string commentSafe(std::string s);
/// `text` with every @KEY@ replaced by its value.
std::string substitute(std::string text,
                       const std::vector<std::pair<std::string, std::string>> &vars);
struct EmitOptions;
/// The @KEY@ values of codegen_templates/cpp shared by every target: names,
/// versions, tensor counts. Each target adds ARENA_BYTES,
/// THREAD_SCRATCH_BYTES, WEIGHTS_BYTES, TARGET_NOTE, TARGET_DECLS and
/// RUN_FAILED.
std::vector<std::pair<std::string, std::string>> commonTemplateVars(const PlannedModel &pm,
                                                                    const EmitOptions &options);
/// The input and output shape arrays (in the generated file's anonymous
/// namespace), its closing and `extern "C" {`, then PREFIX_inputs and
/// PREFIX_outputs, the tensor descriptions the header declares.
std::string tensorInfoArrays(const PlannedModel &pm, const std::string &prefix);

Type elementTypeOf(Value v);
std::string cStringEscape(llvm::StringRef s);
const char *dtypeName(Type elementType);

} // namespace mlir::tract

#endif // TRACT_EMIT_EMITCOMMON_H
