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
#include "tract/rt/nn/conv_lanes.h"
#include "tract/rt/nn/lane_transpose.h"
#include "tract/rt/parallel.h"

#include <cstring>

namespace tract {
namespace rt {

namespace detail {

// Tasks for a pass over `floats` floats in `units` pieces: one per thread,
// no more than there are pieces.
inline int64_t lane_block_tasks(const Parallel &par, int64_t floats, int64_t units) {
  if (!par.parallel_for || floats < kMinParallelWork)
    return 1;
  return par.threads < units ? par.threads : units;
}

// Pixels per task below which these passes split by channel blocks.
constexpr int64_t kMinLaneStripePixels = 64;

// Pixel stripes of a mean: its sum is the stripes' sums added in order, so
// it is the same floats whichever task summed which stripe.
constexpr int64_t kMeanStripes = 8;

// The sums of pixels [i0, i1) of a 16-channel block (pixels 16 floats apart)
// into to[0, 16): four pixels' sums side by side (an add's latency per pixel,
// not per four), then added pairwise.
inline void sum_lane_pixels(const float *xb, int64_t i0, int64_t i1, float *to) {
  constexpr int64_t L = lanes::kLanes, kSums = 4;
  float sum[kSums][L] = {};
  const int64_t whole = i0 + (i1 - i0) / kSums * kSums;
  for (int64_t i = i0; i < whole; i += kSums)
    for (int64_t s = 0; s < kSums; ++s)
      for (int64_t l = 0; l < L; ++l)
        sum[s][l] += xb[(i + s) * L + l];
  for (int64_t i = whole; i < i1; ++i)
    for (int64_t l = 0; l < L; ++l)
      sum[i - whole][l] += xb[i * L + l];
  for (int64_t l = 0; l < L; ++l)
    to[l] = (sum[0][l] + sum[1][l]) + (sum[2][l] + sum[3][l]);
}

} // namespace detail

// Scratch floats per task of mean_from_lanes split by pixels: each task's
// stripes' sums (split so only at two threads or more: at most half the
// stripes a task); none where the plane is never split by pixels.
constexpr int64_t mean_from_lanes_scratch_floats(int64_t batch, int64_t channels,
                                                 int64_t plane) {
  return plane >= 2 * detail::kMinLaneStripePixels
             ? (detail::kMeanStripes + 1) / 2 * batch * channels
             : 0;
}

// y[b * C + c] = the mean of channel c of image b over its `plane` pixels,
// x in lane layout (C % 16 == 0): the sums of kMeanStripes stripes of the
// plane added in order, the same floats at any thread count. With `scratch`
// (mean_from_lanes_scratch_floats per task, Parallel::scratch_of) the
// stripes are split over par.threads tasks, as the depthwise conv before it
// (conv_expand_depthwise's bands) and the scale and projection after it
// split the map: each task reads the rows its core wrote, where split by
// channel blocks half of them came from the other core's cache. Without, or
// with too few pixels per task, blocks of 16 channels are split.
inline void mean_from_lanes(const float *x, float *y, int64_t batch, int64_t channels,
                            int64_t plane, float *scratch, const Parallel &par = Parallel{}) {
  constexpr int64_t L = lanes::kLanes, S = detail::kMeanStripes;
  const int64_t blocks = batch * channels / L, floats = blocks * plane * L;
  const float scale = plane > 0 ? 1.0f / static_cast<float>(plane) : 0.0f;
  // One block's 16 means into to[0, 16) from its stripes' sums (stripe k's
  // at at(k)), added in stripe order: the fold every path shares.
  auto fold = [&](float *to, auto &&at) {
    bool first = true;
    for (int64_t k = 0; k < S; ++k) {
      if (detail::lanes_stripe_start(k, S, plane) == detail::lanes_stripe_start(k + 1, S, plane))
        continue; // (an empty stripe of a small plane)
      const float *part = at(k);
      for (int64_t l = 0; l < L; ++l)
        to[l] = first ? part[l] : to[l] + part[l];
      first = false;
    }
    if (first)
      for (int64_t l = 0; l < L; ++l)
        to[l] = 0.0f;
    for (int64_t l = 0; l < L; ++l)
      to[l] *= scale;
  };
  const int64_t stripe_tasks = detail::lane_block_tasks(par, floats, S);
  if (scratch && stripe_tasks > 1 && plane >= detail::kMinLaneStripePixels * stripe_tasks) {
    // Task t sums stripes [S t / tasks, S (t + 1) / tasks) of every block
    // into its scratch, stripe-major; the caller folds them.
    const int64_t tasks = stripe_tasks;
    run_tasks(par, tasks, [&](int64_t t) {
      float *own = par.scratch_of(t, scratch);
      const int64_t k0 = S * t / tasks, k1 = S * (t + 1) / tasks;
      for (int64_t k = k0; k < k1; ++k) {
        const int64_t i0 = detail::lanes_stripe_start(k, S, plane);
        const int64_t i1 = detail::lanes_stripe_start(k + 1, S, plane);
        for (int64_t blk = 0; blk < blocks; ++blk)
          detail::sum_lane_pixels(x + blk * plane * L, i0, i1, own + ((k - k0) * blocks + blk) * L);
      }
    });
    for (int64_t blk = 0; blk < blocks; ++blk)
      fold(y + blk * L, [&](int64_t k) {
        int64_t t = 0; // (the task whose stripes hold k)
        while (S * (t + 1) / tasks <= k)
          ++t;
        return par.scratch_of(t, scratch) + ((k - S * t / tasks) * blocks + blk) * L;
      });
    return;
  }
  const int64_t tasks = detail::lane_block_tasks(par, floats, blocks);
  run_tasks(par, tasks, [&](int64_t t) {
    for (int64_t blk = blocks * t / tasks; blk < blocks * (t + 1) / tasks; ++blk) {
      float sums[S][L];
      for (int64_t k = 0; k < S; ++k)
        detail::sum_lane_pixels(x + blk * plane * L, detail::lanes_stripe_start(k, S, plane),
                                detail::lanes_stripe_start(k + 1, S, plane), sums[k]);
      fold(y + blk * L, [&](int64_t k) { return sums[k]; });
    }
  });
}

// The same without scratch: channel blocks split, the same floats.
inline void mean_from_lanes(const float *x, float *y, int64_t batch, int64_t channels,
                            int64_t plane, const Parallel &par = Parallel{}) {
  mean_from_lanes(x, y, batch, channels, plane, nullptr, par);
}

// y = x * s[b * C + c] for every pixel of channel c of image b, x and y in
// lane layout (C % 16 == 0); y may be x. Pixels are split over par.threads
// tasks in stripes (lanes_stripe_start: conv_lanes.h), as the projection after it
// (conv_pointwise_from_lanes) splits them: each task writes the pixels its
// core's projection reads and reads the rows its core's depthwise conv
// wrote. Split by channel blocks, each projection task read half of its
// input from the other core's cache (EfficientNet-B0's projections at two
// threads 1.77 -> 1.37 ms in bench/kernel_times.py, this and the mean split
// alike). Planes with too few pixels per task are split by channel blocks.
inline void scale_lanes(const float *x, const float *s, float *y, int64_t batch,
                        int64_t channels, int64_t plane, const Parallel &par = Parallel{}) {
  constexpr int64_t L = lanes::kLanes;
  const int64_t blocks = batch * channels / L;
  int64_t tasks = detail::lane_block_tasks(par, blocks * plane * L, par.threads);
  const bool by_pixels = tasks > 1 && plane >= detail::kMinLaneStripePixels * tasks;
  if (!by_pixels)
    tasks = detail::lane_block_tasks(par, blocks * plane * L, blocks);
  auto scale = [&](int64_t blk, int64_t i0, int64_t i1) {
    const float *xb = x + blk * plane * L;
    float *yb = y + blk * plane * L;
#if defined(__GNUC__)
    // (One vector per pixel: as plain loops, GCC's alias checks between
    // x and y left it scalar, 6x slower.)
    typedef float v16 __attribute__((vector_size(64)));
    v16 sv;
    std::memcpy(&sv, s + blk * L, sizeof sv);
    for (int64_t i = i0; i < i1; ++i) {
      v16 v;
      std::memcpy(&v, xb + i * L, sizeof v);
      v *= sv;
      std::memcpy(yb + i * L, &v, sizeof v);
    }
#else
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t l = 0; l < L; ++l)
        yb[i * L + l] = xb[i * L + l] * s[blk * L + l];
#endif
  };
  run_tasks(par, tasks, [&](int64_t t) {
    if (by_pixels) {
      for (int64_t blk = 0; blk < blocks; ++blk)
        scale(blk, detail::lanes_stripe_start(t, tasks, plane),
              detail::lanes_stripe_start(t + 1, tasks, plane));
      return;
    }
    for (int64_t blk = blocks * t / tasks; blk < blocks * (t + 1) / tasks; ++blk)
      scale(blk, 0, plane);
  });
}

} // namespace rt
} // namespace tract
