//===- CpuModels.h - what tractc --cpu knows of each CPU kind ---*- C++ -*-===//
//
// The generated code's instruction set is the user's compiler's choice
// (-march=...): the runtime's kernels pick their paths from its macros, and
// weights are packed into one panel layout for every path, so a generated
// file builds for any CPU. What tractc itself decides, and what depends on
// the CPU kind, is priced at compile time:
//   - which algorithm runs a 3x3 conv: Winograd's transforms against
//     im2col's gather, both priced in GEMM multiply-adds, at rates measured
//     per CPU kind (bench/run-conv.sh --fit-only), and up to which output
//     width taps into lane layout replace F(2x2);
//   - whether a small model keeps every kernel on one thread (it fits the
//     core's L2 cache), or splits all of them by rows where the cores hand
//     data to each other cheaply.
// `--cpu=NAME` picks these numbers; `--cpu=native` takes the build
// machine's kind (LLVM's name for the host CPU). The register tiles and the
// cache blocking stay the same everywhere: sweeps on Zen 4 and Zen 5 found
// no blocking better than the default on either (bench/README.md).
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_SUPPORT_CPUMODELS_H
#define TRACT_SUPPORT_CPUMODELS_H

#include "tract/rt/nn/conv_winograd.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir::tract {

struct CpuModel {
  llvm::StringLiteral name;
  /// Whether it is an x86-64 core (refused with an Arm --target).
  bool x86;
  /// The conv algorithms' cost model (tract-choose-kernels).
  ::tract::rt::winograd::ConvCosts convCosts;
  /// A model at most this large (weights, arena, inputs, outputs) fits the
  /// core's L2 and runs on one thread (compiler/Emit/ThreadChoice.h).
  int64_t l2Bytes;
  /// Whether such a small model splits by rows where every kernel can
  /// (ThreadChoice.h's ByRows) instead of running on one thread: only
  /// where a core reads what the other wrote quickly enough.
  bool smallModelsByRows = false;
};

/// The model called `name`, or nullptr.
const CpuModel *lookupCpuModel(llvm::StringRef name);

/// The model for the build machine, and LLVM's name for its CPU in
/// `hostName`: the generic model when tractc has none for that CPU.
const CpuModel &hostCpuModel(std::string &hostName);

/// "generic, znver4, znver5, icelake-server, or native".
std::string cpuModelNames();

} // namespace mlir::tract

#endif // TRACT_SUPPORT_CPUMODELS_H
