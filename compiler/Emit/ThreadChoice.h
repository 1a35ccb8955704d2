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
//===----------------------------------------------------------------------===//
#ifndef TRACT_EMIT_THREADCHOICE_H
#define TRACT_EMIT_THREADCHOICE_H

#include <cstdint>

namespace mlir::tract {

struct PlannedModel;

/// A kernel of at most this many arithmetic operations lasts about 10 us on
/// one core (2M multiply-adds at ~200 GFLOP/s), a few hand-offs' worth.
inline constexpr int64_t kShortKernelFlops = 4'000'000;

/// Whether `pm` runs every kernel on the calling thread whatever thread
/// count the application passes: it fits `oneCoreBytes` (the L2 of one
/// core of the CPU model, compiler/Support/CpuModels.h: 1 MiB on Zen 4 and
/// Zen 5) and every kernel is short (kShortKernelFlops).
bool runsOnOneThread(const PlannedModel &pm, int64_t oneCoreBytes);

/// Total bytes the model touches in a run: weights, arena, inputs, outputs.
int64_t modelFootprintBytes(const PlannedModel &pm);

} // namespace mlir::tract

#endif // TRACT_EMIT_THREADCHOICE_H
