// ThreadPool (io/thread_pool.h), the --main driver's parallel-for: every
// task of every job runs exactly once, the call returns only when all have,
// and a task index runs on the same thread in every job (the caller takes
// index 0), so kernels split alike find their data in their own core's cache.
#include "tract/rt/io/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace rt = tract::rt;

namespace {

struct Job {
  std::vector<std::atomic<int>> runs;
  std::vector<std::thread::id> ran_on;
  explicit Job(int64_t count) : runs(count), ran_on(count) {}
  static void task(void *ctx, int64_t index) {
    Job &job = *static_cast<Job *>(ctx);
    job.ran_on[index] = std::this_thread::get_id();
    job.runs[index].fetch_add(1);
  }
};

} // namespace

TEST(ThreadPool, EachTaskOnceAndAlwaysOnItsThread) {
  const std::thread::id caller = std::this_thread::get_id();
  for (int threads : {1, 2, 3, 4})
    for (int64_t count : {1, 2, 3, 5, 8}) {
      rt::ThreadPool pool(threads);
      std::vector<std::thread::id> first(count);
      // Back-to-back jobs (a model's kernels), then one after the workers
      // have gone to sleep.
      for (int j = 0; j < 300; ++j) {
        if (j == 299)
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        Job job(count);
        rt::ThreadPool::parallel_for(&pool, count, Job::task, &job);
        for (int64_t i = 0; i < count; ++i) {
          ASSERT_EQ(job.runs[i].load(), 1)
              << threads << " threads, " << count << " tasks, job " << j << ", task " << i;
          if (j == 0)
            first[i] = job.ran_on[i];
          ASSERT_EQ(job.ran_on[i], first[i])
              << threads << " threads, " << count << " tasks: task " << i
              << " moved to another thread in job " << j;
        }
        ASSERT_EQ(job.ran_on[0], caller);
      }
      // Tasks i and i + threads share a thread; tasks on different
      // threads below that.
      for (int64_t i = 0; i < count; ++i)
        for (int64_t k = 0; k < count; ++k)
          EXPECT_EQ(first[i] == first[k], i % threads == k % threads)
              << threads << " threads, tasks " << i << " and " << k;
    }
}
