// tract runtime: ONNX Resize (opset 11-18 semantics), every axis resized.
//
// Follows the ONNX reference implementation (onnx/backend/test/case/node/
// resize.py: interpolate_nd / interpolate_1d_with_x) numerically: coordinates
// and weights are computed in double, each output is the separable product
// sum_k c_k * (interpolation over the remaining axes) evaluated from the
// outermost axis inwards with the same summation order, and the result is
// converted to T at the end.
//
// Per axis of input length `in` and effective scale `s`:
//   output_width = s * in (the reference uses the scale, not the integer
//   output size, e.g. for align_corners with scales that do not divide).
//   half_pixel           x_ori = (x + 0.5) / s - 0.5
//   pytorch_half_pixel   x_ori = output_width == 1 ? -0.5 : half_pixel
//   align_corners        x_ori = output_width == 1 ? 0 : x * (in - 1) / (output_width - 1)
//   asymmetric           x_ori = x / s
//   tf_half_pixel_for_nn x_ori = (x + 0.5) / s
//   tf_crop_and_resize   x_ori = x * (roi_end - roi_start) * (in - 1) / (output_width - 1)
//                                + roi_start * (in - 1)   (roi_end - roi_start in float)
//                        (output_width == 1: (roi_end - roi_start) * (in - 1) / 2
//                                + roi_start * (in - 1)); outside [0, in - 1] the
//                        axis yields extrapolation_value.
// The taps are the 2 (nearest, linear) or 4 (cubic) nearest positions of
// x_ori (ties prefer the lower one; an integral x_ori uses ratio 1 with the
// taps x_ori-1, x_ori [linear] / x_ori-2..x_ori+1 [cubic]); positions outside
// [0, in) read the edge value (the reference's edge padding), and
// exclude_outside (linear, cubic) zeroes their weights and renormalises.
//
// Scales: ResizeParams::scales[i] is a float. When it equals float(out/in)
// the axis is treated as "sizes given" and computed with the exact double
// out/in (as the reference does for `sizes`); otherwise the float scale is
// used, widened to double (as the reference does for float32 `scales`). A
// float32 scale that happens to equal float(out/in) without being out/in
// (e.g. 0.6f with in = 5) is thus computed as 3/5 rather than as
// 0.6000000238: the two can differ where x_ori is (nearly) integral.
//
// Deviations (outside the reference's well-defined domain): nearest copies
// the selected element (the reference's 0 * neighbour turns a neighbouring
// inf/NaN into NaN); zero-weight taps are skipped likewise; exclude_outside
// is ignored for nearest and a zero weight sum is not renormalised. Integer
// T is rounded to nearest (ties to even) and saturated; bool is `!= 0`. An
// input with a zero-sized dim (and a non-empty output) gives T(0).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "tract/rt/common.h"

namespace tract {
namespace rt {

enum class ResizeMode { Nearest, Linear, Cubic };
enum class ResizeCoord {
  HalfPixel,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfCropAndResize,
  TfHalfPixelForNN
};
enum class ResizeNearest { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };

struct ResizeParams {
  int rank;
  int64_t in_shape[kMaxRank], out_shape[kMaxRank];
  // Effective scale of each axis (out/in when sizes were given); roi is only
  // used by TfCropAndResize (normalised start/end coordinates per axis).
  float scales[kMaxRank], roi_start[kMaxRank], roi_end[kMaxRank];
  ResizeMode mode;
  ResizeCoord coord;
  ResizeNearest nearest;
  float cubic_coeff_a;
  bool exclude_outside;
  float extrapolation_value;
};

namespace detail {

// Per-axis constants.
struct ResizeAxis {
  int64_t in, stride;
  double scale;  // s
  double owm1;   // output_width - 1
  bool ow_is_1;  // output_width == 1
  float roi_s, roi_e;
};

// Taps of one axis for the current output coordinate.
struct ResizeTaps {
  bool outside; // tf_crop_and_resize: yields extrapolation_value
  int n;        // number of non-zero taps
  int64_t off[4];
  double c[4];
};

inline void resize_axis_setup(const ResizeParams &p, int d, int64_t stride,
                              ResizeAxis *a) {
  const int64_t in = p.in_shape[d], out = p.out_shape[d];
  a->in = in;
  a->stride = stride;
  a->roi_s = p.roi_start[d];
  a->roi_e = p.roi_end[d];
  const double exact = static_cast<double>(out) / static_cast<double>(in);
  // sizes: the reference's scale_factors = out / in in float64; float32
  // scales: their value. output_width = scale * in in float64 either way.
  a->scale = static_cast<float>(exact) == p.scales[d]
                 ? exact
                 : static_cast<double>(p.scales[d]);
  const double ow = a->scale * static_cast<double>(in);
  a->ow_is_1 = ow == 1.0;
  a->owm1 = ow - 1.0;
}

// x_ori for output coordinate x; false when tf_crop_and_resize falls outside.
inline bool resize_source_coord(const ResizeParams &p, const ResizeAxis &a,
                                int64_t x, double *out) {
  const double xd = static_cast<double>(x);
  double xo = 0.0;
  switch (p.coord) {
  case ResizeCoord::HalfPixel:
    xo = (xd + 0.5) / a.scale - 0.5;
    break;
  case ResizeCoord::PytorchHalfPixel:
    xo = a.ow_is_1 ? -0.5 : (xd + 0.5) / a.scale - 0.5;
    break;
  case ResizeCoord::AlignCorners:
    xo = a.ow_is_1 ? 0.0 : static_cast<double>(x * (a.in - 1)) / a.owm1;
    break;
  case ResizeCoord::Asymmetric:
    xo = xd / a.scale;
    break;
  case ResizeCoord::TfHalfPixelForNN:
    xo = (xd + 0.5) / a.scale;
    break;
  case ResizeCoord::TfCropAndResize: {
    // roi_end - roi_start is a float32 difference in the reference; the
    // rest is float64.
    const double diff = static_cast<double>(a.roi_e - a.roi_s);
    const double in_m1 = static_cast<double>(a.in - 1);
    if (a.ow_is_1)
      xo = diff * in_m1 / 2.0;
    else
      xo = xd * diff * in_m1 / a.owm1;
    xo += static_cast<double>(a.roi_s) * in_m1;
    if (xo < 0.0 || xo > static_cast<double>(a.in - 1))
      return false;
    break;
  }
  }
  *out = xo;
  return true;
}

inline void resize_taps(const ResizeParams &p, const ResizeAxis &a, int64_t x,
                        ResizeTaps *t) {
  t->outside = false;
  t->n = 0;
  t->off[0] = 0;
  double xo = 0.0;
  if (!resize_source_coord(p, a, x, &xo)) {
    t->outside = true;
    return;
  }
  // Keep the integer conversion defined for absurd scales (inf, NaN).
  if (!(xo > -1e15 && xo < 1e15))
    xo = std::isnan(xo) ? 0.0 : (xo < 0.0 ? -1e15 : 1e15);
  const double fl = std::floor(xo);
  const bool integral = xo == fl;
  // ratio in (0, 1]: an integral x_ori is the right end of [x_ori-1, x_ori].
  const double ratio = integral ? 1.0 : xo - fl;
  const int64_t base = static_cast<int64_t>(fl) - (integral ? 1 : 0);
  const int64_t in = a.in;
  const int n = p.mode == ResizeMode::Cubic ? 4 : 2;
  const int64_t pad = n / 2;
  // The n nearest positions among the edge-padded range [-pad, in + pad).
  int64_t start = base - (n / 2 - 1);
  if (start > in + pad - n)
    start = in + pad - n;
  if (start < -pad)
    start = -pad;
  double c[4] = {0.0, 0.0, 0.0, 0.0};
  if (p.mode == ResizeMode::Nearest) {
    int sel = 1;
    if (!integral) {
      switch (p.nearest) {
      case ResizeNearest::RoundPreferFloor:
        sel = ratio <= 0.5 ? 0 : 1;
        break;
      case ResizeNearest::RoundPreferCeil:
        sel = ratio < 0.5 ? 0 : 1;
        break;
      case ResizeNearest::Floor:
        sel = 0;
        break;
      case ResizeNearest::Ceil:
        sel = 1;
        break;
      }
    }
    const int64_t i = detail::min_(in - 1, detail::max_(int64_t(0), start + sel));
    t->n = 1;
    t->off[0] = i * a.stride;
    t->c[0] = 1.0;
    return;
  }
  if (p.mode == ResizeMode::Linear) {
    c[0] = 1.0 - ratio;
    c[1] = ratio;
  } else {
    const double A = static_cast<double>(p.cubic_coeff_a);
    const double r1 = ratio + 1.0, q = 1.0 - ratio, q1 = q + 1.0;
    c[0] = ((A * r1 - 5.0 * A) * r1 + 8.0 * A) * r1 - 4.0 * A;
    c[1] = ((A + 2.0) * ratio - (A + 3.0)) * ratio * ratio + 1.0;
    c[2] = ((A + 2.0) * q - (A + 3.0)) * q * q + 1.0;
    c[3] = ((A * q1 - 5.0 * A) * q1 + 8.0 * A) * q1 - 4.0 * A;
  }
  if (p.exclude_outside) {
    double sum = 0.0;
    for (int k = 0; k < n; ++k) {
      const int64_t i = start + k;
      if (i < 0 || i >= in)
        c[k] = 0.0;
      sum += c[k];
    }
    if (sum != 0.0)
      for (int k = 0; k < n; ++k)
        c[k] /= sum;
  }
  for (int k = 0; k < n; ++k) {
    if (c[k] == 0.0)
      continue;
    const int64_t i = detail::min_(in - 1, detail::max_(int64_t(0), start + k));
    t->off[t->n] = i * a.stride;
    t->c[t->n] = c[k];
    ++t->n;
  }
}

template <class T>
inline double resize_interp(const T *x, const ResizeTaps *taps, int d,
                            int rank, int64_t off, double extrap) {
  if (d == rank)
    return static_cast<double>(x[off]);
  const ResizeTaps &t = taps[d];
  if (t.outside)
    return extrap;
  double acc = 0.0;
  for (int k = 0; k < t.n; ++k)
    acc += t.c[k] *
           resize_interp(x, taps, d + 1, rank, off + t.off[k], extrap);
  return acc;
}

template <class T> inline T resize_store(double v) {
  if constexpr (std::is_floating_point<T>::value)
    return static_cast<T>(v);
  else if constexpr (std::is_same<T, bool>::value)
    return v != 0.0;
  else
    return float_to_int<T>(std::nearbyint(v));
}

// Float resizes of the last two axes only (every leading axis kept as it
// is): segmentation and detection heads upsampling N x C maps. The taps of
// a chunk of up to kResizeCols output columns are computed once for all
// planes and rows, a row's taps once per row, and each output is a sum of
// NY x NX weighted inputs in float (the reference walk recomputed the
// column's taps in double for every output: a 4x bilinear upsampling of a
// 21-channel 16x16 map took 0.32 ms of DeepLabV3's 1.9). Results differ from
// the reference's double sums by float rounding. False (nothing written)
// for any other resize.
constexpr int64_t kResizeCols = 64;

template <int NY, int NX>
inline void resize_plane_rows(const float *x, float *y, const ResizeParams &p,
                              const ResizeAxis &ax_y, int64_t planes, int64_t c0,
                              int64_t cols, const int32_t (&xoff)[4][kResizeCols],
                              const float (&xw)[4][kResizeCols]) {
  const int rank = p.rank;
  const int64_t ih = p.in_shape[rank - 2], iw = p.in_shape[rank - 1];
  const int64_t oh = p.out_shape[rank - 2], ow = p.out_shape[rank - 1];
  for (int64_t oy = 0; oy < oh; ++oy) {
    ResizeTaps ty;
    resize_taps(p, ax_y, oy, &ty);
    for (int64_t pl = 0; pl < planes; ++pl) {
      const float *plane = x + pl * ih * iw;
      float *out = y + (pl * oh + oy) * ow + c0;
      if (NX == 1) { // nearest: a copy of the selected element
        const float *row = plane + ty.off[0];
        for (int64_t j = 0; j < cols; ++j)
          out[j] = row[xoff[0][j]];
        continue;
      }
      for (int64_t j = 0; j < cols; ++j)
        out[j] = 0.0f;
      // As the reference: taps of weight zero are skipped, not multiplied
      // (0 * inf would be NaN).
      for (int ky = 0; ky < ty.n && ky < NY; ++ky) {
        const float *row = plane + ty.off[ky];
        const float wy = static_cast<float>(ty.c[ky]);
        for (int64_t j = 0; j < cols; ++j) {
          float r = 0.0f;
          for (int kx = 0; kx < NX; ++kx)
            r += xw[kx][j] != 0.0f ? xw[kx][j] * row[xoff[kx][j]] : 0.0f;
          out[j] += wy * r;
        }
      }
    }
  }
}

} // namespace detail

// Whether a float resize takes resize_planes_floats (the compiler's report
// asks too, with the model's constant scales).
inline bool resize_planes_fit(const ResizeParams &p) {
  const int rank = p.rank;
  if (rank < 2 || rank > kMaxRank || p.coord == ResizeCoord::TfCropAndResize ||
      p.in_shape[rank - 1] > (int64_t(1) << 30))
    return false;
  int64_t xs[kMaxRank] = {};
  contiguous_strides(p.in_shape, rank, xs);
  for (int d = 0; d < rank - 2; ++d) {
    // A kept axis: each output coordinate reads its own input one, weight 1.
    if (p.in_shape[d] != p.out_shape[d])
      return false;
    detail::ResizeAxis a;
    detail::resize_axis_setup(p, d, xs[d], &a);
    for (int64_t i = 0; i < p.out_shape[d]; ++i) {
      detail::ResizeTaps t;
      detail::resize_taps(p, a, i, &t);
      if (t.n != 1 || t.c[0] != 1.0 || t.off[0] != i * xs[d])
        return false;
    }
  }
  return true;
}

namespace detail {

inline bool resize_planes_floats(const float *x, float *y, const ResizeParams &p) {
  if (!resize_planes_fit(p))
    return false;
  const int rank = p.rank;
  int64_t xs[kMaxRank] = {};
  contiguous_strides(p.in_shape, rank, xs);
  int64_t planes = 1;
  for (int d = 0; d < rank - 2; ++d)
    planes *= p.out_shape[d];
  ResizeAxis ax_y, ax_x;
  resize_axis_setup(p, rank - 2, xs[rank - 2], &ax_y);
  resize_axis_setup(p, rank - 1, 1, &ax_x);
  const int taps = p.mode == ResizeMode::Nearest ? 1 : p.mode == ResizeMode::Linear ? 2 : 4;
  const int64_t ow = p.out_shape[rank - 1];
  for (int64_t c0 = 0; c0 < ow; c0 += kResizeCols) {
    const int64_t cols = min_(kResizeCols, ow - c0);
    int32_t xoff[4][kResizeCols] = {};
    float xw[4][kResizeCols] = {};
    for (int64_t j = 0; j < cols; ++j) {
      ResizeTaps t;
      resize_taps(p, ax_x, c0 + j, &t);
      for (int k = 0; k < t.n; ++k) {
        xoff[k][j] = static_cast<int32_t>(t.off[k]);
        xw[k][j] = static_cast<float>(t.c[k]);
      }
    }
    if (taps == 1)
      resize_plane_rows<1, 1>(x, y, p, ax_y, planes, c0, cols, xoff, xw);
    else if (taps == 2)
      resize_plane_rows<2, 2>(x, y, p, ax_y, planes, c0, cols, xoff, xw);
    else
      resize_plane_rows<4, 4>(x, y, p, ax_y, planes, c0, cols, xoff, xw);
  }
  return true;
}

} // namespace detail

// y (p.out_shape) = x (p.in_shape) resized along every axis.
template <class T> void resize(const T *x, T *y, const ResizeParams &p) {
  const int rank = p.rank;
  if (rank < 0 || rank > kMaxRank)
    return;
  const int64_t ny = num_elements(p.out_shape, rank);
  if (ny <= 0)
    return;
  for (int d = 0; d < rank; ++d) {
    if (p.out_shape[d] < 0)
      return;
    if (p.in_shape[d] <= 0) {
      for (int64_t i = 0; i < ny; ++i)
        y[i] = T(0);
      return;
    }
  }
  if constexpr (std::is_same<T, float>::value)
    if (detail::resize_planes_floats(x, y, p))
      return;
  int64_t xs[kMaxRank] = {};
  contiguous_strides(p.in_shape, rank, xs);
  detail::ResizeAxis axes[kMaxRank];
  detail::ResizeTaps taps[kMaxRank];
  for (int d = 0; d < rank; ++d) {
    detail::resize_axis_setup(p, d, xs[d], &axes[d]);
    detail::resize_taps(p, axes[d], 0, &taps[d]);
  }
  const double extrap = static_cast<double>(p.extrapolation_value);
  const T extrap_t = detail::resize_store<T>(extrap);
  const bool nearest = p.mode == ResizeMode::Nearest;
  int64_t idx[kMaxRank] = {};
  for (int64_t pos = 0; pos < ny; ++pos) {
    if (nearest) {
      int64_t off = 0;
      bool outside = false;
      for (int d = 0; d < rank; ++d) {
        outside = outside || taps[d].outside;
        off += taps[d].off[0];
      }
      y[pos] = outside ? extrap_t : x[off];
    } else {
      y[pos] = detail::resize_store<T>(
          detail::resize_interp(x, taps, 0, rank, 0, extrap));
    }
    // Step the output index; only the axes that changed get new taps.
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < p.out_shape[d]) {
        detail::resize_taps(p, axes[d], idx[d], &taps[d]);
        break;
      }
      idx[d] = 0;
      detail::resize_taps(p, axes[d], 0, &taps[d]);
    }
  }
}

} // namespace rt
} // namespace tract
