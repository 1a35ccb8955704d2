// tract runtime: the GEMM micro-kernels, one per instruction set.
//
// Every micro-kernel computes one MR x NR = 8 x 16 tile of C from an A panel
// (kb x MR floats, a[p*MR + i] = A(i, p)) and a B panel (kb rows of NR
// floats, b[p*ldb + j] = B(p, j): ldb = NR packed, or B's own row stride when
// it is read in place) and writes it to `tile` (row-major, 16 floats per
// row). The driver (gemm.h) adds the previous K blocks, the bias and the
// fused epilogue on that tile while it is in L1, then stores it to C; or,
// with one K block and an epilogue that is nothing or a clip, the AVX-512
// pair kernels add the bias, clip and store to C themselves (TileStore).
//
// Why one tile shape for all targets: the weights are packed into these
// panels at compile time, so the packed bytes must not depend on the ISA the
// user's compiler picks. 8 x 16 suits all of them:
//   AVX-512  8 accumulators of 16 lanes, B loaded once per p, A broadcast from
//            memory into the FMA (8 FMAs in flight cover a 4-cycle latency
//            at one 512-bit FMA per cycle, as on Zen 4);
//   AVX2+FMA two passes of 4 rows x 16 columns (8 accumulators, 2 B vectors);
//   NEON a64 two passes of 8 rows x 8 columns (16 accumulators, lane FMAs);
//   NEON a32 four passes of 4 rows x 8 columns (8 of the 16 q registers);
//   scalar   plain loops the compiler may vectorise.
// The path is chosen by the compiler's own target macros.
#pragma once

#include <cstdint>
#include <cstring>

#include "tract/rt/common.h"

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

namespace tract {
namespace rt {
namespace gemm {

constexpr int64_t MR = 8;
constexpr int64_t NR = 16;

// Floats ahead the kernels that stream the weights (one panel of B: a
// layer on a map of 16 pixels or fewer, a fully connected layer) prefetch
// them: 8 KB. On a Sapphire Rapids class Xeon, 2048 x 1024 weights against
// 4 and 16 columns streamed from DRAM at 10-11 GB/s 1 KB ahead, 12.5-13.9
// and 10.5-11.2 8 KB ahead (ResNeXt-50's 1x1 convs on its 2 x 2 map).
// Kernels that stream several panels at once (the narrow pair and quad
// kernels) divide it among them: 8 KB ahead in all, as one stream. With
// each of the quad kernel's four panels 8 KB ahead (32 KB of lines asked
// for, of a 48 KB L1) the Zen 5 VM streamed 1024 -> 2048 channels on a
// 2 x 2 map from DRAM at 26-27 GB/s; 2 KB ahead per panel, 31-33
// (bench/run-gemm.sh --only streamed).
constexpr int64_t kStreamAhead = 2048;

// How a pair kernel stores its accumulators: rows `ldt` floats apart (NR: a
// tile buffer; C's row stride: straight into C), each plus what is there
// when `accumulate` (the partial sums of earlier K blocks), plus bias[row]
// (or not: null), then clipped to [lo, hi] (ClipEpilogue's max then min,
// bit for bit) when `clip`. The sums are those of the tile buffer's path.
struct TileStore {
  int64_t ldt = NR;
  const float *bias = nullptr;
  bool accumulate = false;
  bool clip = false;
  float lo = 0.0f, hi = 0.0f;
};

#if defined(__AVX512F__)
constexpr const char *kMicroKernelIsa = "avx512";

// GCC 12's avx512fintrin.h starts max and min from _mm512_undefined_ps(),
// which -Wmaybe-uninitialized flags once inlined (as in clip_in_place.h).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// Row i of a pair kernel's accumulators, through `st`, to `to0` / `to1`.
inline void store_tile_row(const TileStore &st, int i, __m512 v0, __m512 v1, float *to0,
                           float *to1) {
  if (st.accumulate) {
    v0 = _mm512_add_ps(v0, _mm512_loadu_ps(to0 + i * st.ldt));
    v1 = _mm512_add_ps(v1, _mm512_loadu_ps(to1 + i * st.ldt));
  }
  if (st.bias) {
    const __m512 b = _mm512_set1_ps(st.bias[i]);
    v0 = _mm512_add_ps(v0, b);
    v1 = _mm512_add_ps(v1, b);
  }
  if (st.clip) {
    const __m512 lo = _mm512_set1_ps(st.lo), hi = _mm512_set1_ps(st.hi);
    v0 = _mm512_min_ps(hi, _mm512_max_ps(lo, v0));
    v1 = _mm512_min_ps(hi, _mm512_max_ps(lo, v1));
  }
  _mm512_storeu_ps(to0 + i * st.ldt, v0);
  _mm512_storeu_ps(to1 + i * st.ldt, v1);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

inline void micro_kernel(int64_t kb, const float *a, const float *b,
                         float *tile, int64_t ldb = NR) {
  __m512 c0 = _mm512_setzero_ps(), c1 = _mm512_setzero_ps();
  __m512 c2 = _mm512_setzero_ps(), c3 = _mm512_setzero_ps();
  __m512 c4 = _mm512_setzero_ps(), c5 = _mm512_setzero_ps();
  __m512 c6 = _mm512_setzero_ps(), c7 = _mm512_setzero_ps();
  for (int64_t p = 0; p < kb; ++p, a += MR, b += ldb) {
    const __m512 bv = _mm512_loadu_ps(b);
    // One panel of B (a small map): A, the weights, streams through once,
    // from L3 or DRAM: ask for it 8 KB ahead (kStreamAhead).
    _mm_prefetch(reinterpret_cast<const char *>(a + kStreamAhead), _MM_HINT_T0);
    c0 = _mm512_fmadd_ps(_mm512_set1_ps(a[0]), bv, c0);
    c1 = _mm512_fmadd_ps(_mm512_set1_ps(a[1]), bv, c1);
    c2 = _mm512_fmadd_ps(_mm512_set1_ps(a[2]), bv, c2);
    c3 = _mm512_fmadd_ps(_mm512_set1_ps(a[3]), bv, c3);
    c4 = _mm512_fmadd_ps(_mm512_set1_ps(a[4]), bv, c4);
    c5 = _mm512_fmadd_ps(_mm512_set1_ps(a[5]), bv, c5);
    c6 = _mm512_fmadd_ps(_mm512_set1_ps(a[6]), bv, c6);
    c7 = _mm512_fmadd_ps(_mm512_set1_ps(a[7]), bv, c7);
  }
  _mm512_storeu_ps(tile + 0 * NR, c0);
  _mm512_storeu_ps(tile + 1 * NR, c1);
  _mm512_storeu_ps(tile + 2 * NR, c2);
  _mm512_storeu_ps(tile + 3 * NR, c3);
  _mm512_storeu_ps(tile + 4 * NR, c4);
  _mm512_storeu_ps(tile + 5 * NR, c5);
  _mm512_storeu_ps(tile + 6 * NR, c6);
  _mm512_storeu_ps(tile + 7 * NR, c7);
}

// Two adjacent tiles (B panels at b and b + bstride) at once: 16
// accumulators share each A broadcast, B is read 32 columns at a time (two
// whole cache lines per row when it is read in place), and the loop's
// overhead is paid over twice the FMAs. Measured on Zen 4 (bench/gemm,
// m x k x n in place): 96x16x12544 523 -> 445 us, 320x960x49 334 -> 290,
// 160x960x49 169 -> 145.
constexpr bool kHasPairKernel = true;
inline void micro_kernel_pair(int64_t kb, const float *a, const float *b, int64_t bstride,
                              float *tile0, float *tile1, int64_t ldb = NR,
                              const TileStore &st = TileStore{}) {
  __m512 c[MR][2];
  TRACT_UNROLL(8)
  for (int i = 0; i < MR; ++i)
    c[i][0] = c[i][1] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kb; ++p, a += MR, b += ldb) {
    const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + bstride);
    // B streams from L2 (the A sliver stays in L1): ask for it 8 rows
    // ahead (square GEMMs 63 -> 69% of the FMA peak on a Sapphire Rapids
    // class Xeon, whose hardware prefetch kept up on Zen 4 without).
    _mm_prefetch(reinterpret_cast<const char *>(b + 8 * ldb), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char *>(b + bstride + 8 * ldb), _MM_HINT_T0);
    TRACT_UNROLL(8)
    for (int i = 0; i < MR; ++i) {
      const __m512 av = _mm512_set1_ps(a[i]);
      c[i][0] = _mm512_fmadd_ps(av, b0, c[i][0]);
      c[i][1] = _mm512_fmadd_ps(av, b1, c[i][1]);
    }
  }
  TRACT_UNROLL(8)
  for (int i = 0; i < MR; ++i)
    store_tile_row(st, i, c[i][0], c[i][1], tile0, tile1);
}

// Twelve rows by two B panels (24 accumulators): rows kFirstRow..7 of the
// A panel at a0, then the first rows of the next panel at a1, so three row
// panels make two tall tiles (kFirstRow 0, then 4). Each B vector feeds 12
// FMAs instead of 8: B streams from L2 a third less per FMA, and a tile's B
// pair is still in L1 for the second tile of the three panels. Measured on
// a Sapphire Rapids class Xeon (bench/gemm's blocks, 96 x 256 x 512 from
// L2): 222 -> 237 GFLOP/s, of a 246 peak; B of 1024 columns 190 -> 228.
constexpr bool kHasTallKernel = true;
constexpr int64_t kTallRows = 12;
//
// `next` (or null): the first of three A panels (`next_stride` apart) that
// the next tiles will read, fetched into L2 during this one. Weights packed
// at compile time are read panel after panel, each for the first time by
// its first tile: with few columns (a Winograd block's 32 tiles, a 7x7
// map), most tiles are first ones and waited on DRAM.
template <int kFirstRow>
inline void micro_kernel_tall_pair(int64_t kb, const float *a0, const float *a1, const float *b,
                                   int64_t bstride, float *tile0, float *tile1,
                                   int64_t ldb = NR, const float *next = nullptr,
                                   int64_t next_stride = 0,
                                   const TileStore &st = TileStore{}) {
  constexpr int kRows0 = MR - kFirstRow, kRows1 = kTallRows - kRows0;
  static_assert(kRows1 > 0 && kRows1 <= MR, "a tall tile spans two row panels");
  __m512 c[kTallRows][2];
  TRACT_UNROLL(12)
  for (int i = 0; i < kTallRows; ++i)
    c[i][0] = c[i][1] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kb; ++p, a0 += MR, a1 += MR, b += ldb) {
    const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + bstride);
    _mm_prefetch(reinterpret_cast<const char *>(b + 8 * ldb), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char *>(b + bstride + 8 * ldb), _MM_HINT_T0);
    if (next && (p & 1) == 0) // a cache line holds two K steps of a panel
      for (int q = 0; q < 3; ++q)
        _mm_prefetch(reinterpret_cast<const char *>(next + q * next_stride + p * MR),
                     _MM_HINT_T1);
    TRACT_UNROLL(8)
    for (int i = 0; i < kRows0; ++i) {
      const __m512 av = _mm512_set1_ps(a0[kFirstRow + i]);
      c[i][0] = _mm512_fmadd_ps(av, b0, c[i][0]);
      c[i][1] = _mm512_fmadd_ps(av, b1, c[i][1]);
    }
    TRACT_UNROLL(8)
    for (int i = 0; i < kRows1; ++i) {
      const __m512 av = _mm512_set1_ps(a1[i]);
      c[kRows0 + i][0] = _mm512_fmadd_ps(av, b0, c[kRows0 + i][0]);
      c[kRows0 + i][1] = _mm512_fmadd_ps(av, b1, c[kRows0 + i][1]);
    }
  }
  TRACT_UNROLL(12)
  for (int i = 0; i < kTallRows; ++i)
    store_tile_row(st, i, c[i][0], c[i][1], tile0, tile1);
}

#elif defined(__AVX2__) && defined(__FMA__)
constexpr const char *kMicroKernelIsa = "avx2";

// Rows r0..r0+3 of the tile.
inline void micro_kernel_4x16(int64_t kb, const float *a, const float *b,
                              float *tile, int64_t ldb) {
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  for (int64_t p = 0; p < kb; ++p, a += MR, b += ldb) {
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
    __m256 av = _mm256_broadcast_ss(a + 0);
    c00 = _mm256_fmadd_ps(av, b0, c00);
    c01 = _mm256_fmadd_ps(av, b1, c01);
    av = _mm256_broadcast_ss(a + 1);
    c10 = _mm256_fmadd_ps(av, b0, c10);
    c11 = _mm256_fmadd_ps(av, b1, c11);
    av = _mm256_broadcast_ss(a + 2);
    c20 = _mm256_fmadd_ps(av, b0, c20);
    c21 = _mm256_fmadd_ps(av, b1, c21);
    av = _mm256_broadcast_ss(a + 3);
    c30 = _mm256_fmadd_ps(av, b0, c30);
    c31 = _mm256_fmadd_ps(av, b1, c31);
  }
  _mm256_storeu_ps(tile + 0 * NR, c00);
  _mm256_storeu_ps(tile + 0 * NR + 8, c01);
  _mm256_storeu_ps(tile + 1 * NR, c10);
  _mm256_storeu_ps(tile + 1 * NR + 8, c11);
  _mm256_storeu_ps(tile + 2 * NR, c20);
  _mm256_storeu_ps(tile + 2 * NR + 8, c21);
  _mm256_storeu_ps(tile + 3 * NR, c30);
  _mm256_storeu_ps(tile + 3 * NR + 8, c31);
}

inline void micro_kernel(int64_t kb, const float *a, const float *b,
                         float *tile, int64_t ldb = NR) {
  micro_kernel_4x16(kb, a, b, tile, ldb);
  micro_kernel_4x16(kb, a + 4, b, tile + 4 * NR, ldb);
}

#elif defined(__ARM_NEON) && defined(__aarch64__)
constexpr const char *kMicroKernelIsa = "neon-a64";

// Columns j0..j0+7 of all 8 rows.
inline void micro_kernel_8x8(int64_t kb, const float *a, const float *b,
                             float *tile, int64_t ldb) {
  float32x4_t c[8][2];
  TRACT_UNROLL(8)
  for (int i = 0; i < 8; ++i)
    c[i][0] = c[i][1] = vdupq_n_f32(0.0f);
  for (int64_t p = 0; p < kb; ++p, a += MR, b += ldb) {
    const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4);
    const float32x4_t a0 = vld1q_f32(a), a1 = vld1q_f32(a + 4);
    c[0][0] = vfmaq_laneq_f32(c[0][0], b0, a0, 0);
    c[0][1] = vfmaq_laneq_f32(c[0][1], b1, a0, 0);
    c[1][0] = vfmaq_laneq_f32(c[1][0], b0, a0, 1);
    c[1][1] = vfmaq_laneq_f32(c[1][1], b1, a0, 1);
    c[2][0] = vfmaq_laneq_f32(c[2][0], b0, a0, 2);
    c[2][1] = vfmaq_laneq_f32(c[2][1], b1, a0, 2);
    c[3][0] = vfmaq_laneq_f32(c[3][0], b0, a0, 3);
    c[3][1] = vfmaq_laneq_f32(c[3][1], b1, a0, 3);
    c[4][0] = vfmaq_laneq_f32(c[4][0], b0, a1, 0);
    c[4][1] = vfmaq_laneq_f32(c[4][1], b1, a1, 0);
    c[5][0] = vfmaq_laneq_f32(c[5][0], b0, a1, 1);
    c[5][1] = vfmaq_laneq_f32(c[5][1], b1, a1, 1);
    c[6][0] = vfmaq_laneq_f32(c[6][0], b0, a1, 2);
    c[6][1] = vfmaq_laneq_f32(c[6][1], b1, a1, 2);
    c[7][0] = vfmaq_laneq_f32(c[7][0], b0, a1, 3);
    c[7][1] = vfmaq_laneq_f32(c[7][1], b1, a1, 3);
  }
  TRACT_UNROLL(8)
  for (int i = 0; i < 8; ++i) {
    vst1q_f32(tile + i * NR, c[i][0]);
    vst1q_f32(tile + i * NR + 4, c[i][1]);
  }
}

inline void micro_kernel(int64_t kb, const float *a, const float *b,
                         float *tile, int64_t ldb = NR) {
  micro_kernel_8x8(kb, a, b, tile, ldb);
  micro_kernel_8x8(kb, a, b + 8, tile + 8, ldb);
}

#elif defined(__ARM_NEON)
constexpr const char *kMicroKernelIsa = "neon-a32";

// armv7 has no by-lane fused multiply-add: broadcast, then vfma (vfpv4) or
// vmla.
inline float32x4_t fma_bcast(float32x4_t c, float32x4_t b, float a) {
#if defined(__ARM_FEATURE_FMA)
  return vfmaq_f32(c, b, vdupq_n_f32(a));
#else
  return vmlaq_n_f32(c, b, a);
#endif
}

// Rows i0..i0+3, columns j0..j0+7.
inline void micro_kernel_4x8(int64_t kb, const float *a, const float *b,
                             float *tile, int64_t ldb) {
  float32x4_t c00 = vdupq_n_f32(0.0f), c01 = c00, c10 = c00, c11 = c00;
  float32x4_t c20 = c00, c21 = c00, c30 = c00, c31 = c00;
  for (int64_t p = 0; p < kb; ++p, a += MR, b += ldb) {
    const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4);
    c00 = fma_bcast(c00, b0, a[0]);
    c01 = fma_bcast(c01, b1, a[0]);
    c10 = fma_bcast(c10, b0, a[1]);
    c11 = fma_bcast(c11, b1, a[1]);
    c20 = fma_bcast(c20, b0, a[2]);
    c21 = fma_bcast(c21, b1, a[2]);
    c30 = fma_bcast(c30, b0, a[3]);
    c31 = fma_bcast(c31, b1, a[3]);
  }
  vst1q_f32(tile + 0 * NR, c00);
  vst1q_f32(tile + 0 * NR + 4, c01);
  vst1q_f32(tile + 1 * NR, c10);
  vst1q_f32(tile + 1 * NR + 4, c11);
  vst1q_f32(tile + 2 * NR, c20);
  vst1q_f32(tile + 2 * NR + 4, c21);
  vst1q_f32(tile + 3 * NR, c30);
  vst1q_f32(tile + 3 * NR + 4, c31);
}

inline void micro_kernel(int64_t kb, const float *a, const float *b,
                         float *tile, int64_t ldb = NR) {
  for (int64_t i0 = 0; i0 < MR; i0 += 4)
    for (int64_t j0 = 0; j0 < NR; j0 += 8)
      micro_kernel_4x8(kb, a + i0, b + j0, tile + i0 * NR + j0, ldb);
}

#else
constexpr const char *kMicroKernelIsa = "scalar";

inline void micro_kernel(int64_t kb, const float *a, const float *b,
                         float *tile, int64_t ldb = NR) {
  float c[MR][NR] = {};
  for (int64_t p = 0; p < kb; ++p, a += MR, b += ldb)
    for (int64_t i = 0; i < MR; ++i)
      for (int64_t j = 0; j < NR; ++j)
        c[i][j] += a[i] * b[j];
  for (int64_t i = 0; i < MR; ++i)
    for (int64_t j = 0; j < NR; ++j)
      tile[i * NR + j] = c[i][j];
}
#endif

#if !defined(__AVX512F__)
// Elsewhere the registers hold one tile's accumulators: two calls.
constexpr bool kHasPairKernel = false;
// (The driver passes a TileStore only where kHasPairKernel.)
inline void micro_kernel_pair(int64_t kb, const float *a, const float *b, int64_t bstride,
                              float *tile0, float *tile1, int64_t ldb = NR,
                              const TileStore & = TileStore{}) {
  micro_kernel(kb, a, b, tile0, ldb);
  micro_kernel(kb, a, b + bstride, tile1, ldb);
}

// Elsewhere no register file holds 12 x 32 accumulators: declared for the
// driver's discarded `if constexpr` branch, never defined.
constexpr bool kHasTallKernel = false;
constexpr int64_t kTallRows = 12;
template <int kFirstRow>
void micro_kernel_tall_pair(int64_t kb, const float *a0, const float *a1, const float *b,
                            int64_t bstride, float *tile0, float *tile1, int64_t ldb = NR,
                            const float *next = nullptr, int64_t next_stride = 0,
                            const TileStore &st = TileStore{});
#endif

// Rows 0..R-1 of the tile only, for a matrix with fewer rows than a panel
// (an input vector: a fully connected layer at batch 1), where the 8-row
// kernel would spend 8/R of its multiply-adds on zero rows. Four partial
// sums over p hide the FMA latency; plain loops the compiler vectorises over
// the 16 columns on every target.
// (kStep: floats between A's K steps, MR in a packed panel, a single row's
// own column stride when it is read in place; 0: the run-time `step`.)
template <int R, int64_t kStep = MR>
inline void micro_kernel_rows(int64_t kb, const float *a, const float *b, float *tile,
                              int64_t ldb = NR, int64_t step = MR) {
  const int64_t a_step = kStep ? kStep : step;
#if defined(__GNUC__) && (defined(__SSE2__) || defined(__ARM_NEON))
  // Vectors written out (the target's own width, NR / W of them per row):
  // with A contiguous (a row read in place) the vectoriser would run along p
  // and gather B (4x slower).
#if defined(__AVX512F__)
  constexpr int W = 16;
#elif defined(__AVX__)
  constexpr int W = 8;
#else
  constexpr int W = 4;
#endif
  constexpr int NV = NR / W;
  typedef float vec __attribute__((vector_size(W * sizeof(float))));
  vec acc[4][R][NV] = {};
  // A packed B (a fully connected layer's weights against one input row)
  // streams through once: ask for it kStreamAhead floats ahead (2048 x
  // 1000 weights from DRAM: 13.1 -> 15.5 GB/s). Not B read in place: the
  // address ahead would be further along the same row.
  const bool stream_b = ldb == NR;
  int64_t p = 0;
  for (; p + 4 <= kb; p += 4) {
    TRACT_UNROLL(4)
    for (int u = 0; u < 4; ++u) {
      if (stream_b)
        __builtin_prefetch(b + (p + u) * ldb + kStreamAhead);
      TRACT_UNROLL(4)
      for (int v = 0; v < NV; ++v) {
        vec bv;
        std::memcpy(&bv, b + (p + u) * ldb + v * W, sizeof bv);
        TRACT_UNROLL(8)
        for (int i = 0; i < R; ++i)
          acc[u][i][v] += a[(p + u) * a_step + i] * bv;
      }
    }
  }
  for (; p < kb; ++p) {
    TRACT_UNROLL(4)
    for (int v = 0; v < NV; ++v) {
      vec bv;
      std::memcpy(&bv, b + p * ldb + v * W, sizeof bv);
      TRACT_UNROLL(8)
      for (int i = 0; i < R; ++i)
        acc[0][i][v] += a[p * a_step + i] * bv;
    }
  }
  TRACT_UNROLL(8)
  for (int i = 0; i < R; ++i) {
    TRACT_UNROLL(4)
    for (int v = 0; v < NV; ++v) {
      const vec sum = (acc[0][i][v] + acc[1][i][v]) + (acc[2][i][v] + acc[3][i][v]);
      std::memcpy(tile + i * NR + v * W, &sum, sizeof sum);
    }
  }
#else
  float acc[4][R][NR] = {};
  int64_t p = 0;
  for (; p + 4 <= kb; p += 4)
    for (int u = 0; u < 4; ++u)
      for (int i = 0; i < R; ++i)
        for (int64_t j = 0; j < NR; ++j)
          acc[u][i][j] += a[(p + u) * a_step + i] * b[(p + u) * ldb + j];
  for (; p < kb; ++p)
    for (int i = 0; i < R; ++i)
      for (int64_t j = 0; j < NR; ++j)
        acc[0][i][j] += a[p * a_step + i] * b[p * ldb + j];
  for (int i = 0; i < R; ++i)
    for (int64_t j = 0; j < NR; ++j)
      tile[i * NR + j] = (acc[0][i][j] + acc[1][i][j]) + (acc[2][i][j] + acc[3][i][j]);
#endif
}

// Columns 0..cols-1 of the tile only, for the last panel of a matrix whose
// width is not a multiple of 16 (a 7x7 feature map has 49 pixels: the
// 16-column kernel would spend 15/16 of the last panel on zero columns).
// The 8 rows are the vector (the A panel's 8 floats per p are contiguous),
// each column one accumulator fed a broadcast of B: cols multiply-adds of 8
// lanes per p instead of 8 of 16.
constexpr int64_t kMaxNarrowCols = 8;
static_assert(NR <= 2 * kMaxNarrowCols, "a partial panel is at most two narrow tiles");

// Plain loops, any width: scalar targets (a Cortex-M), where one function
// is as fast as one instance per width and a fraction of the code.
inline void micro_kernel_cols_loop(int64_t cols, int64_t kb, const float *a, const float *b,
                                   float *tile, int64_t ldb) {
  float acc[kMaxNarrowCols][MR] = {};
  for (int64_t p = 0; p < kb; ++p, a += MR, b += ldb)
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t i = 0; i < MR; ++i)
        acc[j][i] += a[i] * b[j];
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < MR; ++i)
      tile[i * NR + j] = acc[j][i];
}

#if defined(__GNUC__) && (defined(__AVX__) || defined(__ARM_NEON) || defined(__SSE2__))
// One instance per width where there are vector registers: C accumulators
// of 8 lanes (GCC/clang vector extensions), times U partial sums over
// interleaved K steps. C accumulators alone are C chains of kb dependent
// FMAs: one column took 4 cycles per K step (the FMA latency), as long as a
// whole 16-column tile (1280 x 49 x 320, MobileNetV2's last 1x1 conv: the
// 49th column cost 100 us of 310). U * C >= 8 keeps two FMA pipes of
// 4-cycle latency busy.
template <int C>
inline void micro_kernel_cols(int64_t kb, const float *a, const float *b, float *tile,
                              int64_t ldb) {
  typedef float v8 __attribute__((vector_size(32)));
  constexpr int U = C >= 8 ? 1 : (8 + C - 1) / C;
  v8 acc[U][C] = {};
  int64_t p = 0;
  for (; p + U <= kb; p += U, a += U * MR, b += U * ldb) {
    TRACT_UNROLL(8)
    for (int u = 0; u < U; ++u) {
      // A narrow B (a few pixels) makes this kernel a stream through A,
      // the weights, often from DRAM: ask for them kStreamAhead floats
      // ahead (a cache line every two K steps).
      if (u % 2 == 0)
        __builtin_prefetch(a + u * MR + kStreamAhead);
      v8 av;
      std::memcpy(&av, a + u * MR, sizeof av);
      TRACT_UNROLL(8)
      for (int j = 0; j < C; ++j)
        acc[u][j] += av * b[u * ldb + j];
    }
  }
  for (; p < kb; ++p, a += MR, b += ldb) {
    v8 av;
    std::memcpy(&av, a, sizeof av);
    TRACT_UNROLL(8)
    for (int j = 0; j < C; ++j)
      acc[0][j] += av * b[j];
  }
  TRACT_UNROLL(8)
  for (int j = 0; j < C; ++j) {
    v8 sum = acc[0][j];
    TRACT_UNROLL(8)
    for (int u = 1; u < U; ++u)
      sum += acc[u][j];
    for (int64_t i = 0; i < MR; ++i)
      tile[i * NR + j] = sum[i];
  }
}

inline void micro_kernel_narrow(int64_t cols, int64_t kb, const float *a, const float *b,
                                float *tile, int64_t ldb = NR) {
  switch (cols) {
  case 1: micro_kernel_cols<1>(kb, a, b, tile, ldb); break;
  case 2: micro_kernel_cols<2>(kb, a, b, tile, ldb); break;
  case 3: micro_kernel_cols<3>(kb, a, b, tile, ldb); break;
  case 4: micro_kernel_cols<4>(kb, a, b, tile, ldb); break;
  case 5: micro_kernel_cols<5>(kb, a, b, tile, ldb); break;
  case 6: micro_kernel_cols<6>(kb, a, b, tile, ldb); break;
  case 7: micro_kernel_cols<7>(kb, a, b, tile, ldb); break;
  default: micro_kernel_cols<8>(kb, a, b, tile, ldb); break;
  }
}
#else
inline void micro_kernel_narrow(int64_t cols, int64_t kb, const float *a, const float *b,
                                float *tile, int64_t ldb = NR) {
  micro_kernel_cols_loop(cols, kb, a, b, tile, ldb);
}
#endif

// Two row panels (16 rows) by a narrow B (up to 15 columns), with
// AVX-512: each K step's 8 + 8 weights of the two panels in one 512-bit
// register, so each broadcast of B feeds 16 rows and each FMA does 16
// lanes where the single-panel kernels do 8. Small maps (a classifier's
// 1x1 conv on a 3x3 map, 9 columns, which the single-panel kernels take as
// 8 + 1; a 3x3 conv on 2x2, 4 columns) run on these kernels alone.
#if defined(__AVX512F__) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12))
constexpr bool kHasNarrowPairKernel = true;
typedef float narrow_v16 __attribute__((vector_size(64)));

// One K step of two row panels (8 floats at lo, 8 at hi) as one 512-bit
// vector: two 256-bit loads joined by a vector insert. Not through memory:
// two halves stored and read back as one vector stall each K step on a
// failed store forward. Not by intrinsics: GCC 12's insert and shuffle warn
// of their own undefined operand at -O3.
inline __attribute__((always_inline)) narrow_v16 join_panels(const float *lo_at,
                                                             const float *hi_at) {
  typedef float v8 __attribute__((vector_size(32)));
  v8 lo, hi;
  std::memcpy(&lo, lo_at, sizeof lo);
  std::memcpy(&hi, hi_at, sizeof hi);
  return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

template <int C>
inline void micro_kernel_cols_pair(int64_t kb, const float *a0, const float *a1, const float *b,
                                   float *tile0, float *tile1, int64_t ldb) {
  typedef float v16 __attribute__((vector_size(64)));
  constexpr int U = C >= 8 ? 1 : (8 + C - 1) / C;
  v16 acc[U][C] = {};
  auto both = [&](int64_t off) { return join_panels(a0 + off, a1 + off); };
  int64_t p = 0;
  for (; p + U <= kb; p += U, a0 += U * MR, a1 += U * MR, b += U * ldb) {
    TRACT_UNROLL(8)
    for (int u = 0; u < U; ++u) {
      if (u % 2 == 0) { // both panels stream, half of kStreamAhead ahead each
        __builtin_prefetch(a0 + u * MR + kStreamAhead / 2);
        __builtin_prefetch(a1 + u * MR + kStreamAhead / 2);
      }
      const v16 av = both(u * MR);
      TRACT_UNROLL(8)
      for (int j = 0; j < C; ++j)
        acc[u][j] += av * b[u * ldb + j];
    }
  }
  for (; p < kb; ++p, a0 += MR, a1 += MR, b += ldb) {
    const v16 av = both(0);
    TRACT_UNROLL(8)
    for (int j = 0; j < C; ++j)
      acc[0][j] += av * b[j];
  }
  TRACT_UNROLL(8)
  for (int j = 0; j < C; ++j) {
    v16 sum = acc[0][j];
    TRACT_UNROLL(8)
    for (int u = 1; u < U; ++u)
      sum += acc[u][j];
    for (int64_t i = 0; i < MR; ++i) {
      tile0[i * NR + j] = sum[i];
      tile1[i * NR + j] = sum[MR + i];
    }
  }
}

inline void micro_kernel_narrow_pair(int64_t cols, int64_t kb, const float *a0, const float *a1,
                                     const float *b, float *tile0, float *tile1,
                                     int64_t ldb = NR) {
  // Up to 15 columns in one pass (15 accumulators of the 32 registers): as
  // two passes of 8 and the rest, the two panels' weights are read twice,
  // and with B read in place (a 3x3 map's 9 columns by 512 channels, 18 KB)
  // the 32 KB of two panels no longer stay in L1 between the passes.
  switch (cols) {
  case 1: micro_kernel_cols_pair<1>(kb, a0, a1, b, tile0, tile1, ldb); break;
  case 2: micro_kernel_cols_pair<2>(kb, a0, a1, b, tile0, tile1, ldb); break;
  case 3: micro_kernel_cols_pair<3>(kb, a0, a1, b, tile0, tile1, ldb); break;
  case 4: micro_kernel_cols_pair<4>(kb, a0, a1, b, tile0, tile1, ldb); break;
  case 5: micro_kernel_cols_pair<5>(kb, a0, a1, b, tile0, tile1, ldb); break;
  case 6: micro_kernel_cols_pair<6>(kb, a0, a1, b, tile0, tile1, ldb); break;
  case 7: micro_kernel_cols_pair<7>(kb, a0, a1, b, tile0, tile1, ldb); break;
  case 8: micro_kernel_cols_pair<8>(kb, a0, a1, b, tile0, tile1, ldb); break;
  case 9: micro_kernel_cols_pair<9>(kb, a0, a1, b, tile0, tile1, ldb); break;
  case 10: micro_kernel_cols_pair<10>(kb, a0, a1, b, tile0, tile1, ldb); break;
  case 11: micro_kernel_cols_pair<11>(kb, a0, a1, b, tile0, tile1, ldb); break;
  case 12: micro_kernel_cols_pair<12>(kb, a0, a1, b, tile0, tile1, ldb); break;
  case 13: micro_kernel_cols_pair<13>(kb, a0, a1, b, tile0, tile1, ldb); break;
  case 14: micro_kernel_cols_pair<14>(kb, a0, a1, b, tile0, tile1, ldb); break;
  default: micro_kernel_cols_pair<15>(kb, a0, a1, b, tile0, tile1, ldb); break;
  }
}

// Four row panels (32 rows) by a narrow B (up to kMaxQuadCols columns):
// each broadcast of B feeds two FMAs of 16 rows, where the pair kernel's
// feeds one. The pair kernel spends a load per FMA on B (a 512 -> 1000
// classifier on a 3x3 map: 9 broadcasts, 2 loads of A and 9 FMAs per K
// step, bound by the loads at 58% of the FMA peak); here 9 broadcasts and 4
// loads of A feed 18. Same U and the same FMA sequence per element as
// micro_kernel_cols_pair, so a row's sums do not depend on which kernel
// took it (the row panels a thread gets decide that).
constexpr bool kHasNarrowQuadKernel = true;
constexpr int64_t kMaxQuadCols = 12;
template <int C>
inline void micro_kernel_cols_quad(int64_t kb, const float *a0, int64_t astride, const float *b,
                                   float *const *tiles, int64_t ldb) {
  typedef float v16 __attribute__((vector_size(64)));
  constexpr int U = C >= 8 ? 1 : (8 + C - 1) / C;
  const float *a1 = a0 + astride, *a2 = a1 + astride, *a3 = a2 + astride;
  v16 acc[U][2][C] = {};
  int64_t p = 0;
  for (; p + U <= kb; p += U, a0 += U * MR, a1 += U * MR, a2 += U * MR, a3 += U * MR,
                      b += U * ldb) {
    TRACT_UNROLL(8)
    for (int u = 0; u < U; ++u) {
      if (u % 2 == 0) { // the four panels stream, a quarter of kStreamAhead ahead each
        __builtin_prefetch(a0 + u * MR + kStreamAhead / 4);
        __builtin_prefetch(a1 + u * MR + kStreamAhead / 4);
        __builtin_prefetch(a2 + u * MR + kStreamAhead / 4);
        __builtin_prefetch(a3 + u * MR + kStreamAhead / 4);
      }
      const v16 lo = join_panels(a0 + u * MR, a1 + u * MR),
                hi = join_panels(a2 + u * MR, a3 + u * MR);
      TRACT_UNROLL(16)
      for (int j = 0; j < C; ++j) {
        const float bj = b[u * ldb + j];
        acc[u][0][j] += lo * bj;
        acc[u][1][j] += hi * bj;
      }
    }
  }
  for (; p < kb; ++p, a0 += MR, a1 += MR, a2 += MR, a3 += MR, b += ldb) {
    const v16 lo = join_panels(a0, a1), hi = join_panels(a2, a3);
    TRACT_UNROLL(16)
    for (int j = 0; j < C; ++j) {
      acc[0][0][j] += lo * b[j];
      acc[0][1][j] += hi * b[j];
    }
  }
  TRACT_UNROLL(16)
  for (int j = 0; j < C; ++j)
    for (int h = 0; h < 2; ++h) {
      v16 sum = acc[0][h][j];
      TRACT_UNROLL(8)
      for (int u = 1; u < U; ++u)
        sum += acc[u][h][j];
      for (int64_t i = 0; i < MR; ++i) {
        tiles[2 * h][i * NR + j] = sum[i];
        tiles[2 * h + 1][i * NR + j] = sum[MR + i];
      }
    }
}

// tiles: the four panels' MR x NR tiles.
inline void micro_kernel_narrow_quad(int64_t cols, int64_t kb, const float *a0, int64_t astride,
                                     const float *b, float *const *tiles, int64_t ldb) {
  switch (cols) {
  case 1: micro_kernel_cols_quad<1>(kb, a0, astride, b, tiles, ldb); break;
  case 2: micro_kernel_cols_quad<2>(kb, a0, astride, b, tiles, ldb); break;
  case 3: micro_kernel_cols_quad<3>(kb, a0, astride, b, tiles, ldb); break;
  case 4: micro_kernel_cols_quad<4>(kb, a0, astride, b, tiles, ldb); break;
  case 5: micro_kernel_cols_quad<5>(kb, a0, astride, b, tiles, ldb); break;
  case 6: micro_kernel_cols_quad<6>(kb, a0, astride, b, tiles, ldb); break;
  case 7: micro_kernel_cols_quad<7>(kb, a0, astride, b, tiles, ldb); break;
  case 8: micro_kernel_cols_quad<8>(kb, a0, astride, b, tiles, ldb); break;
  case 9: micro_kernel_cols_quad<9>(kb, a0, astride, b, tiles, ldb); break;
  case 10: micro_kernel_cols_quad<10>(kb, a0, astride, b, tiles, ldb); break;
  case 11: micro_kernel_cols_quad<11>(kb, a0, astride, b, tiles, ldb); break;
  default: micro_kernel_cols_quad<12>(kb, a0, astride, b, tiles, ldb); break;
  }
}
#else
constexpr bool kHasNarrowPairKernel = false;
constexpr bool kHasNarrowQuadKernel = false;
constexpr int64_t kMaxQuadCols = 0;
inline void micro_kernel_narrow_quad(int64_t, int64_t, const float *, int64_t, const float *,
                                     float *const *, int64_t) {}
inline void micro_kernel_narrow_pair(int64_t cols, int64_t kb, const float *a0, const float *a1,
                                     const float *b, float *tile0, float *tile1,
                                     int64_t ldb = NR) {
  for (int64_t j = 0; j < cols; j += kMaxNarrowCols) {
    const int64_t w = cols - j < kMaxNarrowCols ? cols - j : kMaxNarrowCols;
    micro_kernel_narrow(w, kb, a0, b + j, tile0 + j, ldb);
    micro_kernel_narrow(w, kb, a1, b + j, tile1 + j, ldb);
  }
}
#endif

} // namespace gemm
} // namespace rt
} // namespace tract
