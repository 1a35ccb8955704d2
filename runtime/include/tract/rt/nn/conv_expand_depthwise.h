// tract runtime: a 1x1 expand fused into the depthwise conv that reads it
// (MobileNet's inverted residual, EfficientNet's MBConv, DS-CNN).
//
// The expand writes C x H x W floats (16 -> 96 channels at 112 x 112 is
// 4.8 MB, past L2) that the depthwise conv reads right back, row by row, into
// its ring of staged rows (conv_depthwise.h). Fused, the expand computes each
// input row the depthwise conv stages, 16 channels at a time, straight into
// the ring, with its own epilogue (ReLU6, SiLU) applied there: the expanded
// tensor never exists, and the ring's copy is gone. Each expanded element is
// still computed once (the ring keeps a row for all the output rows that read
// it), except the few rows either side of where two threads' shares of a
// block meet, which both compute. The expand's register tile is pixels x one
// 16-channel block, one FMA per input channel with the input broadcast
// (conv_lanes.h's to_lanes_tile).
#pragma once

#include "tract/rt/nn/conv_depthwise.h"
#include "tract/rt/nn/conv_lanes.h"

namespace tract {
namespace rt {

// Pixels per expand tile (one 16-channel block): AVX-512's 32 registers take
// 16 accumulators; a vector of 16 is two or four registers elsewhere.
#if defined(__AVX512F__)
constexpr int64_t kExpandPixels = 16;
#else
constexpr int64_t kExpandPixels = kToLanesPixels;
#endif

// Whether 1x1 conv `pe` feeding depthwise conv `pd` runs fused: a plain 1x1
// whose output channels are the depthwise conv's, in 16-channel blocks.
inline bool conv_expand_depthwise_fits(const ConvParams &pe, const ConvParams &pd) {
  return conv_is_plain_pointwise(pe) && conv_depthwise_lanes_fits(pd) &&
         pe.out_channels == pd.in_channels && pe.batch == pd.batch;
}

// Where fusing pays: the expanded tensor (per image) would not stay in L2.
// Measured on Zen 4 (bench/README.md): 16 -> 96 channels at 112 x 112
// (4.8 MB) 852 -> 591 us, 24 -> 144 at 56 x 56 451 -> 397, 32 -> 192 at
// 28 x 28 (600 KB) 165 -> 142; at 14 x 14 x 384 (300 KB) the row-by-row
// expand is 6% slower than the whole-plane one, at 7 x 7 twice as slow
// (rows of 7 pixels leave the register tile mostly empty).
constexpr int64_t kExpandDepthwiseMinBytes = 512 * 1024;

inline bool conv_expand_depthwise_pays(const ConvParams &pe, const ConvParams &pd) {
  return conv_expand_depthwise_fits(pe, pd) &&
         pd.in_channels * detail::conv4(pd).in_plane * 4 >= kExpandDepthwiseMinBytes;
}

// Scratch floats per task: the depthwise conv's (the expand writes into its
// ring).
inline int64_t expand_depthwise_scratch_floats(const ConvParams &pd) {
  return depthwise_rows_scratch_floats(pd);
}

// y = depthwise(epi_expand(conv1x1(x, we) + be), wd) + bd, then epi; pe and
// pd the two convs (conv_expand_depthwise_fits). `we` from pack_lane_weights;
// `be`, `bd` may be null. kInLanes: x in lane layout (a 1x1 conv between two
// depthwise convs), else NCHW; kOutLanes: y in lane layout, else NCHW.
// epi_expand sees the expanded tensor's elements at their lane-layout
// indices, a row of one 16-channel block at a time (it must be a function of
// the value and its index: threads that share a block both expand, and run
// it on, the rows where their shares meet). Output rows
// (depthwise_row_count) are split over par.threads tasks, each with its own
// scratch (expand_depthwise_scratch_floats).
template <bool kInLanes, bool kOutLanes, class EpiExpand, class Epi>
void conv_expand_depthwise(const float *x, const float *we, const float *be, const float *wd,
                           const float *bd, float *y, const ConvParams &pe,
                           const ConvParams &pd, const EpiExpand &epi_expand, const Epi &epi,
                           float *scratch, const Parallel &par = Parallel{}) {
  constexpr int64_t L = lanes::kLanes, R = kExpandPixels;
  const detail::Conv4 qd = detail::conv4(pd);
  const int64_t cin = pe.in_channels, plane = qd.in_plane, iw_n = qd.in[3];
  const int64_t blocks = pd.out_channels / L;
  const float zero_bias[L] = {};
  const LaneClip clip = lane_clip_of(epi_expand);
  using Taps =
      typename std::conditional<kInLanes, detail::LaneTaps, detail::ChannelTaps>::type;
  constexpr int64_t XS = kInLanes ? L : 1;
  auto stage = [&](int64_t b, int64_t o0, int64_t ih, float *staged) {
    const int64_t ob = o0 / L, row0 = ih * iw_n;
    const float *xb = x + b * cin * plane;
    const float *wb = we + ob * cin * L;
    const float *bb = be ? be + o0 : zero_bias;
    // Pixel i's input channels: planes apart in NCHW; in lane layout 16
    // side by side, pixels 16 floats apart.
    auto taps_at = [&](int64_t i) {
      if constexpr (kInLanes)
        return Taps{xb + i * L, 0, plane * L};
      else
        return Taps{xb + i, plane};
    };
    int64_t i = 0;
    for (; i + R <= iw_n; i += R)
      detail::to_lanes_tile<R, 1, XS>(taps_at(row0 + i), XS, cin, wb, 0, bb, staged + i * L, 0,
                                      nullptr, clip);
    for (; R > 4 && i + 4 <= iw_n; i += 4)
      detail::to_lanes_tile<4, 1, XS>(taps_at(row0 + i), XS, cin, wb, 0, bb, staged + i * L, 0,
                                      nullptr, clip);
    for (; i < iw_n; ++i)
      detail::to_lanes_tile<1, 1, XS>(taps_at(row0 + i), XS, cin, wb, 0, bb, staged + i * L, 0,
                                      nullptr, clip);
    const int64_t at = ((b * blocks + ob) * plane + row0) * L;
    if constexpr (!kClipsInTiles<EpiExpand>) // (else clipped in the tiles)
      epi_expand(staged, at, detail::opaque(iw_n * L));
  };
  // Work in GEMM-equivalent multiply-adds (conv_depthwise's weighting for
  // the depthwise part).
  const int64_t work = pd.batch * pd.out_channels * (cin * plane + 4 * qd.out_plane * qd.ker_vol);
  const int64_t rows = depthwise_row_count(pd);
  const int64_t tasks =
      par.parallel_for && work >= kMinParallelWork ? min_of(par.threads, rows) : 1;
  const int64_t oh_n = qd.out[2], segments = rows / oh_n; // (block, image) pairs
  if (tasks > 1 && oh_n >= 4 * tasks) {
    // Each task takes the same band of output rows in every block: its
    // input rows (all channels) and output rows are the band the pixel-split
    // kernels before and after it use on the same core. Split by blocks,
    // each task read all of the input and wrote channels the next kernel
    // reads from both cores; on cores that share no cache that doubled the
    // kernel's time (bench/task_times.py). The one or two input rows where
    // two bands meet are expanded by both tasks, in every block.
    run_tasks(par, tasks, [&](int64_t t) {
      const int64_t lo = oh_n * t / tasks, hi = oh_n * (t + 1) / tasks;
      for (int64_t sgm = 0; sgm < segments; ++sgm)
        conv_depthwise_rows<kOutLanes>(wd, bd, y, pd, stage, epi, par.scratch_of(t, scratch),
                                       sgm * oh_n + lo, sgm * oh_n + hi);
    });
    return;
  }
  run_tasks(par, tasks, [&](int64_t t) {
    conv_depthwise_rows<kOutLanes>(wd, bd, y, pd, stage, epi, par.scratch_of(t, scratch),
                                   rows * t / tasks, rows * (t + 1) / tasks);
  });
}

} // namespace rt
} // namespace tract
