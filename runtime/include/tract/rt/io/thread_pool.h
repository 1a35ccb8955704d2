// tract runtime: a small std::thread pool implementing the parallel-for hook
// of parallel.h, for the --main driver and for applications without a
// scheduler of their own. Uses the heap and std::thread, so it is not part of
// the model code (like npy.h).
//
//   tract::rt::ThreadPool pool(2);
//   model_run_threads(inputs, outputs, arena, tract::rt::ThreadPool::parallel_for, &pool, 2);
#pragma once

#include "tract/rt/parallel.h"
#if defined(TRACT_POOL_TASK_TIMES)
#include "tract/rt/io/task_times.h" // bench/task_times.py's build only
#endif

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace tract {
namespace rt {

class ThreadPool {
public:
  // `threads` counts the caller: threads - 1 workers are started.
  explicit ThreadPool(int threads) {
    for (int i = 1; i < threads; ++i)
      workers_.emplace_back([this] { work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread &t : workers_)
      t.join();
  }
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  // tract_parallel_for_fn: runs task(ctx, 0..count-1) on the workers and the
  // calling thread, returns when all are done.
  static void parallel_for(void *pool, int64_t count, tract_task_fn task, void *ctx) {
    static_cast<ThreadPool *>(pool)->run(count, task, ctx);
  }

private:
  void run(int64_t count, tract_task_fn task, void *ctx) {
#if defined(TRACT_POOL_TASK_TIMES)
    times_.begin_job(count);
    if (times_.in_turn()) {
      for (int64_t i = 0; i < count; ++i)
        times_.timed(i, [&] { task(ctx, i); });
      return;
    }
#endif
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = task;
      ctx_ = ctx;
      count_ = count;
      next_ = 0;
      done_.store(0, std::memory_order_relaxed);
      generation = ++generation_;
      published_.store(generation, std::memory_order_release);
    }
    wake_.notify_all();
    drain(generation);
    // The other tasks are about as long as ours: spin for them before
    // sleeping (a futex wake-up costs tens of microseconds on a VM, more
    // than a small model's whole kernel).
    for (int spin = 0; spin < 200000 && done_.load(std::memory_order_acquire) < count; ++spin)
      std::this_thread::yield();
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return done_.load(std::memory_order_acquire) == count; });
  }

  // Claims task indices of `generation` until none is left. Tasks are coarse
  // (one per thread), so claiming under the lock costs nothing measurable,
  // and a worker that wakes late never runs a newer job's index with an
  // older job's function.
  void drain(uint64_t generation) {
    for (;;) {
      tract_task_fn task;
      void *ctx;
      int64_t index, count;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (generation_ != generation || next_ >= count_)
          return;
        index = next_++;
        count = count_;
        task = task_;
        ctx = ctx_;
      }
#if defined(TRACT_POOL_TASK_TIMES)
      times_.timed(index, [&] { task(ctx, index); });
#else
      task(ctx, index);
#endif
      if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == count) {
        // Under the lock: the caller checks done_ and starts waiting
        // atomically with respect to this notify.
        std::lock_guard<std::mutex> lock(mutex_);
        finished_.notify_all();
      }
    }
  }

  void work() {
    uint64_t seen = 0;
    for (;;) {
      // A model runs its kernels back to back: spin a little before
      // sleeping, so the next kernel's tasks start without a futex wake-up.
      for (int spin = 0; spin < 20000 && published_.load(std::memory_order_acquire) == seen;
           ++spin)
        std::this_thread::yield();
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_)
          return;
        seen = generation_;
      }
      drain(seen);
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  tract_task_fn task_ = nullptr;
  void *ctx_ = nullptr;
  int64_t count_ = 0, next_ = 0;
  std::atomic<int64_t> done_{0}; // tasks of the current job finished
  uint64_t generation_ = 0;
  std::atomic<uint64_t> published_{0}; // generation_, readable without the lock
  bool stop_ = false;
#if defined(TRACT_POOL_TASK_TIMES)
  TaskTimes times_;
#endif
};

} // namespace rt
} // namespace tract
