// GFLOP/s of the runtime's blocked GEMM (linalg/gemm.h) on square and
// model-shaped problems, weights packed ahead as tractc emits them (PackedB
// or PackedA) and the activation operand packed per block, as in generated
// code; on the conv shapes (weights left), the activations are read in place
// or packed as gm::reads_b_in_place picks for a pointwise conv of that
// shape, and the line also gives the other way's GFLOP/s. Prints the
// micro-kernel alone with its operands in L1 (the ceiling of the driver's
// tiles), then one line per shape: median time of --runs runs (after a
// warm-up), GFLOP/s, and that as a fraction of the FMA peak measured right
// before and right after the shape (their mean, printed). The "streamed"
// shapes are layers on small maps whose weights come from DRAM, as in a
// model: each run goes through copies of the packed weights, 256 MB in all,
// and their line adds the weights' GB/s.
// Build: see bench/README.md (bench/run-gemm.sh).
// As generated code does: the runtime at -O3 under GCC whatever the flags.
#include "tract/rt/optimize_push.h"
#include "tract/rt/linalg/gemm.h"
#include "tract/rt/optimize_pop.h"

#include "bench/peak/fma_peak.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace gm = tract::rt::gemm;

namespace {

struct Shape {
  const char *what;
  int64_t m, n, k;
  bool weights_left; // conv: packed weights are A; matmul: packed weights are B
  bool streamed = false; // weights from DRAM (copies of them, 256 MB in all)
  bool b_in_place = false; // B read where it lies (a 1x1 conv on fewer than 16 pixels)
};

// Buffers on 64-byte lines, as generated code has them (MODEL_ARENA_ALIGN,
// the weights' alignas(64)). A std::vector's large blocks start 16 bytes
// into a page: every 64-byte row of a B panel read in place then straddles
// two lines (the 64-channel conv's GEMM alone, Zen 5 VM: 183-193 GFLOP/s
// 16 bytes off a line against 217-218 on lines, one run after the other).
template <class T> struct LineAligned {
  using value_type = T;
  LineAligned() = default;
  template <class U> LineAligned(const LineAligned<U> &) {}
  T *allocate(size_t n) {
    return static_cast<T *>(::operator new(n * sizeof(T), std::align_val_t(64)));
  }
  void deallocate(T *p, size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <class U> bool operator==(const LineAligned<U> &) const { return true; }
  template <class U> bool operator!=(const LineAligned<U> &) const { return false; }
};
using Floats = std::vector<float, LineAligned<float>>;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The driver's main micro-kernel alone, its operands in L1 (K = 256: A 24
// rows, B 32 columns, packed; AVX-512's two tall 12 x 32 tiles, else the
// MR x NR tile), GFLOP/s: the most the driver's tiles reach on this CPU,
// beside the FMA peak of register operands alone.
double micro_kernel_in_l1(int runs) {
  constexpr int64_t kb = 256, calls = 2000;
  alignas(64) static float a[3 * gm::MR * kb], b[2 * gm::NR * kb];
  alignas(64) float t0[gm::kTallRows * gm::NR], t1[gm::kTallRows * gm::NR];
  for (int64_t i = 0; i < 3 * gm::MR * kb; ++i)
    a[i] = float(int(i % 7) - 3) * 0.125f;
  for (int64_t i = 0; i < 2 * gm::NR * kb; ++i)
    b[i] = float(int(i % 5) - 2) * 0.25f;
  std::vector<double> times;
  double flops = 0;
  for (int r = 0; r < runs + 1; ++r) {
    auto t = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < calls; ++i) {
      if constexpr (gm::kHasTallKernel) {
        gm::micro_kernel_tall_pair<0>(kb, a, a + gm::MR * kb, b, gm::NR * kb, t0, t1, gm::NR);
        gm::micro_kernel_tall_pair<gm::kTallRows - gm::MR>(kb, a + gm::MR * kb, a + 2 * gm::MR * kb,
                                                           b, gm::NR * kb, t0, t1, gm::NR);
        flops = 2.0 * 2 * gm::kTallRows * 2 * gm::NR * kb;
      } else {
        gm::micro_kernel(kb, a, b, t0, gm::NR);
        flops = 2.0 * gm::MR * gm::NR * kb;
      }
      asm volatile("" ::"r"(t0), "r"(t1) : "memory");
    }
    if (r > 0) // (the first run warms up)
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
  }
  return flops * calls / median(times) * 1e-9;
}

} // namespace

int main(int argc, char **argv) {
  int runs = 31;
  const char *only = nullptr; // --only TEXT: the shapes whose name holds TEXT
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs"))
      runs = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--only"))
      only = argv[i + 1];
  }
  const Shape shapes[] = {
      {"square", 256, 256, 256, false},   {"square", 512, 512, 512, false},
      {"square", 1024, 1024, 1024, false}, {"conv3x3 64ch 56x56", 64, 3136, 576, true},
      {"conv3x3 256ch 14x14", 256, 196, 2304, true}, {"linear 128x256->1024", 128, 1024, 256, false},
      {"conv1x1 512->1000 13x13", 1000, 169, 512, true},
      {"streamed conv3x3 512ch 2x2", 512, 4, 4608, true, true},
      {"conv1x1 512->1000 3x3", 1000, 9, 512, true, false, true},
      {"streamed conv1x1 512->1000 3x3", 1000, 9, 512, true, true, true},
      {"streamed conv1x1 1024->2048 2x2", 2048, 4, 1024, true, true, true},
      {"streamed conv1x1 512->1024 4x4", 1024, 16, 512, true, true, true},
      {"streamed fc 2048->1000", 1, 1000, 2048, false, true},
  };
  bench::print_cpu();
  const bench::FmaPeak peak = bench::measure_fma_peak();
  bench::print_fma_peak(peak);
  const double before = peak.best() > 0 ? bench::measure_peak_now() : 0;
  const double alone = micro_kernel_in_l1(runs);
  std::printf("micro-kernel: %s; alone, operands in L1: %.1f GFLOP/s", gm::kMicroKernelIsa, alone);
  if (before > 0) {
    const double local_peak = (before + bench::measure_peak_now()) / 2;
    std::printf(" %5.1f%% of peak (%.0f)", 100 * alone / local_peak, local_peak);
  }
  std::printf("\n");
  for (const Shape &s : shapes) {
    if (only && !std::strstr(s.what, only))
      continue;
    Floats a(size_t(s.m * s.k)), b(size_t(s.k * s.n)), c(size_t(s.m * s.n));
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = float(int(i % 7) - 3) * 0.125f;
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = float(int(i % 5) - 2) * 0.25f;
    const size_t packed_floats = size_t(s.weights_left ? gm::packed_a_floats(s.m, s.k)
                                                       : gm::packed_b_floats(s.k, s.n));
    const size_t copies = s.streamed ? (size_t(256) << 20) / (packed_floats * 4) + 1 : 1;
    std::vector<Floats> packed(copies, Floats(packed_floats));
    for (Floats &w : packed)
      if (s.weights_left)
        gm::pack_a(a.data(), s.k, 1, s.m, s.k, w.data());
      else
        gm::pack_b(b.data(), s.n, 1, s.k, s.n, w.data());
    Floats scratch(size_t(gm::scratch_floats(s.m, s.n, s.k, !s.weights_left, s.weights_left)));
    // B, the activations, read in place or packed per block as the driver's
    // rule picks for a row-major B (the generated code's choice for a
    // pointwise conv of this shape); the other way is timed too and shown.
    const bool picks = s.weights_left && !s.streamed;
    bool in_place = s.b_in_place || (picks && gm::reads_b_in_place(s.m, s.n, s.n));
    auto once = [&](const Floats &w) {
      if (in_place)
        gm::gemm(s.m, s.n, s.k, gm::PackedA{w.data(), s.k}, gm::InPlaceB{b.data(), s.n},
                 c.data(), s.n, 0, nullptr, gm::NoEpilogue{}, scratch.data());
      else if (s.weights_left)
        gm::gemm(s.m, s.n, s.k, gm::PackedA{w.data(), s.k}, gm::StridedB{b.data(), s.n, 1},
                 c.data(), s.n, 0, nullptr, gm::NoEpilogue{}, scratch.data());
      else
        gm::gemm(s.m, s.n, s.k, gm::StridedA{a.data(), s.k, 1}, gm::PackedB{w.data(), s.k},
                 c.data(), s.n, 0, nullptr, gm::NoEpilogue{}, scratch.data());
    };
    auto time_runs = [&] {
      once(packed[0]);
      std::vector<double> times;
      for (int r = 0; r < runs; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        for (const Floats &w : packed)
          once(w);
        times.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
            double(copies));
      }
      return median(times);
    };
    const double peak_before = peak.best() > 0 ? bench::measure_peak_now() : 0;
    const double t = time_runs();
    const double local_peak =
        peak.best() > 0 ? (peak_before + bench::measure_peak_now()) / 2 : 0;
    const double gflops = 2.0 * double(s.m * s.n * s.k) / t * 1e-9;
    double other_gflops = 0;
    if (picks) {
      in_place = !in_place;
      other_gflops = 2.0 * double(s.m * s.n * s.k) / time_runs() * 1e-9;
      in_place = !in_place;
    }
    std::printf("%-22s M=%-5lld N=%-5lld K=%-5lld %9.3f ms %7.1f GFLOP/s", s.what, (long long)s.m,
                (long long)s.n, (long long)s.k, t * 1e3, gflops);
    if (local_peak > 0)
      std::printf(" %5.1f%% of peak (%.0f)", 100 * gflops / local_peak, local_peak);
    if (s.streamed)
      std::printf(" %5.1f GB/s of weights", double(packed_floats * 4) / t * 1e-9);
    if (picks)
      std::printf("  B %s (%s: %.1f GFLOP/s)", in_place ? "in place" : "packed",
                  in_place ? "packed" : "in place", other_gflops);
    std::printf("\n");
  }
  return 0;
}
