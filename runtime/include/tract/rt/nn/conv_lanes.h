// tract runtime: f32 convs into and out of 16-channel lane layout, the ends
// of an expand -> depthwise -> project chain (MobileNet's inverted residual)
// kept blocked in between: 1x1 convs (stride 1, unpadded) into, out of and
// between lane layouts, and a network's first conv into it.
//
// Lane layout (NCHW16c) holds channel c of pixel i of image b at
// ((b * C / 16 + c / 16) * plane + i) * 16 + c % 16: one vector is 16
// channels of one pixel, which is how the depthwise conv computes
// (conv_depthwise.h). A tensor in lane layout has C % 16 == 0, so it takes
// the same bytes as in NCHW: the compiler's memory plan does not change,
// only how producer and consumer read the bytes. Both kernels here compute a
// register tile of pixels x 16-channel blocks, one FMA per input channel
// and accumulator with the input value broadcast:
//   conv_pointwise_to_lanes   NCHW (or lane layout) in, lane layout out
//       (the expand): the tile's accumulators are stored as they are;
//   conv_pointwise_from_lanes lane layout in, NCHW out (the project): the
//       tile is transposed into the output planes (lanes::scatter);
//   conv_to_lanes             a k x k conv with few input channels (a stem),
//       NCHW in, lane layout out, tap by tap from staged input rows.
// Weights come packed at compile time (pack_lane_weights): for each block of
// 16 output channels, each input channel's 16 weights side by side. The
// bias starts the accumulators; the epilogue (gemm.h's contract, indices in
// the output's own layout) runs on stripes of pixels while they are cached.
#pragma once

#include "tract/rt/common.h"
#include "tract/rt/elementwise/clip_in_place.h"
#include "tract/rt/nn/conv_gemm.h"
#include "tract/rt/nn/conv_ref.h"
#include "tract/rt/nn/lane_transpose.h"
#include "tract/rt/parallel.h"
#include "tract/rt/simd16.h"
#include "tract/rt/warm_lines.h"

#include <cstring>
#include <type_traits>

namespace tract {
namespace rt {

// Register tiles: pixels x 16-channel blocks, one accumulator each. Per
// input channel a tile loads its blocks' weights and broadcasts its pixels'
// inputs, so the FMAs per load grow with both sides. AVX-512's 32 registers
// hold 8 pixels x 3 blocks (24 accumulators, 11 loads per 24 FMAs, where
// 8 x 2 took 10 per 16 and 16 x 1 17 per 16: MobileNetV2's 96 -> 576
// expansion at 14 x 14 in 0.93-0.95 of 8 x 2's time, its 960 -> 320
// projection at 7 x 7 in 0.93-0.96 of 16 x 1's, on a Sapphire Rapids class
// Xeon, bench/run-lanes.sh). A vector of 16 is two registers on AVX and four
// on NEON: 4 pixels x 1 block there, 2 elsewhere. Out of lanes, a tile of
// one block takes 2R pixels (its transpose back into the planes is one
// 16 x 16 block either way).
#if defined(__AVX512F__)
constexpr int64_t kToLanesPixels = 8, kFromLanesPixels = 8, kLanesTileBlocks = 3;
#elif defined(__AVX__) || defined(__aarch64__)
constexpr int64_t kToLanesPixels = 4, kFromLanesPixels = 4, kLanesTileBlocks = 1;
#else
constexpr int64_t kToLanesPixels = 2, kFromLanesPixels = 2, kLanesTileBlocks = 1;
#endif
// The widest target's (AVX-512's), for scratch sizes that do not depend on
// the ISA.
constexpr int64_t kMaxLanesTileBlocks = 3;
static_assert(kLanesTileBlocks <= kMaxLanesTileBlocks, "scratch for the widest tile");
constexpr int64_t kMaxFromLanesTilePixels = 24; // 8 x 3 blocks, 16 x 1

// Blocks of the next register tile when `left` blocks remain: the widest
// tile, but no tile of one block where two tiles of two do (a tile of one
// block has a third of the accumulators): 4 blocks go 2 + 2, 5 go 3 + 2.
constexpr int64_t lanes_tile_blocks(int64_t left) {
  if (kLanesTileBlocks >= 3 && left != 2 && left != 4 && left >= 3)
    return 3;
  return kLanesTileBlocks >= 2 && left >= 2 ? 2 : 1;
}

// Pixels the epilogue is run on at once (per channel or 16-channel block).
constexpr int64_t kLanesEpilogueStripe = 128;

// Packed weights: blocks of 16 output channels (the last zero-padded), each
// [in_channels x 16]: dst[(ob * cin + c) * 16 + j] = w[(ob * 16 + j) * cin + c].
constexpr int64_t lane_weight_floats(int64_t out_channels, int64_t in_channels) {
  return (out_channels + lanes::kLanes - 1) / lanes::kLanes * lanes::kLanes * in_channels;
}

template <class T>
inline void pack_lane_weights(const T *w, int64_t out_channels, int64_t in_channels,
                              float *dst) {
  constexpr int64_t L = lanes::kLanes;
  for (int64_t ob = 0; ob * L < out_channels; ++ob)
    for (int64_t c = 0; c < in_channels; ++c)
      for (int64_t j = 0; j < L; ++j) {
        const int64_t o = ob * L + j;
        dst[(ob * in_channels + c) * L + j] =
            o < out_channels ? static_cast<float>(w[o * in_channels + c]) : 0.0f;
      }
}

// Scratch floats per task: conv_pointwise_from_lanes's tile in lane layout.
constexpr int64_t from_lanes_scratch_floats() {
  return kMaxFromLanesTilePixels * lanes::kLanes;
}

namespace detail {

// How a lane kernel's work is cut: units of (group of output blocks, image,
// stripe of pixels), in that order, so each task takes whole groups.
// Stripes are at most kLanesEpilogueStripe pixels. Groups when there are
// too few stripes to balance the threads (a 7x7 map is one stripe, 14x14
// two unequal ones), unless `fine_stripes`: then the stripes are first cut
// finer (at least kMinLanesTaskPixels each, whole register tiles). The
// projection out of lanes wants that: its input comes from a depthwise conv
// split by channel blocks, so with groups every task read all of it, half
// from the other core's cache, where a stripe reads only its pixels
// (MobileNetV2's 144 -> 32 projection at 28 x 28: 43 us on one thread, 41
// on two with groups, 29 with stripes). The expansion into lanes keeps
// groups: the depthwise conv after it reads its own blocks, and its output
// is the larger tensor. `tasks` of the units run in parallel.
constexpr int64_t kMinLanesTaskPixels = 64;

struct LanesSplit {
  int64_t stripes, groups, units, tasks;
  int64_t row_w; // stripes of whole output rows this wide (Parallel::by_rows), or 0
};

inline LanesSplit lanes_split(const Parallel &par, int64_t work, int64_t batch, int64_t plane,
                              int64_t row_w, int64_t blocks, bool fine_stripes) {
  LanesSplit s;
  s.row_w = 0;
  s.stripes = (plane + kLanesEpilogueStripe - 1) / kLanesEpilogueStripe;
  const int64_t threads = par.parallel_for && work >= kMinParallelWork ? par.threads : 1;
  if (par.by_rows && threads > 1 && batch == 1) {
    // The rows every by_rows kernel gives task t (row_share): one stripe
    // per task, stripe t its rows.
    const int64_t rows = plane / row_w;
    s.row_w = row_w;
    s.stripes = s.units = s.tasks = threads < rows ? threads : rows;
    s.groups = 1;
    return s;
  }
  if (fine_stripes && threads > 1 && batch * s.stripes < 4 * threads) {
    // Finer stripes, a multiple of the threads when there is one image.
    const int64_t per_image = (4 * threads + batch - 1) / batch;
    const int64_t fit = plane / kMinLanesTaskPixels;
    int64_t finer = per_image < fit ? per_image : fit;
    if (batch == 1)
      finer = finer / threads * threads;
    s.stripes = s.stripes > finer ? s.stripes : finer;
  }
  const int64_t units = batch * s.stripes;
  const bool balanced = units >= 4 * threads || (fine_stripes && units % threads == 0);
  s.groups = balanced ? 1 : (threads < blocks ? threads : blocks);
  s.units = batch * s.stripes * s.groups;
  s.tasks = threads < s.units ? threads : s.units;
  return s;
}

// Unit u of a LanesSplit: image b, pixels [i0, i1), output blocks [o0, o1).
struct LanesUnit {
  int64_t b, i0, i1, o0, o1;
};

// Stripe k of n over `plane` pixels starts at a multiple of 16 (whole
// register tiles), or at row_share's row when rows are `row_w` wide; the
// last one ends at the plane's end.
inline int64_t lanes_stripe_start(int64_t k, int64_t n, int64_t plane, int64_t row_w = 0) {
  if (k >= n)
    return plane;
  return row_w ? row_share(k, n, plane / row_w) * row_w : plane * k / n / 16 * 16;
}

inline LanesUnit lanes_unit(const LanesSplit &s, int64_t u, int64_t plane, int64_t blocks) {
  LanesUnit r;
  const int64_t per_group = s.units / s.groups;
  const int64_t g = u / per_group, stripe = u % per_group;
  r.b = stripe / s.stripes;
  r.i0 = lanes_stripe_start(stripe % s.stripes, s.stripes, plane, s.row_w);
  r.i1 = lanes_stripe_start(stripe % s.stripes + 1, s.stripes, plane, s.row_w);
  r.o0 = blocks * g / s.groups;
  r.o1 = blocks * (g + 1) / s.groups;
  return r;
}

#if defined(__GNUC__)

// Where a to_lanes tile's taps read: a cursor over the input rows of taps
// 0, 1, ... at the tile's first pixel (pixels `xs` floats apart).
struct ChannelTaps { // a 1x1 conv: channel planes `plane` apart
  const float *x;
  int64_t plane;
  const float *get() const { return x; }
  void next() { x += plane; }
};

struct LaneTaps { // a 1x1 conv reading lane layout: 16 channels, then the next block
  const float *x;
  int64_t lane, block;
  const float *get() const { return x + lane; }
  void next() {
    if (++lane == lanes::kLanes) {
      lane = 0;
      x += block;
    }
  }
};

struct StagedTaps { // a k x k conv: kw taps along each staged row, then the next row
  const float *row;
  int64_t kw, kw_n, dil, row_w;
  const float *get() const { return row + kw * dil; }
  void next() {
    if (++kw == kw_n) {
      kw = 0;
      row += row_w;
    }
  }
};

// R pixels x NB blocks: y[nb][r] = bias[nb] + sum_t tap_t[r * xs] * w[nb][t]
// over `taps` taps of the cursor `src`; w: block nb at w + nb * wstride; y:
// block nb at y + nb * ystride, 16 floats per pixel. XS: xs when known at
// compile time (1 or 2: constant address offsets), else 0.
template <int64_t R, int64_t NB, int64_t XS = 0, class Src>
inline void to_lanes_tile(Src src, int64_t xs_rt, int64_t taps, const float *w,
                          int64_t wstride, const float *bias, float *y, int64_t ystride,
                          const float *prefetch = nullptr, const LaneClip &clip = LaneClip{}) {
  const int64_t xs = XS ? XS : xs_rt;
  F16 acc[R][NB];
#pragma GCC unroll 8
  for (int64_t nb = 0; nb < NB; ++nb) {
    acc[0][nb] = F16::load(bias + nb * lanes::kLanes);
#pragma GCC unroll 16
    for (int64_t r = 1; r < R; ++r)
      acc[r][nb] = acc[0][nb];
  }
  for (int64_t t = 0; t < taps; ++t, w += lanes::kLanes, src.next()) {
    if (prefetch) { // into L2 (the current blocks' weights fill L1)
#pragma GCC unroll 8
      for (int64_t nb = 0; nb < NB; ++nb)
        __builtin_prefetch(prefetch + (t * NB + nb) * lanes::kLanes, 0, 2);
    }
    const float *x = src.get();
    F16 wv[NB];
#pragma GCC unroll 8
    for (int64_t nb = 0; nb < NB; ++nb)
      wv[nb] = F16::load(w + nb * wstride);
#pragma GCC unroll 16
    for (int64_t r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int64_t nb = 0; nb < NB; ++nb)
        acc[r][nb] += x[r * xs] * wv[nb];
  }
#pragma GCC unroll 8
  for (int64_t nb = 0; nb < NB; ++nb)
#pragma GCC unroll 16
    for (int64_t r = 0; r < R; ++r)
      clip(acc[r][nb]).store(y + nb * ystride + r * lanes::kLanes);
}

// R pixels of G output blocks into `tile` (lane layout, block g's pixels
// at tile + g * R * 16): x at the tile's first pixel of input block 0,
// blocks `xstride` apart; w the first output block's packed weights, the
// next ones `wstride` apart; bias G x 16 floats.
template <int64_t R, int64_t G = 1>
inline void from_lanes_tile(const float *x, int64_t xstride, int64_t cblocks, const float *w,
                            int64_t wstride, const float *bias, float *tile,
                            const float *prefetch = nullptr, const LaneClip &clip = LaneClip{}) {
  F16 acc[G][R];
#pragma GCC unroll 8
  for (int64_t g = 0; g < G; ++g) {
    acc[g][0] = F16::load(bias + g * lanes::kLanes);
#pragma GCC unroll 16
    for (int64_t r = 1; r < R; ++r)
      acc[g][r] = acc[g][0];
  }
  for (int64_t cb = 0; cb < cblocks; ++cb, x += xstride)
    for (int64_t c = 0; c < lanes::kLanes; ++c, w += lanes::kLanes) {
      if (prefetch) // into L2 (the current block's weights fill L1)
#pragma GCC unroll 8
        for (int64_t g = 0; g < G; ++g)
          __builtin_prefetch(prefetch + g * wstride + (cb * lanes::kLanes + c) * lanes::kLanes, 0,
                             2);
      F16 wv[G];
#pragma GCC unroll 8
      for (int64_t g = 0; g < G; ++g)
        wv[g] = F16::load(w + g * wstride);
#pragma GCC unroll 16
      for (int64_t r = 0; r < R; ++r)
#pragma GCC unroll 8
        for (int64_t g = 0; g < G; ++g)
          acc[g][r] += x[r * lanes::kLanes + c] * wv[g];
    }
#pragma GCC unroll 8
  for (int64_t g = 0; g < G; ++g)
#pragma GCC unroll 16
    for (int64_t r = 0; r < R; ++r)
      clip(acc[g][r]).store(tile + (g * R + r) * lanes::kLanes);
}
#else
template <int64_t R, int64_t NB, int64_t XS = 0, class Src>
inline void to_lanes_tile(Src src, int64_t xs, int64_t taps, const float *w,
                          int64_t wstride, const float *bias, float *y, int64_t ystride,
                          const float * = nullptr, const LaneClip &clip = LaneClip{}) {
  for (int64_t nb = 0; nb < NB; ++nb)
    for (int64_t r = 0; r < R; ++r)
      for (int64_t j = 0; j < lanes::kLanes; ++j) {
        float acc = bias[nb * lanes::kLanes + j];
        Src s = src;
        for (int64_t t = 0; t < taps; ++t, s.next())
          acc += s.get()[r * xs] * w[nb * wstride + t * lanes::kLanes + j];
        y[nb * ystride + r * lanes::kLanes + j] = clip.on ? op::Clip<float>{clip.lo, clip.hi}(acc)
                                                          : acc;
      }
}

template <int64_t R, int64_t G = 1>
inline void from_lanes_tile(const float *x, int64_t xstride, int64_t cblocks, const float *w,
                            int64_t wstride, const float *bias, float *tile,
                            const float * = nullptr, const LaneClip &clip = LaneClip{}) {
  for (int64_t g = 0; g < G; ++g)
    for (int64_t r = 0; r < R; ++r)
      for (int64_t j = 0; j < lanes::kLanes; ++j) {
        float acc = bias[g * lanes::kLanes + j];
        for (int64_t c = 0; c < cblocks * lanes::kLanes; ++c)
          acc += x[(c / lanes::kLanes) * xstride + r * lanes::kLanes + c % lanes::kLanes] *
                 w[g * wstride + c * lanes::kLanes + j];
        tile[(g * R + r) * lanes::kLanes + j] =
            clip.on ? op::Clip<float>{clip.lo, clip.hi}(acc) : acc;
      }
}
#endif

// A tile of nb (lanes_tile_blocks) blocks, to_lanes_tile's way.
template <int64_t R, int64_t XS, class Src>
inline void to_lanes_tile_of(int64_t nb, Src src, int64_t xs, int64_t taps, const float *w,
                             int64_t wstride, const float *bias, float *y, int64_t ystride,
                             const float *prefetch, const LaneClip &clip) {
  if constexpr (kLanesTileBlocks >= 3)
    if (nb == 3)
      return to_lanes_tile<R, 3, XS>(src, xs, taps, w, wstride, bias, y, ystride, prefetch,
                                     clip);
  if constexpr (kLanesTileBlocks >= 2)
    if (nb == 2)
      return to_lanes_tile<R, 2, XS>(src, xs, taps, w, wstride, bias, y, ystride, prefetch,
                                     clip);
  to_lanes_tile<R, 1, XS>(src, xs, taps, w, wstride, bias, y, ystride, prefetch, clip);
}

// A tile of nb (lanes_tile_blocks) blocks, from_lanes_tile's way.
template <int64_t R>
inline void from_lanes_tile_of(int64_t nb, const float *x, int64_t xstride, int64_t cblocks,
                               const float *w, int64_t wstride, const float *bias, float *tile,
                               const float *prefetch, const LaneClip &clip) {
  if constexpr (kLanesTileBlocks >= 3)
    if (nb == 3)
      return from_lanes_tile<R, 3>(x, xstride, cblocks, w, wstride, bias, tile, prefetch, clip);
  if constexpr (kLanesTileBlocks >= 2)
    if (nb == 2)
      return from_lanes_tile<R, 2>(x, xstride, cblocks, w, wstride, bias, tile, prefetch, clip);
  from_lanes_tile<R, 1>(x, xstride, cblocks, w, wstride, bias, tile, prefetch, clip);
}

// A pixel of one block is a chain of FMAs, each waiting for the one before
// (4 cycles on Zen and recent Intel cores, with two FMA pipes): a 7 x 7
// map's last pixel (49 = 6 x 8 + 1) took a tenth of a projection's time.
// The pixels past a stripe's last whole register tile are computed for
// several blocks at once instead, about kLanesTailAccumulators independent
// accumulators per tile. Each output's sum keeps its order (the bias, then
// the input channels in turn), so outputs do not depend on which pixels
// fall in a tail (how the stripes were cut for the threads).
#if defined(__AVX512F__)
constexpr int64_t kLanesTailAccumulators = 8;
#elif defined(__AVX__)
constexpr int64_t kLanesTailAccumulators = 4; // a vector of 16: two ymm registers
#elif defined(__aarch64__)
constexpr int64_t kLanesTailAccumulators = 2; // four q registers
#else
constexpr int64_t kLanesTailAccumulators = 1;
#endif
constexpr int64_t kMaxLanesTailBlocks = 8;

// Blocks per tail tile of n pixels.
constexpr int64_t lanes_tail_blocks(int64_t n) {
  return n >= kLanesTailAccumulators ? 1 : (kLanesTailAccumulators + n - 1) / n;
}
static_assert(lanes_tail_blocks(1) <= kMaxLanesTailBlocks, "tail tiles' bias and scratch");

// Blocks computed together into lane layout where each stripe or row ends
// in `tail` pixels past its whole tiles (without a tail, a tile's blocks,
// lanes_tile_blocks): a multiple of the tail tiles' blocks, and at least a
// whole tile's, so neither a tail nor a whole tile is left with one block
// where more fit (7-pixel rows: 2 + 2 blocks per tail tile, not 2 + 1).
constexpr int64_t lanes_group_blocks(int64_t tail) {
  const int64_t t = tail ? lanes_tail_blocks(tail) : 1;
  return t >= kLanesTileBlocks ? t : t * ((kLanesTileBlocks + t - 1) / t);
}
static_assert(lanes_group_blocks(1) <= kMaxLanesTailBlocks &&
                  lanes_group_blocks(5) <= kMaxLanesTailBlocks,
              "a group's bias and scratch");

// The next group's blocks when `left` remain: lanes_group_blocks(tail), or
// without a tail one tile's (lanes_tile_blocks).
constexpr int64_t lanes_next_group(int64_t tail, int64_t left) {
  const int64_t group = lanes_group_blocks(tail);
  return tail ? (left < group ? left : group) : lanes_tile_blocks(left);
}

// to_lanes tiles of N pixels from pixel i over `blocks` blocks (w, bias, y
// at the first): G blocks a tile, then G / 2, ... 1. Pixels xs floats
// apart in the taps (XS: xs when known at compile time, else 0).
template <int64_t N, int64_t G, int64_t XS, class TapsAt>
inline void to_lanes_tail_tiles(const TapsAt &taps_at, int64_t xs, int64_t i, int64_t blocks,
                                int64_t cin, const float *w, const float *bias, float *y,
                                int64_t plane, const LaneClip &clip) {
  constexpr int64_t L = lanes::kLanes;
  int64_t k = 0;
  for (; k + G <= blocks; k += G)
    to_lanes_tile<N, G, XS>(taps_at(i), xs, cin, w + k * cin * L, cin * L, bias + k * L,
                            y + k * plane * L + i * L, plane * L, nullptr, clip);
  if constexpr (G > 1)
    if (k < blocks)
      to_lanes_tail_tiles<N, G / 2, XS>(taps_at, xs, i, blocks - k, cin, w + k * cin * L,
                                        bias + k * L, y + k * plane * L, plane, clip);
}

// The n (1 <= n <= N) pixels from pixel i, to_lanes_tail_tiles' way.
template <int64_t N, int64_t XS, class TapsAt>
inline void to_lanes_tail(int64_t n, const TapsAt &taps_at, int64_t xs, int64_t i,
                          int64_t blocks, int64_t cin, const float *w, const float *bias,
                          float *y, int64_t plane, const LaneClip &clip) {
  if constexpr (N > 0) {
    if (n == N)
      return to_lanes_tail_tiles<N, lanes_tail_blocks(N), XS>(taps_at, xs, i, blocks, cin, w,
                                                              bias, y, plane, clip);
    to_lanes_tail<N - 1, XS>(n, taps_at, xs, i, blocks, cin, w, bias, y, plane, clip);
  }
}

// from_lanes tiles of N pixels from pixel i (x: at pixel i of input block
// 0) over `blocks` blocks (w, bias at the first; weights wstride apart):
// G blocks a tile, then G / 2, ... 1; each block's N pixels are handed to
// done(block, its tile) once computed.
template <int64_t N, int64_t G, class Done>
inline void from_lanes_tail_tiles(const float *x, int64_t xstride, int64_t cblocks,
                                  int64_t blocks, const float *w, int64_t wstride,
                                  const float *bias, float *tile, const Done &done,
                                  const LaneClip &clip, int64_t k = 0) {
  constexpr int64_t L = lanes::kLanes;
  for (; k + G <= blocks; k += G) {
    from_lanes_tile<N, G>(x, xstride, cblocks, w + k * wstride, wstride, bias + k * L, tile,
                          nullptr, clip);
    for (int64_t g = 0; g < G; ++g)
      done(k + g, tile + g * N * L);
  }
  if constexpr (G > 1)
    if (k < blocks)
      from_lanes_tail_tiles<N, G / 2>(x, xstride, cblocks, blocks, w, wstride, bias, tile, done,
                                      clip, k);
}

// The n (1 <= n <= N) pixels from pixel i, from_lanes_tail_tiles' way.
template <int64_t N, class Done>
inline void from_lanes_tail(int64_t n, const float *x, int64_t xstride, int64_t cblocks,
                            int64_t blocks, const float *w, int64_t wstride, const float *bias,
                            float *tile, const Done &done, const LaneClip &clip) {
  if constexpr (N > 0) {
    if (n == N)
      return from_lanes_tail_tiles<N, lanes_tail_blocks(N)>(x, xstride, cblocks, blocks, w,
                                                            wstride, bias, tile, done, clip);
    from_lanes_tail<N - 1>(n, x, xstride, cblocks, blocks, w, wstride, bias, tile, done, clip);
  }
}

} // namespace detail

// y (lane layout, out_channels % 16 == 0) = conv1x1(x, w) + bias, then epi;
// x in NCHW, or in lane layout too when kInLanes (in_channels % 16 == 0: a
// 1x1 conv between two depthwise convs, MobileNet v1 and DS-CNN style).
// `w` from pack_lane_weights; `bias` may be null. Pixels are split over
// par.threads tasks.
template <bool kInLanes = false, class Epi>
void conv_pointwise_to_lanes(const float *x, const float *w, const float *bias, float *y,
                             const ConvParams &p, const Epi &epi,
                             const Parallel &par = Parallel{}) {
  constexpr int64_t L = lanes::kLanes, R = kToLanesPixels, NB = kLanesTileBlocks;
  const detail::Conv4 q = detail::conv4(p);
  const int64_t plane = q.out_plane, in_ps = q.in_ps, cin = p.in_channels;
  const int64_t blocks = p.out_channels / L;
  const detail::LanesSplit split =
      detail::lanes_split(par, p.batch * p.out_channels * cin * plane, p.batch, plane, q.out[3],
                          blocks, false);
  float zero_bias[detail::kMaxLanesTailBlocks * L] = {};
  static_assert(NB <= detail::kMaxLanesTailBlocks, "zero_bias covers a tile's blocks");
  const LaneClip clip = lane_clip_of(epi);
  run_tasks(par, split.tasks, [&](int64_t t) {
    for (int64_t u = split.units * t / split.tasks; u < split.units * (t + 1) / split.tasks;
         ++u) {
      const detail::LanesUnit e = detail::lanes_unit(split, u, plane, blocks);
      // (NCHW x: planes in_ps apart, padded planes as ConvParams says.)
      const float *xb = x + e.b * cin * (kInLanes ? plane : in_ps);
      float *yb = y + e.b * p.out_channels * plane;
      // Pixel i's input channels: planes apart in NCHW; in lane layout
      // 16 side by side, pixels 16 floats apart.
      using Taps = typename std::conditional<kInLanes, detail::LaneTaps,
                                             detail::ChannelTaps>::type;
      constexpr int64_t XS = kInLanes ? L : 1;
      auto taps_at = [&](int64_t i) {
        if constexpr (kInLanes)
          return Taps{xb + i * L, 0, plane * L};
        else
          return Taps{xb + i, in_ps};
      };
      // Whole tiles block by block; the pixels past them (a 7 x 7 map's
      // last) for a group of blocks at once (detail::lanes_tail_blocks).
      const int64_t tail = (e.i1 - e.i0) % R, i_tail = e.i1 - tail;
      for (int64_t ob = e.o0; ob < e.o1;) {
        const int64_t g = detail::lanes_next_group(tail, e.o1 - ob);
        const float *wg = w + ob * cin * L;
        const float *bg = bias ? bias + ob * L : zero_bias;
        float *yg = yb + ob * plane * L;
        for (int64_t k = 0; k < g;) {
          const int64_t nb = lanes_tile_blocks(g - k);
          const float *wb = wg + k * cin * L, *bb = bg + k * L;
          float *yo = yg + k * plane * L;
          // The next blocks' weights are fetched during the first tile:
          // on a 7 x 7 map each weight serves 49 pixels, and without it the
          // first tile of each block waited on them from DRAM.
          const float *next = ob + k + nb + nb <= e.o1 ? wb + nb * cin * L : nullptr;
          for (int64_t i = e.i0; i < i_tail; i += R)
            detail::to_lanes_tile_of<R, XS>(nb, taps_at(i), XS, cin, wb, cin * L, bb,
                                            yo + i * L, plane * L, i == e.i0 ? next : nullptr,
                                            clip);
          k += nb;
        }
        if (tail)
          detail::to_lanes_tail<R - 1, XS>(tail, taps_at, XS, i_tail, g, cin, wg, bg, yg, plane,
                                           clip);
        // The epilogue while these blocks' stripe is in L1 (a Clip's was
        // in the tiles).
        if constexpr (!kClipsInTiles<Epi>)
          for (int64_t k = 0; k < g; ++k) {
            const int64_t at = ((e.b * blocks + ob + k) * plane + e.i0) * L;
            epi(y + at, at, detail::opaque((e.i1 - e.i0) * L));
          }
        ob += g;
      }
    }
  });
}

// A network's first conv (few input channels, k x k, any stride, padding
// and dilation; 2-d, groups 1) into lane layout: its output feeds a
// depthwise conv in lane layout, and each output tile is R pixels of one
// row x 16 channels, one FMA per tap with the input broadcast, where the
// GEMM would gather K = cin x kh x kw taps per pixel first (im2col). Each
// output row stages its kh x cin input rows zero-padded in scratch, so every
// tap of every pixel is in bounds.
struct ConvToLanesGeometry {
  int64_t row_w; // floats per staged row: padding, the row, the last taps' reach
  int64_t rows;  // staged rows: cin x kh
};

inline ConvToLanesGeometry conv_to_lanes_geometry(const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  const int64_t reach = (q.out[3] - 1) * q.st[3] + (q.ker[3] - 1) * q.dil[3] + 1;
  return {reach > q.pad[3] + q.in[3] ? reach : q.pad[3] + q.in[3],
          p.in_channels * q.ker[1] * q.ker[2]};
}

constexpr int64_t kMaxConvToLanesInChannels = 8;

// Whether conv_to_lanes takes the conv.
inline bool conv_to_lanes_fits(const ConvParams &p) {
  return p.spatial_rank == 2 && p.groups <= 1 && p.out_channels % lanes::kLanes == 0 &&
         p.in_channels <= kMaxConvToLanesInChannels;
}

// Whether conv_to_lanes<false> (by taps into NCHW) computes the conv: any
// 2-d or 3-d ungrouped conv with whole 16-channel blocks of outputs, any
// number of input channels, any kernel, stride, padding and dilation. A 3-d
// conv's output rows are its (depth, row) pairs, each reading cin x kd x kh
// staged input rows.
inline bool conv_by_taps_fits(const ConvParams &p) {
  return (p.spatial_rank == 2 || p.spatial_rank == 3) && p.groups <= 1 &&
         p.out_channels % lanes::kLanes == 0;
}

// Whether a conv is faster computed by taps into NCHW (conv_to_lanes<false>)
// than by im2col + GEMM (a 3x3 stride-1 conv goes to Winograd first, where
// its cost model says so). Few input channels (a network's first conv):
// where the transposes into the planes are small against the taps (3 -> 64
// channels 7x7 stride 2 at 224 x 224, 147 taps: 2616 -> 2252 us; 3x3, 27
// taps: 547 -> 564 us). Deeper convs: no gather of cin x kh x kw values per
// pixel, and the weights of two blocks stay in L1 or L2 over a row's tiles.
// Measured on Zen 5, one thread, taps / im2col time: 3x3 stride 2 64 -> 128
// at 56 x 56 0.78, 128 -> 256 at 28 x 28 0.91-0.96; 1x7 128 -> 128 at
// 17 x 17 0.74, 7x1 0.95; 5x5 48 -> 64 at 35 x 35 0.69; dilated 3x3 64 ->
// 64 at 28 x 28 0.64; 3x3 128 -> 128 on 5 x 5 and 6 x 6 maps 0.61-0.68. It
// loses on rows of 4 pixels or fewer (1.1-1.3: im2col's GEMM takes pixels
// of several rows in one panel), with weights past L2 (each output row
// reads all of them: 256 -> 512 3x3 stride 2 onto 7 x 7, 4.7 MB, 1.06
// with cold weights), and on 1x1 strided convs (0.92-1.14). 3-d convs
// (bench/run-conv.sh --3d-only, Zen 5, weights cold), whose im2col
// gathers its B panels: 3x3x3 64 -> 64 at 4 x 16 x 16 0.63, at 8 x 28 x
// 28 0.66, 128 -> 128 at 4 x 14 x 14 (1.7 MB of weights) 0.85, 256 -> 256
// at 2 x 7 x 7 (7 MB) 0.91, a 3 x 7 x 7 stem 0.27, 1x3x3 0.89; rows of 4
// or 2 pixels 1.5, and a 3x1x1 (temporal only) 1.03.
constexpr int64_t kMinTapsForPlanes = 64;
constexpr int64_t kMinTapsRowPixels = 5;
constexpr int64_t kMaxTapsWeightFloats = 320 * 1024;

inline bool conv_by_taps_pays(const ConvParams &p) {
  if (!conv_by_taps_fits(p))
    return false;
  const detail::Conv4 q = detail::conv4(p);
  const int64_t taps = p.in_channels * q.ker_vol;
  if (taps < kMinTapsForPlanes)
    return false;
  if (p.in_channels <= kMaxConvToLanesInChannels)
    return true;
  // A kernel that spans depth (3-d) gathers cin x kd x kh x kw values per
  // pixel for im2col, masked (conv_gemm.h's block_gather): taps win there
  // whatever the weights' size.
  const bool spans_depth = q.ker[1] > 1;
  return q.ker[2] * q.ker[3] > 1 && q.out[3] >= kMinTapsRowPixels &&
         (spans_depth || taps * p.out_channels <= kMaxTapsWeightFloats);
}

// Winograd's F(2x2) loses to taps on Zen 5 on output rows of 7 pixels or
// fewer (tiles past the map's edge, weights 16/9 the size): taps / F(2x2)
// time, one thread, warm weights, ReLU: 32 -> 128 at 7 x 7 0.81, 48 -> 192
// 0.91, 64 -> 256 0.93, 64 -> 128 at 5 x 5 0.60, 128 -> 128 at 6 x 6 0.81;
// at 8 x 8 and wider F(2x2) wins (64 -> 256 at 8 x 8: 1.20, 9 x 9 1.04,
// 10 x 10 1.44), and F(4x4) wins at 13 x 13 and wider. The width is the
// CPU kind's (ConvCosts::taps_over_f2_cols). The compiler takes taps over
// F(2x2) where this holds and conv_by_taps_pays.
inline bool conv_by_taps_beats_winograd_f2(const ConvParams &p, int64_t max_cols) {
  return p.spatial_rank == 2 && p.out_size[1] <= max_cols && conv_by_taps_pays(p);
}

// Scratch floats per task: the staged rows.
inline int64_t conv_to_lanes_scratch_floats(const ConvParams &p) {
  const ConvToLanesGeometry g = conv_to_lanes_geometry(p);
  return g.rows * g.row_w;
}

// Widest register tile's pixels (AVX-512's); the others' divide it.
constexpr int64_t kMaxToLanesPixels = 8;
static_assert(kMaxToLanesPixels % kToLanesPixels == 0, "rows of whole tiles on every target");

// Scratch floats per task of conv_to_lanes<false>: the staged rows and one
// output row of a group of blocks in lane layout, transposed from there: a
// tile's blocks, or, where a row ends in a partial tile on some target, a
// group of blocks its last pixels take at once (conv_to_lanes).
static_assert(kMaxLanesTileBlocks <= detail::kMaxLanesTailBlocks, "a tail's group is the widest");
inline int64_t conv_by_taps_scratch_floats(const ConvParams &p) {
  const int64_t row = detail::conv4(p).out[3]; // (the last spatial dim, 2-d or 3-d)
  const int64_t blocks =
      row % kMaxToLanesPixels ? detail::kMaxLanesTailBlocks : kMaxLanesTileBlocks;
  return conv_to_lanes_scratch_floats(p) + blocks * lanes::kLanes * row;
}

// y = conv(x (NCHW), w) + bias, then epi, in lane layout when kOutLanes
// (epi once per output row and block; a network's first conv feeding a
// depthwise conv: this beats im2col + GEMM, whose K = cin x kh x kw is
// short, 3 -> 64 channels 3x3 stride 2 at 224 x 224 544 -> 475 us), else
// NCHW: each output row of a tile's blocks is computed in lane layout in
// scratch and transposed into the planes (epi once per channel and band of
// output rows; worth it with many taps, conv_by_taps_pays; any number of
// input channels). `w` from
// pack_lane_weights with in_channels = cin x kh x kw (the ONNX weight's
// row); output rows are split over par.threads tasks. Scratch:
// conv_to_lanes_scratch_floats, conv_by_taps_scratch_floats for NCHW.
template <bool kOutLanes = true, class Epi>
void conv_to_lanes(const float *x, const float *w, const float *bias, float *y,
                   const ConvParams &p, const Epi &epi, float *scratch,
                   const Parallel &par = Parallel{}) {
  constexpr int64_t L = lanes::kLanes, R = kToLanesPixels, NB = kLanesTileBlocks;
  const detail::Conv4 q = detail::conv4(p);
  const ConvToLanesGeometry g = conv_to_lanes_geometry(p);
  const int64_t cin = p.in_channels, kd_n = q.ker[1], kh_n = q.ker[2], kw_n = q.ker[3];
  const int64_t taps = cin * kd_n * kh_n * kw_n, blocks = p.out_channels / L;
  const int64_t id_n = q.in[1], ih_n = q.in[2], iw_n = q.in[3];
  const int64_t oh_n = q.out[2], ow_n = q.out[3];
  // Output rows per image: (depth, row) pairs of a 3-d conv, else rows.
  const int64_t orows = q.out[1] * oh_n;
  const int64_t oplane = orows * ow_n, sw = q.st[3];
  const int64_t units = p.batch * orows;
  const int64_t work = p.batch * p.out_channels * taps * oplane;
  const int64_t tasks =
      par.parallel_for && work >= kMinParallelWork ? (par.threads < units ? par.threads : units)
                                                   : 1;
  float zero_bias[detail::kMaxLanesTailBlocks * L] = {};
  static_assert(NB <= detail::kMaxLanesTailBlocks, "zero_bias covers a tile's blocks");
  const LaneClip clip = lane_clip_of(epi);
  // NCHW output: the epilogue runs per channel on a band of whole output
  // rows (contiguous in the plane) of at least kLanesEpilogueStripe pixels,
  // where once per row and channel it ran on 14 pixels at a time (5.4 of 36
  // us for SqueezeNet 1.0's 16 -> 64 3x3 conv at 14 x 14, with a ReLU).
  const int64_t band_rows = (kLanesEpilogueStripe + ow_n - 1) / ow_n;
  run_tasks(par, tasks, [&](int64_t t) {
    float *staged = par.scratch_of(t, scratch);
    float *row_tile = staged + g.rows * g.row_w; // (NCHW output only)
    float *planes[L];
    const int64_t u0 = units * t / tasks, u1 = units * (t + 1) / tasks;
    int64_t band_start = u0; // (NCHW output: the first row not yet through epi)
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t b = u / orows, r = u % orows, od = r / oh_n, oh = r % oh_n;
      // Stage the input rows this output row reads, zero-padded: (c, kd,
      // kh) in the order of the weights' taps.
      float *row = staged;
      for (int64_t c = 0; c < cin; ++c)
        for (int64_t kd = 0; kd < kd_n; ++kd) {
          const int64_t id = od * q.st[1] + kd * q.dil[1] - q.pad[1];
          for (int64_t kh = 0; kh < kh_n; ++kh, row += g.row_w) {
            const int64_t ih = oh * q.st[2] + kh * q.dil[2] - q.pad[2];
            if (id < 0 || id >= id_n || ih < 0 || ih >= ih_n) {
              std::memset(row, 0, sizeof(float) * static_cast<size_t>(g.row_w));
              continue;
            }
            std::memset(row, 0, sizeof(float) * static_cast<size_t>(q.pad[3]));
            std::memcpy(row + q.pad[3], x + (b * cin + c) * q.in_ps + (id * ih_n + ih) * iw_n,
                        sizeof(float) * static_cast<size_t>(iw_n));
            std::memset(row + q.pad[3] + iw_n, 0,
                        sizeof(float) * static_cast<size_t>(g.row_w - q.pad[3] - iw_n));
          }
        }
      // Tap t = (c, kd, kh, kw) of output pixel ow reads staged row (c, kd,
      // kh) at ow * sw + kw * dw.
      auto taps_at = [&](int64_t ow) {
        return detail::StagedTaps{staged + ow * sw, 0, kw_n, q.dil[3], g.row_w};
      };
      float *yb = y + (b * blocks * oplane + r * ow_n) * L;
      // Where the tile's blocks go: the output (lane layout), or one row of
      // each block in row_tile (then transposed into the planes).
      const int64_t ystride = kOutLanes ? oplane * L : ow_n * L;
      // The row's pixels past its last whole tile, for a group of blocks at
      // once (detail::lanes_tail_blocks: SqueezeNet 1.0's 7x7 stem at
      // 64 x 64 has rows of 29 = 3 x 8 + 5 pixels, a KWS row of 10 is 8 + 2).
      const int64_t tail = ow_n % R, whole_end = ow_n - tail;
      for (int64_t ob = 0; ob < blocks;) {
        const int64_t gb = detail::lanes_next_group(tail, blocks - ob);
        const float *wg = w + ob * taps * L;
        const float *bg = bias ? bias + ob * L : zero_bias;
        float *yg = kOutLanes ? yb + ob * oplane * L : row_tile;
        for (int64_t k = 0; k < gb;) {
          const int64_t nb = lanes_tile_blocks(gb - k);
          const float *wb = wg + k * taps * L, *bb = bg + k * L;
          float *yo = yg + k * ystride;
          for (int64_t ow = 0; ow < whole_end; ow += R)
            if (sw == 2) // a stem's usual stride: constant offsets
              detail::to_lanes_tile_of<R, 2>(nb, taps_at(ow), sw, taps, wb, taps * L, bb,
                                             yo + ow * L, ystride, nullptr, clip);
            else
              detail::to_lanes_tile_of<R, 0>(nb, taps_at(ow), sw, taps, wb, taps * L, bb,
                                             yo + ow * L, ystride, nullptr, clip);
          k += nb;
        }
        const int64_t tplane = kOutLanes ? oplane : ow_n; // pixels between blocks
        if (tail && sw == 2) // constant offsets, as for the whole tiles
          detail::to_lanes_tail<R - 1, 2>(tail, taps_at, sw, whole_end, gb, taps, wg, bg, yg,
                                          tplane, clip);
        else if (tail)
          detail::to_lanes_tail<R - 1, 0>(tail, taps_at, sw, whole_end, gb, taps, wg, bg, yg,
                                          tplane, clip);
        for (int64_t k = 0; k < gb; ++k) {
          if constexpr (kOutLanes) {
            const int64_t at = ((b * blocks + ob + k) * oplane + r * ow_n) * L;
            if constexpr (!kClipsInTiles<Epi>) // (else clipped in the tiles)
              epi(y + at, at, detail::opaque(ow_n * L));
          } else {
            const int64_t c0 = (b * p.out_channels + (ob + k) * L) * oplane + r * ow_n;
            for (int64_t j = 0; j < L; ++j)
              planes[j] = y + c0 + j * oplane;
            lanes::scatter(row_tile + k * ystride, ow_n, planes, 0);
          }
        }
        ob += gb;
      }
      if constexpr (!kOutLanes) {
        // The band ends at band_rows rows, the task's last row or the
        // image's (the next image's rows are not in the same planes).
        if (u + 1 - band_start < band_rows && u + 1 < u1 && r + 1 < orows)
          continue;
        const int64_t first = band_start % orows, rows = u + 1 - band_start;
        if constexpr (!kClipsInTiles<Epi>) // (else clipped in the tiles)
          for (int64_t c = 0; c < p.out_channels; ++c) {
            const int64_t at = (b * p.out_channels + c) * oplane + first * ow_n;
            epi(y + at, at, detail::opaque(rows * ow_n));
          }
        band_start = u + 1;
      }
    }
  });
}

namespace detail {

// Input bytes up to which a split conv_pointwise_from_lanes reads a unit's
// input ahead of its tiles (warm_lines.h): within L2 on the CPUs tuned for
// (1 MB and more), so the tiles find it there.
constexpr int64_t kWarmLaneBytes = 384 * 1024;

} // namespace detail

// y (NCHW) = conv1x1(x (lane layout, in_channels % 16 == 0), w) + bias, then
// epi. `w` from pack_lane_weights (a partial last block of output channels
// is padded there and not stored here); `scratch`: from_lanes_scratch_floats
// per task.
template <class Epi>
void conv_pointwise_from_lanes(const float *x, const float *w, const float *bias, float *y,
                               const ConvParams &p, const Epi &epi, float *scratch,
                               const Parallel &par = Parallel{}) {
  constexpr int64_t L = lanes::kLanes, R = kFromLanesPixels;
  // y's planes out_ps floats apart: dense, or padded (ConvParams).
  const detail::Conv4 q = detail::conv4(p);
  const int64_t plane = q.out_plane, out_ps = q.out_ps, cin = p.in_channels;
  const int64_t cblocks = cin / L, oblocks = (p.out_channels + L - 1) / L;
  const detail::LanesSplit split =
      detail::lanes_split(par, p.batch * p.out_channels * cin * plane, p.batch, plane, q.out[3],
                          oblocks, true);
  static_assert(R * kLanesTileBlocks <= kMaxFromLanesTilePixels &&
                    2 * R <= kMaxFromLanesTilePixels &&
                    1 * detail::lanes_tail_blocks(1) <= kMaxFromLanesTilePixels &&
                    2 * detail::lanes_tail_blocks(2) <= kMaxFromLanesTilePixels &&
                    3 * detail::lanes_tail_blocks(3) <= kMaxFromLanesTilePixels &&
                    4 * detail::lanes_tail_blocks(4) <= kMaxFromLanesTilePixels,
                "a tile (whole or of the tail) fits from_lanes_scratch_floats");
  const LaneClip clip = lane_clip_of(epi);
  run_tasks(par, split.tasks, [&](int64_t t) {
    float *tile = par.scratch_of(t, scratch);
    float bias_blocks[detail::kMaxLanesTailBlocks * L];
    float *rows[kMaxLanesTileBlocks][L];
    for (int64_t u = split.units * t / split.tasks; u < split.units * (t + 1) / split.tasks;
         ++u) {
      const detail::LanesUnit e = detail::lanes_unit(split, u, plane, oblocks);
      const float *xb = x + e.b * cin * plane;
      if (split.tasks > 1 && (e.i1 - e.i0) * cin * 4 <= detail::kWarmLaneBytes)
        warm_lines(xb + e.i0 * L, cblocks, plane * L, (e.i1 - e.i0) * L);
      // Block ob's 16 output rows, or its bias, into `to` (zeros past the
      // output channels; those rows null).
      auto block_rows = [&](int64_t ob, float **to) {
        for (int64_t j = 0; j < L; ++j)
          to[j] = ob * L + j < p.out_channels ? y + (e.b * p.out_channels + ob * L + j) * out_ps
                                              : nullptr;
      };
      auto block_bias = [&](int64_t ob, float *to) {
        for (int64_t j = 0; j < L; ++j)
          to[j] = ob * L + j < p.out_channels && bias ? bias[ob * L + j] : 0.0f;
      };
      // Whole tiles (lanes_tile_blocks blocks at a time; a lone block's
      // tiles of 2R pixels while they fit); the pixels past them (a 7 x 7
      // map's last) for a group of blocks at once (detail::lanes_tail_blocks):
      // tiles of 4 pixels, then the last 1 to 3.
      const int64_t tail = (e.i1 - e.i0) % R, i_tail = e.i1 - tail;
      const int64_t group = tail ? detail::kMaxLanesTailBlocks : e.o1 - e.o0;
      for (int64_t o = e.o0; o < e.o1; o += group) {
        const int64_t g = e.o1 - o < group ? e.o1 - o : group;
        for (int64_t ob = o; ob < o + g;) {
          const int64_t nb = lanes_tile_blocks(o + g - ob);
          const float *wb = w + ob * cin * L;
          for (int64_t k = 0; k < nb; ++k) {
            block_bias(ob + k, bias_blocks + k * L);
            block_rows(ob + k, rows[k]);
          }
          // The next blocks' weights are fetched during the first tile
          // (as conv_pointwise_to_lanes does).
          const float *next = ob + nb + nb <= e.o1 ? wb + nb * cin * L : nullptr;
          for (int64_t i = e.i0; i < i_tail;) {
            const float *pf = i == e.i0 ? next : nullptr;
            if (nb == 1 && i + 2 * R <= i_tail) {
              detail::from_lanes_tile<2 * R>(xb + i * L, plane * L, cblocks, wb, 0, bias_blocks,
                                             tile, pf, clip);
              lanes::scatter(tile, 2 * R, rows[0], i);
              i += 2 * R;
              continue;
            }
            detail::from_lanes_tile_of<R>(nb, xb + i * L, plane * L, cblocks, wb, cin * L,
                                          bias_blocks, tile, pf, clip);
            for (int64_t k = 0; k < nb; ++k)
              lanes::scatter(tile + k * R * L, R, rows[k], i);
            i += R;
          }
          ob += nb;
        }
        if (!tail)
          continue;
        for (int64_t k = 0; k < g; ++k)
          block_bias(o + k, bias_blocks + k * L);
        for (int64_t i = i_tail; i < e.i1;) {
          const int64_t n = e.i1 - i >= 4 ? 4 : e.i1 - i;
          detail::from_lanes_tail<4>(n, xb + i * L, plane * L, cblocks, g, w + o * cin * L,
                                     cin * L, bias_blocks, tile,
                                     [&](int64_t k, const float *pixels) {
                                       block_rows(o + k, rows[0]);
                                       lanes::scatter(pixels, n, rows[0], i);
                                     },
                                     clip);
          i += n;
        }
      }
      if constexpr (!kClipsInTiles<Epi>) { // (else clipped in the tiles)
        const int64_t o1 = e.o1 * L < p.out_channels ? e.o1 * L : p.out_channels;
        for (int64_t o = e.o0 * L; o < o1; ++o) {
          const int64_t at = (e.b * p.out_channels + o) * out_ps + e.i0;
          epi(y + at, at, detail::opaque(e.i1 - e.i0));
        }
      }
    }
  });
}

} // namespace rt
} // namespace tract
