// tract runtime: reference N-d convolution and transposed convolution
// (1 to 4 spatial dims, groups, strides, dilations, zero padding).
//
// Both kernels are "tap-major": for one (output channel, input channel,
// kernel tap) they sweep the whole valid output range, so the innermost loop
// is an axpy over contiguous memory (for stride 1) with no bounds checks; the
// bounds are solved per tap once.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

struct ConvParams {
  int spatial_rank;
  int64_t batch, in_channels, out_channels, groups;
  int64_t in_size[4], out_size[4], kernel[4], stride[4], dilation[4],
      pad_begin[4];
  // Floats from one channel's plane to the next in x and in y; 0: the
  // plane's size (dense NCHW). A larger stride pads each plane to whole
  // cache lines (tractc's padded planes: conv_gemm's pointwise and im2col
  // paths, conv_winograd, and the NCHW side of conv_pointwise_to_lanes /
  // _from_lanes honour it; every other kernel needs 0).
  int64_t in_plane_stride = 0, out_plane_stride = 0;
};

namespace detail {

// ConvParams with the spatial dims right-aligned into exactly 4 dims (leading
// dims are size 1 with unit stride/dilation and no padding).
struct Conv4 {
  int64_t in[4], out[4], ker[4], st[4], dil[4], pad[4];
  int64_t in_plane, out_plane, ker_vol;
  int64_t in_ps, out_ps; // the plane strides (ConvParams's, or the planes)
};

constexpr Conv4 conv4(const ConvParams &p) {
  Conv4 q{};
  const int r =
      p.spatial_rank < 0 ? 0 : (p.spatial_rank > 4 ? 4 : p.spatial_rank);
  const int lead = 4 - r;
  for (int d = 0; d < 4; ++d) {
    const bool real = d >= lead;
    const int s = d - lead;
    q.in[d] = real ? p.in_size[s] : 1;
    q.out[d] = real ? p.out_size[s] : 1;
    q.ker[d] = real ? p.kernel[s] : 1;
    q.st[d] = real && p.stride[s] > 0 ? p.stride[s] : 1;
    q.dil[d] = real && p.dilation[s] > 0 ? p.dilation[s] : 1;
    q.pad[d] = real ? p.pad_begin[s] : 0;
  }
  q.in_plane = q.in[0] * q.in[1] * q.in[2] * q.in[3];
  q.out_plane = q.out[0] * q.out[1] * q.out[2] * q.out[3];
  q.ker_vol = q.ker[0] * q.ker[1] * q.ker[2] * q.ker[3];
  q.in_ps = p.in_plane_stride > 0 ? p.in_plane_stride : q.in_plane;
  q.out_ps = p.out_plane_stride > 0 ? p.out_plane_stride : q.out_plane;
  return q;
}


// For every tap of the kernel with weight wv, calls
//   row(src_row_offset, dst_row_offset, len, wv)
// where the src rows advance by 1 and the dst rows by st[3] per element
// (`src` is the side that is walked contiguously). Used by both directions:
// conv walks outputs (src = y), conv_transpose walks inputs (src = x).
template <class T, class Row>
inline void for_each_tap(const Conv4 &q, const int64_t *src, const int64_t *dst,
                         const T *wp, Row &&row) {
  int64_t t = 0;
  for (int64_t k0 = 0; k0 < q.ker[0]; ++k0)
    for (int64_t k1 = 0; k1 < q.ker[1]; ++k1)
      for (int64_t k2 = 0; k2 < q.ker[2]; ++k2)
        for (int64_t k3 = 0; k3 < q.ker[3]; ++k3, ++t) {
          const int64_t k[4] = {k0, k1, k2, k3};
          int64_t lo[4], hi[4], off[4];
          bool empty = false;
          for (int d = 0; d < 4; ++d) {
            off[d] = k[d] * q.dil[d] - q.pad[d];
            tap_range(src[d], dst[d], q.st[d], off[d], &lo[d], &hi[d]);
            empty = empty || lo[d] >= hi[d];
          }
          if (empty)
            continue;
          const T wv = wp[t];
          for (int64_t s0 = lo[0]; s0 < hi[0]; ++s0) {
            const int64_t d0 = s0 * q.st[0] + off[0];
            for (int64_t s1 = lo[1]; s1 < hi[1]; ++s1) {
              const int64_t d1 = s1 * q.st[1] + off[1];
              for (int64_t s2 = lo[2]; s2 < hi[2]; ++s2) {
                const int64_t d2 = s2 * q.st[2] + off[2];
                const int64_t srow =
                    ((s0 * src[1] + s1) * src[2] + s2) * src[3];
                const int64_t drow =
                    ((d0 * dst[1] + d1) * dst[2] + d2) * dst[3];
                row(srow + lo[3], drow + lo[3] * q.st[3] + off[3],
                    hi[3] - lo[3], wv);
              }
            }
          }
        }
}

} // namespace detail

// x [N, C_in, in...], w [C_out, C_in/groups, k...], y [N, C_out, out...];
// reads outside x (padding) are 0. bias may be nullptr.
template <class T>
void conv(const T *x, const T *w, const detail::nodeduce_t<T> *bias, T *y,
          const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  const int64_t groups = p.groups > 0 ? p.groups : 1;
  const int64_t cin_g = p.in_channels / groups;
  const int64_t cout_g = p.out_channels / groups;
  if (cout_g <= 0)
    return;
  const int64_t *st = q.st;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t oc = 0; oc < p.out_channels; ++oc) {
      const int64_t g = oc / cout_g;
      T *yp = y + (n * p.out_channels + oc) * q.out_plane;
      const T b0 = bias ? bias[oc] : T(0);
      for (int64_t i = 0; i < q.out_plane; ++i)
        yp[i] = b0;
      for (int64_t icl = 0; icl < cin_g; ++icl) {
        const int64_t ic = g * cin_g + icl;
        const T *xp = x + (n * p.in_channels + ic) * q.in_plane;
        const T *wp = w + (oc * cin_g + icl) * q.ker_vol;
        // Walk outputs (src) contiguously; inputs (dst) are at o*st + off.
        detail::for_each_tap(
            q, q.out, q.in, wp, [&](int64_t yo, int64_t xo, int64_t len, T wv) {
              T *yr = yp + yo;
              const T *xr = xp + xo;
              if (st[3] == 1) {
                for (int64_t j = 0; j < len; ++j)
                  yr[j] = detail::madd(yr[j], wv, xr[j]);
              } else {
                for (int64_t j = 0; j < len; ++j)
                  yr[j] = detail::madd(yr[j], wv, xr[j * st[3]]);
              }
            });
      }
    }
  }
}

// x [N, C_in, in...], w [C_in, C_out/groups, k...], y [N, C_out, out...].
// y is zeroed (plus bias), then every x element is scattered to
// full = in * stride + k * dilation, stored at out = full - pad_begin when
// that is inside y (pad_begin crops the top-left).
template <class T>
void conv_transpose(const T *x, const T *w, const detail::nodeduce_t<T> *bias,
                    T *y, const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  const int64_t groups = p.groups > 0 ? p.groups : 1;
  const int64_t cin_g = p.in_channels / groups;
  const int64_t cout_g = p.out_channels / groups;
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t oc = 0; oc < p.out_channels; ++oc) {
      T *yp = y + (n * p.out_channels + oc) * q.out_plane;
      const T b0 = bias ? bias[oc] : T(0);
      for (int64_t i = 0; i < q.out_plane; ++i)
        yp[i] = b0;
    }
  if (cin_g <= 0 || cout_g <= 0)
    return;
  const int64_t *st = q.st;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t ic = 0; ic < p.in_channels; ++ic) {
      const int64_t g = ic / cin_g;
      const T *xp = x + (n * p.in_channels + ic) * q.in_plane;
      for (int64_t ocl = 0; ocl < cout_g; ++ocl) {
        const int64_t oc = g * cout_g + ocl;
        T *yp = y + (n * p.out_channels + oc) * q.out_plane;
        const T *wp = w + (ic * cout_g + ocl) * q.ker_vol;
        // Walk inputs (src) contiguously; outputs (dst) are at i*st + off.
        detail::for_each_tap(
            q, q.in, q.out, wp, [&](int64_t xo, int64_t yo, int64_t len, T wv) {
              const T *xr = xp + xo;
              T *yr = yp + yo;
              if (st[3] == 1) {
                for (int64_t j = 0; j < len; ++j)
                  yr[j] = detail::madd(yr[j], wv, xr[j]);
              } else {
                for (int64_t j = 0; j < len; ++j)
                  yr[j * st[3]] = detail::madd(yr[j * st[3]], wv, xr[j]);
              }
            });
      }
    }
  }
}

} // namespace rt
} // namespace tract
