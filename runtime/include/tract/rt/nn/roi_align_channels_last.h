// tract runtime: f32 RoiAlign on a channels-last copy of its input.
//
// The reference (roi_align_ref.h) computes each bilinear sample once and
// then reads its four taps from every channel plane: c planes apart, one
// float each, nothing to vectorise (Faster R-CNN's box head, 150 rois x 256
// channels x 7 x 7 bins x 4 samples on a 10 x 10 map, took 11 ms per level).
// Here the input is first transposed to [n, h*w, c] in scratch, so a tap
// is a contiguous run of channels: 64 channels of one bin accumulate in a
// vector-friendly row, 64 bins of them in a tile that is transposed into the
// [roi, c, out_h, out_w] output. Sample positions and weights, the order of
// every sum and the max comparisons are the reference's, so the results
// are the reference's bit for bit.
#pragma once

#include "tract/rt/data/transpose_ref.h"
#include "tract/rt/nn/roi_align_ref.h"

namespace tract {
namespace rt {

// Scratch floats roi_align_channels_last needs: the input, channels-last.
constexpr int64_t roi_align_scratch_floats(int64_t n, int64_t c, int64_t h, int64_t w) {
  return n * c * h * w;
}

namespace detail {

constexpr int64_t kRoiChannels = 64; // channels per accumulator row
constexpr int64_t kRoiBins = 64;     // bins per tile

// Bin (ph, pw) of a roi over channels [0, count) of a channels-last image
// at xs (pixel stride c), into acc[0, count); count is kCount when that is
// not 0 (a whole block: fixed trip counts vectorise).
template <int64_t kCount>
inline void roi_bin_channels(const float *xs, int64_t c, const RoiGeometry<float> &g,
                             int64_t ph, int64_t pw, int64_t h, int64_t w, bool max_mode,
                             float *acc, int64_t count_rt = 0) {
  const int64_t count = kCount ? kCount : count_rt;
  bool first = true;
  for (int64_t iy = 0; iy < g.gh; ++iy) {
    const float yy = g.sample_y(ph, iy);
    for (int64_t ix = 0; ix < g.gw; ++ix) {
      const RoiSample<float> s = roi_sample(yy, g.sample_x(pw, ix), h, w);
      const float *t0 = xs + s.pos[0] * c, *t1 = xs + s.pos[1] * c;
      const float *t2 = xs + s.pos[2] * c, *t3 = xs + s.pos[3] * c;
      // The reference's arithmetic, term for term.
      for (int64_t ch = 0; ch < count; ++ch) {
        const float v0 = s.w[0] * t0[ch];
        const float v1 = s.w[1] * t1[ch];
        const float v2 = s.w[2] * t2[ch];
        const float v3 = s.w[3] * t3[ch];
        if (max_mode) {
          float m = v0 < v1 ? v1 : v0;
          m = m < v2 ? v2 : m;
          m = m < v3 ? v3 : m;
          acc[ch] = first ? m : (acc[ch] < m ? m : acc[ch]);
        } else {
          const float sum = ((v0 + v1) + v2) + v3;
          acc[ch] = first ? sum : acc[ch] + sum;
        }
      }
      first = false;
    }
  }
  if (first) {
    for (int64_t ch = 0; ch < count; ++ch)
      acc[ch] = 0.0f;
  } else if (!max_mode) {
    const float divisor = static_cast<float>(g.count);
    for (int64_t ch = 0; ch < count; ++ch)
      acc[ch] = acc[ch] / divisor;
  }
}

} // namespace detail

// Same contract as roi_align<float> (roi_align_ref.h), with `scratch` of
// roi_align_scratch_floats(n, c, h, w) floats.
template <class TI>
void roi_align_channels_last(const float *x, const float *rois, const TI *batch_indices,
                             float *y, int64_t n, int64_t c, int64_t h, int64_t w,
                             int64_t num_rois, int64_t out_h, int64_t out_w,
                             int64_t sampling_ratio, float spatial_scale, bool max_mode,
                             bool half_pixel, float *scratch) {
  if (num_rois <= 0 || c <= 0 || out_h <= 0 || out_w <= 0)
    return;
  const int64_t out_plane = out_h * out_w, in_plane = h * w;
  if (in_plane > 0) {
    const int64_t shape[3] = {n, c, in_plane}, perm[3] = {0, 2, 1};
    transpose(x, scratch, shape, 3, perm);
  }
  alignas(64) float tile[detail::kRoiBins * detail::kRoiChannels];
  for (int64_t r = 0; r < num_rois; ++r) {
    float *yr = y + r * c * out_plane;
    const detail::RoiGeometry<float> g = detail::roi_geometry<float>(
        rois + 4 * r, batch_indices[r], n, h, w, out_h, out_w, sampling_ratio,
        spatial_scale, half_pixel);
    if (!g.valid) {
      for (int64_t i = 0; i < c * out_plane; ++i)
        yr[i] = 0.0f;
      continue;
    }
    const float *xs = scratch + g.batch * in_plane * c;
    for (int64_t c0 = 0; c0 < c; c0 += detail::kRoiChannels) {
      const int64_t kc = c - c0 < detail::kRoiChannels ? c - c0 : detail::kRoiChannels;
      for (int64_t b0 = 0; b0 < out_plane; b0 += detail::kRoiBins) {
        const int64_t nb = out_plane - b0 < detail::kRoiBins ? out_plane - b0 : detail::kRoiBins;
        for (int64_t b = 0; b < nb; ++b) {
          const int64_t ph = (b0 + b) / out_w, pw = (b0 + b) % out_w;
          float *acc = tile + b * detail::kRoiChannels;
          if (kc == detail::kRoiChannels)
            detail::roi_bin_channels<detail::kRoiChannels>(xs + c0, c, g, ph, pw, h, w,
                                                          max_mode, acc);
          else
            detail::roi_bin_channels<0>(xs + c0, c, g, ph, pw, h, w, max_mode, acc, kc);
        }
        // tile [bin][channel] -> y [channel][bin]
        detail::transpose_2d(tile, yr + c0 * out_plane + b0, kc, nb, detail::kRoiChannels,
                             out_plane, int64_t(1));
      }
    }
  }
}

} // namespace rt
} // namespace tract
