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
} // namespace mlir::tract

#endif // TRACT_CODEGEN_PASSES_H
