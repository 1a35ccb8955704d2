//===- CoopMatrixGemm.h - a tiled GEMM on cooperative-matrix units -*- C++ -*-===//
//
// --fp16-gemm: the tiled GEMM of a conv or matmul (GlslKernels.cpp) on the
// device's matrix units through GL_NV_cooperative_matrix: operands rounded
// to fp16 as they are staged in shared memory, products accumulated in
// fp32, the fused epilogue applied in fp32. Debian 12's glslang and
// SPIRV-Headers predate GL_KHR_cooperative_matrix, so the NV extension is
// what this toolchain compiles and validates; NVIDIA's drivers (the H200
// included) offer both.
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_EMITSPIRV_COOPMATRIXGEMM_H
#define TRACT_EMITSPIRV_COOPMATRIXGEMM_H

#include <cstdint>
#include <string>

namespace mlir::tract {

/// One GEMM per batch (z) index, C[m][n] = sum_k A[m][k] * B[k][n], read
/// through the shader's load_a(bz, m, k) and load_b(bz, k, n) (load_a4 /
/// load_b4 for 16-byte loads where vecA / vecB), K in `splits` ranges of
/// `splitLength` (a multiple of kStepK), one per workgroup along z.
struct CoopMatrixGemm {
  int64_t m = 0, n = 0, k = 0, batches = 1, splits = 1, splitLength = 0;
  static constexpr int64_t kStepK = 32; // K staged in shared memory per step
  bool vecA = false, vecB = false;
  bool bAlongK = false; // B is contiguous along k: neighbours load neighbouring k
  bool bigTile = true;  // 128 x 128 outputs per workgroup (8 subgroups), else 64 x 64 (4)
  /// Statements storing float `v`, the sum for (bz, m, n), where it goes.
  std::string store;

  int64_t tileSide() const { return bigTile ? 128 : 64; }
  int64_t invocations() const { return bigTile ? 256 : 128; }
  /// The lines between the shader's #version and its bindings: extensions
  /// and the workgroup size.
  std::string layoutLines() const;
  /// The shared memory the shader declares.
  int64_t sharedBytes() const;
  /// Shared memory and main(), after the shader's functions.
  std::string mainSource() const;
};

/// What the shaders assume of the device, checked by the runtime
/// (kFeatureCoopMatrixF16 in runtime/include/tract/vk/runtime.h): 32-wide
/// subgroups (gl_SubgroupID numbers 32-wide slices of the workgroup) and
/// this much shared memory (sharedBytes() is at most it).
constexpr uint32_t kCoopMatrixSubgroupSize = 32;
constexpr int64_t kCoopMatrixMaxSharedBytes = 40 * 1024;

} // namespace mlir::tract

#endif // TRACT_EMITSPIRV_COOPMATRIXGEMM_H
