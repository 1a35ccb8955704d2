// tract runtime: reference Softmax / LogSoftmax / Hardmax along one axis of
// x viewed as [outer, axis_len, inner].
//
// For inner > 1 the axis is strided; the kernels then work on blocks of up
// to kBlock columns with per-column state on the stack, so every pass reads
// contiguous rows.
#pragma once

#include "tract/rt/common.h"
#include "tract/rt/elementwise/vmath.h"
#include "tract/rt/parallel.h"

#include <cstring>
#include <type_traits>

namespace tract {
namespace rt {

namespace detail {

constexpr int64_t kSoftmaxBlock = 64;

// Per column c of a block: m[c] = max_j x[j, c], s[c] = sum_j exp(x - m).
// If `store_exp`, y receives exp(x - m).
template <class T>
inline void softmax_stats(const T *x, T *y, int64_t axis_len, int64_t inner,
                          int64_t cols, T *m, T *s, bool store_exp) {
  for (int64_t c = 0; c < cols; ++c) {
    m[c] = lowest_or_neg_inf<T>();
    s[c] = T(0);
  }
  for (int64_t j = 0; j < axis_len; ++j)
    for (int64_t c = 0; c < cols; ++c) {
      const T v = x[j * inner + c];
      m[c] = (m[c] < v || is_nan(v)) ? v : m[c];
    }
  for (int64_t j = 0; j < axis_len; ++j)
    for (int64_t c = 0; c < cols; ++c) {
      const T e = vm::exp(x[j * inner + c] - m[c]);
      s[c] += e;
      if (store_exp)
        y[j * inner + c] = e;
    }
}

#if defined(__GNUC__) && (defined(__AVX__) || defined(__SSE2__) || defined(__ARM_NEON))
#define TRACT_RT_SOFTMAX_VECTORS 1
typedef float softmax_v16 __attribute__((vector_size(64)));

// The folds of softmax_fold_row, on references (a 64-byte vector passed by
// value changes the ABI without AVX-512: GCC warns).
struct SoftmaxMax { // as the scalar fold: a NaN in either wins
  static void fold(softmax_v16 &a, const softmax_v16 &b) { a = ((a < b) | (b != b)) ? b : a; }
};
struct SoftmaxSum {
  static void fold(softmax_v16 &a, const softmax_v16 &b) { a += b; }
};

// Folds x[0, body) (body a multiple of 16) by Op from `init` in four
// independent vectors (one would make each step wait on the last: a max
// step's compare, mask and select took 0.4 cycles an element on Zen 5),
// then the vectors' lanes in a tree of halves.
template <class Op> inline float softmax_fold_row(const float *x, int64_t body, float init) {
  softmax_v16 a0 = softmax_v16{} + init, a1 = a0, a2 = a0, a3 = a0, v;
  int64_t j = 0;
  for (; j + 64 <= body; j += 64) {
    std::memcpy(&v, x + j, sizeof v);
    Op::fold(a0, v);
    std::memcpy(&v, x + j + 16, sizeof v);
    Op::fold(a1, v);
    std::memcpy(&v, x + j + 32, sizeof v);
    Op::fold(a2, v);
    std::memcpy(&v, x + j + 48, sizeof v);
    Op::fold(a3, v);
  }
  for (; j < body; j += 16) {
    std::memcpy(&v, x + j, sizeof v);
    Op::fold(a0, v);
  }
  Op::fold(a0, a1);
  Op::fold(a2, a3);
  Op::fold(a0, a2);
  v = __builtin_shufflevector(a0, a0, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
  Op::fold(a0, v);
  v = __builtin_shufflevector(a0, a0, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11);
  Op::fold(a0, v);
  v = __builtin_shufflevector(a0, a0, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
  Op::fold(a0, v);
  v = __builtin_shufflevector(a0, a0, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
  Op::fold(a0, v);
  return a0[0];
}
#endif

// Softmax of one contiguous row (inner == 1, attention's case), in three
// passes over the row (it stays in L1): the max, exp(x - max) and its sum,
// the scaling. The max and the sum keep lanes of state so their loops
// vectorise (one running max or sum would be a serial chain); floats on
// vector units fold 4 x 16 lanes (softmax_fold_row), other types 16 lanes
// combined in order. (Keeping a max per lane and rescaling the lanes' sums
// afterwards saves the max pass but costs 16 scalar exps per row: most of
// a 128-wide attention row's time.)
template <class T> inline void softmax_row(const T *x, T *y, int64_t n) {
  constexpr int64_t L = 16;
  const int64_t body = n / L * L;
  T mx = lowest_or_neg_inf<T>();
#if defined(TRACT_RT_SOFTMAX_VECTORS)
  // (GCC leaves the max loop scalar, a branch per element, unless written
  // on vectors; a core without vector registers, a Cortex-M, keeps the
  // lane loops.)
  constexpr bool kVectors = std::is_same<T, float>::value;
#else
  constexpr bool kVectors = false;
#endif
  T lane[L];
  if constexpr (kVectors) {
#if defined(TRACT_RT_SOFTMAX_VECTORS)
    mx = softmax_fold_row<SoftmaxMax>(x, body, mx);
#endif
  } else {
    for (int64_t l = 0; l < L; ++l)
      lane[l] = lowest_or_neg_inf<T>();
    for (int64_t j = 0; j < body; j += L)
      for (int64_t l = 0; l < L; ++l) {
        const T v = x[j + l];
        lane[l] = (lane[l] < v || is_nan(v)) ? v : lane[l];
      }
    for (int64_t l = 0; l < L; ++l)
      mx = (mx < lane[l] || is_nan(lane[l])) ? lane[l] : mx;
  }
  for (int64_t j = body; j < n; ++j)
    mx = (mx < x[j] || is_nan(x[j])) ? x[j] : mx;
  // A row of only -inf (all masked) gives NaN, as exp(-inf - -inf) does.
  // x - max <= 0: exp_normal, with 0 below -kExpNormal (a masked -inf gives
  // exactly 0; a weight under e^-87.3 = 1.2e-38 is nothing next to the
  // max's 1), is all it needs and cheaper than exp's whole range.
  if constexpr (std::is_same<T, float>::value)
    for (int64_t j = 0; j < n; ++j) {
      const float d = x[j] - mx;
      y[j] = d < -vm::kExpNormal ? 0.0f : vm::exp_normal(d);
    }
  else
    for (int64_t j = 0; j < n; ++j)
      y[j] = vm::exp(x[j] - mx);
  T sum = T(0);
  if constexpr (kVectors) {
#if defined(TRACT_RT_SOFTMAX_VECTORS)
    sum = softmax_fold_row<SoftmaxSum>(y, body, 0.0f);
#endif
  } else {
    for (int64_t l = 0; l < L; ++l)
      lane[l] = T(0);
    for (int64_t j = 0; j < body; j += L)
      for (int64_t l = 0; l < L; ++l)
        lane[l] += y[j + l];
    for (int64_t l = 0; l < L; ++l)
      sum += lane[l];
  }
  for (int64_t j = body; j < n; ++j)
    sum += y[j];
  const T inv = T(1) / sum;
  for (int64_t j = 0; j < n; ++j)
    y[j] *= inv;
}

// softmax over outer slices [o0, o1).
template <class T>
void softmax_slices(const T *x, T *y, int64_t o0, int64_t o1, int64_t axis_len, int64_t inner) {
  if (inner == 1) {
    for (int64_t o = o0; o < o1; ++o)
      softmax_row(x + o * axis_len, y + o * axis_len, axis_len);
    return;
  }
  T m[kSoftmaxBlock], s[kSoftmaxBlock];
  for (int64_t o = o0; o < o1; ++o) {
    for (int64_t c0 = 0; c0 < inner; c0 += kSoftmaxBlock) {
      const int64_t cols = min_(kSoftmaxBlock, inner - c0);
      const T *xb = x + o * axis_len * inner + c0;
      T *yb = y + o * axis_len * inner + c0;
      softmax_stats(xb, yb, axis_len, inner, cols, m, s, true);
      for (int64_t c = 0; c < cols; ++c)
        s[c] = T(1) / s[c];
      for (int64_t j = 0; j < axis_len; ++j)
        for (int64_t c = 0; c < cols; ++c)
          yb[j * inner + c] *= s[c];
    }
  }
}

} // namespace detail

// The outer slices are split over par.threads tasks (an attention's 512
// rows of 128: about 8 multiply-adds' worth per element, the exp).
template <class T>
void softmax(const T *x, T *y, int64_t outer, int64_t axis_len, int64_t inner,
             const Parallel &par = Parallel{}) {
  const int64_t work = 8 * outer * axis_len * inner;
  const int64_t tasks =
      par.parallel_for && work >= kMinParallelWork ? detail::min_(par.threads, outer) : 1;
  run_tasks(par, tasks, [&](int64_t t) {
    const int64_t o0 = outer * t / tasks, o1 = outer * (t + 1) / tasks;
    detail::softmax_slices(x, y, o0, o1, axis_len, inner);
  });
}

template <class T>
void log_softmax(const T *x, T *y, int64_t outer, int64_t axis_len,
                 int64_t inner) {
  T m[detail::kSoftmaxBlock], s[detail::kSoftmaxBlock];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c0 = 0; c0 < inner; c0 += detail::kSoftmaxBlock) {
      const int64_t cols = detail::min_(detail::kSoftmaxBlock, inner - c0);
      const T *xb = x + o * axis_len * inner + c0;
      T *yb = y + o * axis_len * inner + c0;
      detail::softmax_stats(xb, yb, axis_len, inner, cols, m, s, false);
      for (int64_t c = 0; c < cols; ++c)
        s[c] = std::log(s[c]);
      // (x - m) - log(s): x - m is exact near the max, m + log(s) would not be.
      for (int64_t j = 0; j < axis_len; ++j)
        for (int64_t c = 0; c < cols; ++c)
          yb[j * inner + c] = (xb[j * inner + c] - m[c]) - s[c];
    }
  }
}

// 1 at the first maximum along the axis, 0 elsewhere.
template <class T>
void hardmax(const T *x, T *y, int64_t outer, int64_t axis_len, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T *xp = x + o * axis_len * inner + i;
      T *yp = y + o * axis_len * inner + i;
      int64_t best = 0;
      for (int64_t j = 1; j < axis_len; ++j)
        if (xp[best * inner] < xp[j * inner])
          best = j;
      for (int64_t j = 0; j < axis_len; ++j)
        yp[j * inner] = T(0);
      if (axis_len > 0)
        yp[best * inner] = T(1);
    }
  }
}

} // namespace rt
} // namespace tract
