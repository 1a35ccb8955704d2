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

#include <type_traits>

namespace tract {
namespace rt {
namespace gemm {

constexpr bool conv_is_pointwise(const ConvParams &p) {
  const detail::Conv4 q = detail::conv4(p);
  for (int d = 0; d < 4; ++d)
    if (q.ker[d] != 1 || q.st[d] != 1 || q.pad[d] != 0 || q.in[d] != q.out[d])
      return false;
  return true;
}

} // namespace gemm

// A 1x1 conv as conv_gemm's pointwise path takes it, ungrouped (the lane
// kernels' and the fully connected conv's).
constexpr bool conv_is_plain_pointwise(const ConvParams &p) {
  return p.groups <= 1 && gemm::conv_is_pointwise(p);
}

namespace gemm {

struct Im2colB {
  const float *x; // the group's first input channel of this image
  const detail::Conv4 *q;
  int64_t first_pixel = 0; // column 0 of this view (a task's share)
  static constexpr bool kPacks = true;
  static constexpr bool kBlockCols = true;

  Im2colB cols_from(int64_t j0) const { return {x, q, first_pixel + j0}; }

  Panels block(int64_t j0, int64_t nb, int64_t k0, int64_t kb, float *dst) const {
    const detail::Conv4 &g = *q;
    j0 += first_pixel;
    const bool planar = g.ker[0] == 1 && g.ker[1] == 1 && g.out[0] == 1 && g.out[1] == 1 &&
                        g.in[0] == 1 && g.in[1] == 1;
    if (planar && nb <= NC && pads_plane(g))
      block_padded(j0, nb, k0, kb, dst);
    else if (gathers(g, planar, nb, kb))
      block_gather(j0, nb, k0, kb, dst);
    else if (planar)
      block_2d(j0, nb, k0, kb, dst);
    else
      block_nd(j0, nb, k0, kb, dst);
    return {dst, packed_panel_stride(kb)};
  }

private:
  // Slot s of a B row (pixel j0 + s) lives at row[(s / NR) * stride + s % NR]
  // (stride: packed_panel_stride(kb)).
  // Whole panels (16 slots from a panel's start) are a loop of constant trip
  // count, which the compiler turns into a few vector loads and shuffles.
  template <class Value>
  static void put(float *row, int64_t stride, int64_t s, int64_t n, Value value) {
    while (n > 0) {
      const int64_t lane = s % NR;
      float *d = row + (s / NR) * stride + lane;
      if (lane == 0 && n >= NR) {
        value.whole_panel(d);
        value.advance(NR);
        s += NR;
        n -= NR;
        continue;
      }
      const int64_t chunk = min64(n, NR - lane);
      for (int64_t t = 0; t < chunk; ++t)
        d[t] = value(t);
      value.advance(chunk);
      s += chunk;
      n -= chunk;
    }
  }
  // The values a run puts: value(t) for slot t, whole_panel(d) for 16 at
  // once (a loop of constant trip count, or explicit shuffles).
  template <class Self> struct ValueBase {
    void whole_panel(float *d) const {
      for (int64_t t = 0; t < NR; ++t)
        d[t] = static_cast<const Self &>(*this)(t);
    }
  };
  struct Zeros : ValueBase<Zeros> {
    float operator()(int64_t) const { return 0.0f; }
    void advance(int64_t) {}
  };
  struct Strided : ValueBase<Strided> {
    const float *src;
    int64_t stride;
    Strided(const float *s, int64_t st) : src(s), stride(st) {}
    float operator()(int64_t t) const { return src[t * stride]; }
    void advance(int64_t n) { src += n * stride; }
  };
  // Strides 1 and 2 as compile-time constants, so the copies vectorise
  // (a run-time stride is a scalar loop).
  template <int64_t kStride> struct FixedStride : ValueBase<FixedStride<kStride>> {
    const float *src;
    explicit FixedStride(const float *s) : src(s) {}
    float operator()(int64_t t) const { return src[t * kStride]; }
    void advance(int64_t n) { src += n * kStride; }
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
    // Every other float of src[0..30] (compilers scalarise the plain loop):
    // two overlapping 16-float loads, one two-source shuffle.
    void whole_panel(float *d) const {
      if (kStride == 1) // one vector move (an element loop: 16 scalar ones)
        return void(std::memcpy(d, src, sizeof(float) * NR));
      if (kStride != 2)
        return ValueBase<FixedStride<kStride>>::whole_panel(d);
      typedef float v16 __attribute__((vector_size(64)));
      v16 lo, hi;
      std::memcpy(&lo, src, sizeof lo);
      std::memcpy(&hi, src + 15, sizeof hi);
      const v16 even = __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14, 17, 19, 21,
                                               23, 25, 27, 29, 31);
      std::memcpy(d, &even, sizeof even);
    }
#endif
  };
  void put_run(float *row, int64_t panel_stride, int64_t s, int64_t n, const float *src,
               int64_t stride) const {
    if (stride == 1)
      put(row, panel_stride, s, n, FixedStride<1>(src));
    else if (stride == 2)
      put(row, panel_stride, s, n, FixedStride<2>(src));
    else
      put(row, panel_stride, s, n, Strided(src, stride));
  }

  // 1-d and 2-d convs: per tap, each output row of the block is a run of
  // in-bounds input elements (a strided copy) between runs of padding zeros.
  // Where a whole output row's run lies depends only on the tap's column:
  // computed once per block for kernels up to kCachedTapCols wide (it takes
  // run-time divisions, and small layers have more rows than pixels per row).
  static constexpr int64_t kCachedTapCols = 16;
  void block_2d(int64_t j0, int64_t nb, int64_t k0, int64_t kb, float *dst) const {
    const detail::Conv4 &g = *q;
    const int64_t oh_n = g.out[2], ow_n = g.out[3], ih_n = g.in[2], iw_n = g.in[3];
    const int64_t kvol = g.ker[2] * g.ker[3];
    const int64_t padded = round_up(nb, NR);
    const int64_t pstride = packed_panel_stride(kb);
    int64_t row_lo[kCachedTapCols], row_hi[kCachedTapCols];
    const bool cached = g.ker[3] <= kCachedTapCols;
    for (int64_t kw = 0; cached && kw < g.ker[3]; ++kw) {
      detail::tap_range(ow_n, iw_n, g.st[3], kw * g.dil[3] - g.pad[3], &row_lo[kw], &row_hi[kw]);
      row_hi[kw] = max64(row_hi[kw], row_lo[kw]);
    }
    int64_t c = k0 / kvol, kh = (k0 % kvol) / g.ker[3], kw = k0 % g.ker[3];
    for (int64_t p = 0; p < kb; ++p) {
      const float *plane = x + c * g.in_ps;
      float *row = dst + p * NR;
      int64_t s = 0, oh = j0 / ow_n, ow = j0 % ow_n;
      while (s < nb) {
        const int64_t seg = min64(ow_n - ow, nb - s);
        const int64_t ih = oh * g.st[2] + kh * g.dil[2] - g.pad[2];
        if (oh >= oh_n || ih < 0 || ih >= ih_n) {
          put(row, pstride, s, seg, Zeros{});
        } else {
          // iw = iw0 + t * stride for t in [0, seg); in bounds for t in [lo, hi).
          const int64_t iw0 = ow * g.st[3] + kw * g.dil[3] - g.pad[3];
          int64_t lo = 0, hi = 0;
          if (cached && ow == 0 && seg == ow_n) {
            lo = row_lo[kw];
            hi = row_hi[kw];
          } else {
            detail::tap_range(seg, iw_n, g.st[3], iw0, &lo, &hi);
          }
          // A segment shorter than the left padding (a row's first pixel
          // alone at a block's end, pads >= 2) has lo > seg: clamp, or the
          // zeros run past the segment, and past the block's last panel
          // into the arena after the scratch.
          lo = min64(lo, seg);
          hi = min64(max64(hi, lo), seg);
          put(row, pstride, s, lo, Zeros{});
          put_run(row, pstride, s + lo, hi - lo, plane + ih * iw_n + iw0 + lo * g.st[3], g.st[3]);
          put(row, pstride, s + hi, seg - hi, Zeros{});
        }
        s += seg;
        ow = 0;
        ++oh;
      }
      put(row, pstride, nb, padded - nb, Zeros{});
      // The next tap: (c, kh, kw) in row-major order, without divisions.
      if (++kw == g.ker[3]) {
        kw = 0;
        if (++kh == g.ker[2]) {
          kh = 0;
          ++c;
        }
      }
    }
  }

  // Small 2-d maps (up to kPaddedPlaneFloats floats of input reached,
  // padding included: 32 x 32): each input channel's plane is first copied
  // into a zero-padded plane on the stack; then every tap's row of B is read
  // from it through one table of pixel offsets per block, with no bounds to
  // check and no masks (block_gather builds masks per block, and a grouped
  // conv runs one GEMM per group, each its own blocks). Whole convs, weights
  // cold, on the Zen 5 VM, block_gather -> here: ResNeXt-50's grouped 3x3
  // convs (32 groups) on 8 x 8 129 -> 103-110 us, 4 x 4 56 -> 51, 2 x 2
  // 92-94 -> 93-97; RegNet's, 8 groups at 28 x 28 342-357 -> 299-308, 20
  // at 14 x 14 317 -> 238-241; a 1x1 stride-2 conv onto 14 x 14 114 -> 98;
  // ungrouped 3x3 convs on 7 x 7 to 14 x 14 and Inception-v3's 1x7 and 7x1
  // convs at 17 x 17 as fast or up to 10% faster.
  static constexpr int64_t kPaddedPlaneFloats = 1024;
  struct PaddedPlane {
    int64_t h, w; // rows and columns the kernel reaches, padding included
  };
  static PaddedPlane padded_plane(const detail::Conv4 &g) {
    return {(g.out[2] - 1) * g.st[2] + (g.ker[2] - 1) * g.dil[2] + 1,
            (g.out[3] - 1) * g.st[3] + (g.ker[3] - 1) * g.dil[3] + 1};
  }
  static bool pads_plane(const detail::Conv4 &g) {
    const PaddedPlane pp = padded_plane(g);
    return pp.h * pp.w <= kPaddedPlaneFloats;
  }
  void block_padded(int64_t j0, int64_t nb, int64_t k0, int64_t kb, float *dst) const {
    const detail::Conv4 &g = *q;
    const PaddedPlane pp = padded_plane(g);
    const int64_t ow_n = g.out[3], ih_n = g.in[2], iw_n = g.in[3];
    const int64_t kvol = g.ker[2] * g.ker[3];
    const int64_t pstride = packed_panel_stride(kb), npanels = panels(nb, NR);
    // Slot s of a B row reads the tap's padded plane at offset[s] (tap 0's
    // position of pixel j0 + s); slots past nb (-1) are zeros.
    alignas(64) float padded[kPaddedPlaneFloats];
    int32_t offset[NC];
    for (int64_t s = 0, oh = j0 / ow_n, ow = j0 % ow_n; s < npanels * NR; ++s) {
      offset[s] = static_cast<int32_t>(s < nb ? oh * g.st[2] * pp.w + ow * g.st[3] : -1);
      if (++ow == ow_n) {
        ow = 0;
        ++oh;
      }
    }
    int64_t c = k0 / kvol, kh = (k0 % kvol) / g.ker[3], kw = k0 % g.ker[3];
    for (int64_t p = 0; p < kb; ++p) {
      if (p == 0 || (kh == 0 && kw == 0)) { // a new channel: its padded plane
        const float *plane = x + c * g.in_ps;
        for (int64_t r = 0; r < pp.h; ++r) {
          const int64_t ih = r - g.pad[2];
          float *d = padded + r * pp.w;
          for (int64_t col = 0; col < pp.w; ++col) {
            const int64_t iw = col - g.pad[3];
            d[col] = ih >= 0 && ih < ih_n && iw >= 0 && iw < iw_n ? plane[ih * iw_n + iw] : 0.0f;
          }
        }
      }
      const float *tap = padded + kh * g.dil[2] * pp.w + kw * g.dil[3];
      for (int64_t pnl = 0; pnl < npanels; ++pnl) {
        float *d = dst + pnl * pstride + p * NR;
        const int32_t *o = offset + pnl * NR;
        for (int64_t i = 0; i < NR; ++i)
          d[i] = o[i] >= 0 ? tap[o[i]] : 0.0f;
      }
      if (++kw == g.ker[3]) { // the next tap (c, kh, kw), row-major
        kw = 0;
        if (++kh == g.ker[2]) {
          kh = 0;
          ++c;
        }
      }
    }
  }

  // Short output rows of maps too large for block_padded, and 3-d kernels:
  // a 2-d row of a tap is runs of a few pixels between padding, which
  // block_2d copies a chunk at a time (a 3x3 stride-2 conv to 7x7 spent more
  // time packing B than multiplying), and block_nd checks bounds per pixel
  // and tap. Here the
  // bounds are checked once per block: each pixel's input offset at tap 0
  // and, per tap, a bit per pixel saying whether it reads the input or a
  // padding zero; then each row of B is a masked gather of 16 slots at a
  // time. For kernels of up to kGatherTaps taps, 2-d maps up to kGatherRow
  // output columns, and K blocks of two channels or more (one channel, as
  // in a KWS CNN's first conv, does not repay building the masks).
  // Measured on a Sapphire Rapids class Xeon (bench/run-conv.sh): R3D's
  // 3x3x3 64-channel conv at 8x28x28 30.5 -> 11.3 ms, ResNet-18's stride-2
  // convs 988 / 942 / 1185 -> 740 / 672 / 966 us, its 7x7 stem 1942 ->
  // 1686; rows 49 and 56 wide were as fast or faster by block_2d.
  static constexpr int64_t kGatherTaps = 32;
  static constexpr int64_t kGatherRow = 32;
  static bool gathers(const detail::Conv4 &g, bool planar, int64_t nb, int64_t kb) {
    return g.ker_vol <= kGatherTaps && kb >= 2 * g.ker_vol && nb <= NC &&
           g.in_plane < (int64_t(1) << 31) && (!planar || g.out[3] <= kGatherRow);
  }
  void block_gather(int64_t j0, int64_t nb, int64_t k0, int64_t kb, float *dst) const {
    const detail::Conv4 &g = *q;
    const int64_t npanels = panels(nb, NR);
    int64_t in_stride[4];
    in_stride[3] = 1;
    for (int d = 2; d >= 0; --d)
      in_stride[d] = in_stride[d + 1] * g.in[d + 1];
    // Per tap (row-major over the kernel): its offset from tap 0. Per
    // pixel: its offset at tap 0, and the taps that read it in bounds (a
    // bit per pixel of each panel; none past nb).
    int32_t base[NC], delta[kGatherTaps];
    uint16_t valid[kGatherTaps][NC / NR] = {};
    int64_t tap[4] = {0, 0, 0, 0};
    for (int64_t t = 0; t < g.ker_vol; ++t) {
      int64_t flat = 0;
      for (int d = 0; d < 4; ++d)
        flat += tap[d] * g.dil[d] * in_stride[d];
      delta[t] = static_cast<int32_t>(flat);
      next_tap(g, tap);
    }
    for (int64_t j = 0; j < npanels * NR; ++j) {
      base[j] = 0;
      if (j >= nb)
        continue;
      int64_t o = j0 + j, start[4], flat = 0;
      for (int d = 3; d >= 0; --d) {
        start[d] = (o % g.out[d]) * g.st[d] - g.pad[d];
        flat += start[d] * in_stride[d];
        o /= g.out[d];
      }
      base[j] = static_cast<int32_t>(flat);
      for (int64_t t = 0; t < g.ker_vol; ++t) {
        bool in = true;
        for (int d = 0; d < 4; ++d) {
          const int64_t v = start[d] + tap[d] * g.dil[d];
          in = in && v >= 0 && v < g.in[d];
        }
        valid[t][j / NR] = static_cast<uint16_t>(valid[t][j / NR] | (uint32_t(in) << (j % NR)));
        next_tap(g, tap);
      }
    }
    const int64_t pstride = packed_panel_stride(kb);
    int64_t c = k0 / g.ker_vol, t = k0 % g.ker_vol;
    for (int64_t p = 0; p < kb; ++p) {
      for (int64_t pnl = 0; pnl < npanels; ++pnl)
        gather_panel(x + c * g.in_ps, delta[t], base + pnl * NR, valid[t][pnl],
                     dst + pnl * pstride + p * NR);
      if (++t == g.ker_vol) {
        t = 0;
        ++c;
      }
    }
  }
  // The next tap of a kernel in row-major order, last dim fastest; true
  // when it wrapped from the last tap back to the first.
  static bool next_tap(const detail::Conv4 &g, int64_t tap[4]) {
    for (int d = 3; d >= 0; --d) {
      if (++tap[d] < g.ker[d])
        return false;
      tap[d] = 0;
    }
    return true;
  }
  // d[i] = bit i of mask ? plane[delta + offset[i]] : 0, for the 16 slots
  // of a panel.
  static void gather_panel(const float *plane, int32_t delta, const int32_t *offset,
                           uint32_t mask, float *d) {
#if defined(__AVX512F__)
    const __m512i idx = _mm512_add_epi32(_mm512_loadu_si512(offset), _mm512_set1_epi32(delta));
    _mm512_storeu_ps(d, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), static_cast<__mmask16>(mask),
                                                 idx, plane, 4));
#elif defined(__AVX2__) && defined(__FMA__) // (gemm_microkernels.h includes immintrin.h)
    // Lane i's mask is its sign bit: bit i of the mask shifted to bit 31.
    const __m256i to_sign = _mm256_setr_epi32(31, 30, 29, 28, 27, 26, 25, 24);
    const __m256i add = _mm256_set1_epi32(delta);
    for (int h = 0; h < 2; ++h) {
      const __m256i lanes =
          _mm256_sllv_epi32(_mm256_set1_epi32(static_cast<int32_t>(mask >> (8 * h))), to_sign);
      const __m256i idx = _mm256_add_epi32(
          _mm256_loadu_si256(reinterpret_cast<const __m256i *>(offset + 8 * h)), add);
      _mm256_storeu_ps(d + 8 * h, _mm256_mask_i32gather_ps(_mm256_setzero_ps(), plane, idx,
                                                           _mm256_castsi256_ps(lanes), 4));
    }
#else
    for (int64_t i = 0; i < NR; ++i)
      d[i] = (mask >> i) & 1 ? plane[delta + offset[i]] : 0.0f;
#endif
  }

  // Any rank up to 4 spatial dims: per pixel and tap, with bounds checks.
  void block_nd(int64_t j0, int64_t nb, int64_t k0, int64_t kb, float *dst) const {
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
      float *d0 = dst + (jp / NR) * packed_panel_stride(kb);
      for (int64_t p = 0; p < kb; ++p, d0 += NR) {
        const float *plane = x + c * g.in_ps;
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
        if (next_tap(g, tap)) // past the last tap: the next channel
          ++c;
      }
    }
  }
};

// Where conv_gemm's B panels come from; fixed per conv at compile time.
enum class ConvB {
  Im2col,  // gathered per block into scratch (Im2colB)
  Packed,  // a pointwise conv's input, copied per block (StridedB)
  InPlace, // a pointwise conv's input read where it lies (InPlaceB)
};

// The generated code evaluates this with its own target's kHasPairKernel.
constexpr ConvB conv_b_source(const ConvParams &p, bool pair_kernel = kHasPairKernel) {
  if (!conv_is_pointwise(p))
    return ConvB::Im2col;
  const detail::Conv4 q = detail::conv4(p);
  const int64_t groups = p.groups > 0 ? p.groups : 1;
  return reads_b_in_place(p.out_channels / groups, q.out_plane, q.in_ps, pair_kernel)
             ? ConvB::InPlace
             : ConvB::Packed;
}

// Scratch floats conv_gemm needs (weights packed at compile time or not),
// for whichever B source the target's compiler picks (tractc does not know
// the target's ISA).
inline int64_t conv_scratch_floats(const ConvParams &p, bool weights_packed) {
  const detail::Conv4 q = detail::conv4(p);
  const int64_t groups = p.groups > 0 ? p.groups : 1;
  const int64_t k = p.in_channels / groups * q.ker_vol, m = p.out_channels / groups;
  int64_t floats = 0;
  for (int pair_kernel = 0; pair_kernel < 2; ++pair_kernel) {
    const bool packs_b = conv_b_source(p, pair_kernel == 1) != ConvB::InPlace;
    floats = max64(floats, scratch_floats(m, q.out_plane, k, !weights_packed, packs_b));
  }
  return floats;
}

// y = conv(x, w) + bias, then epi, with the weights' form and B's source
// fixed at compile time (one GEMM instantiation per conv in generated code):
// `w` is packed (pack_conv_weights) when kWeightsPacked, else the ONNX
// [OC, C/g, k...] tensor; kB is conv_b_source(p).
template <bool kWeightsPacked, ConvB kB, class Epi>
void conv_gemm_as(const float *x, const float *w, const float *bias, float *y,
                  const ConvParams &p, const Epi &epi, float *scratch,
                  const Parallel &par = Parallel{}) {
  const detail::Conv4 q = detail::conv4(p);
  const int64_t groups = p.groups > 0 ? p.groups : 1;
  const int64_t cg = p.in_channels / groups, ocg = p.out_channels / groups;
  const int64_t k = cg * q.ker_vol, n = q.out_plane;
  // Planes q.in_ps floats apart in x and ldc in y: dense, or padded to
  // whole cache lines (ConvParams's plane strides).
  const int64_t ldc = q.out_ps;
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t g = 0; g < groups; ++g) {
      const float *xg = x + (b * p.in_channels + g * cg) * q.in_ps;
      const int64_t y0 = (b * p.out_channels + g * ocg) * ldc;
      const float *bg = bias ? bias + g * ocg : nullptr;
      auto run = [&](const auto &a) {
        if (kB == ConvB::InPlace)
          gemm_parallel(par, ocg, n, k, a, InPlaceB{xg, q.in_ps}, y + y0, ldc, y0, bg, epi,
                        scratch);
        else if (kB == ConvB::Packed)
          gemm_parallel(par, ocg, n, k, a, StridedB{xg, q.in_ps, 1}, y + y0, ldc, y0, bg,
                        epi, scratch);
        else
          gemm_parallel(par, ocg, n, k, a, Im2colB{xg, &q}, y + y0, ldc, y0, bg, epi,
                        scratch);
      };
      if (kWeightsPacked)
        run(PackedA{w + g * packed_a_floats(ocg, k), k});
      else
        run(StridedA{w + g * ocg * k, k, 1});
    }
}

// conv_gemm_as with both choices made at run time (tests, benchmarks).
template <class Epi>
void conv_gemm(const float *x, const float *w, bool weights_packed,
               const float *bias, float *y, const ConvParams &p, const Epi &epi,
               float *scratch, const Parallel &par = Parallel{}) {
  auto with = [&](auto packed) {
    constexpr bool kPacked = decltype(packed)::value;
    switch (conv_b_source(p)) {
    case ConvB::Im2col:
      return conv_gemm_as<kPacked, ConvB::Im2col>(x, w, bias, y, p, epi, scratch, par);
    case ConvB::Packed:
      return conv_gemm_as<kPacked, ConvB::Packed>(x, w, bias, y, p, epi, scratch, par);
    case ConvB::InPlace:
      return conv_gemm_as<kPacked, ConvB::InPlace>(x, w, bias, y, p, epi, scratch, par);
    }
  };
  if (weights_packed)
    with(std::true_type{});
  else
    with(std::false_type{});
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
