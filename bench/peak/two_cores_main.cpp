// What two threads of this machine get from its memory system, for reading
// 2-thread figures: the FMA peak of each core alone and of both at once, a
// cache line's round trip between two threads, the read bandwidth of data
// the other thread wrote (against data this thread wrote, and cold data
// from DRAM), the write bandwidth into lines the other thread wrote last
// (against lines this one wrote), DRAM bandwidth with one and with two
// threads streaming, and how far apart the two cores' speeds drift (the
// same FMA loop on both at once, 100 rounds: the spread of the ratio of
// their times).
// On a VM whose two vCPUs share no cache, reading the other core's output
// runs at DRAM speed: a kernel split differently from the one before it
// pays that for half its input. Threads are pinned to CPUs 0 and 1 on Linux.
//
//   bench/run-two-cores.sh
#include "bench/peak/fma_peak.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

void pin_to(int cpu) {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
#else
  (void)cpu;
#endif
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Sums n floats with 32 independent accumulators (bandwidth-, not
// latency-bound); the barrier keeps repeated calls from being merged.
__attribute__((noinline)) float sum(const float *p, size_t n) {
  float acc[32] = {};
  for (size_t i = 0; i + 32 <= n; i += 32)
    for (int j = 0; j < 32; ++j)
      acc[j] += p[i + j];
  float total = 0;
  for (float a : acc)
    total += a;
  asm volatile("" ::: "memory");
  return total;
}

void fill(std::vector<float> &v, int round) {
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>((i + round) & 1023);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

float g_sink = 0;

void fma_peaks() {
  const bench::FmaPeak alone = bench::measure_fma_peak();
  bench::FmaPeak first, second;
  std::thread other([&] {
    pin_to(1);
    second = bench::measure_fma_peak();
  });
  first = bench::measure_fma_peak();
  other.join();
  std::printf("FMA peak, GFLOP/s (best width): one core %.1f; both at once %.1f + %.1f\n",
              alone.best(), first.best(), second.best());
}

// 1.5 ms of FMA chains (latency-bound: the same on any core of a kind).
__attribute__((noinline)) double fma_loop_seconds() {
  float a[8] = {1, 1.1f, 1.2f, 1.3f, 1.4f, 1.5f, 1.6f, 1.7f};
  const Clock::time_point t0 = Clock::now();
  for (int i = 0; i < 200000; ++i)
    for (float &x : a)
      x = x * 0.999999f + 1e-7f;
  const double s = seconds_since(t0);
  for (float x : a)
    g_sink += x;
  return s;
}

void speed_spread() {
  std::vector<double> ratio;
  for (int round = 0; round < 100; ++round) {
    std::atomic<bool> go{false};
    double other_s = 0;
    std::thread other([&] {
      pin_to(1);
      while (!go.load()) {
      }
      other_s = fma_loop_seconds();
    });
    go = true;
    const double own_s = fma_loop_seconds();
    other.join();
    ratio.push_back(other_s / own_s);
  }
  std::sort(ratio.begin(), ratio.end());
  std::printf("the same loop on both cores at once, time on CPU 1 / CPU 0 over 100 rounds: "
              "p10 %.2f, median %.2f, p90 %.2f\n", ratio[10], ratio[50], ratio[90]);
}

void round_trip() {
  alignas(64) static std::atomic<int> flag{0};
  const int n = 200000;
  std::thread other([&] {
    pin_to(1);
    for (int i = 0; i < n; ++i) {
      while (flag.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      flag.store(2 * i + 2, std::memory_order_release);
    }
  });
  const Clock::time_point t0 = Clock::now();
  for (int i = 0; i < n; ++i) {
    flag.store(2 * i + 1, std::memory_order_release);
    while (flag.load(std::memory_order_acquire) != 2 * i + 2) {
    }
  }
  const double s = seconds_since(t0);
  other.join();
  std::printf("cache line round trip between the two threads: %.0f ns\n", s / n * 1e9);
}

// fill(buf, round) by a thread on CPU 1: buf's lines then sit in that
// core's cache.
void fill_on_other_cpu(std::vector<float> &buf, int round) {
  std::thread writer([&] {
    pin_to(1);
    fill(buf, round);
  });
  writer.join();
}

// Read bandwidth of `kb` KB just written by the other thread, by this
// thread, and after 64 MB of other traffic (from DRAM).
void cross_core_reads(size_t kb) {
  std::vector<float> buf(kb * 256), evict(16 << 20);
  std::vector<double> other_s, own_s, dram_s;
  for (int round = 0; round < 30; ++round) {
    fill_on_other_cpu(buf, round);
    Clock::time_point t0 = Clock::now();
    g_sink += sum(buf.data(), buf.size());
    other_s.push_back(seconds_since(t0));
    fill(buf, round);
    t0 = Clock::now();
    g_sink += sum(buf.data(), buf.size());
    own_s.push_back(seconds_since(t0));
    for (size_t i = 0; i < evict.size(); i += 16)
      evict[i] += 1.0f;
    t0 = Clock::now();
    g_sink += sum(buf.data(), buf.size());
    dram_s.push_back(seconds_since(t0));
  }
  const double bytes = kb * 1024.0;
  std::printf("read %5zu KB, GB/s: written by the other thread %.1f, by this one %.1f, "
              "from DRAM %.1f\n",
              kb, bytes / median(other_s) * 1e-9, bytes / median(own_s) * 1e-9,
              bytes / median(dram_s) * 1e-9);
}

// Write bandwidth of overwriting `kb` KB that the other thread wrote last,
// against `kb` KB this thread wrote last: a store to a line another core
// holds must take it from there first. Generated code reuses arena memory
// from kernel to kernel, and two kernels split differently (or the same
// buffer holding tensors of other shapes) hand memory one core wrote to
// the other.
void cross_core_writes(size_t kb) {
  std::vector<float> buf(kb * 256);
  std::vector<double> other_s, own_s;
  for (int round = 0; round < 30; ++round) {
    fill_on_other_cpu(buf, round);
    Clock::time_point t0 = Clock::now();
    fill(buf, round + 1);
    other_s.push_back(seconds_since(t0));
    t0 = Clock::now();
    fill(buf, round + 2);
    own_s.push_back(seconds_since(t0));
  }
  const double bytes = kb * 1024.0;
  std::printf("write %4zu KB, GB/s: last written by the other thread %.1f, by this one %.1f\n",
              kb, bytes / median(other_s) * 1e-9, bytes / median(own_s) * 1e-9);
}

double stream_gbs(const std::vector<float> &v) {
  const Clock::time_point t0 = Clock::now();
  for (int r = 0; r < 3; ++r)
    g_sink += sum(v.data(), v.size());
  return 3.0 * v.size() * 4 / seconds_since(t0) * 1e-9;
}

void dram_streams() {
  std::vector<float> a(64 << 20), b(64 << 20); // 256 MB each
  fill(a, 0);
  fill(b, 1);
  const double alone = stream_gbs(a);
  double first = 0, second = 0;
  std::thread other([&] {
    pin_to(1);
    second = stream_gbs(b);
  });
  first = stream_gbs(a);
  other.join();
  std::printf("DRAM read, GB/s: one thread %.1f; two at once %.1f + %.1f\n", alone, first,
              second);
}

} // namespace

int main() {
  pin_to(0);
  bench::print_cpu();
  fma_peaks();
  round_trip();
  for (size_t kb : {256, 1024, 8192})
    cross_core_reads(kb);
  for (size_t kb : {256, 1024, 8192})
    cross_core_writes(kb);
  dram_streams();
  speed_spread();
  if (g_sink == 1.5f) // keeps the sums alive; never true
    std::puts("");
  return 0;
}
