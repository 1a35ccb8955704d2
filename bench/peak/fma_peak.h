// The FP32 FMA peak of one core of the machine the bench runs on, measured:
// 16 independent fused multiply-add chains per register width (enough to
// fill two FMA pipes of latency 4 to 8), timed over ~0.1 s, best of five.
// Zen 4 runs 512-bit FMAs on 256-bit pipes (zmm peak = ymm peak), Zen 5 and
// Intel server cores on 512-bit ones (zmm = 2x ymm): the bench prints its
// GFLOP/s as a fraction of the widest width's figure here.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

#include <chrono>
#include <cstdio>
#include <cstring>

namespace bench {

struct FmaPeak {
  double zmm = 0, ymm = 0, xmm = 0; // GFLOP/s per core; 0: not compiled for it
  // The widest width's peak: what a GEMM micro-kernel for this build can reach.
  double best() const { return zmm > 0 ? zmm : ymm > 0 ? ymm : xmm; }
};

namespace detail {

// GFLOP/s of `iterations` rounds of 16 FMAs on vectors of `lanes` floats,
// best of five (the first warms the clock up).
template <class Round>
double best_gflops(Round round, int lanes, int trials = 5) {
  const long iterations = 4000000;
  double best = 0;
  for (int trial = 0; trial < trials; ++trial) {
    auto t0 = std::chrono::steady_clock::now();
    float sink = round(iterations);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (sink == 1234.5f) // keeps the chains alive; never true
      std::puts("");
    double g = 2.0 * 16 * lanes * double(iterations) / s * 1e-9;
    best = g > best ? g : best;
  }
  return best;
}

#define TRACT_BENCH_FMA_ROUND(V, SET1, FMA, ADD, FIRST)                                        \
  [](long iterations) {                                                                    \
    V a0 = SET1(1.0f), a1 = SET1(1.1f), a2 = SET1(1.2f), a3 = SET1(1.3f), a4 = SET1(1.4f),    \
      a5 = SET1(1.5f), a6 = SET1(1.6f), a7 = SET1(1.7f), a8 = SET1(1.8f), a9 = SET1(1.9f),    \
      a10 = SET1(2.0f), a11 = SET1(2.1f), a12 = SET1(2.2f), a13 = SET1(2.3f),                \
      a14 = SET1(2.4f), a15 = SET1(2.5f);                                                    \
    const V x = SET1(0.999999f), y = SET1(1e-7f);                                            \
    for (long i = 0; i < iterations; ++i) {                                                  \
      a0 = FMA(a0, x, y); a1 = FMA(a1, x, y); a2 = FMA(a2, x, y); a3 = FMA(a3, x, y);         \
      a4 = FMA(a4, x, y); a5 = FMA(a5, x, y); a6 = FMA(a6, x, y); a7 = FMA(a7, x, y);         \
      a8 = FMA(a8, x, y); a9 = FMA(a9, x, y); a10 = FMA(a10, x, y); a11 = FMA(a11, x, y);     \
      a12 = FMA(a12, x, y); a13 = FMA(a13, x, y); a14 = FMA(a14, x, y);                      \
      a15 = FMA(a15, x, y);                                                                  \
    }                                                                                        \
    V s = ADD(ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7))),            \
              ADD(ADD(ADD(a8, a9), ADD(a10, a11)), ADD(ADD(a12, a13), ADD(a14, a15))));       \
    return FIRST(s);                                                                         \
  }

#if defined(__ARM_NEON)
inline float32x4_t neon_fma(float32x4_t a, float32x4_t x, float32x4_t y) {
  return vfmaq_f32(y, a, x); // y + a * x
}
inline float neon_first(float32x4_t v) { return vgetq_lane_f32(v, 0); }
#endif

} // namespace detail

// Each width this build has, best of `trials`; with `widest_only`, only
// the widest (FmaPeak::best()).
inline FmaPeak measure_fma_peak(int trials = 5, bool widest_only = false) {
  FmaPeak p;
#if defined(__AVX512F__)
  p.zmm = detail::best_gflops(TRACT_BENCH_FMA_ROUND(__m512, _mm512_set1_ps, _mm512_fmadd_ps,
                                                    _mm512_add_ps, _mm512_cvtss_f32),
                              16, trials);
  if (widest_only)
    return p;
#endif
#if defined(__FMA__) && defined(__AVX__)
  p.ymm = detail::best_gflops(TRACT_BENCH_FMA_ROUND(__m256, _mm256_set1_ps, _mm256_fmadd_ps,
                                                    _mm256_add_ps, _mm256_cvtss_f32),
                              8, trials);
  if (widest_only)
    return p;
#endif
#if defined(__ARM_NEON) && (defined(__aarch64__) || defined(__ARM_FEATURE_FMA))
  p.xmm = detail::best_gflops(TRACT_BENCH_FMA_ROUND(float32x4_t, vdupq_n_f32, detail::neon_fma,
                                                    vaddq_f32, detail::neon_first),
                              4, trials);
#endif
  return p;
}

// The widest width's peak again, in a few hundredths of a second: measured
// right before and after a timed figure, so that the figure is a fraction
// of the speed the core had while it ran. (On a VM whose speed drifts by
// up to 30% between spells, a peak measured once at the start put the same
// GEMM at 75% or 91% depending on the spell the shape fell in.)
inline double measure_peak_now() { return measure_fma_peak(3, true).best(); }

// The CPU's model name and its SIMD flags, from /proc/cpuinfo (Linux), on
// one line: which kind of machine a figure comes from.
inline void print_cpu() {
  std::FILE *f = std::fopen("/proc/cpuinfo", "r");
  char line[8192], model[256] = "unknown", flags[8192] = "";
  while (f && std::fgets(line, sizeof line, f)) {
    const char *colon = std::strchr(line, ':');
    if (!colon)
      continue;
    line[std::strcspn(line, "\n")] = 0;
    if (!std::strncmp(line, "model name", 10) && !std::strcmp(model, "unknown"))
      std::snprintf(model, sizeof model, "%s", colon + 2);
    if ((!std::strncmp(line, "flags", 5) || !std::strncmp(line, "Features", 8)) && !flags[0])
      std::snprintf(flags, sizeof flags, "%s", colon + 2);
  }
  if (f)
    std::fclose(f);
  std::printf("CPU: %s\nSIMD flags:", model);
  // The flags that decide kernels and peaks (avx512_vp2intersect: Zen 5 /
  // Tiger Lake; amx: Sapphire Rapids and later).
  const char *wanted[] = {"avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16",
                          "avx512_fp16", "avx512_vp2intersect", "amx_tile", "asimd",
                          "asimddp", "neon", "vfpv4"};
  for (const char *w : wanted) {
    size_t n = std::strlen(w);
    for (const char *p = flags; (p = std::strstr(p, w)) != nullptr; p += n)
      if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) {
        std::printf(" %s", w);
        break;
      }
  }
  std::printf("\n");
}

// One line: the peak at each width this build has.
inline void print_fma_peak(const FmaPeak &p) {
  std::printf("FMA peak per core (fp32, measured):");
  if (p.zmm > 0)
    std::printf(" zmm %.1f GFLOP/s", p.zmm);
  if (p.ymm > 0)
    std::printf(" ymm %.1f GFLOP/s", p.ymm);
  if (p.xmm > 0)
    std::printf(" neon %.1f GFLOP/s", p.xmm);
  if (p.best() <= 0)
    std::printf(" (no FMA vector unit in this build: scalar kernels)");
  std::printf("\n");
}

} // namespace bench
