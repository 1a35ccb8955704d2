// tract runtime: the parallel-for hook generated code runs its kernels
// through (issue #5's threads).
//
// The application (or firmware scheduler) passes one function:
//
//   void parallel_for(void *pool, int64_t count,
//                     void (*task)(void *ctx, int64_t index), void *ctx);
//
// which must run task(ctx, 0) ... task(ctx, count - 1), in any order and on
// any threads, and return when all have finished. `count` is never more than
// the thread count the model was run with, and task `index` uses scratch
// slice `index` of the arena, so tasks never share memory they write.
// Without a hook (parallel_for == nullptr) everything runs inline on the
// calling thread: the single-threaded code path has no atomics, no locks and
// no indirect calls.
#pragma once

#include <cstdint>
#include <type_traits>

extern "C" {
typedef void (*tract_task_fn)(void *ctx, int64_t index);
typedef void (*tract_parallel_for_fn)(void *pool, int64_t count, tract_task_fn task, void *ctx);
}

namespace tract {
namespace rt {

struct Parallel {
  tract_parallel_for_fn parallel_for = nullptr;
  void *pool = nullptr;
  int64_t threads = 1;
  // Scratch of task t > 0: extra_scratch + (t - 1) * scratch_stride floats
  // (task 0 uses the kernel's own planned scratch).
  float *extra_scratch = nullptr;
  int64_t scratch_stride = 0;
  // Split by rows: every kernel that can gives task t output rows
  // [rows * t / tasks, rows * (t + 1) / tasks) of its map, whatever it
  // would pick for itself, so in a chain of such kernels on maps of one
  // size each task reads the rows its thread wrote a kernel before (only a
  // k x k conv's halo rows come from another core). The compiler asks for
  // it where the whole model fits one core's cache (compiler/Emit/
  // ThreadChoice.h): there a kernel's own best split (output channels,
  // say) costs more in reading the other core's half of its input than it
  // saves.
  bool by_rows = false;

  float *scratch_of(int64_t task, float *own) const {
    return task == 0 ? own : extra_scratch + (task - 1) * scratch_stride;
  }
};

// Below this many multiply-adds a kernel is not split: waking another
// thread costs a few microseconds, as much as ~100k FMAs at one core's speed.
constexpr int64_t kMinParallelWork = 200000;

// First output row of task t of `tasks` over `rows` rows (Parallel::by_rows).
constexpr int64_t row_share(int64_t t, int64_t tasks, int64_t rows) { return rows * t / tasks; }

// Runs f(0) ... f(count - 1) through the hook (count <= par.threads), or
// inline when there is none or only one task.
template <class F> void run_tasks(const Parallel &par, int64_t count, F &&f) {
  if (!par.parallel_for || count <= 1) {
    for (int64_t i = 0; i < count; ++i)
      f(i);
    return;
  }
  using Fn = typename std::remove_reference<F>::type;
  par.parallel_for(
      par.pool, count, [](void *ctx, int64_t index) { (*static_cast<Fn *>(ctx))(index); },
      const_cast<void *>(static_cast<const void *>(&f)));
}

} // namespace rt
} // namespace tract
