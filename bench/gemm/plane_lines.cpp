// What NCHW planes that are not a whole number of cache lines cost the
// pointwise convs, on one thread and on two. A plane of 3025, 729 or 169
// floats (55x55, 27x27, 13x13) starts mid-line, so
//   - the GEMM reads each row of its input across line boundaries (two
//     lines per vector load), and
//   - where two threads' shares of the pixels meet in a plane, and where one
//     plane ends and the next begins, both threads write one line, and the
//     next conv (split the same way) reads it partly from the other core.
// The same convs on the same data with every plane padded to a multiple of
// 16 floats (each plane starting a line) show what the layout costs:
//   - one GEMM at a time, one thread, input rows padded or not, output rows
//     padded or not;
//   - three 1x1 convs chained as in a SqueezeNet fire module (128 -> 16 ->
//     64 -> 128 channels), one and two threads (each conv reads what the one
//     before wrote, split over the threads the same way).
// Medians of 201 runs. Built and run by bench/run-plane-lines.sh.
//
// (The harness is compiled between optimize_push.h and optimize_pop.h, as
// generated code is: an epilogue defined outside that region does not inline
// into the kernels, and a 64 x 3025 x 16 GEMM then ran 110-117 us instead
// of 63-72.)
#include "tract/rt/io/thread_pool.h"

#include "tract/rt/optimize_push.h"
#include "tract/rt/linalg/gemm.h"

#include "bench/median_time.h"
#include "bench/peak/fma_peak.h"

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using namespace tract::rt;
using namespace tract::rt::gemm;

template <class F> double median_us(F f) { return bench::median_us(f, 201); }

// v's first float on a 64-byte boundary (v has 16 floats to spare).
float *line_aligned(std::vector<float> &v) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(v.data()) / sizeof(float);
  return v.data() + (16 - at % 16) % 16;
}

int64_t padded(int64_t n) { return (n + 15) / 16 * 16; }

struct Weights {
  std::vector<float> packed;
  Weights(int64_t m, int64_t k) : packed(size_t(packed_a_floats(m, k))) {
    std::vector<float> w(size_t(m * k));
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = float(int(i * 37 % 101)) / 101.0f - 0.5f;
    pack_a(w.data(), k, 1, m, k, packed.data());
  }
};

const auto relu = [](float *v, int64_t, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    v[j] = v[j] > 0.0f ? v[j] : 0.0f;
};

// One pointwise conv (m x n x k, input read in place), one thread: input
// and output planes padded or not.
void single_gemms() {
  struct Shape {
    const char *what;
    int64_t m, n, k;
  };
  const Shape shapes[] = {{"squeeze 128->16 55x55", 16, 3025, 128},
                          {"expand 16->64 55x55", 64, 3025, 16},
                          {"squeeze 256->48 27x27", 48, 729, 256},
                          {"expand 48->192 27x27", 192, 729, 48},
                          {"squeeze 512->64 13x13", 64, 169, 512}};
  std::printf("\none pointwise conv, one thread, us (input planes / output planes: "
              "packed or padded to whole lines)\n");
  std::printf("%-24s %10s %10s %10s %10s\n", "shape", "pk / pk", "pad / pk", "pk / pad",
              "pad / pad");
  std::vector<float> scratch(1 << 20);
  for (const Shape &s : shapes) {
    const int64_t np = padded(s.n);
    Weights w(s.m, s.k);
    std::vector<float> xv(size_t(s.k * np + 16)), cv(size_t(s.m * np + 16));
    for (size_t i = 0; i < xv.size(); ++i)
      xv[i] = float(int(i * 53 % 97)) / 97.0f - 0.5f;
    float *x = line_aligned(xv), *c = line_aligned(cv);
    std::printf("%-24s", s.what);
    for (int v = 0; v < 4; ++v) {
      const int64_t ldb = v & 1 ? np : s.n, ldc = v & 2 ? np : s.n;
      std::printf(" %10.1f", median_us([&] {
                    gemm_parallel(Parallel{}, s.m, s.n, s.k, PackedA{w.packed.data(), s.k},
                                  InPlaceB{x, ldb}, c, ldc, 0, nullptr, relu, scratch.data());
                  }));
    }
    std::printf("\n");
  }
}

// A fire module's 1x1 convs chained (128 -> 16 -> 64 -> 128 channels, the
// last one's output the first one's input), on `threads` threads.
double chain_us(int64_t n, int64_t plane_stride, int threads, ThreadPool &pool) {
  const int64_t c0 = 128, c1 = 16, c2 = 64;
  Weights w1(c1, c0), w2(c2, c1), w3(c0, c2);
  std::vector<float> xv(size_t(c0 * plane_stride + 16), 0.5f), sv(size_t(c1 * plane_stride + 16)),
      ev(size_t(c2 * plane_stride + 16));
  float *x = line_aligned(xv), *s = line_aligned(sv), *e = line_aligned(ev);
  const int64_t scratch_floats = 1 << 20;
  std::vector<float> scratch(size_t(2 * scratch_floats));
  Parallel par{};
  if (threads > 1) {
    par.parallel_for = ThreadPool::parallel_for;
    par.pool = &pool;
    par.threads = threads;
    par.extra_scratch = scratch.data() + scratch_floats;
    par.scratch_stride = scratch_floats;
  }
  const int64_t ld = plane_stride;
  return median_us([&] {
    gemm_parallel(par, c1, n, c0, PackedA{w1.packed.data(), c0}, InPlaceB{x, ld}, s, ld, 0,
                  nullptr, relu, scratch.data());
    gemm_parallel(par, c2, n, c1, PackedA{w2.packed.data(), c1}, InPlaceB{s, ld}, e, ld, 0,
                  nullptr, relu, scratch.data());
    gemm_parallel(par, c0, n, c2, PackedA{w3.packed.data(), c2}, InPlaceB{e, ld}, x, ld, 0,
                  nullptr, relu, scratch.data());
  });
}

void chains() {
  ThreadPool pool(2);
  std::printf("\nthree chained 1x1 convs (128 -> 16 -> 64 -> 128), us: planes packed / padded\n");
  std::printf("%-8s %22s %22s\n", "map", "1 thread", "2 threads");
  for (int64_t side : {55, 27, 13}) {
    const int64_t n = side * side;
    std::printf("%2lldx%-5lld", static_cast<long long>(side), static_cast<long long>(side));
    for (int threads : {1, 2}) {
      const double packed_us = chain_us(n, n, threads, pool);
      const double padded_us = chain_us(n, padded(n), threads, pool);
      std::printf(" %9.1f / %9.1f  ", packed_us, padded_us);
    }
    std::printf("\n");
  }
}

} // namespace

int main() {
  bench::print_cpu();
  bench::print_fma_peak(bench::measure_fma_peak());
  single_gemms();
  chains();
  return 0;
}

#include "tract/rt/optimize_pop.h"
