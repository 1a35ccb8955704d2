//===- TractOps.h - tract dialect ops -----------------------------*- C++ -*-===//
#ifndef TRACT_IR_TRACTOPS_H
#define TRACT_IR_TRACTOPS_H

#include "dialects/tract/IR/TractDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialects/tract/IR/TractOps.h.inc"

namespace mlir::tract {
/// Numpy broadcasting of two static shapes; fails when a pair of dims is
/// neither equal nor 1.
FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                ArrayRef<int64_t> b);
/// Maps a possibly negative axis into [0, rank); fails when out of range.
FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank);
/// Elementwise ops with a scalar form (the runtime's functors): unary ones,
/// with or without parameters, and binary ones with broadcasting. Fusion
/// puts them in kernels; the memory plan may run them in place.
bool isElementwiseUnary(Operation *op);
bool isElementwise(Operation *op);
/// The largest stride, dilation, pad or kernel dim a conv or pool may have.
/// With dims of at most 2^36 elements, every size computed from window
/// attributes (stride x dim, (kernel - 1) x dilation, sums of pads) stays
/// below 2^62.
inline constexpr int64_t kMaxWindowValue = int64_t(1) << 24;

/// On an op an optimisation failed on (tractc retries without it): fusion
/// leaves the op out of kernels and kernel choice leaves it on its reference
/// kernel. The value says why, for --report.
inline constexpr llvm::StringLiteral kKeepPlainAttr = "tract.keep_plain";
inline bool keepsPlainForm(Operation *op) { return op->hasAttr(kKeepPlainAttr); }
} // namespace mlir::tract

#endif // TRACT_IR_TRACTOPS_H
