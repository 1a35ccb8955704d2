// tract runtime: f32 depthwise convolution (groups = input channels), 1-d
// and 2-d, with a fused epilogue.
//
// A depthwise conv has K = kernel taps per output (9 for 3x3): as a GEMM it
// would be all packing and no reuse. Each channel's input plane is first
// copied into scratch with its zero padding around it, so no tap needs a
// bounds check. Stride 1: the outputs are computed over the padded width
// (a few wasted columns per row), which makes every tap ONE long contiguous
// axpy over the whole plane (y[e] += w * P[e + tap offset]); planes of 7x7
// to 112x112 then vectorise fully. Other strides: per output row, one
// strided axpy per tap. The epilogue (gemm.h's contract) runs on each row
// of the result while it is in L1.
#pragma once

#include "tract/rt/linalg/gemm.h"
#include "tract/rt/nn/conv_ref.h"

#include <cstring>

namespace tract {
namespace rt {

// The shapes conv_depthwise handles: one input channel per group, at most two
// spatial dims (Conv4 puts them last).
constexpr int64_t max_of(int64_t a, int64_t b) { return a < b ? b : a; }
constexpr int64_t min_of(int64_t a, int64_t b) { return a < b ? a : b; }

inline bool conv_is_depthwise(const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  return p.groups > 1 && p.groups == p.in_channels && p.out_channels % p.groups == 0 &&
         q.ker[0] == 1 && q.ker[1] == 1 && q.out[0] == 1 && q.out[1] == 1 && q.in[0] == 1 &&
         q.in[1] == 1;
}

// Kernels up to 5x5 accumulate in registers (their weights, broadcast, stay
// in registers too); larger ones take the per-tap loop.
constexpr int64_t kMaxRegisterTaps = 25;

struct DepthwiseGeometry {
  int64_t ph, pw;   // padded input plane
  int64_t grid_w;   // row stride of the stride-1 accumulation grid
};

inline DepthwiseGeometry depthwise_geometry(const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  DepthwiseGeometry g;
  // Tall and wide enough for every tap of every output, and for the
  // stride-1 grid's wasted columns (which read up to the row's end).
  g.ph = max_of(q.in[2] + q.pad[2], (q.out[2] - 1) * q.st[2] + (q.ker[2] - 1) * q.dil[2] + 1);
  g.pw = max_of(q.in[3] + q.pad[3], (q.out[3] - 1) * q.st[3] + (q.ker[3] - 1) * q.dil[3] + 1);
  g.grid_w = g.pw;
  return g;
}

// Scratch floats conv_depthwise needs: the padded plane, plus the stride-1
// accumulation grid (one extra row: the last row's wasted columns).
inline int64_t depthwise_scratch_floats(const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  const DepthwiseGeometry g = depthwise_geometry(p);
  // The register-blocked stride-1 loop runs over n rounded up to 16, so both
  // buffers get 16 floats of slack (padded: one extra row + 16).
  return (g.ph + 1) * g.pw + 16 +
         (q.st[3] == 1 && q.st[2] == 1 ? q.out[2] * g.grid_w + 16 : 0);
}

// Input channels [g0, g1) of every image, with `scratch` its own.
template <class Epi>
void conv_depthwise_groups(const float *x, const float *w, const float *bias, float *y,
                           const ConvParams &p, const Epi &epi, float *scratch, int64_t g0,
                           int64_t g1) {
  const detail::Conv4 q = detail::conv4(p);
  const DepthwiseGeometry g = depthwise_geometry(p);
  const int64_t ih_n = q.in[2], iw_n = q.in[3], oh_n = q.out[2], ow_n = q.out[3];
  const int64_t kh_n = q.ker[2], kw_n = q.ker[3], sh = q.st[2], sw = q.st[3];
  const int64_t dh = q.dil[2], dw = q.dil[3];
  const int64_t multiplier = p.out_channels / p.groups;
  float *padded = scratch;
  float *grid = scratch + (g.ph + 1) * g.pw + 16;
  const bool unit_stride = sh == 1 && sw == 1;
  for (int64_t i = 0; i < (g.ph + 1) * g.pw + 16; ++i)
    padded[i] = 0.0f;
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t oc = g0 * multiplier; oc < g1 * multiplier; ++oc) {
      if (oc % multiplier == 0) { // a new input channel: fill the interior
        const float *plane = x + (b * p.in_channels + oc / multiplier) * q.in_plane;
        for (int64_t ih = 0; ih < ih_n; ++ih)
          std::memcpy(padded + (ih + q.pad[2]) * g.pw + q.pad[3], plane + ih * iw_n,
                      sizeof(float) * static_cast<size_t>(iw_n));
      }
      const float *wc = w + oc * kh_n * kw_n;
      const float b0 = bias ? bias[oc] : 0.0f;
      const int64_t y0 = (b * p.out_channels + oc) * q.out_plane;
      if (unit_stride) {
        const int64_t n = oh_n * g.grid_w, taps = kh_n * kw_n;
#if defined(__GNUC__)
        if (taps <= kMaxRegisterTaps) {
          // 16 outputs in one vector register, every tap accumulated into it
          // before the single store (GCC/clang vector extensions: one AVX-512
          // register, two AVX ones, four NEON ones).
          typedef float v16 __attribute__((vector_size(64)));
          int64_t off[kMaxRegisterTaps];
          v16 wv[kMaxRegisterTaps];
          for (int64_t t = 0; t < taps; ++t) {
            off[t] = (t / kw_n) * dh * g.pw + (t % kw_n) * dw;
            wv[t] = v16{} + wc[t];
          }
          for (int64_t e0 = 0; e0 < n; e0 += 16) {
            v16 acc = v16{} + b0;
            for (int64_t t = 0; t < taps; ++t) {
              v16 in;
              std::memcpy(&in, padded + off[t] + e0, sizeof in);
              acc += wv[t] * in;
            }
            std::memcpy(grid + e0, &acc, sizeof acc);
          }
        } else
#endif
        {
          // In chunks of 1024 outputs, so a chunk stays in L1 across taps.
          for (int64_t e0 = 0; e0 < n; e0 += 1024) {
            const int64_t en = min_of(1024, n - e0);
            float *chunk = grid + e0;
            for (int64_t e = 0; e < en; ++e)
              chunk[e] = b0;
            for (int64_t t = 0; t < taps; ++t) {
              const float w_t = wc[t];
              const float *src = padded + (t / kw_n) * dh * g.pw + (t % kw_n) * dw + e0;
              for (int64_t e = 0; e < en; ++e)
                chunk[e] += w_t * src[e];
            }
          }
        }
        for (int64_t oh = 0; oh < oh_n; ++oh) {
          float *row = y + y0 + oh * ow_n;
          std::memcpy(row, grid + oh * g.grid_w, sizeof(float) * static_cast<size_t>(ow_n));
          epi(row, y0 + oh * ow_n, gemm::opaque(ow_n));
        }
        continue;
      }
      for (int64_t oh = 0; oh < oh_n; ++oh) {
        float *row = y + y0 + oh * ow_n;
        for (int64_t ow = 0; ow < ow_n; ++ow)
          row[ow] = b0;
        for (int64_t kh = 0; kh < kh_n; ++kh)
          for (int64_t kw = 0; kw < kw_n; ++kw) {
            const float wv = wc[kh * kw_n + kw];
            const float *src = padded + (oh * sh + kh * dh) * g.pw + kw * dw;
            for (int64_t ow = 0; ow < ow_n; ++ow)
              row[ow] += wv * src[ow * sw];
          }
        epi(row, y0 + oh * ow_n, gemm::opaque(ow_n));
      }
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
