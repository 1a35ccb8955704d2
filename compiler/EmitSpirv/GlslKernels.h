//===- GlslKernels.h - one planned kernel -> one GLSL compute shader -*- C++ -*-===//
//
// Each kernel of the planned model (EmitCommon's PlannedModel) becomes one
// compute shader. Every tensor is read and written in place in device
// memory: binding 0 is the activation arena (intermediates, then the inputs,
// then the outputs: GpuLayout), bindings 1.. the weight chunks the kernel
// reads. Shapes, offsets and broadcast strides are baked in as constants, so
// each shader is specialised to its kernel, as the C++ kernels are.
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_EMITSPIRV_GLSLKERNELS_H
#define TRACT_EMITSPIRV_GLSLKERNELS_H

#include "compiler/Emit/EmitCommon.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::tract {

/// Where a tensor lives on the device: the arena (chunk -1) or a weight
/// chunk, at a float offset.
struct GpuLocation {
  int chunk = -1;
  int64_t offset = 0; // in floats
};

/// The device memory of a planned model: the arena holds the plan's
/// intermediates, then each input, then each output the graph produces;
/// the weights are re-laid in chunks no tensor straddles, each bound as its
/// own storage buffer range (Vulkan guarantees a range of 2^27 bytes).
/// Past the outputs, from scratchOffset, the arena holds the split-K GEMMs'
/// partial sums (in slots the emitter assigns: SpirvEmitter.cpp).
struct GpuLayout {
  static constexpr int64_t kChunkBytes = int64_t(1) << 27;
  int64_t arenaBytes = 0;
  int64_t scratchOffset = 0; // in floats
  std::string weights;
  llvm::DenseMap<Value, GpuLocation> where;
  std::vector<int64_t> inputOffsets, outputOffsets; // bytes, in the arena
  /// Kernel results stored where the one transpose reading them puts each
  /// element (PermutedStores.h); that transpose is in `absorbed` and has
  /// no dispatch.
  struct PermutedStore {
    Value to;
    SmallVector<int64_t> perm;
  };
  llvm::DenseMap<Value, PermutedStore> permutedStores;
  llvm::DenseSet<Operation *> absorbed;
  /// The arena bytes [begin, end) of `v`, or nothing for a weight.
  std::optional<std::pair<int64_t, int64_t>> arenaRange(Value v) const;
  /// Fails, naming the value's producer, for what the GPU cannot hold yet
  /// (a constant returned as an output, a constant larger than a chunk).
  static FailureOr<GpuLayout> build(const PlannedModel &pm, func::FuncOp func);
};

/// One dispatch: its shader and group counts, the weight chunks it binds
/// and the floats it writes or reads in the scratch, from scratchOffset.
struct GlslKernel {
  std::string source;
  uint32_t groups[3] = {1, 1, 1};
  uint32_t firstChunk = 0, weightChunks = 0;
  int64_t scratchOffset = 0, scratchFloats = 0; // in floats
  bool subgroupArithmetic = false; // the device must have it (ModelDesc::features)
  bool coopMatrix = false;         // likewise: fp16 cooperative matrices (CoopMatrixGemm.h)
};

/// How the kernels are built: `fp16Gemm` (tractc --fp16-gemm) runs the
/// tiled GEMMs on cooperative-matrix units with fp16 operands.
struct GlslOptions {
  bool fp16Gemm = false;
};

/// The dispatches of `k`, run in order (one, or a split-K GEMM's partial
/// sums and then their reduction, through the arena from `scratchOffset`
/// floats on), or an error on its op naming what the SPIR-V target does not
/// support yet.
FailureOr<std::vector<GlslKernel>> buildGlslKernels(const Kernel &k, const GpuLayout &layout,
                                                    const GlslOptions &options,
                                                    int64_t scratchOffset);

} // namespace mlir::tract

#endif // TRACT_EMITSPIRV_GLSLKERNELS_H
