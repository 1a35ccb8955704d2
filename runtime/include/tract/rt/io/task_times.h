// tract runtime: each parallel job's task times, recorded by io/thread_pool.h
// when built with TRACT_POOL_TASK_TIMES (bench/task_times.py does; nothing
// else should). A job is one parallel_for call; its record holds the kernel
// the generated run was in (current_kernel(), which the bench's copy of
// model.cpp sets before each kernel call) and each task's seconds. With
// TRACT_POOL_IN_TURN set in the environment the pool runs a job's tasks one
// after the other on the calling thread, same split, same code: what the
// tasks cost without the other core. At exit the records go to the file
// TRACT_POOL_TIMES names, a line per job: "kernel tasks s0 s1 ...".
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace tract {
namespace rt {

class TaskTimes {
public:
  static constexpr int kMaxTasks = 16; // tasks past this are run but not timed

  static int &current_kernel() {
    static int kernel = -1;
    return kernel;
  }

  bool in_turn() const { return in_turn_; }

  // On the calling thread, before the job's tasks are published.
  void begin_job(int64_t count) {
    Job job;
    job.kernel = current_kernel();
    job.count = static_cast<int>(count < kMaxTasks ? count : kMaxTasks);
    jobs_.push_back(job);
  }

  // Runs task(ctx, index) and records its time in the current job: tasks
  // of one job write different slots.
  template <class Task> void timed(int64_t index, Task &&task) {
    const auto t0 = std::chrono::steady_clock::now();
    task();
    if (index < kMaxTasks)
      jobs_.back().seconds[index] =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  ~TaskTimes() {
    const char *path = std::getenv("TRACT_POOL_TIMES");
    if (!path)
      return;
    std::FILE *f = std::fopen(path, "w");
    if (!f)
      return;
    for (const Job &job : jobs_) {
      std::fprintf(f, "%d %d", job.kernel, job.count);
      for (int i = 0; i < job.count; ++i)
        std::fprintf(f, " %.9f", job.seconds[i]);
      std::fputc('\n', f);
    }
    std::fclose(f);
  }

private:
  struct Job {
    int kernel = -1, count = 0;
    double seconds[kMaxTasks] = {};
  };
  std::vector<Job> jobs_;
  bool in_turn_ = std::getenv("TRACT_POOL_IN_TURN") != nullptr;
};

} // namespace rt
} // namespace tract
