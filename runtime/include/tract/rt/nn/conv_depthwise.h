// tract runtime: f32 depthwise convolution (groups = input channels), 1-d
// and 2-d, with a fused epilogue.
//
// A depthwise conv has K = kernel taps per output (9 for 3x3): as a GEMM it
// would be all packing and no reuse. Instead each input channel is copied
// into scratch, zero padding included, split into stride_h x stride_w
// "phase" planes: phase (a, b) holds the padded plane's rows a, a + sh, ...
// and columns b, b + sw, ... Every tap of every output then reads its phase
// plane at (oh + kh*dh/sh, ow + kw*dw/sw): with the outputs computed over the
// phase width (a few wasted columns per row), each tap is ONE contiguous
// axpy over the whole output grid, whatever the stride. The grid is
// accumulated 64 outputs at a time in four independent vector registers
// (one chain would wait on the FMA latency every tap), then its valid
// columns are copied out and the epilogue (gemm.h's contract) runs once on
// the channel's whole output plane.
#pragma once

#include "tract/rt/linalg/gemm.h"
#include "tract/rt/nn/conv_ref.h"

#include <cstring>

namespace tract {
namespace rt {

constexpr int64_t max_of(int64_t a, int64_t b) { return a < b ? b : a; }
constexpr int64_t min_of(int64_t a, int64_t b) { return a < b ? a : b; }

// Widest stride the phase planes take (one set of column bounds each).
constexpr int64_t kMaxPhaseStride = 8;

// The shapes conv_depthwise handles: one input channel per group, at most two
// spatial dims (Conv4 puts them last), a width stride up to kMaxPhaseStride.
inline bool conv_is_depthwise(const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  return p.groups > 1 && p.groups == p.in_channels && p.out_channels % p.groups == 0 &&
         q.ker[0] == 1 && q.ker[1] == 1 && q.out[0] == 1 && q.out[1] == 1 && q.in[0] == 1 &&
         q.in[1] == 1 && q.st[3] <= kMaxPhaseStride;
}

// Kernels up to 5x5 take the register-blocked loop; larger ones a per-tap
// loop over L1-sized chunks.
constexpr int64_t kMaxRegisterTaps = 25;
// Outputs per step of the register-blocked loop: 4 x 16 floats.
constexpr int64_t kDepthwiseStep = 64;

struct DepthwiseGeometry {
  int64_t phase_h, phase_w; // one phase plane; phase_w is also the grid's row stride
  int64_t phases;           // stride_h * stride_w
  int64_t grid;             // grid floats: out_h * phase_w, rounded up to a step
  int64_t slack;            // readable floats after the last phase plane
};

inline DepthwiseGeometry depthwise_geometry(const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  DepthwiseGeometry g;
  g.phase_h = q.out[2] + (q.ker[2] - 1) * q.dil[2] / q.st[2];
  g.phase_w = q.out[3] + (q.ker[3] - 1) * q.dil[3] / q.st[3];
  g.phases = q.st[2] * q.st[3];
  // (+ 16: the copy-out's 16-float moves read up to a move past a row.)
  g.grid = (q.out[2] * g.phase_w + kDepthwiseStep - 1) / kDepthwiseStep * kDepthwiseStep + 16;
  // The last step and the wasted columns read up to one row and one step
  // past the last phase plane (values never copied out).
  g.slack = g.phase_w + kDepthwiseStep;
  return g;
}

// Scratch floats conv_depthwise needs: the phase planes and the grid.
inline int64_t depthwise_scratch_floats(const ConvParams &p) {
  const DepthwiseGeometry g = depthwise_geometry(p);
  return g.phases * g.phase_h * g.phase_w + g.slack + g.grid;
}

namespace detail {

// Row copies as fixed 16-float moves (inline vector moves; a memcpy of a
// run-time size is a library call, and small planes make thousands).
constexpr int64_t kMove = 16;
inline void move16(float *dst, const float *src) {
  std::memcpy(dst, src, sizeof(float) * kMove);
}
// n >= 16 floats: whole moves, the last one ending exactly at n.
inline void copy_long(float *dst, const float *src, int64_t n) {
  int64_t k = 0;
  for (; k + kMove <= n; k += kMove)
    move16(dst + k, src + k);
  if (k < n)
    move16(dst + n - kMove, src + n - kMove);
}

// Where each column phase's interior lies: input columns src0, src0 + sw,
// ... go to phase columns dst0, dst0 + 1, ... (n of them). Computed once
// per call: divisions by a run-time stride cost ~25 cycles each, and per
// row they were most of a small plane's time.
struct ColumnPhase {
  int64_t src0, dst0, n;
};

inline ColumnPhase column_phase(const Conv4 &q, const DepthwiseGeometry &g, int64_t b) {
  const int64_t sw = q.st[3];
  const int64_t src0 = ((b - q.pad[3]) % sw + sw) % sw;
  const int64_t dst0 = (src0 + q.pad[3]) / sw;
  return {src0, dst0, min_of((q.in[3] - src0 + sw - 1) / sw, g.phase_w - dst0)};
}

// Writes one input plane into the phase planes' interior. The positions it
// writes are the same for every channel, so the zero padding written once
// per call stays. `cols` holds column_phase(b) for b < stride_w.
inline void fill_phases(const float *plane, const Conv4 &q, const DepthwiseGeometry &g,
                        const ColumnPhase *cols, float *phases) {
  const int64_t sh = q.st[2], sw = q.st[3], iw_n = q.in[3];
  const int64_t phase_floats = g.phase_h * g.phase_w;
  // Padded row r = ih + pad goes to row i = r / sh of row phase a = r % sh.
  int64_t a = q.pad[2] % sh, i = q.pad[2] / sh;
  for (int64_t ih = 0; ih < q.in[2]; ++ih) {
    if (i >= g.phase_h)
      break; // rows below the last tap of the last output
    float *dst_row = phases + a * sw * phase_floats + i * g.phase_w;
    const float *src = plane + ih * iw_n;
    if (++a == sh) {
      a = 0;
      ++i;
    }
    if (sw == 1) {
      const int64_t n = cols[0].n;
      float *d = dst_row + q.pad[3];
      if (n >= kMove) {
        copy_long(d, src, n);
      } else if (g.phases == 1 && n == iw_n && 2 * q.pad[3] <= kMove &&
                 ih * iw_n + kMove <= q.in_plane) {
        // A short row in one move, which spills into the padding and the
        // next row; one move of zeros restores both (rows go top-down, so
        // the next row's interior is written after; past the last row is
        // bottom padding or slack).
        static const float zeros[kMove] = {};
        move16(d, src);
        move16(d + n, zeros);
      } else if (n > 0) {
        std::memcpy(d, src, sizeof(float) * static_cast<size_t>(n));
      }
      continue;
    }
    for (int64_t b = 0; b < sw; ++b) {
      const ColumnPhase c = cols[b];
      float *dst = dst_row + b * phase_floats + c.dst0;
      const float *from = src + c.src0;
      if (sw == 2) // a constant stride: the loop vectorises (even/odd shuffles)
        for (int64_t k = 0; k < c.n; ++k)
          dst[k] = from[2 * k];
      else
        for (int64_t k = 0; k < c.n; ++k)
          dst[k] = from[k * sw];
    }
  }
}

// Where tap t of the kernel reads, relative to its output's grid position.
inline int64_t depthwise_tap_offset(const Conv4 &q, const DepthwiseGeometry &g, int64_t t) {
  const int64_t rh = (t / q.ker[3]) * q.dil[2], rw = (t % q.ker[3]) * q.dil[3];
  const int64_t phase = (rh % q.st[2]) * q.st[3] + rw % q.st[3];
  return phase * g.phase_h * g.phase_w + rh / q.st[2] * g.phase_w + rw / q.st[3];
}

// grid[e] = b0 + sum_t w[t] * phases[off[t] + e] for e < n rounded up to a
// step; `off` holds depthwise_tap_offset of every tap (computed once per
// call), or is null for kernels over kMaxOffsetTaps taps.
constexpr int64_t kMaxOffsetTaps = 64;
inline void depthwise_grid(const float *phases, const Conv4 &q, const DepthwiseGeometry &g,
                           const int64_t *off, const float *w, float b0, float *grid,
                           int64_t n) {
  const int64_t taps = q.ker[2] * q.ker[3];
#if defined(__GNUC__)
  if (taps <= kMaxRegisterTaps) {
    // Four independent accumulators of 16 (GCC/clang vector extensions: one
    // AVX-512 register, two AVX ones, four NEON ones per v16). (Blocking
    // four output rows so each input vector feeds several rows measured no
    // faster: GCC folds the loads back into the FMAs.)
    typedef float v16 __attribute__((vector_size(64)));
    for (int64_t e0 = 0; e0 < n; e0 += kDepthwiseStep) {
      v16 a0 = v16{} + b0, a1 = a0, a2 = a0, a3 = a0;
      for (int64_t t = 0; t < taps; ++t) {
        const float *s = phases + off[t] + e0;
        const v16 wt = v16{} + w[t];
        v16 i0, i1, i2, i3;
        std::memcpy(&i0, s, sizeof i0);
        std::memcpy(&i1, s + 16, sizeof i1);
        std::memcpy(&i2, s + 32, sizeof i2);
        std::memcpy(&i3, s + 48, sizeof i3);
        a0 += wt * i0;
        a1 += wt * i1;
        a2 += wt * i2;
        a3 += wt * i3;
      }
      std::memcpy(grid + e0, &a0, sizeof a0);
      std::memcpy(grid + e0 + 16, &a1, sizeof a1);
      std::memcpy(grid + e0 + 32, &a2, sizeof a2);
      std::memcpy(grid + e0 + 48, &a3, sizeof a3);
    }
    return;
  }
#endif
  // Larger kernels (and compilers without vector extensions): one tap at a
  // time over chunks of 1024 outputs, so a chunk stays in L1 across taps.
  for (int64_t e0 = 0; e0 < n; e0 += 1024) {
    const int64_t en = min_of(1024, n - e0);
    float *chunk = grid + e0;
    for (int64_t e = 0; e < en; ++e)
      chunk[e] = b0;
    for (int64_t t = 0; t < taps; ++t) {
      const float w_t = w[t];
      const float *src = phases + (off ? off[t] : depthwise_tap_offset(q, g, t)) + e0;
      for (int64_t e = 0; e < en; ++e)
        chunk[e] += w_t * src[e];
    }
  }
}

} // namespace detail

// Input channels [g0, g1) of every image, with `scratch` its own.
template <class Epi>
void conv_depthwise_groups(const float *x, const float *w, const float *bias, float *y,
                           const ConvParams &p, const Epi &epi, float *scratch, int64_t g0,
                           int64_t g1) {
  const detail::Conv4 q = detail::conv4(p);
  const DepthwiseGeometry g = depthwise_geometry(p);
  const int64_t oh_n = q.out[2], ow_n = q.out[3];
  const int64_t taps = q.ker[2] * q.ker[3], multiplier = p.out_channels / p.groups;
  const int64_t phase_floats = g.phase_h * g.phase_w;
  float *phases = scratch;
  float *grid = scratch + g.phases * phase_floats + g.slack;
  for (int64_t i = 0; i < g.phases * phase_floats + g.slack; ++i)
    phases[i] = 0.0f;
  const int64_t n = oh_n * g.phase_w;
  int64_t off[detail::kMaxOffsetTaps];
  for (int64_t t = 0; t < taps && taps <= detail::kMaxOffsetTaps; ++t)
    off[t] = detail::depthwise_tap_offset(q, g, t);
  detail::ColumnPhase cols[kMaxPhaseStride];
  for (int64_t c = 0; c < q.st[3]; ++c)
    cols[c] = detail::column_phase(q, g, c);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t oc = g0 * multiplier; oc < g1 * multiplier; ++oc) {
      if (oc % multiplier == 0)
        detail::fill_phases(x + (b * p.in_channels + oc / multiplier) * q.in_plane, q, g, cols,
                            phases);
      const float *wc = w + oc * taps;
      const float b0 = bias ? bias[oc] : 0.0f;
      detail::depthwise_grid(phases, q, g, taps <= detail::kMaxOffsetTaps ? off : nullptr, wc, b0,
                             grid, n);
      const int64_t y0 = (b * p.out_channels + oc) * q.out_plane;
      float *out = y + y0;
      // Rows shorter than a move spill into the rows after them, which are
      // written after; the rows near the plane's end copy exactly.
      for (int64_t oh = 0; oh < oh_n; ++oh) {
        float *dst = out + oh * ow_n;
        const float *src = grid + oh * g.phase_w;
        if (ow_n >= detail::kMove)
          detail::copy_long(dst, src, ow_n);
        else if (oh * ow_n + detail::kMove <= q.out_plane)
          detail::move16(dst, src);
        else
          std::memcpy(dst, src, sizeof(float) * static_cast<size_t>(ow_n));
      }
      epi(out, y0, gemm::opaque(q.out_plane));
    }
}

// The input channels are split over par.threads tasks, each with its own
// scratch (par.scratch_of).
template <class Epi>
void conv_depthwise(const float *x, const float *w, const float *bias, float *y,
                    const ConvParams &p, const Epi &epi, float *scratch,
                    const Parallel &par = Parallel{}) {
  const int64_t groups = p.groups;
  const detail::Conv4 q = detail::conv4(p);
  const int64_t work = p.batch * p.out_channels * q.out_plane * q.ker_vol;
  const int64_t tasks =
      par.parallel_for && work >= kMinParallelWork ? min_of(par.threads, groups) : 1;
  run_tasks(par, tasks, [&](int64_t t) {
    conv_depthwise_groups(x, w, bias, y, p, epi, par.scratch_of(t, scratch), groups * t / tasks,
                          groups * (t + 1) / tasks);
  });
}

} // namespace rt
} // namespace tract
