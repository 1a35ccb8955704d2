//===- KernelChoice.h - which runtime algorithm runs each conv / matmul -*- C++ -*-===//
//
// tract-choose-kernels decides, per f32 conv and matmul (standalone or the
// anchor of a tract.kernel), which runtime algorithm runs it, how much arena
// scratch it needs and whether its constant weights are packed at compile
// time into the GEMM's panel layout. It writes the decision as attributes on
// the op of the function body (the kernel, not its anchor), so the memory
// plan, the emitters and the report read one source:
//
//   tract.algorithm       "gemm" | "gemm_pointwise" | "im2col_gemm" | "depthwise"
//                         | "winograd_f2" | "winograd_f4" (F(2x2,3x3), F(4x4,3x3))
//                         | "fully_connected" (a 1x1 conv on one-pixel maps)
//                         | "conv_row_taps" (few input channels: pixels in vector lanes)
//                         | "conv_by_taps" (direct, tap by tap into 16-channel tiles:
//                           a first conv's many taps on short rows, or a deeper conv
//                           off Winograd on rows of 5 pixels or more)
//                         | "direct" (the reference kernel)
//                         | "pointwise_to_lanes" | "pointwise_from_lanes" | "pointwise_lanes"
//                         | "conv_to_lanes"
//                         | "depthwise_lanes_in" | "depthwise_lanes_out" | "depthwise_lanes"
//                           (a chain kept in 16-channel lane layout: LaneChains.cpp)
//                         | "expand_depthwise" [ "_lanes_in" | "_lanes_out" | "_lanes" ]
//                           (a chained tract.kernel: 1x1 expand, then depthwise conv)
//                         | "row_taps_max_pool" (a chained tract.kernel: a conv on
//                           conv_row_taps, then the max pool that is its output's only
//                           reader, ChainedKernels.cpp)
//                         | "mean_from_lanes" | "scale_lanes" (on a reduce_mean and a
//                           mul: a squeeze-and-excitation on a depthwise conv's output
//                           kept in lane layout, or a global average pool of a 1x1
//                           conv's output, LaneChains.cpp)
//                         | "channels_last" (on a roi_align: its input transposed
//                           into scratch, roi_align_channels_last.h)
//                         | "sorted" (on a non_max_suppression: candidates sorted in
//                           scratch, nms_sorted.h)
//   tract.scratch_bytes   arena scratch the kernel uses while it runs
//   tract.packed_weights  present when operand 1 arrives packed
//   tract.scratch_offset  (tract-plan-memory) where the scratch lives
//
// The sizes (and Winograd's cost model) come from the runtime headers
// themselves (conv_gemm.h, conv_winograd.h, matmul_gemm.h), so compiler and
// runtime cannot disagree.
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_CODEGEN_KERNELCHOICE_H
#define TRACT_CODEGEN_KERNELCHOICE_H

#include "dialects/tract/IR/TractOps.h"

#include "tract/rt/nn/conv_ref.h"
#include "tract/rt/nn/pool_ref.h"

#include <optional>
#include <string>

namespace mlir::tract {

inline constexpr llvm::StringLiteral kAlgorithmAttr = "tract.algorithm";
inline constexpr llvm::StringLiteral kScratchBytesAttr = "tract.scratch_bytes";
inline constexpr llvm::StringLiteral kScratchOffsetAttr = "tract.scratch_offset";
inline constexpr llvm::StringLiteral kPackedWeightsAttr = "tract.packed_weights";

/// The conv or matmul `top` computes: itself, or its tract.kernel's anchor.
Operation *gemmAnchor(Operation *top);

/// `op` is a squeeze-and-excitation's mean or scale reading lane layout
/// (algorithm "mean_from_lanes" or "scale_lanes").
bool isSqueezeExciteLanes(Operation *op);

/// The runtime's ConvParams of a conv (also printed by the C++ emitter).
::tract::rt::ConvParams convParamsOf(ConvOp conv);

/// The runtime's PoolParams of a max_pool or avg_pool (also printed by the
/// C++ emitter): ceil_mode windows that run past the end padding extend it,
/// so the kernel sees every tap the output needs.
::tract::rt::PoolParams poolParamsOf(Operation *pool);

/// A matmul as the runtime's batched GEMM call sees it: batch dims folded
/// into M where B is one shared packed matrix and A is plain row-major.
struct MatMulGeometry {
  SmallVector<int64_t> batch, aBatchStrides, bBatchStrides;
  int64_t m = 0, n = 0, k = 0;
  int64_t aRs = 0, aCs = 0, bRs = 0, bCs = 0;
};
MatMulGeometry matMulGeometry(MatMulOp matmul, bool bPacked);

/// After the per-op choices: keeps tensors passed from a 1x1 conv to a
/// depthwise conv, or from a depthwise conv to a 1x1 conv, in lane layout
/// (rewrites those convs' algorithms; LaneChains.cpp).
void chooseLaneChains(Block &body);

/// After the per-op choices: a max pool that is the only reader of a conv on
/// conv_row_taps joins it as the tail of one chained tract.kernel
/// (algorithm "row_taps_max_pool"; ChainedKernels.cpp).
void fuseMaxPoolTails(Block &body);

/// The helpers of the passes over the choices (ChainedKernels.cpp):
/// `top`'s tract.algorithm, or empty.
StringRef algorithmOf(Operation *top);
/// Sets `top`'s algorithm and scratch.
void setAlgorithm(Operation *top, StringRef algorithm, int64_t scratchFloats);
/// No fused op of `top` reads a tensor other than the anchor's result, and
/// the kernel stores the anchor's shape. A kernel with no conv or matmul
/// anchor (a fused element-wise chain) gives false.
bool epilogueReadsNothing(Operation *top);
/// Replaces `producer` and `top` (its only reader, through operand 0) by one
/// chained tract.kernel with `top` as its tail: the producer's inputs, then
/// `top`'s others. Returns the kernel.
KernelOp chainIntoKernel(Operation *producer, Operation *top, StringRef algorithm,
                         int64_t scratchFloats);

/// The bytes of constant `c` as the codegen emits them: packed into GEMM
/// panels when its users were given tract.packed_weights, else nullopt.
std::optional<std::string> packedWeightBytes(ConstOp c);

} // namespace mlir::tract

#endif // TRACT_CODEGEN_KERNELCHOICE_H
