//===- Passes.h - tract codegen passes ----------------------------*- C++ -*-===//
#ifndef TRACT_CODEGEN_PASSES_H
#define TRACT_CODEGEN_PASSES_H

#include "compiler/Support/ElementsData.h"
#include "dialects/tract/IR/TractOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tract {
#define GEN_PASS_DECL
#include "compiler/Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Codegen/Passes.h.inc"

/// Attribute names the memory plan writes and the emitters read.
inline constexpr llvm::StringLiteral kArenaOffsetsAttr = "tract.arena_offsets";
inline constexpr llvm::StringLiteral kArenaBytesAttr = "tract.arena_bytes";

/// Whether each operand of `concat` is one byte range of its result (only
/// unit dims before the axis), so the memory plan may place them there and
/// the concat needs no kernel.
inline bool concatOfByteRanges(ConcatOp concat) {
  auto type = cast<RankedTensorType>(concat.getType());
  return llvm::all_of(type.getShape().take_front(concat.getAxis()),
                      [](int64_t d) { return d == 1; });
}
} // namespace mlir::tract

#endif // TRACT_CODEGEN_PASSES_H
