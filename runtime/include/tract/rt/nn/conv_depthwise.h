// tract runtime: f32 depthwise convolution (each output channel reads one
// input channel), 1-d and 2-d, with a fused epilogue.
//
// A depthwise conv has K = kernel taps per output (9 for 3x3): as a GEMM it
// would be all packing and no reuse, and per channel a small plane is mostly
// loop overhead. So channels are taken 16 at a time in lane layout
// (lane_transpose.h): one vector holds the 16 channels of one pixel and a
// tap is one FMA for all of them, whatever the stride, with no per-channel
// work. Input rows are transposed into a ring of zero-padded staged rows
// (each input row once, as the output rows reach it), each output row is
// computed a register block of pixels at a time, transposed back into the 16
// output planes, and the epilogue (gemm.h's contract) runs once per plane.
// This is ONNX Runtime's NCHWc idea kept local to one op: the transposes
// cost about one shuffle per float, against ~9 FMAs per output.
#pragma once

#include "tract/rt/elementwise/clip_in_place.h"
#include "tract/rt/linalg/gemm.h"
#include "tract/rt/nn/conv_ref.h"
#include "tract/rt/nn/lane_transpose.h"
#include "tract/rt/simd16.h"

#include <cstring>
#include <type_traits>

namespace tract {
namespace rt {

constexpr int64_t max_of(int64_t a, int64_t b) { return a < b ? b : a; }
constexpr int64_t min_of(int64_t a, int64_t b) { return a < b ? a : b; }

// Kernel rows one output row reads (an array on the stack).
constexpr int64_t kDepthwiseMaxKernelRows = 64;

// The shapes conv_depthwise handles: one input channel per group, at most two
// spatial dims (Conv4 puts them last).
inline bool conv_is_depthwise(const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  return p.groups > 1 && p.groups == p.in_channels && p.out_channels % p.groups == 0 &&
         q.ker[0] == 1 && q.ker[1] == 1 && q.out[0] == 1 && q.out[1] == 1 && q.in[0] == 1 &&
         q.in[1] == 1 && q.ker[2] <= kDepthwiseMaxKernelRows;
}

// Whether a depthwise conv can read or write lane layout (conv_lanes.h):
// 16-channel blocks map to 16-channel blocks.
inline bool conv_depthwise_lanes_fits(const ConvParams &p) {
  return conv_is_depthwise(p) && p.out_channels == p.in_channels && p.in_channels % 16 == 0;
}

// Whether the depthwise conv may write its output over its input (y == x,
// both in lane layout): output row oh is stored over input row oh only
// after the input rows it and the rows below it read from there are staged.
// That holds at stride 1 with the output the input's size and no more
// padding above than the kernel's reach below (a "same" conv), so its
// output rows and input rows line up. In place, tasks take whole 16-channel
// blocks of an image: another task's rows of the same block could overwrite
// input rows before this one staged them.
inline bool conv_depthwise_in_place_fits(const ConvParams &p) {
  if (!conv_depthwise_lanes_fits(p))
    return false;
  const detail::Conv4 q = detail::conv4(p);
  return q.st[2] == 1 && q.st[3] == 1 && q.out[2] == q.in[2] && q.out[3] == q.in[3] &&
         q.pad[2] <= (q.ker[2] - 1) * q.dil[2];
}

// Output pixels per register block: 8 vectors of 16 accumulators fit
// AVX-512's 32 registers with the weights; AVX and aarch64 NEON (a vector of
// 16 is two or four registers there) take 4, armv7 and scalar 2. Scratch is
// sized for the widest, so it does not depend on the ISA.
#if defined(__AVX512F__)
constexpr int64_t kDepthwiseBlock = 8;
#elif defined(__AVX__) || defined(__aarch64__)
constexpr int64_t kDepthwiseBlock = 4;
#else
constexpr int64_t kDepthwiseBlock = 2;
#endif
constexpr int64_t kDepthwiseMaxBlock = 8;
// Floats per channel the epilogue is run on at once: 16 channels of it stay
// in L1/L2.
constexpr int64_t kDepthwiseEpilogueStripe = 512;

struct DepthwiseGeometry {
  int64_t row_w;     // pixels per staged row: left padding, the input row, slack
  int64_t ring_rows; // staged rows kept: the rows one output row reads
  int64_t out_w;     // output row pixels, rounded up to a register block
};

inline DepthwiseGeometry depthwise_geometry(const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  DepthwiseGeometry g;
  g.out_w = (q.out[3] + kDepthwiseMaxBlock - 1) / kDepthwiseMaxBlock * kDepthwiseMaxBlock;
  // The last block reads up to its last pixel's last tap (outputs past the
  // row are computed from zeros and never stored).
  g.row_w = max_of(q.pad[3] + q.in[3], (g.out_w - 1) * q.st[3] + (q.ker[3] - 1) * q.dil[3] + 1);
  g.ring_rows = (q.ker[2] - 1) * q.dil[2] + 1;
  return g;
}

// Scratch floats conv_depthwise_rows needs: the lane-layout weights and
// bias, the ring of staged rows plus one zero row, one output row.
inline int64_t depthwise_rows_scratch_floats(const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  const DepthwiseGeometry g = depthwise_geometry(p);
  return lanes::kLanes * (q.ker_vol + 1 + g.row_w * (g.ring_rows + 1) + g.out_w);
}

// Split by rows in place (Parallel::by_rows, y == x), a task's first
// output rows read input rows above its own, and its last ones rows below,
// which the neighbouring tasks overwrite: each task first copies those halo
// rows (every block's, (kh - 1) x dil rows of iw x 16 floats) into its
// scratch, in a job of their own, before any task writes. Where that takes
// more than kMaxDepthwiseHaloFloats (large maps, whose models do not run by
// rows), an in-place conv splits by blocks instead.
constexpr int64_t kMaxDepthwiseHaloFloats = 8192;

inline int64_t depthwise_halo_floats(const ConvParams &p) {
  if (!conv_depthwise_in_place_fits(p))
    return 0;
  const detail::Conv4 q = detail::conv4(p);
  const int64_t floats = p.in_channels * (q.ker[2] - 1) * q.dil[2] * q.in[3];
  return floats <= kMaxDepthwiseHaloFloats ? floats : 0;
}

// Scratch floats conv_depthwise needs (per task): conv_depthwise_rows's and
// the halo rows of an in-place split by rows.
inline int64_t depthwise_scratch_floats(const ConvParams &p) {
  return depthwise_rows_scratch_floats(p) + depthwise_halo_floats(p);
}

namespace detail {

#if defined(__GNUC__)
// Outputs [ow0, ow0 + B) of one row in lane layout, B accumulators (F16:
// the target's own registers, simd16.h).
template <int64_t B>
inline void depthwise_lane_block(const float *const *rows, const Conv4 &q, const float *w,
                                 const float *bias, float *out, int64_t ow0,
                                 const LaneClip &clip) {
  const int64_t step = q.st[3] * lanes::kLanes, tap_step = q.dil[3] * lanes::kLanes;
  F16 acc[B];
  acc[0] = F16::load(bias);
#pragma GCC unroll 8
  for (int64_t j = 1; j < B; ++j)
    acc[j] = acc[0];
  const float *wt = w;
  for (int64_t kh = 0; kh < q.ker[2]; ++kh) {
    const float *r = rows[kh] + ow0 * step;
    for (int64_t kw = 0; kw < q.ker[3]; ++kw, wt += lanes::kLanes, r += tap_step) {
      const F16 wv = F16::load(wt);
#pragma GCC unroll 8
      for (int64_t j = 0; j < B; ++j)
        acc[j] += wv * F16::load(r + j * step);
    }
  }
#pragma GCC unroll 8
  for (int64_t j = 0; j < B; ++j)
    clip(acc[j]).store(out + (ow0 + j) * lanes::kLanes);
}
#endif

#if defined(__AVX512F__)
// depthwise_lane_block for a K x K kernel at stride 1, dilation 1: each
// kernel row's B + K - 1 input vectors are loaded once and each feeds its K
// taps from registers (a 3x3 block of 8 pixels: 30 loads, not 72).
// (AVX-512 only: a vector of 16 is one register there; elsewhere the inputs
// and accumulators would not fit the registers.)
template <int64_t B, int64_t K>
inline void depthwise_lane_block_s1(const float *const *rows, const float *w,
                                    const float *bias, float *out, int64_t ow0,
                                    const LaneClip &clip) {
  constexpr int64_t KW = K;
  typedef float v16 __attribute__((vector_size(64)));
  constexpr int64_t L = lanes::kLanes;
  v16 acc[B];
  std::memcpy(&acc[0], bias, sizeof acc[0]);
  for (int64_t j = 1; j < B; ++j)
    acc[j] = acc[0];
  const float *wt = w;
#pragma GCC unroll 8
  for (int64_t kh = 0; kh < K; ++kh, wt += KW * L) {
    const float *r = rows[kh] + ow0 * L;
    v16 in[B + KW - 1];
    for (int64_t i = 0; i < B + KW - 1; ++i)
      std::memcpy(&in[i], r + i * L, sizeof in[i]);
    for (int64_t kw = 0; kw < KW; ++kw) {
      v16 wv;
      std::memcpy(&wv, wt + kw * L, sizeof wv);
      for (int64_t j = 0; j < B; ++j)
        acc[j] += wv * in[j + kw];
    }
  }
  for (int64_t j = 0; j < B; ++j) {
    F16 v; // (one part on AVX-512)
    v.part[0] = acc[j];
    clip(v).store(out + (ow0 + j) * L);
  }
}
#endif

// Calls block(std::integral_constant<int64_t, rest>) for 0 < rest <= B: a
// row's last block is exactly as wide as what is left of it, so it pays no
// FMAs for pixels past the row and stores nothing past it.
template <int64_t B, class Block> inline void depthwise_rest_block(int64_t rest, const Block &block) {
  if constexpr (B > 0) {
    if (rest == B)
      block(std::integral_constant<int64_t, B>{});
    else
      depthwise_rest_block<B - 1>(rest, block);
  }
}

// One output row in lane layout: out[ow * 16 + c] = bias[c] + sum over taps
// of w[t * 16 + c] * rows[kh][(ow * sw + kw * dw) * 16 + c], for ow < ow_n;
// nothing past out[ow_n * 16] is written (the rows have room for a row
// rounded up to kDepthwiseMaxBlock).
inline void depthwise_lane_row(const float *const *rows, const Conv4 &q, const float *w,
                               const float *bias, float *out, int64_t ow_n,
                               const LaneClip &clip) {
#if defined(__GNUC__)
  int64_t ow0 = 0;
#if defined(__AVX512F__)
  if (q.st[3] == 1 && q.dil[3] == 1 && q.ker[2] == q.ker[3] &&
      (q.ker[3] == 3 || q.ker[3] == 5)) {
    auto block = [&](auto width) {
      if (q.ker[3] == 3)
        depthwise_lane_block_s1<decltype(width)::value, 3>(rows, w, bias, out, ow0, clip);
      else
        depthwise_lane_block_s1<decltype(width)::value, 5>(rows, w, bias, out, ow0, clip);
    };
    for (; ow0 + kDepthwiseBlock <= ow_n; ow0 += kDepthwiseBlock)
      block(std::integral_constant<int64_t, kDepthwiseBlock>{});
    depthwise_rest_block<kDepthwiseBlock - 1>(ow_n - ow0, block);
    return;
  }
#endif
  auto block = [&](auto width) {
    depthwise_lane_block<decltype(width)::value>(rows, q, w, bias, out, ow0, clip);
  };
  for (; ow0 + kDepthwiseBlock <= ow_n; ow0 += kDepthwiseBlock)
    block(std::integral_constant<int64_t, kDepthwiseBlock>{});
  depthwise_rest_block<kDepthwiseBlock - 1>(ow_n - ow0, block);
#else
  const int64_t step = q.st[3] * lanes::kLanes, tap_step = q.dil[3] * lanes::kLanes;
  for (int64_t ow = 0; ow < ow_n; ++ow) {
    float *o = out + ow * lanes::kLanes;
    for (int64_t c = 0; c < lanes::kLanes; ++c)
      o[c] = bias[c];
    const float *wt = w;
    for (int64_t kh = 0; kh < q.ker[2]; ++kh)
      for (int64_t kw = 0; kw < q.ker[3]; ++kw, wt += lanes::kLanes) {
        const float *s = rows[kh] + ow * step + kw * tap_step;
        for (int64_t c = 0; c < lanes::kLanes; ++c)
          o[c] += wt[c] * s[c];
      }
    if (clip.on)
      clip_in_place(o, lanes::kLanes, clip.lo, clip.hi);
  }
#endif
}

} // namespace detail

// Output rows are numbered across 16-channel blocks and images: row r is
// output row r % oh of image r / oh % batch in block r / (oh * batch). A
// kernel split over tasks gives each a contiguous range of them, so an odd
// number of blocks still splits evenly (a block cut in two stages the input
// rows both halves read twice, a few rows of its plane).
inline int64_t depthwise_row_count(const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  return (p.out_channels + lanes::kLanes - 1) / lanes::kLanes * p.batch * q.out[2];
}

// Output rows [r0, r1) (depthwise_row_count's numbering), with `scratch`
// its own. `stage(b, o0, ih, staged)` writes input row ih of image b's
// channels [o0, o0 + 16) in lane layout to `staged` (iw x 16 floats; the
// ring's padding around it stays zero). kOutLanes: y in lane layout
// (NCHW16c, conv_lanes.h; channels % 16 == 0, multiplier 1), whose rows are
// stored as they are instead of transposed.
template <bool kOutLanes, class Stage, class Epi>
void conv_depthwise_rows(const float *w, const float *bias, float *y, const ConvParams &p,
                         const Stage &stage, const Epi &epi, float *scratch, int64_t r0,
                         int64_t r1) {
  constexpr int64_t L = lanes::kLanes;
  const detail::Conv4 q = detail::conv4(p);
  const DepthwiseGeometry g = depthwise_geometry(p);
  const int64_t taps = q.ker_vol;
  const int64_t ih_n = q.in[2], oh_n = q.out[2], ow_n = q.out[3];
  float *wt = scratch;            // taps x 16
  float *bt = wt + taps * L;      // 16
  float *ring = bt + L;           // ring_rows x row_w x 16
  float *zero_row = ring + g.ring_rows * g.row_w * L;
  float *out_row = zero_row + g.row_w * L;
  // Staged rows only ever get their interior written: padding stays zero.
  for (float *f = ring; f < out_row; ++f)
    *f = 0.0f;
  float *out_planes[L];
  const float *w_rows[L];
  const float *rows[kDepthwiseMaxKernelRows];
  const LaneClip clip = lane_clip_of(epi);
  const int64_t block_rows = p.batch * oh_n;
  for (int64_t ob = r0 / block_rows; ob * block_rows < r1; ++ob) {
    const int64_t o0 = ob * L, nc = min_of(L, p.out_channels - o0);
    for (int64_t c = 0; c < L; ++c) {
      w_rows[c] = c < nc ? w + (o0 + c) * taps : nullptr;
      bt[c] = c < nc && bias ? bias[o0 + c] : 0.0f;
    }
    lanes::gather(w_rows, 0, taps, wt);
    for (int64_t b = 0; b < p.batch; ++b) {
      const int64_t first = (ob * p.batch + b) * oh_n;
      const int64_t oh0 = max_of(r0 - first, 0), oh1 = min_of(r1 - first, oh_n);
      if (oh0 >= oh1)
        continue;
      for (int64_t c = 0; c < L; ++c)
        out_planes[c] = c < nc ? y + (b * p.out_channels + o0 + c) * q.out_plane : nullptr;
      int64_t next_row = 0;   // input rows before this one are staged or not needed
      int64_t epi_row = oh0;  // output rows before this one have had the epilogue
      for (int64_t oh = oh0; oh < oh1; ++oh) {
        const int64_t top = oh * q.st[2] - q.pad[2];
        const int64_t last = min_of(top + g.ring_rows - 1, ih_n - 1);
        for (int64_t ih = max_of(max_of(next_row, top), 0); ih <= last; ++ih)
          stage(b, o0, ih, ring + ((ih % g.ring_rows) * g.row_w + q.pad[3]) * L);
        next_row = max_of(next_row, last + 1);
        for (int64_t kh = 0; kh < q.ker[2]; ++kh) {
          const int64_t ih = top + kh * q.dil[2];
          rows[kh] = ih >= 0 && ih < ih_n ? ring + (ih % g.ring_rows) * g.row_w * L : zero_row;
        }
        // (In lane layout, 16 channels' rows are one contiguous run.)
        const int64_t lanes_row0 = (b * p.out_channels + o0) * q.out_plane;
        // In lane layout the row is stored in place (the row kernel writes
        // nothing past it); else it is transposed into the 16 planes.
        if (kOutLanes)
          detail::depthwise_lane_row(rows, q, wt, bt, y + lanes_row0 + oh * ow_n * L, ow_n,
                                     clip);
        else {
          detail::depthwise_lane_row(rows, q, wt, bt, out_row, ow_n, clip);
          lanes::scatter(out_row, ow_n, out_planes, oh * ow_n);
        }
        // The epilogue runs on stripes of rows while they are in cache
        // (a whole plane at once when it is small; a Clip's ran in the
        // row's registers).
        if constexpr (kClipsInTiles<Epi>)
          continue;
        if ((oh + 1 - epi_row) * ow_n >= kDepthwiseEpilogueStripe || oh + 1 == oh1) {
          const int64_t count = (oh + 1 - epi_row) * ow_n;
          if (kOutLanes) {
            const int64_t y0 = lanes_row0 + epi_row * ow_n * L;
            epi(y + y0, y0, gemm::opaque(count * L));
          } else
            for (int64_t c = 0; c < nc; ++c) {
              const int64_t y0 = (b * p.out_channels + o0 + c) * q.out_plane + epi_row * ow_n;
              epi(y + y0, y0, gemm::opaque(count));
            }
          epi_row = oh + 1;
        }
      }
    }
  }
}

// conv_depthwise_rows staging x's rows: kInLanes, x in lane layout (one
// plain copy per row), else NCHW (16 rows transposed). `halo`: where an
// in-place split by rows copied the `above` input rows before the task's
// own rows [r0, r1) of each block and the rows after them
// (depthwise_halo_floats); its rows are null otherwise.
struct DepthwiseHalo {
  float *rows = nullptr; // per block: `above` rows, then the rows below
  int64_t r0 = 0, r1 = 0, above = 0, per_block = 0;
};

template <bool kInLanes, bool kOutLanes, class Epi>
void conv_depthwise_channels(const float *x, const float *w, const float *bias, float *y,
                             const ConvParams &p, const Epi &epi, float *scratch, int64_t r0,
                             int64_t r1, const DepthwiseHalo &halo = DepthwiseHalo{}) {
  constexpr int64_t L = lanes::kLanes;
  const detail::Conv4 q = detail::conv4(p);
  const int64_t multiplier = p.out_channels / p.groups, iw_n = q.in[3];
  auto stage = [&](int64_t b, int64_t o0, int64_t ih, float *staged) {
    if (kInLanes) {
      const float *from = x + (b * p.in_channels + o0) * q.in_plane + ih * iw_n * L;
      if (halo.rows && (ih < halo.r0 || ih >= halo.r1)) {
        const int64_t slot = ih < halo.r0 ? ih - (halo.r0 - halo.above)
                                          : halo.above + ih - halo.r1;
        from = halo.rows + ((o0 / L) * halo.per_block + slot) * iw_n * L;
      }
      std::memcpy(staged, from, sizeof(float) * static_cast<size_t>(iw_n * L));
      return;
    }
    const float *in_rows[L];
    for (int64_t c = 0; c < L; ++c)
      in_rows[c] = o0 + c < p.out_channels
                       ? x + (b * p.in_channels + (o0 + c) / multiplier) * q.in_plane
                       : nullptr;
    lanes::gather(in_rows, ih * iw_n, iw_n, staged);
  };
  conv_depthwise_rows<kOutLanes>(w, bias, y, p, stage, epi, scratch, r0, r1);
}

namespace detail {

// conv_depthwise split by rows (Parallel::by_rows, one image): task t of
// `tasks` computes output rows row_share(t) ... of every block. In place,
// a first job copies each task's halo rows (depthwise_halo_floats).
template <bool kInLanes, bool kOutLanes, class Epi>
void conv_depthwise_by_rows(const float *x, const float *w, const float *bias, float *y,
                            const ConvParams &p, const Epi &epi, float *scratch,
                            const Parallel &par, int64_t tasks) {
  constexpr int64_t L = lanes::kLanes;
  const Conv4 q = conv4(p);
  const int64_t oh_n = q.out[2], blocks = depthwise_row_count(p) / oh_n;
  const bool in_place = x == y;
  // In place, output row oh reads input rows oh - pad ... oh - pad +
  // (kh - 1) x dil: `above` rows above its own, `below` below.
  const int64_t above = q.pad[2], below = (q.ker[2] - 1) * q.dil[2] - q.pad[2];
  auto halo_of = [&](int64_t t) {
    DepthwiseHalo h;
    if (!in_place)
      return h;
    h.rows = par.scratch_of(t, scratch) + depthwise_rows_scratch_floats(p);
    h.r0 = row_share(t, tasks, oh_n);
    h.r1 = row_share(t + 1, tasks, oh_n);
    h.above = above;
    h.per_block = above + below;
    return h;
  };
  if (in_place)
    run_tasks(par, tasks, [&](int64_t t) {
      const DepthwiseHalo h = halo_of(t);
      const int64_t row_floats = q.in[3] * L;
      for (int64_t ob = 0; ob < blocks; ++ob) {
        const float *plane = x + ob * L * q.in_plane;
        float *to = h.rows + ob * h.per_block * row_floats;
        for (int64_t ih = max_of(h.r0 - above, 0); ih < h.r0; ++ih)
          std::memcpy(to + (ih - (h.r0 - above)) * row_floats, plane + ih * row_floats,
                      sizeof(float) * static_cast<size_t>(row_floats));
        for (int64_t ih = h.r1; ih < min_of(h.r1 + below, q.in[2]); ++ih)
          std::memcpy(to + (above + ih - h.r1) * row_floats, plane + ih * row_floats,
                      sizeof(float) * static_cast<size_t>(row_floats));
      }
    });
  run_tasks(par, tasks, [&](int64_t t) {
    const DepthwiseHalo h = halo_of(t);
    const int64_t r0 = row_share(t, tasks, oh_n), r1 = row_share(t + 1, tasks, oh_n);
    for (int64_t ob = 0; ob < blocks; ++ob)
      conv_depthwise_channels<kInLanes, kOutLanes>(x, w, bias, y, p, epi,
                                                   par.scratch_of(t, scratch), ob * oh_n + r0,
                                                   ob * oh_n + r1, h);
  });
}

} // namespace detail

// Output rows (depthwise_row_count) are split over par.threads tasks, each
// with its own scratch (par.scratch_of). kInLanes / kOutLanes as for
// conv_depthwise_channels (conv_depthwise_lanes_fits). y may be x when
// both are in lane layout and conv_depthwise_in_place_fits: then tasks
// split whole blocks of each image. With Parallel::by_rows and one image,
// tasks split the rows of every block instead (in place too, where
// depthwise_halo_floats has room for the halo rows).
template <bool kInLanes = false, bool kOutLanes = false, class Epi>
void conv_depthwise(const float *x, const float *w, const float *bias, float *y,
                    const ConvParams &p, const Epi &epi, float *scratch,
                    const Parallel &par = Parallel{}) {
  const detail::Conv4 q = detail::conv4(p);
  // Work in GEMM-equivalent multiply-adds: the transposes and the short
  // tap loops make a depthwise FMA cost about four of a GEMM's, and a conv
  // left on one thread between split ones also pays for reading the other
  // core's half of its input (KWS at 2 threads: 0.083 -> 0.067 ms split).
  const int64_t work = 4 * p.batch * p.out_channels * q.out_plane * q.ker_vol;
  const int64_t rows = depthwise_row_count(p);
  const bool split = par.parallel_for && work >= kMinParallelWork;
  if (split && par.by_rows && p.batch == 1 && q.out[2] > 1 &&
      (x != y || depthwise_halo_floats(p) > 0))
    return detail::conv_depthwise_by_rows<kInLanes, kOutLanes>(x, w, bias, y, p, epi, scratch,
                                                               par, min_of(par.threads, q.out[2]));
  // Tasks take `unit` rows at a time: one in general, a whole block of an
  // image in place.
  const int64_t unit = kInLanes && kOutLanes && x == y ? q.out[2] : 1, units = rows / unit;
  const int64_t tasks = split ? min_of(par.threads, units) : 1;
  run_tasks(par, tasks, [&](int64_t t) {
    conv_depthwise_channels<kInLanes, kOutLanes>(x, w, bias, y, p, epi, par.scratch_of(t, scratch),
                                                 units * t / tasks * unit,
                                                 units * (t + 1) / tasks * unit);
  });
}

} // namespace rt
} // namespace tract
