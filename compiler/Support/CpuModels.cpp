//===- CpuModels.cpp - what tractc --cpu knows of each CPU kind -----------===//
#include "compiler/Support/CpuModels.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir::tract;

namespace {

constexpr int64_t kMiB = int64_t(1) << 20;

// The conv costs are fitted with `bench/run-conv.sh --fit-only` (3x3 convs
// timed as im2col GEMM and as Winograd F(2x2) and F(4x4), and on narrow
// maps conv_by_taps against F(2x2), and on deeper convs against im2col;
// weights cold, one thread); the figures and the CPU they were measured on
// are in bench/README.md.
// Small models split by rows (smallModelsByRows) only on the Intel server
// cores: the keyword spotter of bench/ at two threads 0.044-0.048 ->
// 0.037-0.040 ms there (one thread 0.045), but 0.042-0.045 -> 0.058-0.070
// on the Zen 5 VM, whose two cores are a 440 ns cache-line round trip
// apart (bench/run-two-cores.sh; 140-150 on the Xeon), a hand-off per
// kernel. The generic model keeps the safer one thread.
const CpuModel kModels[] = {
    // Zen 4's figures: the CPU the cost model was first fitted on.
    {"generic", false, {44.0, 20.0}, kMiB},
    // AMD EPYC Zen 4 (AVX-512 on 256-bit FMA pipes), warm weights, before
    // Winograd's tiles moved in lane layout.
    {"znver4", true, {44.0, 20.0}, kMiB},
    // AMD EPYC Zen 5 (two 512-bit FMA pipes), 2026-12-05.
    {"znver5", true, {36.0, 12.0}, kMiB},
    // Intel's server cores from Ice Lake on: fitted on a Sapphire Rapids
    // class Xeon (two 512-bit FMA pipes), 2026-12-06, where F(2x2) beats
    // conv_by_taps from 6x6 maps on (on 7x7 in the models too) and im2col
    // beats it on deeper convs with large GEMMs; Ice Lake server's 1.25 MiB
    // L2 (its successors have 2 MiB).
    {"icelake-server", true, {14.0, 12.0, 5, 25088}, kMiB + kMiB / 4, true},
};

} // namespace

const CpuModel *mlir::tract::lookupCpuModel(llvm::StringRef name) {
  for (const CpuModel &m : kModels)
    if (m.name == name)
      return &m;
  return nullptr;
}

const CpuModel &mlir::tract::hostCpuModel(std::string &hostName) {
  hostName = llvm::sys::getHostCPUName().str();
  // Intel's server cores from Ice Lake on (at least its L2 each); the
  // Skylake-era ones (1 MiB L2, some with one 512-bit FMA unit) and every
  // other CPU take the generic model.
  llvm::StringRef model = llvm::StringSwitch<llvm::StringRef>(hostName)
                              .Case("znver4", "znver4")
                              .Case("znver5", "znver5")
                              .Cases("icelake-server", "sapphirerapids", "emeraldrapids",
                                     "graniterapids", "graniterapids-d", "icelake-server")
                              .Default("generic");
  // A virtual machine may report another model number than its Intel
  // server core's (one Sapphire Rapids class VM here reports Rocket Lake's):
  // AMX tiles are only on those server cores.
  if (model == "generic" && llvm::sys::getHostCPUFeatures().lookup("amx-tile"))
    model = "icelake-server";
  return *lookupCpuModel(model);
}

std::string mlir::tract::cpuModelNames() {
  std::string names;
  for (const CpuModel &m : kModels)
    names += std::string(m.name) + ", ";
  return names + "or native";
}
