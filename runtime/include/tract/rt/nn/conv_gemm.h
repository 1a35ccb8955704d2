// tract runtime: f32 convolution as GEMM.
//
// Per image and group, Y[OCg x P] = W[OCg x K] * X'[K x P] with P the output
// pixels and K = Cg * kernel volume (the ONNX weight layout, so W is the
// weight tensor read as a matrix). W comes packed at compile time (PackedA)
// or is packed per block (StridedA). X' is never materialised:
//   - a 1x1, stride-1, unpadded conv reads X itself as the [Cg x P] matrix
//     (StridedB, a plain copy into B panels);
//   - otherwise Im2colB gathers each KC x NC block of taps straight into B
//     panels in scratch (im2col one block at a time, so scratch stays small).
// The output is NCHW as it comes, row = output channel, so the conv's bias
// is gemm's per-row bias.
#pragma once

#include "tract/rt/linalg/gemm.h"
#include "tract/rt/nn/conv_ref.h"

namespace tract {
namespace rt {
namespace gemm {

inline bool conv_is_pointwise(const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  for (int d = 0; d < 4; ++d)
    if (q.ker[d] != 1 || q.st[d] != 1 || q.pad[d] != 0 || q.in[d] != q.out[d])
      return false;
  return true;
}

struct Im2colB {
  const float *x; // the group's first input channel of this image
  const detail::Conv4 *q;
  static constexpr bool kPacks = true;

  Panels block(int64_t j0, int64_t nb, int64_t k0, int64_t kb, float *dst) const {
    const detail::Conv4 &g = *q;
    // Per pixel of a panel: its first tap's input position in each dim.
    int64_t start[4][NR];
    for (int64_t jp = 0; jp < nb; jp += NR) {
      const int64_t w = min64(NR, nb - jp);
      for (int64_t j = 0; j < w; ++j) {
        int64_t o = j0 + jp + j;
        for (int d = 3; d >= 0; --d) {
          start[d][j] = (o % g.out[d]) * g.st[d] - g.pad[d];
          o /= g.out[d];
        }
      }
      // The tap of k0, then advanced one tap per p.
      int64_t c = k0 / g.ker_vol, t = k0 % g.ker_vol;
      int64_t tap[4];
      for (int d = 3; d >= 0; --d) {
        tap[d] = t % g.ker[d];
        t /= g.ker[d];
      }
      float *d0 = dst + (jp / NR) * kb * NR;
      for (int64_t p = 0; p < kb; ++p, d0 += NR) {
        const float *plane = x + c * g.in_plane;
        int64_t off[4];
        for (int d = 0; d < 4; ++d)
          off[d] = tap[d] * g.dil[d];
        for (int64_t j = 0; j < NR; ++j) {
          float v = 0.0f;
          if (j < w) {
            const int64_t i0 = start[0][j] + off[0], i1 = start[1][j] + off[1];
            const int64_t i2 = start[2][j] + off[2], i3 = start[3][j] + off[3];
            if (i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1] && i2 >= 0 &&
                i2 < g.in[2] && i3 >= 0 && i3 < g.in[3])
              v = plane[((i0 * g.in[1] + i1) * g.in[2] + i2) * g.in[3] + i3];
          }
          d0[j] = v;
        }
        // Next tap (last dim fastest), then next channel.
        for (int d = 3; d >= 0; --d) {
          if (++tap[d] < g.ker[d])
            break;
          tap[d] = 0;
          if (d == 0)
            ++c;
        }
      }
    }
    return {dst, kb * NR};
  }
};

// Scratch floats conv_gemm needs (weights packed at compile time or not).
inline int64_t conv_scratch_floats(const ConvParams &p, bool weights_packed) {
  const detail::Conv4 q = detail::conv4(p);
  const int64_t groups = p.groups > 0 ? p.groups : 1;
  const int64_t k = p.in_channels / groups * q.ker_vol;
  return scratch_floats(p.out_channels / groups, q.out_plane, k, !weights_packed,
                        true);
}

// y = conv(x, w) + bias, then epi; `w` is packed (pack_conv_weights) when
// `weights_packed`, else the ONNX [OC, C/g, k...] tensor.
template <class Epi>
void conv_gemm(const float *x, const float *w, bool weights_packed,
               const float *bias, float *y, const ConvParams &p, const Epi &epi,
               float *scratch) {
  const detail::Conv4 q = detail::conv4(p);
  const int64_t groups = p.groups > 0 ? p.groups : 1;
  const int64_t cg = p.in_channels / groups, ocg = p.out_channels / groups;
  const int64_t k = cg * q.ker_vol, n = q.out_plane;
  const bool pointwise = conv_is_pointwise(p);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t g = 0; g < groups; ++g) {
      const float *xg = x + (b * p.in_channels + g * cg) * q.in_plane;
      const int64_t y0 = (b * p.out_channels + g * ocg) * n;
      const float *bg = bias ? bias + g * ocg : nullptr;
      auto run = [&](const auto &a) {
        if (pointwise)
          gemm(ocg, n, k, a, StridedB{xg, q.in_plane, 1}, y + y0, n, y0, bg, epi,
               scratch);
        else
          gemm(ocg, n, k, a, Im2colB{xg, &q}, y + y0, n, y0, bg, epi, scratch);
      };
      if (weights_packed)
        run(PackedA{w + g * packed_a_floats(ocg, k), k});
      else
        run(StridedA{w + g * ocg * k, k, 1});
    }
}

// The compile-time packing of conv weights [OC, C/g, k...]: each group's
// [OCg x K] matrix as whole-K A panels, groups one after another.
template <class T>
inline void pack_conv_weights(const T *w, int64_t out_channels, int64_t groups,
                              int64_t k, float *dst) {
  const int64_t ocg = out_channels / groups;
  for (int64_t g = 0; g < groups; ++g)
    pack_a(w + g * ocg * k, k, 1, ocg, k, dst + g * packed_a_floats(ocg, k));
}

inline int64_t packed_conv_weight_floats(int64_t out_channels, int64_t groups,
                                         int64_t k) {
  return groups * packed_a_floats(out_channels / groups, k);
}

} // namespace gemm
} // namespace rt
} // namespace tract
