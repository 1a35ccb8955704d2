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

/// tract-pad-planes: an NCHW f32 result whose channel planes lie this many
/// floats apart (whole cache lines) instead of H x W (PadPlanes.cpp).
inline constexpr llvm::StringLiteral kPlaneStrideAttr = "tract.plane_stride";

/// The plane stride of `v` (kPlaneStrideAttr on its defining op), or 0
/// where its planes are dense.
inline int64_t planeStrideOf(Value v) {
  Operation *def = v.getDefiningOp();
  auto stride = def ? def->getAttrOfType<IntegerAttr>(kPlaneStrideAttr) : IntegerAttr();
  return stride ? stride.getInt() : 0;
}

/// The bytes `v` takes in the arena: its tensor's, or with padded planes
/// N x C planes of planeStrideOf(v) floats.
inline int64_t arenaTensorBytes(Value v) {
  int64_t stride = planeStrideOf(v);
  auto type = cast<RankedTensorType>(v.getType());
  return stride > 0 ? type.getDimSize(0) * type.getDimSize(1) * stride * 4
                    : tensorBytes(type);
}

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
