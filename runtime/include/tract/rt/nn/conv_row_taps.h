// tract runtime: f32 convs with few input channels (a network's first conv,
// an audio model's first layer) computed with output pixels in vector lanes,
// tap by tap, straight into the NCHW planes.
//
// With 3 input channels, im2col's K is 27 for a 3x3 kernel: the GEMM's tiles
// are short, and gathering the taps (every other pixel at stride 2) costs as
// much as multiplying them. Here each output row's input rows are staged
// once, split by column phase (stride 2: the even columns, then the odd
// ones), so that for every tap the 16 outputs of a vector read 16
// consecutive staged floats. A register tile is kRowTapsChannels output
// channels x kRowTapsVectors vectors of 16 pixels of one output row: per tap
// it loads the vectors and broadcasts one weight per channel from the ONNX
// weight tensor as it is ([cout][cin][kh][kw]: no packing). The bias is
// added after the taps, as the GEMM does: with the taps' FMAs in the same
// order, the outputs are those of im2col + GEMM bit for bit (up to 512 taps,
// one K block), so a detector's NMS keeps its ties where it did (SSDlite's
// boxes moved when the bias started the sum). The epilogue runs on each
// output row of each channel while it is in L1.
#pragma once

#include "tract/rt/common.h"
#include "tract/rt/elementwise/clip_in_place.h"
#include "tract/rt/nn/conv_ref.h"
#include "tract/rt/linalg/gemm_microkernels.h" // (immintrin.h where AVX-512 is on)
#include "tract/rt/nn/conv_lanes.h"
#include "tract/rt/parallel.h"
#include "tract/rt/simd16.h"

#include <cstring>
#include <type_traits>

namespace tract {
namespace rt {

// Register tile: output channels x vectors of 16 pixels. AVX-512 holds 4 x 4
// accumulators in 16 of its 32 registers (a vector of 16 is one register);
// a vector is two registers on AVX, four on NEON.
#if defined(__AVX512F__)
constexpr int64_t kRowTapsChannels = 4, kRowTapsVectors = 4;
#elif defined(__AVX__) || defined(__aarch64__)
constexpr int64_t kRowTapsChannels = 4, kRowTapsVectors = 1;
#else
constexpr int64_t kRowTapsChannels = 2, kRowTapsVectors = 1;
#endif
constexpr int64_t kRowTapsLanes = 16;

// Largest input channel count and tap count (cin x kh x kw) taken: the tap
// table lives on the stack, and with many channels im2col's K is long
// enough for the GEMM.
constexpr int64_t kMaxRowTapsInChannels = 8;
constexpr int64_t kMaxRowTaps = 1024;

struct RowTapsGeometry {
  int64_t phases;  // the stride along a row: one staged row per column phase
  int64_t phase_w; // floats per staged phase row (whole vectors of outputs, the taps' reach)
  int64_t span;    // input rows one output row reads: (kh - 1) x dilation + 1
  int64_t rows;    // staged input rows: cin x span, a ring per input channel
};

inline RowTapsGeometry row_taps_geometry(const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  const int64_t vectors = (q.out[3] + kRowTapsLanes - 1) / kRowTapsLanes;
  const int64_t reach = (q.ker[3] - 1) * q.dil[3] / q.st[3];
  const int64_t span = (q.ker[2] - 1) * q.dil[2] + 1;
  const int64_t groups = p.groups > 1 ? p.groups : 1;
  return {q.st[3], vectors * kRowTapsLanes + reach + 1, span, p.in_channels / groups * span};
}

// Whether conv_row_taps takes the conv: a 1-d or 2-d conv with few input
// channels (per group: ResNeXt's 32 groups of 4 channels) and output rows of
// a vector or more. Not depthwise convs (one input channel per group), which
// conv_depthwise takes 16 channels at a time.
inline bool conv_row_taps_fits(const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  const int64_t groups = p.groups > 1 ? p.groups : 1, cg = p.in_channels / groups;
  return p.spatial_rank >= 1 && p.spatial_rank <= 2 && p.in_channels % groups == 0 &&
         p.out_channels % groups == 0 && (groups == 1 || cg >= 2) &&
         cg <= kMaxRowTapsInChannels && cg * q.ker[2] * q.ker[3] <= kMaxRowTaps &&
         q.out[3] >= kRowTapsLanes;
}

// Whether conv_row_taps beats the other kernels on a conv it fits: always
// against im2col (3 -> 64 channels, 3x3 stride 2 at 224 x 224: 370 -> 300
// us; 7x7: 1.7 -> 1.3 ms); against taps into 16-channel tiles
// (conv_by_taps) on output rows of 64 pixels or more, where few of the
// vectors' lanes are left empty (ResNet's stem, rows of 112: 1.42 -> 1.32
// ms; 8 -> 32 channels 3x3 at 56 x 56: 94 -> 100 us). Measured on a
// Sapphire Rapids class Xeon, one thread.
constexpr int64_t kMinRowTapsColsOverTiles = 64;

inline bool conv_row_taps_pays(const ConvParams &p) {
  return conv_row_taps_fits(p) &&
         (!conv_by_taps_pays(p) || detail::conv4(p).out[3] >= kMinRowTapsColsOverTiles);
}

// Scratch floats per task: the staged phase rows of one output row's span.
inline int64_t conv_row_taps_scratch_floats(const ConvParams &p) {
  const RowTapsGeometry g = row_taps_geometry(p);
  return g.rows * g.phases * g.phase_w;
}

namespace detail {

#if defined(__AVX512F__)
// (As the generic version below, with the tile's input vectors held in
// registers: from vector types GCC 12 folded each load into every FMA that
// used it, C loads per vector, and the tile ran at the load ports' pace.)
template <int64_t C, int64_t V>
TRACT_NOINLINE void row_taps_tile(const float *x, const int32_t *offset, int64_t taps,
                                  const float *w, const float *bias, float *y, int64_t plane,
                                  int64_t cols, const LaneClip &clip) {
  __m512 acc[C][V];
  TRACT_UNROLL(16)
  for (int64_t c = 0; c < C; ++c)
    for (int64_t v = 0; v < V; ++v)
      acc[c][v] = _mm512_setzero_ps();
  for (int64_t t = 0; t < taps; ++t) {
    const float *xt = x + offset[t];
    __m512 xv[V];
    TRACT_UNROLL(8)
    for (int64_t v = 0; v < V; ++v)
      xv[v] = _mm512_loadu_ps(xt + v * kRowTapsLanes);
    TRACT_UNROLL(16)
    for (int64_t c = 0; c < C; ++c) {
      const __m512 wc = _mm512_set1_ps(w[c * taps + t]);
      TRACT_UNROLL(8)
      for (int64_t v = 0; v < V; ++v)
        acc[c][v] = _mm512_fmadd_ps(wc, xv[v], acc[c][v]);
    }
  }
  TRACT_UNROLL(16)
  for (int64_t c = 0; c < C; ++c)
    for (int64_t v = 0; v < V; ++v) {
      if (bias)
        acc[c][v] = _mm512_add_ps(acc[c][v], _mm512_set1_ps(bias[c]));
      if (clip.on) // (clip16's step: the same floats as the ClipEpilogue pass)
        acc[c][v] = clip512(acc[c][v], clip.lo, clip.hi);
      const int64_t n = cols - v * kRowTapsLanes;
      if (n >= kRowTapsLanes)
        _mm512_storeu_ps(y + c * plane + v * kRowTapsLanes, acc[c][v]);
      else if (n > 0)
        _mm512_mask_storeu_ps(y + c * plane + v * kRowTapsLanes,
                              static_cast<__mmask16>((1u << n) - 1), acc[c][v]);
    }
}
#elif defined(__GNUC__)
// C channels x V vectors of one output row: y[c][v] = bias[c] + sum over taps
// t of w[c * taps + t] * staged[offset[t] + 16 v] (x: the tile's first
// output's staged position). `cols` outputs of the row from the tile's
// first are stored (the last vector may be partial). Vectors of 16 as F16,
// the target's own registers (simd16.h).
template <int64_t C, int64_t V>
TRACT_NOINLINE void row_taps_tile(const float *x, const int32_t *offset, int64_t taps,
                                  const float *w, const float *bias, float *y, int64_t plane,
                                  int64_t cols, const LaneClip &clip) {
  F16 acc[C][V];
  TRACT_UNROLL(16)
  for (int64_t c = 0; c < C; ++c)
    TRACT_UNROLL(8)
    for (int64_t v = 0; v < V; ++v)
      acc[c][v] = F16::splat(0.0f);
  for (int64_t t = 0; t < taps; ++t) {
    const float *xt = x + offset[t];
    F16 xv[V];
    TRACT_UNROLL(8)
    for (int64_t v = 0; v < V; ++v)
      xv[v] = F16::load(xt + v * kRowTapsLanes);
    TRACT_UNROLL(16)
    for (int64_t c = 0; c < C; ++c)
      TRACT_UNROLL(8)
      for (int64_t v = 0; v < V; ++v)
        acc[c][v] += w[c * taps + t] * xv[v];
  }
  TRACT_UNROLL(16)
  for (int64_t c = 0; c < C; ++c)
    TRACT_UNROLL(8)
    for (int64_t v = 0; v < V; ++v) {
      if (bias)
        acc[c][v] += F16::splat(bias[c]);
      acc[c][v] = clip(acc[c][v]);
      const int64_t n = cols - v * kRowTapsLanes;
      if (n >= kRowTapsLanes) {
        acc[c][v].store(y + c * plane + v * kRowTapsLanes);
      } else if (n > 0) {
        float part[kRowTapsLanes];
        acc[c][v].store(part);
        std::memcpy(y + c * plane + v * kRowTapsLanes, part,
                    sizeof(float) * static_cast<size_t>(n));
      }
    }
}
#else
template <int64_t C, int64_t V>
TRACT_NOINLINE void row_taps_tile(const float *x, const int32_t *offset, int64_t taps,
                                  const float *w, const float *bias, float *y, int64_t plane,
                                  int64_t cols, const LaneClip &clip) {
  const op::Clip<float> clamp{clip.lo, clip.hi};
  for (int64_t c = 0; c < C; ++c)
    for (int64_t i = 0; i < V * kRowTapsLanes && i < cols; ++i) {
      float acc = 0.0f;
      for (int64_t t = 0; t < taps; ++t)
        acc += w[c * taps + t] * x[offset[t] + i];
      acc = bias ? acc + bias[c] : acc;
      y[c * plane + i] = clip.on ? clamp(acc) : acc;
    }
}
#endif

// One output row's operands: the staged input, the tap table, the weights
// and bias, the row in channel 0's plane (planes `plane` apart).
struct RowTapsRow {
  const float *staged;
  const int32_t *offset;
  int64_t taps;
  const float *w, *bias;
  float *y;
  int64_t plane, cols, channels;
  LaneClip clip; // applied in the tiles' registers before their store
};

constexpr int64_t pow2_at_most(int64_t n) { return n >= 2 ? 2 * pow2_at_most(n / 2) : 1; }

// Channels from c0 in tiles of C x V over vectors [v0, v1) of the row, the
// channels left in tiles of C / 2, C / 4, ... (24 channels at C = 16: one
// tile of 16, one of 8).
template <int64_t C, int64_t V>
inline void row_taps_tiles(const RowTapsRow &r, int64_t c0, int64_t v0, int64_t v1) {
  constexpr int64_t L = kRowTapsLanes;
  int64_t co = c0;
  for (; co + C <= r.channels; co += C)
    for (int64_t v = v0; v + V <= v1; v += V)
      row_taps_tile<C, V>(r.staged + v * L, r.offset, r.taps, r.w + co * r.taps,
                          r.bias ? r.bias + co : nullptr, r.y + co * r.plane + v * L, r.plane,
                          r.cols - v * L, r.clip);
  if constexpr (C > 1)
    if (co < r.channels)
      row_taps_tiles<C / 2, V>(r, co, v0, v1);
}

// dst[j] = src[first + j * s] for j in [0, n), zero where that is outside
// [0, iw_n): the zeros, then a strided copy (strides 1 and 2 as constants,
// which the compiler vectorises), then the zeros past the row.
inline void stage_phase(const float *src, int64_t iw_n, int64_t first, int64_t s, float *dst,
                        int64_t n) {
  const int64_t lo = first >= 0 ? 0 : (-first + s - 1) / s;
  int64_t hi = first >= iw_n ? 0 : (iw_n - first + s - 1) / s;
  hi = hi < n ? hi : n;
  const int64_t start = lo < hi ? lo : hi;
  for (int64_t j = 0; j < start; ++j)
    dst[j] = 0.0f;
  const float *from = src + first + start * s;
  if (s == 1)
    std::memcpy(dst + start, from, sizeof(float) * static_cast<size_t>(hi - start));
  else if (s == 2)
    for (int64_t j = start; j < hi; ++j, from += 2)
      dst[j] = *from;
  else
    for (int64_t j = start; j < hi; ++j, from += s)
      dst[j] = *from;
  for (int64_t j = hi; j < n; ++j)
    dst[j] = 0.0f;
}

} // namespace detail

namespace detail {

// One task's output rows, computed one at a time (all output channels of
// the row) into any destination, its epilogue left to the caller:
// conv_row_taps writes the NCHW planes, conv_row_taps_max_pool a ring of
// rows that its pool reads. `staged` is the task's scratch
// (conv_row_taps_scratch_floats). Output rows come in increasing order per
// image (rows skipped are never staged).
class RowTapsRows {
public:
  // p: one group's conv (groups = 1); image_channels: the channels of a
  // whole input image x is part of (x is the group's first channel).
  RowTapsRows(const float *x, const float *w, const float *bias, const ConvParams &p,
              float *staged, int64_t image_channels = 0)
      : x_(x), w_(w), bias_(bias), q_(conv4(p)), g_(row_taps_geometry(p)), staged_(staged),
        cin_(p.in_channels), cout_(p.out_channels),
        image_channels_(image_channels > 0 ? image_channels : p.in_channels),
        taps_(p.in_channels * q_.ker[2] * q_.ker[3]) {
    const int64_t s = q_.st[3];
    for (int64_t kw = 0; kw < q_.ker[3]; ++kw) {
      const int64_t reach = kw * q_.dil[3];
      in_col_[kw] = static_cast<int32_t>((reach % s) * g_.phase_w + reach / s);
    }
  }

  // Output row oh of image b: channel c's row at y + c * plane, clipped
  // where `clip` is on.
  void compute(int64_t b, int64_t oh, float *y, int64_t plane, const LaneClip &clip = {}) {
    constexpr int64_t C = kRowTapsChannels, V = kRowTapsVectors, L = kRowTapsLanes;
    const int64_t span = g_.span, s = q_.st[3], ih0 = oh * q_.st[2] - q_.pad[2];
    const int64_t ih_n = q_.in[2], iw_n = q_.in[3], ow_n = q_.out[3];
    if (b != staged_b_ || next_ih_ < ih0) {
      staged_b_ = b;
      next_ih_ = ih0;
    }
    // Stage the input rows this output row reads that are not staged
    // yet, zero-padded, phase by phase: phase r holds padded columns r,
    // r + s, r + 2s, ...
    for (int64_t slot = slot_of(next_ih_); next_ih_ < ih0 + span;
         ++next_ih_, slot = slot + 1 == span ? 0 : slot + 1)
      for (int64_t c = 0; c < cin_; ++c) {
        float *row = staged_ + (c * span + slot) * s * g_.phase_w;
        if (next_ih_ < 0 || next_ih_ >= ih_n) {
          std::memset(row, 0, sizeof(float) * static_cast<size_t>(s * g_.phase_w));
          continue;
        }
        const float *src = x_ + ((b * image_channels_ + c) * ih_n + next_ih_) * iw_n;
        for (int64_t r = 0; r < s; ++r)
          stage_phase(src, iw_n, r - q_.pad[3], s, row + r * g_.phase_w, g_.phase_w);
      }
    const int64_t slot0 = slot_of(ih0);
    for (int64_t c = 0, t = 0; c < cin_; ++c)
      for (int64_t kh = 0; kh < q_.ker[2]; ++kh) {
        const int64_t slot = slot0 + kh * q_.dil[2]; // < 2 x span
        const int64_t base = (c * span + (slot < span ? slot : slot - span)) * s * g_.phase_w;
        for (int64_t kw = 0; kw < q_.ker[3]; ++kw, ++t)
          offset_[t] = static_cast<int32_t>(base) + in_col_[kw];
      }
    // Tiles of C channels x V vectors along the row, then the last
    // vectors of the row (fewer than V) in tiles of more channels, as
    // many accumulators (one vector per tile would leave each FMA chain
    // waiting on its own latency).
    const int64_t vectors = (ow_n + L - 1) / L, whole = vectors / V * V;
    const RowTapsRow r{staged_, offset_, taps_, w_, bias_, y, plane, ow_n, cout_, clip};
    row_taps_tiles<C, V>(r, 0, 0, whole);
    switch (vectors - whole) {
    case 3:
      row_taps_tiles<pow2_at_most(C * V / 3), 3>(r, 0, whole, vectors);
      break;
    case 2:
      row_taps_tiles<pow2_at_most(C * V / 2), 2>(r, 0, whole, vectors);
      break;
    case 1:
      row_taps_tiles<C * V, 1>(r, 0, whole, vectors);
      break;
    default:
      break;
    }
  }

private:
  // Input row ih of channel c is staged in ring slot (c, ih mod span), each
  // row once per task: consecutive output rows share span - stride of
  // their input rows (a 3x3 stride-1 conv stages a third of what it would
  // per output row; ResNet's 7x7 stride-2 stem, 2/7). Tap (c, kh, kw) of
  // output column ow reads the slot of row oh * stride + kh * dil - pad in
  // phase (kw * dil) % s at ow + (kw * dil) / s.
  int64_t slot_of(int64_t ih) const { return ((ih % g_.span) + g_.span) % g_.span; }

  const float *x_, *w_, *bias_;
  Conv4 q_;
  RowTapsGeometry g_;
  float *staged_;
  int64_t cin_, cout_, image_channels_, taps_;
  int32_t in_col_[kMaxRowTaps]; // kw -> phase and column within a staged row
  int32_t offset_[kMaxRowTaps];
  // Rows [next_ih_ - span, next_ih_) of image staged_b_ are staged.
  int64_t staged_b_ = -1, next_ih_ = 0;
};

// Tasks conv_row_taps (and its pooled form) splits `units` rows into.
inline int64_t row_taps_tasks(const ConvParams &p, const Parallel &par, int64_t units) {
  const detail::Conv4 q = detail::conv4(p);
  const int64_t groups = p.groups > 1 ? p.groups : 1;
  const int64_t work =
      p.batch * p.out_channels * (p.in_channels / groups) * q.ker[2] * q.ker[3] * q.out_plane;
  return par.parallel_for && work >= kMinParallelWork ? (par.threads < units ? par.threads : units)
                                                      : 1;
}

} // namespace detail

// y (NCHW) = conv(x (NCHW), w ([cout][cin][kh][kw], as in ONNX)) + bias, then
// epi (gemm.h's contract: once per output row and channel; a ClipEpilogue
// is applied in the tiles' registers instead, with no pass over the row).
// Output rows are split over par.threads tasks. Scratch:
// conv_row_taps_scratch_floats per task. The conv must fit
// (conv_row_taps_fits).
template <class Epi>
void conv_row_taps(const float *x, const float *w, const float *bias, float *y,
                   const ConvParams &p, const Epi &epi, float *scratch,
                   const Parallel &par = Parallel{}) {
  const detail::Conv4 q = detail::conv4(p);
  const int64_t cout = p.out_channels, oh_n = q.out[2], ow_n = q.out[3];
  const int64_t oplane = oh_n * ow_n;
  // A grouped conv runs group by group, each as its own conv (its weights
  // are ONNX's [ocg][cg][kh][kw] block, its bias and outputs ocg channels
  // on); units are (image, group, output row), rows of a group in order
  // so its staged input rows carry over.
  const int64_t groups = p.groups > 1 ? p.groups : 1;
  ConvParams pg = p;
  pg.in_channels = p.in_channels / groups;
  pg.out_channels = cout / groups;
  pg.groups = 1;
  const int64_t cg = pg.in_channels, ocg = pg.out_channels;
  const int64_t units = p.batch * groups * oh_n;
  const int64_t tasks = detail::row_taps_tasks(p, par, units);
  run_tasks(par, tasks, [&](int64_t task) {
    float *staged = par.scratch_of(task, scratch);
    int64_t group = -1;
    detail::RowTapsRows rows(x, w, bias, pg, staged, p.in_channels);
    for (int64_t u = units * task / tasks; u < units * (task + 1) / tasks; ++u) {
      const int64_t b = u / (groups * oh_n), g = u / oh_n % groups, oh = u % oh_n;
      if (g != group) {
        group = g;
        rows = detail::RowTapsRows(x + g * cg * q.in_plane, w + g * ocg * cg * q.ker_vol,
                                   bias ? bias + g * ocg : nullptr, pg, staged, p.in_channels);
      }
      const int64_t c0 = b * cout + g * ocg;
      rows.compute(b, oh, y + c0 * oplane + oh * ow_n, oplane, lane_clip_of(epi));
      if constexpr (!kClipsInTiles<Epi>)
        for (int64_t c = c0; c < c0 + ocg; ++c) {
          const int64_t at = c * oplane + oh * ow_n;
          epi(y + at, at, detail::opaque(ow_n));
        }
    }
  });
}

} // namespace rt
} // namespace tract
