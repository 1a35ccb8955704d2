// tract runtime: ONNX DFT (opset 17).
//
// x viewed as [outer, n, inner, in_components] (1: real, 2: complex as
// [re, im]), transformed along n after zero padding or truncation to
// dft_length L: y[o, k, i] = sum_{j < min(n, L)} x[o, j, i] e^{-+2 pi i jk/L}
// (+ and a division by L when inverse). y is [outer, bins, inner, 2] with
// bins = onesided ? L/2 + 1 : L: onesided keeps the first bins of the full
// transform (for complex input and for the inverse too). Accumulates in
// double; twiddles are cos/sin of 2 pi m / L with m = jk mod L, from a stack
// table when L <= kDftTwiddleTable. x and y must not overlap.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

namespace detail {

constexpr int64_t kDftTwiddleTable = 512;

// e^{-2 pi i m / len} for m in [0, len), table-backed for small len.
struct DftTwiddles {
  double re[kDftTwiddleTable], im[kDftTwiddleTable];
  int64_t len;
  explicit DftTwiddles(int64_t l) : re(), im(), len(l) {
    if (len <= kDftTwiddleTable)
      for (int64_t m = 0; m < len; ++m)
        compute(m, &re[m], &im[m]);
  }
  void compute(int64_t m, double *c, double *s) const {
    const double a = 6.283185307179586476925286766559 * static_cast<double>(m) /
                     static_cast<double>(len);
    *c = std::cos(a);
    *s = -std::sin(a);
  }
  void get(int64_t m, double *c, double *s) const {
    if (len <= kDftTwiddleTable) {
      *c = re[m];
      *s = im[m];
    } else {
      compute(m, c, s);
    }
  }
};

// One transform: `get(j, &re, &im)` gives input sample j < count; writes
// bins outputs [re, im] at y + k * y_stride.
template <class T, class G>
inline void dft_line(const DftTwiddles &tw, G get, int64_t count, T *y,
                     int64_t bins, int64_t y_stride, bool inverse) {
  const int64_t len = tw.len;
  for (int64_t k = 0; k < bins; ++k) {
    double acc_re = 0.0, acc_im = 0.0;
    int64_t m = 0; // j * k mod len
    for (int64_t j = 0; j < count; ++j) {
      double xr, xi, c, s;
      get(j, &xr, &xi);
      tw.get(m, &c, &s);
      if (inverse)
        s = -s;
      acc_re += xr * c - xi * s;
      acc_im += xr * s + xi * c;
      m += k;
      if (m >= len)
        m -= len;
    }
    if (inverse) {
      acc_re /= static_cast<double>(len);
      acc_im /= static_cast<double>(len);
    }
    y[k * y_stride] = static_cast<T>(acc_re);
    y[k * y_stride + 1] = static_cast<T>(acc_im);
  }
}

} // namespace detail

template <class T>
void dft(const T *x, T *y, int64_t outer, int64_t n, int64_t inner,
         int64_t in_components, int64_t dft_length, bool inverse,
         bool onesided) {
  if (outer <= 0 || inner <= 0 || dft_length <= 0 || in_components <= 0)
    return;
  if (n < 0)
    n = 0;
  const int64_t bins = onesided ? dft_length / 2 + 1 : dft_length;
  const int64_t count = n < dft_length ? n : dft_length;
  const detail::DftTwiddles tw(dft_length);
  const int64_t x_stride = inner * in_components, y_stride = inner * 2;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T *xp = x + (o * n * inner + i) * in_components;
      auto get = [&](int64_t j, double *re, double *im) {
        const T *v = xp + j * x_stride;
        *re = static_cast<double>(v[0]);
        *im = in_components >= 2 ? static_cast<double>(v[1]) : 0.0;
      };
      detail::dft_line(tw, get, count, y + (o * bins * inner + i) * 2, bins,
                       y_stride, inverse);
    }
  }
}

} // namespace rt
} // namespace tract
