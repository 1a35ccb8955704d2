//===- ThreadChoice.cpp - whether a model's kernels split over threads ----===//
#include "compiler/Emit/ThreadChoice.h"
#include "compiler/Emit/EmitCommon.h"
#include "tract/rt/parallel.h"

using namespace mlir::tract;

int64_t mlir::tract::modelFootprintBytes(const PlannedModel &pm) {
  int64_t bytes = static_cast<int64_t>(pm.weights.size()) + pm.arenaBytes;
  for (const TensorDesc &t : pm.inputs)
    bytes += t.bytes;
  for (const TensorDesc &t : pm.outputs)
    bytes += t.bytes;
  return bytes;
}

bool mlir::tract::splitsByRows(const std::string &algorithm) {
  static const char *const kByRows[] = {
      "conv_to_lanes",        "taps",      "pointwise_lanes",    "pointwise_to_lanes",
      "pointwise_from_lanes", "depthwise", "depthwise_lanes",    "depthwise_lanes_in",
      "depthwise_lanes_out"};
  for (const char *name : kByRows)
    if (algorithm == name)
      return true;
  return false;
}

ThreadPlan mlir::tract::chooseThreadPlan(const PlannedModel &pm, int64_t oneCoreBytes,
                                         bool smallByRows, bool alwaysSplit) {
  if (modelFootprintBytes(pm) > oneCoreBytes)
    return ThreadPlan::PerKernel;
  for (const Kernel &k : pm.kernels)
    if (k.call.flops > kShortKernelFlops)
      return ThreadPlan::PerKernel;
  const ThreadPlan unsplit = alwaysSplit ? ThreadPlan::PerKernel : ThreadPlan::OneThread;
  if (!smallByRows)
    return unsplit;
  // Kernels below the runtime's kMinParallelWork (multiply-adds) run on
  // the calling thread whatever the plan: they need not split by rows.
  bool splits = false;
  for (const Kernel &k : pm.kernels) {
    if (k.call.flops < 2 * ::tract::rt::kMinParallelWork)
      continue;
    if (!splitsByRows(k.algorithm))
      return unsplit;
    splits = true;
  }
  return splits ? ThreadPlan::ByRows : unsplit;
}
