// tract runtime: ONNX Det (determinant of the trailing n x n matrices).
//
// Partial-pivot LU in double on a stack copy (x is const and the runtime has
// no heap): up to kDetMaxN = 64 (a 32 KiB scratch; n <= 8 uses 512 bytes).
// Larger matrices give NaN (0 for a T without NaN). n == 0 gives 1.
#pragma once

#include <cmath>
#include <limits>

#include "tract/rt/common.h"

namespace tract {
namespace rt {

constexpr int64_t kDetMaxN = 64;

namespace detail {

template <class T> inline T det_store(double v) {
  if constexpr (std::is_floating_point<T>::value)
    return static_cast<T>(v);
  else
    return float_to_int<T>(v);
}

// Determinant of the n x n row-major matrix m (n * n <= N), destroyed.
template <int64_t N> inline double det_lu_inplace(double *a, int64_t n) {
  double d = 1.0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    double best = std::fabs(a[k * n + k]);
    for (int64_t i = k + 1; i < n; ++i) {
      const double v = std::fabs(a[i * n + k]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    const double piv = a[p * n + k];
    if (piv == 0.0)
      return 0.0;
    if (p != k) {
      for (int64_t j = 0; j < n; ++j) {
        const double t = a[k * n + j];
        a[k * n + j] = a[p * n + j];
        a[p * n + j] = t;
      }
      d = -d;
    }
    d *= piv;
    for (int64_t i = k + 1; i < n; ++i) {
      const double f = a[i * n + k] / piv;
      if (f == 0.0)
        continue;
      for (int64_t j = k + 1; j < n; ++j)
        a[i * n + j] -= f * a[k * n + j];
    }
  }
  return d;
}

template <int64_t N, class T>
inline void det_batch(const T *x, T *y, int64_t batch, int64_t n) {
  double a[N * N];
  for (int64_t b = 0; b < batch; ++b) {
    const T *xb = x + b * n * n;
    for (int64_t i = 0; i < n * n; ++i)
      a[i] = static_cast<double>(xb[i]);
    y[b] = det_store<T>(det_lu_inplace<N>(a, n));
  }
}

} // namespace detail

// x [batch, n, n] -> y [batch].
template <class T> void det(const T *x, T *y, int64_t batch, int64_t n) {
  if (batch <= 0 || n < 0)
    return;
  if (n == 0) {
    for (int64_t b = 0; b < batch; ++b)
      y[b] = T(1);
  } else if (n <= 8) {
    detail::det_batch<8>(x, y, batch, n);
  } else if (n <= kDetMaxN) {
    detail::det_batch<kDetMaxN>(x, y, batch, n);
  } else {
    for (int64_t b = 0; b < batch; ++b) {
      if constexpr (std::numeric_limits<T>::has_quiet_NaN)
        y[b] = std::numeric_limits<T>::quiet_NaN();
      else
        y[b] = T(0);
    }
  }
}

} // namespace rt
} // namespace tract
