// tract runtime: reference LayerNormalization, InstanceNormalization and LRN.
// Statistics take one pass in T: sums of d = x - x[0] and of d^2
// (common.h's lane_sums, vectorised). Shifting by a sample keeps E[d^2] - E[d]^2 from cancelling when
// the mean is large against the spread.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

namespace detail {

// y = (x - mean) / sqrt(var + eps) * scale + bias over n contiguous values.
// scale / bias are per element (stride 1) or a single value (stride 0).
template <class T>
inline void normalize_row(const T *x, T *y, int64_t n, const T *scale,
                          int64_t scale_stride, const T *bias,
                          int64_t bias_stride, float epsilon) {
  if (n <= 0)
    return;
  const T shift = x[0];
  T sum, squares;
  lane_sums(x, n, shift, &sum, &squares);
  const T mean_d = sum / static_cast<T>(n);
  T var = squares / static_cast<T>(n) - mean_d * mean_d;
  var = var < T(0) ? T(0) : var;
  const T mean = shift + mean_d;
  const T inv = T(1) / std::sqrt(var + static_cast<T>(epsilon));
  if (scale && bias && scale_stride == 1 && bias_stride == 1) {
    for (int64_t i = 0; i < n; ++i)
      y[i] = (x[i] - mean) * inv * scale[i] + bias[i];
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    const T s = scale ? scale[i * scale_stride] : T(1);
    const T b = bias ? bias[i * bias_stride] : T(0);
    y[i] = (x[i] - mean) * inv * s + b;
  }
}

} // namespace detail

// x [outer, norm_size]; scale / bias have norm_size elements; bias may be
// nullptr.
template <class T>
void layer_norm(const T *x, const T *scale, const detail::nodeduce_t<T> *bias,
                T *y, int64_t outer, int64_t norm_size, float epsilon) {
  for (int64_t o = 0; o < outer; ++o)
    detail::normalize_row(x + o * norm_size, y + o * norm_size, norm_size,
                          scale, 1, bias, 1, epsilon);
}

// x [n, c, spatial]; scale / bias have c elements (bias may be nullptr).
template <class T>
void instance_norm(const T *x, const detail::nodeduce_t<T> *scale,
                   const detail::nodeduce_t<T> *bias, T *y, int64_t n,
                   int64_t c, int64_t spatial, float epsilon) {
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      const int64_t off = (b * c + ch) * spatial;
      detail::normalize_row(x + off, y + off, spatial,
                            scale ? scale + ch : nullptr, 0,
                            bias ? bias + ch : nullptr, 0, epsilon);
    }
}

// ONNX LRN across channels of x [n, c, spatial]:
//   y = x / (bias + alpha / size * sum_{c' in window(c)} x[c']^2) ^ beta
// with window(c) = [c - floor((size-1)/2), c + ceil((size-1)/2)] clipped.
// y is used as scratch for the square sums, so x and y must not alias.
template <class T>
void lrn(const T *x, T *y, int64_t n, int64_t c, int64_t spatial, int64_t size,
         float alpha, float beta, float bias) {
  const int64_t before = (size - 1) / 2;
  const int64_t after = size - 1 - before;
  const T scale =
      size > 0 ? static_cast<T>(alpha) / static_cast<T>(size) : T(0);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      T *yr = y + (b * c + ch) * spatial;
      for (int64_t s = 0; s < spatial; ++s)
        yr[s] = T(0);
      const int64_t lo = detail::max_(int64_t(0), ch - before);
      const int64_t hi = detail::min_(c - 1, ch + after);
      for (int64_t cc = lo; cc <= hi; ++cc) {
        const T *xr = x + (b * c + cc) * spatial;
        for (int64_t s = 0; s < spatial; ++s)
          yr[s] += xr[s] * xr[s];
      }
      const T *xr = x + (b * c + ch) * spatial;
      for (int64_t s = 0; s < spatial; ++s)
        yr[s] = xr[s] /
                static_cast<T>(std::pow(static_cast<T>(bias) + scale * yr[s],
                                        static_cast<T>(beta)));
    }
  }
}

} // namespace rt
} // namespace tract
