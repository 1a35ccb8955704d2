// tract runtime: ONNX GridSample (opset 16: 4-D input, 2-D grid).
//
// y[n, c, i, j] samples x[n, c] at the normalised point grid[n, i, j] =
// (gx, gy) in [-1, 1] (gx along the width). The arithmetic follows PyTorch's
// grid_sampler_2d, which the ONNX operator and its test data come from:
//  - unnormalise: align_corners ? (g + 1) / 2 * (size - 1)
//                               : ((g + 1) * size - 1) / 2
//  - Bilinear / Nearest: the point is padded first (Border clips it into
//    [0, size - 1]; Reflection reflects it about the borders - the pixel
//    centres with align_corners, else the pixel edges - then clips), and
//    taps outside the input read 0. Nearest rounds half to even.
//  - Bicubic (A = -0.75, 4x4 taps around floor(point)): the point is not
//    padded; every tap is padded on its own (Border / Reflection) or reads 0
//    when outside (Zeros).
// Coordinates that are NaN, infinite or beyond the int range become -100
// (outside the input) before any conversion to an integer, like PyTorch's
// safe_downgrade_to_int_range, so nothing is read out of bounds. An input
// with a zero-sized spatial dim gives zeros. Computed in T for float/double
// (in double, truncated back, for other element types).
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

enum class GridSampleMode { Bilinear, Nearest, Bicubic };
enum class GridSamplePadding { Zeros, Border, Reflection };

struct GridSampleParams {
  int64_t n, c, in_h, in_w, out_h, out_w;
  GridSampleMode mode;
  GridSamplePadding padding;
  bool align_corners;
};

namespace detail {

template <class T>
using gs_acc_t = typename std::conditional<std::is_floating_point<T>::value, T,
                                           double>::type;

template <class T, class A> inline T gs_from_acc(A v) {
  if constexpr (std::is_floating_point<T>::value)
    return static_cast<T>(v);
  else
    return float_to_int<T>(static_cast<double>(v));
}

template <class A> inline A gs_unnormalize(A g, int64_t size, bool align) {
  const A s = static_cast<A>(size);
  return align ? (g + A(1)) / A(2) * (s - A(1))
               : ((g + A(1)) * s - A(1)) / A(2);
}

// min(size - 1, max(v, 0)) with std::min/std::max's NaN behaviour.
template <class A> inline A gs_clip(A v, int64_t size) {
  const A lo = v < A(0) ? A(0) : v;
  const A hi = static_cast<A>(size - 1);
  return lo < hi ? lo : hi;
}

// Reflects v into [twice_low / 2, twice_high / 2] (PyTorch's
// reflect_coordinates); the flip parity is taken in floating point.
template <class A>
inline A gs_reflect(A v, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high)
    return A(0);
  const A mn = static_cast<A>(twice_low) / A(2);
  const A span = static_cast<A>(twice_high - twice_low) / A(2);
  v = std::fabs(v - mn);
  const A extra = std::fmod(v, span);
  const A flips = std::floor(v / span);
  if (std::fmod(flips, A(2)) == A(0))
    return extra + mn;
  return span - extra + mn;
}

template <class A> inline A gs_safe(A v) {
  if (!(v > A(-2147483648.0) && v < A(2147483646.0)))
    return A(-100);
  return v;
}

template <class A>
inline A gs_pad(A v, int64_t size, GridSamplePadding pad, bool align) {
  if (pad == GridSamplePadding::Border) {
    v = gs_clip(v, size);
  } else if (pad == GridSamplePadding::Reflection) {
    v = align ? gs_reflect(v, int64_t(0), 2 * (size - 1))
              : gs_reflect(v, int64_t(-1), 2 * size - 1);
    v = gs_clip(v, size);
  }
  return gs_safe(v);
}

// Integer coordinate of an already safe (finite, int-ranged) value.
template <class A> inline int64_t gs_int(A v) {
  return static_cast<int64_t>(v);
}

template <class A> inline void gs_cubic_coeffs(A t, A *w) {
  const A a = A(-0.75);
  const auto c1 = [a](A x) {
    return ((a + A(2)) * x - (a + A(3))) * x * x + A(1);
  };
  const auto c2 = [a](A x) {
    return ((a * x - A(5) * a) * x + A(8) * a) * x - A(4) * a;
  };
  w[0] = c2(t + A(1));
  w[1] = c1(t);
  const A u = A(1) - t;
  w[2] = c1(u);
  w[3] = c2(u + A(1));
}

} // namespace detail

// The reference: every mode, padding and element type, one sample at a
// time (grid_sample.h takes float bilinear and nearest sampling in blocks).
template <class T>
void grid_sample_ref(const T *x /*[n,c,in_h,in_w]*/,
                 const T *grid /*[n,out_h,out_w,2]*/,
                 T *y /*[n,c,out_h,out_w]*/, const GridSampleParams &p) {
  using A = detail::gs_acc_t<T>;
  if (p.n <= 0 || p.c <= 0 || p.out_h <= 0 || p.out_w <= 0)
    return;
  const int64_t H = p.in_h, W = p.in_w;
  const int64_t out_plane = p.out_h * p.out_w;
  if (H <= 0 || W <= 0) {
    for (int64_t i = 0; i < p.n * p.c * out_plane; ++i)
      y[i] = T(0);
    return;
  }
  const int64_t in_plane = H * W;
  const bool al = p.align_corners;
  for (int64_t b = 0; b < p.n; ++b) {
    const T *gb = grid + b * out_plane * 2;
    const T *xb = x + b * p.c * in_plane;
    T *yb = y + b * p.c * out_plane;
    for (int64_t o = 0; o < out_plane; ++o) {
      const A gx = static_cast<A>(gb[2 * o]);
      const A gy = static_cast<A>(gb[2 * o + 1]);
      const A fx = detail::gs_unnormalize(gx, W, al);
      const A fy = detail::gs_unnormalize(gy, H, al);
      if (p.mode == GridSampleMode::Bicubic) {
        const A x0 = std::floor(fx), y0 = std::floor(fy);
        A wx[4], wy[4];
        detail::gs_cubic_coeffs(fx - x0, wx);
        detail::gs_cubic_coeffs(fy - y0, wy);
        int64_t ix[4], iy[4];
        bool vx[4], vy[4];
        for (int k = 0; k < 4; ++k) {
          const A tx = detail::gs_pad(x0 + A(k - 1), W, p.padding, al);
          const A ty = detail::gs_pad(y0 + A(k - 1), H, p.padding, al);
          ix[k] = detail::gs_int(tx);
          iy[k] = detail::gs_int(ty);
          vx[k] = ix[k] >= 0 && ix[k] < W;
          vy[k] = iy[k] >= 0 && iy[k] < H;
        }
        for (int64_t ch = 0; ch < p.c; ++ch) {
          const T *xp = xb + ch * in_plane;
          A acc = A(0);
          for (int r = 0; r < 4; ++r) {
            A row = A(0);
            for (int k = 0; k < 4; ++k) {
              const A v = (vx[k] && vy[r])
                              ? static_cast<A>(xp[iy[r] * W + ix[k]])
                              : A(0);
              row += v * wx[k];
            }
            acc += row * wy[r];
          }
          yb[ch * out_plane + o] = detail::gs_from_acc<T>(acc);
        }
        continue;
      }
      const A px = detail::gs_pad(fx, W, p.padding, al);
      const A py = detail::gs_pad(fy, H, p.padding, al);
      if (p.mode == GridSampleMode::Nearest) {
        const int64_t ix = detail::gs_int(std::nearbyint(px));
        const int64_t iy = detail::gs_int(std::nearbyint(py));
        const bool in = ix >= 0 && ix < W && iy >= 0 && iy < H;
        for (int64_t ch = 0; ch < p.c; ++ch)
          yb[ch * out_plane + o] = in ? xb[ch * in_plane + iy * W + ix] : T(0);
        continue;
      }
      // Bilinear.
      const A x0f = std::floor(px), y0f = std::floor(py);
      const int64_t x0 = detail::gs_int(x0f), y0 = detail::gs_int(y0f);
      const A x1f = x0f + A(1), y1f = y0f + A(1);
      const A w_nw = (x1f - px) * (y1f - py);
      const A w_ne = (px - x0f) * (y1f - py);
      const A w_sw = (x1f - px) * (py - y0f);
      const A w_se = (px - x0f) * (py - y0f);
      const bool x0in = x0 >= 0 && x0 < W, x1in = x0 + 1 >= 0 && x0 + 1 < W;
      const bool y0in = y0 >= 0 && y0 < H, y1in = y0 + 1 >= 0 && y0 + 1 < H;
      for (int64_t ch = 0; ch < p.c; ++ch) {
        const T *xp = xb + ch * in_plane;
        A acc = A(0);
        if (y0in && x0in)
          acc += static_cast<A>(xp[y0 * W + x0]) * w_nw;
        if (y0in && x1in)
          acc += static_cast<A>(xp[y0 * W + x0 + 1]) * w_ne;
        if (y1in && x0in)
          acc += static_cast<A>(xp[(y0 + 1) * W + x0]) * w_sw;
        if (y1in && x1in)
          acc += static_cast<A>(xp[(y0 + 1) * W + x0 + 1]) * w_se;
        yb[ch * out_plane + o] = detail::gs_from_acc<T>(acc);
      }
    }
  }
}

} // namespace rt
} // namespace tract
