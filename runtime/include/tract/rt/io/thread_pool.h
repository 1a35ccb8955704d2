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
  explicit ThreadPool(int threads) : threads_(threads > 1 ? threads : 1) {
    for (int i = 1; i < threads; ++i)
      workers_.emplace_back([this, i] { work(i); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_.store(true, std::memory_order_relaxed);
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
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = task;
      ctx_ = ctx;
      count_ = count;
      done_.store(0, std::memory_order_relaxed);
      published_.store(++generation_, std::memory_order_release);
    }
    wake_.notify_all();
    run_own(0, task, ctx, count);
    // The other tasks are about as long as ours: spin for them before
    // sleeping (a futex wake-up costs tens of microseconds on a VM, more
    // than a small model's whole kernel).
    for (int spin = 0; spin < 200000 && done_.load(std::memory_order_acquire) < count; ++spin)
      std::this_thread::yield();
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return done_.load(std::memory_order_acquire) == count; });
  }

  // Thread w (0: the caller, 1..: the workers in order) runs tasks w,
  // w + threads, ... of every job: the same thread always takes the same
  // share. Kernels split their work the same way one after another (a conv's
  // pixels, then the next conv's same pixels), so each task then finds the
  // data its thread wrote a kernel before in its own cache. Claimed first
  // come, first served, the caller and the worker swapped shares in 4% of
  // SqueezeNet 1.1's jobs at two threads, and on a VM whose cores share no
  // cache a core reads what the other wrote at a fraction of its own
  // cache's speed (bench/run-two-cores.sh).
  void run_own(int64_t first, tract_task_fn task, void *ctx, int64_t count) {
    for (int64_t index = first; index < count; index += threads_) {
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

  void work(int self) {
    uint64_t seen = 0;
    for (;;) {
      tract_task_fn task;
      void *ctx;
      int64_t count;
      // A model runs its kernels back to back: spin a little before
      // sleeping, so the next kernel's tasks start without a futex wake-up.
      // (Not past the pool's end: on a busy machine each yield can cost a
      // time slice, and 20000 of them held the destructor for seconds.)
      for (int spin = 0; spin < 20000 && published_.load(std::memory_order_acquire) == seen &&
                         !stop_.load(std::memory_order_relaxed);
           ++spin)
        std::this_thread::yield();
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] {
          return stop_.load(std::memory_order_relaxed) || generation_ != seen;
        });
        if (stop_.load(std::memory_order_relaxed))
          return;
        // (A job is published only when the one before is done, which
        // needed this thread's tasks: no job with tasks for it is missed.)
        seen = generation_;
        task = task_;
        ctx = ctx_;
        count = count_;
      }
      run_own(self, task, ctx, count);
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  tract_task_fn task_ = nullptr;
  void *ctx_ = nullptr;
  const int threads_; // workers and the caller
  int64_t count_ = 0;
  std::atomic<int64_t> done_{0}; // tasks of the current job finished
  uint64_t generation_ = 0;
  std::atomic<uint64_t> published_{0}; // generation_, readable without the lock
  std::atomic<bool> stop_{false}; // (also read while spinning, without the lock)
#if defined(TRACT_POOL_TASK_TIMES)
  TaskTimes times_;
#endif
};

} // namespace rt
} // namespace tract
