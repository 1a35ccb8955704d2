// tract runtime: sums and means of contiguous rows, split over threads.
//
// A reduction over an input's trailing axes (a global average pool: each
// channel's plane) is one contiguous row per output. reduce() (reduce_ref.h)
// sums those rows on the calling thread; in a model run on two threads the
// previous kernel wrote half of its output from the other core, and one
// thread then reads that half from the other core's cache: SqueezeNet 1.1's
// pool over 1000 x 13 x 13 took 47 us at two threads against 13 us alone.
// Here the rows are split over par.threads tasks in order, the way a GEMM
// or a conv splits its output rows, so each core mostly sums what it wrote.
#pragma once

#include "tract/rt/common.h"
#include "tract/rt/parallel.h"
#include "tract/rt/reduce/reduce_ref.h"

namespace tract {
namespace rt {

// Rows reduced per task at least: below this a wake-up costs more than the
// sums (~16 floats a cycle from L2).
constexpr int64_t kMinReduceRowsWork = 32768;

// y[r] = sum (kMean: mean) of x[r * stride .. r * stride + len), r < rows;
// stride 0: len (contiguous rows; a larger one: padded planes).
template <bool kMean>
void sum_rows(const float *x, int64_t rows, int64_t len, float *y,
              const Parallel &par = Parallel{}, int64_t stride = 0) {
  if (stride <= 0)
    stride = len;
  int64_t tasks = 1;
  if (par.parallel_for && rows * len >= 2 * kMinReduceRowsWork) {
    tasks = rows * len / kMinReduceRowsWork;
    tasks = tasks < par.threads ? tasks : par.threads;
    tasks = tasks < rows ? tasks : rows;
  }
  run_tasks(par, tasks, [&](int64_t t) {
    for (int64_t r = rows * t / tasks; r < rows * (t + 1) / tasks; ++r) {
      const float s = detail::sum_in_lanes(x + r * stride, len);
      // (A mean as ReduceMean's own division: the same value as reduce().)
      y[r] = kMean ? op::ReduceMean::finish(s, len) : s;
    }
  });
}

} // namespace rt
} // namespace tract
