// tract runtime: ONNX RoiAlign (opset 16), after the ONNX reference and
// onnxruntime (Caffe2's RoIAlign).
//
// rois[r] = (x1, y1, x2, y2) in input coordinates, scaled by spatial_scale
// and shifted by -0.5 with half_pixel; without half_pixel ("output_half_pixel")
// a malformed roi is forced to at least 1x1. Each of the out_h x out_w bins
// takes sampling_ratio (or ceil(roi_size / out_size) when <= 0) samples per
// dim; a sample outside [-1, size] contributes 0, others are clamped into the
// input and bilinearly interpolated. avg: sum / max(grid_h * grid_w, 1);
// max: the max over the samples of the largest of the four weighted taps
// (ONNX's definition; no division). A bin without samples is 0. A roi whose
// batch index is outside [0, n), or an input with a zero-sized spatial dim,
// gives zeros. Computed in T for float/double (in double otherwise).
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

namespace detail {

template <class A> struct RoiSample {
  int64_t pos[4];
  A w[4];
};

// One bilinear sample at (yy, xx) in an h x w plane (h, w >= 1).
template <class A>
inline RoiSample<A> roi_sample(A yy, A xx, int64_t h, int64_t w) {
  RoiSample<A> s{};
  if (!(yy >= A(-1) && yy <= static_cast<A>(h) && xx >= A(-1) &&
        xx <= static_cast<A>(w)))
    return s; // outside (or NaN): all weights 0, positions 0
  A y = yy <= A(0) ? A(0) : yy;
  A x = xx <= A(0) ? A(0) : xx;
  int64_t y_lo = static_cast<int64_t>(y), x_lo = static_cast<int64_t>(x);
  int64_t y_hi, x_hi;
  if (y_lo >= h - 1) {
    y_hi = y_lo = h - 1;
    y = static_cast<A>(y_lo);
  } else {
    y_hi = y_lo + 1;
  }
  if (x_lo >= w - 1) {
    x_hi = x_lo = w - 1;
    x = static_cast<A>(x_lo);
  } else {
    x_hi = x_lo + 1;
  }
  const A ly = y - static_cast<A>(y_lo), lx = x - static_cast<A>(x_lo);
  const A hy = A(1) - ly, hx = A(1) - lx;
  s.w[0] = hy * hx;
  s.w[1] = hy * lx;
  s.w[2] = ly * hx;
  s.w[3] = ly * lx;
  s.pos[0] = y_lo * w + x_lo;
  s.pos[1] = y_lo * w + x_hi;
  s.pos[2] = y_hi * w + x_lo;
  s.pos[3] = y_hi * w + x_hi;
  return s;
}

template <class A> inline int64_t roi_grid(int64_t ratio, A size, int64_t out) {
  if (ratio > 0)
    return ratio;
  const double g =
      std::ceil(static_cast<double>(size) / static_cast<double>(out));
  return g > 0.0 ? float_to_int<int64_t>(g) : 0; // NaN -> 0
}

template <class T, class A> inline T roi_from_acc(A v) {
  if constexpr (std::is_floating_point<T>::value)
    return static_cast<T>(v);
  else
    return float_to_int<T>(static_cast<double>(v));
}

// Where one roi samples: its batch image (valid = false: the roi's output
// is zeros), the first sample's corner, the bin sizes, the samples per bin
// on each axis and the average's divisor.
template <class A> struct RoiGeometry {
  bool valid;
  int64_t batch;
  A start_h, start_w, bin_h, bin_w;
  int64_t gh, gw, count;
  // Sample (iy, ix) of bin (ph, pw).
  A sample_y(int64_t ph, int64_t iy) const {
    return start_h + static_cast<A>(ph) * bin_h +
           (static_cast<A>(iy) + A(0.5)) * bin_h / static_cast<A>(gh);
  }
  A sample_x(int64_t pw, int64_t ix) const {
    return start_w + static_cast<A>(pw) * bin_w +
           (static_cast<A>(ix) + A(0.5)) * bin_w / static_cast<A>(gw);
  }
};

template <class A, class T, class TI>
inline RoiGeometry<A> roi_geometry(const T *roi, TI batch_index, int64_t n, int64_t h,
                                   int64_t w, int64_t out_h, int64_t out_w,
                                   int64_t sampling_ratio, float spatial_scale,
                                   bool half_pixel) {
  RoiGeometry<A> g{};
  if constexpr (std::is_floating_point<TI>::value)
    g.batch = float_to_int<int64_t>(static_cast<double>(batch_index));
  else
    g.batch = static_cast<int64_t>(batch_index);
  g.valid = g.batch >= 0 && g.batch < n && h > 0 && w > 0;
  if (!g.valid)
    return g;
  const A scale = static_cast<A>(spatial_scale);
  const A off = half_pixel ? A(0.5) : A(0);
  g.start_w = static_cast<A>(roi[0]) * scale - off;
  g.start_h = static_cast<A>(roi[1]) * scale - off;
  const A end_w = static_cast<A>(roi[2]) * scale - off;
  const A end_h = static_cast<A>(roi[3]) * scale - off;
  A roi_w = end_w - g.start_w, roi_h = end_h - g.start_h;
  if (!half_pixel) {
    roi_w = roi_w < A(1) ? A(1) : roi_w;
    roi_h = roi_h < A(1) ? A(1) : roi_h;
  }
  g.bin_h = roi_h / static_cast<A>(out_h);
  g.bin_w = roi_w / static_cast<A>(out_w);
  g.gh = roi_grid(sampling_ratio, roi_h, out_h);
  g.gw = roi_grid(sampling_ratio, roi_w, out_w);
  g.count = g.gh * g.gw > 1 ? g.gh * g.gw : 1;
  return g;
}

} // namespace detail

template <class T, class TI>
void roi_align(const T *x, const T *rois /*[num_rois,4]*/,
               const TI *batch_indices, T *y /*[num_rois,c,out_h,out_w]*/,
               int64_t n, int64_t c, int64_t h, int64_t w, int64_t num_rois,
               int64_t out_h, int64_t out_w, int64_t sampling_ratio,
               float spatial_scale, bool max_mode, bool half_pixel) {
  using A = typename std::conditional<std::is_floating_point<T>::value, T,
                                      double>::type;
  if (num_rois <= 0 || c <= 0 || out_h <= 0 || out_w <= 0)
    return;
  const int64_t out_plane = out_h * out_w;
  const int64_t in_plane = h * w;
  for (int64_t r = 0; r < num_rois; ++r) {
    T *yr = y + r * c * out_plane;
    const detail::RoiGeometry<A> g = detail::roi_geometry<A>(
        rois + 4 * r, batch_indices[r], n, h, w, out_h, out_w, sampling_ratio,
        spatial_scale, half_pixel);
    if (!g.valid) {
      for (int64_t i = 0; i < c * out_plane; ++i)
        yr[i] = T(0);
      continue;
    }
    const int64_t gh = g.gh, gw = g.gw, count = g.count;
    const T *xb = x + g.batch * c * in_plane;
    for (int64_t ph = 0; ph < out_h; ++ph) {
      for (int64_t pw = 0; pw < out_w; ++pw) {
        const int64_t o = ph * out_w + pw;
        bool first = true;
        for (int64_t iy = 0; iy < gh; ++iy) {
          const A yy = g.sample_y(ph, iy);
          for (int64_t ix = 0; ix < gw; ++ix) {
            const A xx = g.sample_x(pw, ix);
            const detail::RoiSample<A> s = detail::roi_sample(yy, xx, h, w);
            for (int64_t ch = 0; ch < c; ++ch) {
              const T *xp = xb + ch * in_plane;
              const A v0 = s.w[0] * static_cast<A>(xp[s.pos[0]]);
              const A v1 = s.w[1] * static_cast<A>(xp[s.pos[1]]);
              const A v2 = s.w[2] * static_cast<A>(xp[s.pos[2]]);
              const A v3 = s.w[3] * static_cast<A>(xp[s.pos[3]]);
              T &dst = yr[ch * out_plane + o];
              if (max_mode) {
                A m = v0 < v1 ? v1 : v0;
                m = m < v2 ? v2 : m;
                m = m < v3 ? v3 : m;
                if (!first) {
                  const A prev = static_cast<A>(dst);
                  m = prev < m ? m : prev;
                }
                dst = detail::roi_from_acc<T>(m);
              } else {
                const A sum = ((v0 + v1) + v2) + v3;
                dst = detail::roi_from_acc<T>(
                    first ? sum : static_cast<A>(dst) + sum);
              }
            }
            first = false;
          }
        }
        for (int64_t ch = 0; ch < c; ++ch) {
          T &dst = yr[ch * out_plane + o];
          if (first)
            dst = T(0);
          else if (!max_mode)
            dst = detail::roi_from_acc<T>(static_cast<A>(dst) /
                                          static_cast<A>(count));
        }
      }
    }
  }
}

} // namespace rt
} // namespace tract
