// tract runtime: a squeeze-and-excitation on a tensor in 16-channel lane
// layout (conv_lanes.h): the per-channel mean over the plane (the squeeze)
// and the per-channel scale by the excitation.
//
// EfficientNet puts one between each block's depthwise conv and its
// projection. With these two, the depthwise conv's output stays in lane
// layout and the projection reads it there (conv_pointwise_from_lanes), as
// in a MobileNetV2 block; otherwise the depthwise conv transposes every row
// back to NCHW and the projection reads 16+ channel planes at once, one
// stream per input channel (EfficientNet-B0's first block: 0.40 + 0.24 ms
// against ORT's 0.23 + 0.12).
#pragma once

#include "tract/rt/common.h"
#include "tract/rt/nn/lane_transpose.h"
#include "tract/rt/parallel.h"

#include <cstring>

namespace tract {
namespace rt {

namespace detail {

// Tasks for a pass over `floats` floats in `blocks` 16-channel blocks: one
// per thread, no more than there are blocks.
inline int64_t lane_block_tasks(const Parallel &par, int64_t floats, int64_t blocks) {
  if (!par.parallel_for || floats < kMinParallelWork)
    return 1;
  return par.threads < blocks ? par.threads : blocks;
}

} // namespace detail

// y[b * C + c] = the mean of channel c of image b over its `plane` pixels,
// x in lane layout (C % 16 == 0). Blocks of 16 channels are split over
// par.threads tasks.
inline void mean_from_lanes(const float *x, float *y, int64_t batch, int64_t channels,
                            int64_t plane, const Parallel &par = Parallel{}) {
  constexpr int64_t L = lanes::kLanes, kSums = 4;
  const int64_t blocks = batch * channels / L;
  const int64_t tasks = detail::lane_block_tasks(par, blocks * plane * L, blocks);
  const float scale = plane > 0 ? 1.0f / static_cast<float>(plane) : 0.0f;
  run_tasks(par, tasks, [&](int64_t t) {
    for (int64_t blk = blocks * t / tasks; blk < blocks * (t + 1) / tasks; ++blk) {
      const float *xb = x + blk * plane * L;
      // Four pixels' sums side by side: an add's latency per pixel, not
      // per four (each row of `sum` is one vector).
      float sum[kSums][L] = {};
      const int64_t whole = plane / kSums * kSums;
      for (int64_t i = 0; i < whole; i += kSums)
        for (int64_t s = 0; s < kSums; ++s)
          for (int64_t l = 0; l < L; ++l)
            sum[s][l] += xb[(i + s) * L + l];
      for (int64_t i = whole; i < plane; ++i)
        for (int64_t l = 0; l < L; ++l)
          sum[i - whole][l] += xb[i * L + l];
      for (int64_t l = 0; l < L; ++l)
        y[blk * L + l] = ((sum[0][l] + sum[1][l]) + (sum[2][l] + sum[3][l])) * scale;
    }
  });
}

// y = x * s[b * C + c] for every pixel of channel c of image b, x and y in
// lane layout (C % 16 == 0); y may be x. Blocks of 16 channels are split
// over par.threads tasks.
inline void scale_lanes(const float *x, const float *s, float *y, int64_t batch,
                        int64_t channels, int64_t plane, const Parallel &par = Parallel{}) {
  constexpr int64_t L = lanes::kLanes;
  const int64_t blocks = batch * channels / L;
  const int64_t tasks = detail::lane_block_tasks(par, blocks * plane * L, blocks);
  run_tasks(par, tasks, [&](int64_t t) {
    for (int64_t blk = blocks * t / tasks; blk < blocks * (t + 1) / tasks; ++blk) {
      const float *xb = x + blk * plane * L;
      float *yb = y + blk * plane * L;
#if defined(__GNUC__)
      // (One vector per pixel: as plain loops, GCC's alias checks between
      // x and y left it scalar, 6x slower.)
      typedef float v16 __attribute__((vector_size(64)));
      v16 sv;
      std::memcpy(&sv, s + blk * L, sizeof sv);
      for (int64_t i = 0; i < plane; ++i) {
        v16 v;
        std::memcpy(&v, xb + i * L, sizeof v);
        v *= sv;
        std::memcpy(yb + i * L, &v, sizeof v);
      }
#else
      for (int64_t i = 0; i < plane; ++i)
        for (int64_t l = 0; l < L; ++l)
          yb[i * L + l] = xb[i * L + l] * s[blk * L + l];
#endif
    }
  });
}

} // namespace rt
} // namespace tract
