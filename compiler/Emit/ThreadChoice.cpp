//===- ThreadChoice.cpp - whether a model's kernels split over threads ----===//
#include "compiler/Emit/ThreadChoice.h"
#include "compiler/Emit/EmitCommon.h"

using namespace mlir::tract;

int64_t mlir::tract::modelFootprintBytes(const PlannedModel &pm) {
  int64_t bytes = static_cast<int64_t>(pm.weights.size()) + pm.arenaBytes;
  for (const TensorDesc &t : pm.inputs)
    bytes += t.bytes;
  for (const TensorDesc &t : pm.outputs)
    bytes += t.bytes;
  return bytes;
}

bool mlir::tract::runsOnOneThread(const PlannedModel &pm, int64_t oneCoreBytes) {
  if (modelFootprintBytes(pm) > oneCoreBytes)
    return false;
  for (const Kernel &k : pm.kernels)
    if (k.call.flops > kShortKernelFlops)
      return false;
  return true;
}
