// tract runtime: reference Softmax / LogSoftmax / Hardmax along one axis of
// x viewed as [outer, axis_len, inner].
//
// For inner > 1 the axis is strided; the kernels then work on blocks of up
// to kBlock columns with per-column state on the stack, so every pass reads
// contiguous rows.
#pragma once

#include "tract/rt/common.h"
#include "tract/rt/elementwise/vmath.h"

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

// Softmax of one contiguous row (inner == 1, attention's case). A single
// running max and sum would be serial chains, so the row is read as
// [n / 16, 16]: softmax_stats keeps one max and sum per lane (its column
// loop vectorises; the lane count is opaque so it stays a loop), then the
// lanes are combined and each lane's exps rescaled to the common max.
template <class T> inline void softmax_row(const T *x, T *y, int64_t n) {
  constexpr int64_t L = 16;
  const int64_t body = n / L * L;
  T m[L], s[L], scale[L];
  T mx = lowest_or_neg_inf<T>(), sum = T(0);
  if (body > 0) {
    const int64_t lanes = opaque(L);
    softmax_stats(x, y, body / L, L, lanes, m, s, true);
    for (int64_t l = 0; l < L; ++l)
      mx = (mx < m[l] || is_nan(m[l])) ? m[l] : mx;
  }
  for (int64_t j = body; j < n; ++j)
    mx = (mx < x[j] || is_nan(x[j])) ? x[j] : mx;
  // A lane of only -inf (a masked stretch) has NaN sums and exps, and
  // weight 0 (exp(-inf - mx)): it contributes nothing and writes zeros.
  if (body > 0)
    for (int64_t l = 0; l < L; ++l) {
      scale[l] = m[l] == mx ? T(1) : vm::exp(m[l] - mx);
      sum += scale[l] == T(0) ? T(0) : s[l] * scale[l];
    }
  for (int64_t j = body; j < n; ++j) {
    y[j] = vm::exp(x[j] - mx);
    sum += y[j];
  }
  const T inv = T(1) / sum;
  if (body > 0) {
    for (int64_t l = 0; l < L; ++l)
      scale[l] *= inv;
    const int64_t lanes = opaque(L);
    for (int64_t j = 0; j < body; j += L)
      for (int64_t l = 0; l < lanes; ++l)
        y[j + l] = scale[l] == T(0) ? T(0) : y[j + l] * scale[l];
  }
  for (int64_t j = body; j < n; ++j)
    y[j] *= inv;
}

} // namespace detail

template <class T>
void softmax(const T *x, T *y, int64_t outer, int64_t axis_len, int64_t inner) {
  if (inner == 1) {
    for (int64_t o = 0; o < outer; ++o)
      detail::softmax_row(x + o * axis_len, y + o * axis_len, axis_len);
    return;
  }
  T m[detail::kSoftmaxBlock], s[detail::kSoftmaxBlock];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c0 = 0; c0 < inner; c0 += detail::kSoftmaxBlock) {
      const int64_t cols = detail::min_(detail::kSoftmaxBlock, inner - c0);
      const T *xb = x + o * axis_len * inner + c0;
      T *yb = y + o * axis_len * inner + c0;
      detail::softmax_stats(xb, yb, axis_len, inner, cols, m, s, true);
      for (int64_t c = 0; c < cols; ++c)
        s[c] = T(1) / s[c];
      for (int64_t j = 0; j < axis_len; ++j)
        for (int64_t c = 0; c < cols; ++c)
          yb[j * inner + c] *= s[c];
    }
  }
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
