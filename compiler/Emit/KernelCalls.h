//===- KernelCalls.h - one tract op -> one runtime kernel call ------*- C++ -*-===//
//
// The C++ emitter's choice of runtime kernel for each op, with its static
// parameters (shapes, strides, window sizes) printed as constexpr data.
// Every op of the graph-level core set is covered; a missing case is a
// compiler bug reported as an error naming the node.
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_EMIT_KERNELCALLS_H
#define TRACT_EMIT_KERNELCALLS_H

#include "mlir/IR/Operation.h"

#include "tract/rt/data/resize_ref.h"
#include "tract/rt/nn/conv_ref.h"
#include "tract/rt/nn/pool_ref.h"

#include <string>
#include <vector>

namespace mlir::tract {

class ResizeOp;

struct KernelCall {
  /// Statements of the kernel function's body; operands are named in0, in1,
  /// ..., results out0, ...
  std::vector<std::string> lines;
  /// Arithmetic operations per run, for the report.
  int64_t flops = 0;
  /// For the report, when the op has no tract.algorithm: the runtime path
  /// the call takes where it is not the reference loop nest ("elementwise":
  /// vectorised element loops, "pool_rows": pools by vector rows, "copy",
  /// "sample_blocks": grid samples worked out a block at a time,
  /// "softmax_rows": contiguous softmax rows on vectors, "norm_rows": layer
  /// and instance norms' rows, "planes": resizes of the last two axes,
  /// "tiles": transposes by 2-d tiles).
  std::string path;
};

/// The C++ spelling of a tensor element type ("float", "int64_t", "bool").
std::string cppElementType(Type elementType);
/// A C++ literal of `value` as `elementType` (exact for f32/f64 and ints).
std::string cppLiteral(double value, Type elementType);

LogicalResult buildKernelCall(Operation *op, KernelCall &call);

/// Adds `static constexpr int64_t NAME[] = {...};` to the kernel's body and
/// returns the expression to pass for it ("nullptr" when empty: zero-length
/// arrays are not C++).
std::string declareArray(KernelCall &call, llvm::StringRef name, ArrayRef<int64_t> values);
/// Index into a kernel input of shape `in` for element `i` of an output of
/// shape `out` (numpy broadcasting): an expression in `i` with constant
/// divisors, valid C++ and GLSL.
std::string broadcastIndex(ArrayRef<int64_t> in, ArrayRef<int64_t> out);
/// Index into `x` (contiguous, shape xShape) of element `i` of `out` when the
/// value read is transpose(x, perm) broadcast to `out` (C++ and GLSL).
std::string transposedIndex(ArrayRef<int64_t> xShape, ArrayRef<int64_t> perm,
                            ArrayRef<int64_t> out);
/// `static constexpr tract::rt::ConvParams NAME = {...};`
std::string convParamsDecl(const ::tract::rt::ConvParams &p, llvm::StringRef name = "p");
/// `static constexpr tract::rt::PoolParams NAME = {...};`
std::string poolParamsDecl(const ::tract::rt::PoolParams &p, llvm::StringRef name = "p");
/// A Resize's runtime parameters, with its compile-time scales and roi.
::tract::rt::ResizeParams resizeParamsOf(ResizeOp resize);

/// The number of outputs of a float ReduceSum / ReduceMean over its input's
/// trailing axes (each output one contiguous row: a global average pool),
/// which runs split over threads; 0 for any other op.
int64_t trailingSumRows(Operation *op);

/// Whether `top` runs on a runtime kernel that takes an epilogue: the GEMM
/// or the depthwise conv (tract-choose-kernels chose so).
bool emitsGemm(Operation *top);
/// Whether `top`'s kernel function takes the `par` thread hook: the GEMM-run
/// kernels, max and average pooling, softmax, trailing sums and means.
bool takesParallel(Operation *top);
/// The GEMM call of `top`, a conv/matmul or a tract.kernel anchored on one,
/// writing out0; `epilogue` names an epilogue functor in scope (gemm.h).
/// The kernel function has a `float *scratch` parameter when `top` has
/// scratch bytes.
LogicalResult buildGemmCall(Operation *top, llvm::StringRef epilogue, KernelCall &call);

} // namespace mlir::tract

#endif // TRACT_EMIT_KERNELCALLS_H
