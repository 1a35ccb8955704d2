//===- ThreadChoice.h - whether a model's kernels split over threads -*- C++ -*-===//
//
// Each runtime kernel splits itself over the application's threads when its
// own work pays for the wake-up (kMinParallelWork in tract/rt/parallel.h).
// That per-kernel rule misses what a split costs its neighbours: a kernel's
// output, written half by each core, is read by the next kernel, and half of
// it now comes from the other core's cache. For a model whose weights and
// activations all fit in one core's cache and whose kernels each last a few
// microseconds, those hand-offs cost more than the halved arithmetic: the
// keyword-spotting CNN of bench/ took 0.040 ms on one thread and 0.051 ms on
// two, and keeping any subset of its kernels on one thread was slower still
// (0.054-0.062 ms), because every switch between one and two cores is a
// hand-off too. So the choice is made for the whole model, here.
//
// Such a model can still use a second core when its kernels split alike:
// each by rows of its output map (tract::rt::Parallel::by_rows), so each
// core computes the rows the next kernel reads on that same core, and the
// hand-offs shrink to a k x k conv's halo rows. Where every kernel that does real work can
// (the lane kernels of a depthwise-separable CNN), the model splits by
// rows: the keyword spotter at two threads 0.044-0.048 -> 0.037-0.040 ms on
// an Intel Xeon (Sapphire Rapids class), where per-kernel splits took
// 0.050-0.060. Only where the CPU model says the cores hand data over
// cheaply (CpuModel::smallModelsByRows): on the Zen 5 VM, whose cores are
// three times as far apart, the same split took 0.058-0.070 ms against one
// thread's 0.042-0.045.
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_EMIT_THREADCHOICE_H
#define TRACT_EMIT_THREADCHOICE_H

#include <cstdint>
#include <string>

namespace mlir::tract {

struct PlannedModel;

/// A kernel of at most this many arithmetic operations lasts about 10 us on
/// one core (2M multiply-adds at ~200 GFLOP/s), a few hand-offs' worth.
inline constexpr int64_t kShortKernelFlops = 4'000'000;

/// How a model's kernels use the application's threads.
enum class ThreadPlan {
  PerKernel, // each kernel splits its own way, if its work pays for it
  OneThread, // every kernel on the calling thread
  ByRows,    // kernels split by output rows, alike (Parallel::by_rows)
};

/// A model that fits `oneCoreBytes` (the L2 of one core of the CPU model,
/// compiler/Support/CpuModels.h: 1 MiB on Zen 4 and Zen 5) with every
/// kernel short (kShortKernelFlops) splits ByRows where `smallByRows` (the
/// CPU model's) and each kernel that would split can split by rows
/// (splitsByRows), else runs OneThread
/// (PerKernel with `alwaysSplit`, for testing the threaded paths); any
/// other model splits PerKernel.
ThreadPlan chooseThreadPlan(const PlannedModel &pm, int64_t oneCoreBytes, bool smallByRows,
                            bool alwaysSplit);

/// Whether kernel algorithm `algorithm` splits by output rows under
/// Parallel::by_rows (tract/rt/nn/conv_lanes.h, conv_depthwise.h).
bool splitsByRows(const std::string &algorithm);

/// Total bytes the model touches in a run: weights, arena, inputs, outputs.
int64_t modelFootprintBytes(const PlannedModel &pm);

} // namespace mlir::tract

#endif // TRACT_EMIT_THREADCHOICE_H
