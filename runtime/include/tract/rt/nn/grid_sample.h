// tract runtime: ONNX GridSample, float bilinear and nearest sampling in
// blocks of samples.
//
// grid_sample_ref (grid_sample_ref.h) works out each sample's point (the
// unnormalisation, padding, range checks, floors) in scalar code, then
// reads its taps in every channel. With one channel, RAFT's correlation
// lookups (256 images of 16x16 to 2x2, 7x7 points each), that scalar point
// is nearly all of the work: the lookups took 15% of the model. Here a
// block of kGridSampleBlock samples has its points worked out first, in
// loops the compiler vectorises (Zeros and Border padding, the bilinear
// taps; Reflection's folds and nearest's rounding stay scalar), into
// per-tap plane offsets, weights and in-bounds flags; then each channel
// reads its taps for the whole block without a branch (a tap outside the
// plane reads a clamped in-bounds offset and is replaced by 0). One RAFT
// lookup (16x16 planes) on Zen 5, g++ -O3 -march=native: 90 -> 35 us.
// Same arithmetic as the reference, in the same order, so the outputs are
// the same bit for bit (GridSample.BlocksMatchReferenceBitForBit); bicubic
// sampling, other element types and planes of 2^31 elements or more take
// the reference.
#pragma once

#include "tract/rt/nn/grid_sample_ref.h"
#include "tract/rt/parallel.h"

namespace tract {
namespace rt {

namespace detail {

constexpr int64_t kGridSampleBlock = 64;

// The bilinear or nearest taps of a block's samples: tap k of sample s
// reads plane offset off[k][s] (always inside the plane) when in[k][s],
// else 0, and weighs it by w[k][s] (nearest: tap 0 alone, weight unused).
struct GridSampleTaps {
  int32_t off[4][kGridSampleBlock];
  int32_t in[4][kGridSampleBlock];
  float w[4][kGridSampleBlock];
};

// A padded coordinate as gs_pad gives it, written so that Zeros and
// Border vectorise (selects, no branch); Reflection's folds call gs_pad.
template <GridSamplePadding P> inline float gs_pad_as(float v, int64_t size, bool align) {
  if constexpr (P == GridSamplePadding::Reflection) {
    return gs_pad(v, size, P, align);
  } else {
    if constexpr (P == GridSamplePadding::Border) { // gs_clip: NaN gives size - 1
      const float lo = v < 0.0f ? 0.0f : v, hi = static_cast<float>(size - 1);
      v = lo < hi ? lo : hi;
    }
    // gs_safe
    const bool safe = (v > -2147483648.0f) & (v < 2147483646.0f);
    return safe ? v : -100.0f;
  }
}

// floor(v) of a safe coordinate (|v| < 2^31), by truncation: GCC 12
// vectorises std::floor only with -fno-trapping-math. (floor(-0.0) gives
// +0 here, -0 in the reference: a weight's sign of zero, which adds +0 to
// the sum either way.)
inline int32_t gs_floor(float v) {
  const int32_t t = static_cast<int32_t>(v);
  return t - (v < static_cast<float>(t));
}

inline int32_t gs_clamp_index(int32_t i, int32_t size) {
  i = i < 0 ? 0 : i;
  return i < size ? i : size - 1;
}

// The taps of samples [0, n) of a block whose grid points are g (x, y
// pairs). (A point is finite and inside the int range after gs_pad_as:
// gs_safe gives -100 otherwise.) Two loops: the points, then their taps.
template <GridSamplePadding P, bool kNearest>
inline void grid_sample_taps(const float *g, int64_t n, int64_t h, int64_t w, bool align,
                             GridSampleTaps &t) {
  const int32_t wi = static_cast<int32_t>(w), hi = static_cast<int32_t>(h);
  float px[kGridSampleBlock], py[kGridSampleBlock];
  for (int64_t s = 0; s < n; ++s) {
    px[s] = gs_pad_as<P>(gs_unnormalize(g[2 * s], w, align), w, align);
    py[s] = gs_pad_as<P>(gs_unnormalize(g[2 * s + 1], h, align), h, align);
  }
  for (int64_t s = 0; s < n; ++s) {
    if constexpr (kNearest) {
      const int32_t ix = static_cast<int32_t>(std::nearbyint(px[s]));
      const int32_t iy = static_cast<int32_t>(std::nearbyint(py[s]));
      t.in[0][s] = (ix >= 0) & (ix < wi) & (iy >= 0) & (iy < hi);
      t.off[0][s] = gs_clamp_index(iy, hi) * wi + gs_clamp_index(ix, wi);
    } else {
      const float x = px[s], y = py[s];
      const int32_t x0 = gs_floor(x), y0 = gs_floor(y);
      const float x0f = static_cast<float>(x0), y0f = static_cast<float>(y0);
      const float x1f = x0f + 1.0f, y1f = y0f + 1.0f;
      t.w[0][s] = (x1f - x) * (y1f - y);
      t.w[1][s] = (x - x0f) * (y1f - y);
      t.w[2][s] = (x1f - x) * (y - y0f);
      t.w[3][s] = (x - x0f) * (y - y0f);
      const int32_t x0in = (x0 >= 0) & (x0 < wi), x1in = (x0 + 1 >= 0) & (x0 + 1 < wi);
      const int32_t y0in = (y0 >= 0) & (y0 < hi), y1in = (y0 + 1 >= 0) & (y0 + 1 < hi);
      t.in[0][s] = y0in & x0in;
      t.in[1][s] = y0in & x1in;
      t.in[2][s] = y1in & x0in;
      t.in[3][s] = y1in & x1in;
      const int32_t r0 = gs_clamp_index(y0, hi) * wi, r1 = gs_clamp_index(y0 + 1, hi) * wi;
      const int32_t c0 = gs_clamp_index(x0, wi), c1 = gs_clamp_index(x0 + 1, wi);
      t.off[0][s] = r0 + c0;
      t.off[1][s] = r0 + c1;
      t.off[2][s] = r1 + c0;
      t.off[3][s] = r1 + c1;
    }
  }
}

// y[s * y_stride] for samples [0, n) of one channel's plane xp.
template <bool kNearest>
inline void grid_sample_apply(const float *xp, const GridSampleTaps &t, int64_t n, float *y) {
  for (int64_t s = 0; s < n; ++s) {
    if constexpr (kNearest) {
      const float v = xp[t.off[0][s]];
      y[s] = t.in[0][s] ? v : 0.0f;
    } else {
      // (Each tap read whether or not it is inside, then dropped: the
      // reference skips an outside tap, and 0 * w adds +0, so the sums
      // agree bit for bit.)
      float acc = 0.0f;
      for (int k = 0; k < 4; ++k) {
        const float v = xp[t.off[k][s]];
        acc += (t.in[k][s] ? v : 0.0f) * t.w[k][s];
      }
      y[s] = acc;
    }
  }
}

template <GridSamplePadding P, bool kNearest>
inline void grid_sample_blocks(const float *x, const float *grid, float *y,
                               const GridSampleParams &p, int64_t u0, int64_t u1,
                               int64_t blocks_per_image) {
  const int64_t out_plane = p.out_h * p.out_w, in_plane = p.in_h * p.in_w;
  GridSampleTaps taps;
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t b = u / blocks_per_image;
    const int64_t s0 = u % blocks_per_image * kGridSampleBlock;
    const int64_t n = min_(kGridSampleBlock, out_plane - s0);
    grid_sample_taps<P, kNearest>(grid + (b * out_plane + s0) * 2, n, p.in_h, p.in_w,
                                  p.align_corners, taps);
    for (int64_t ch = 0; ch < p.c; ++ch)
      grid_sample_apply<kNearest>(x + (b * p.c + ch) * in_plane, taps, n,
                                  y + (b * p.c + ch) * out_plane + s0);
  }
}

} // namespace detail

// Whether grid_sample takes the blocks (else the reference).
inline bool grid_sample_blocks_fit(const GridSampleParams &p) {
  return p.mode != GridSampleMode::Bicubic && p.in_h > 0 && p.in_w > 0 &&
         p.in_h * p.in_w < (int64_t(1) << 31);
}

// y = GridSample(x, grid) (grid_sample_ref.h has the semantics). Float
// bilinear and nearest sampling run in blocks of samples, split over
// par.threads tasks; the rest runs the reference.
template <class T>
void grid_sample(const T *x, const T *grid, T *y, const GridSampleParams &p,
                 const Parallel &par = Parallel{}) {
  if constexpr (!std::is_same<T, float>::value) {
    (void)par;
    return grid_sample_ref(x, grid, y, p);
  } else {
    if (!grid_sample_blocks_fit(p) || p.n <= 0 || p.c <= 0 || p.out_h <= 0 || p.out_w <= 0)
      return grid_sample_ref(x, grid, y, p);
    const int64_t out_plane = p.out_h * p.out_w;
    const int64_t per_image = (out_plane + detail::kGridSampleBlock - 1) / detail::kGridSampleBlock;
    const int64_t units = p.n * per_image;
    const int64_t work = 8 * p.n * p.c * out_plane;
    const int64_t tasks =
        par.parallel_for && work >= kMinParallelWork ? detail::min_(par.threads, units) : 1;
    run_tasks(par, tasks, [&](int64_t t) {
      const int64_t u0 = units * t / tasks, u1 = units * (t + 1) / tasks;
      const bool nearest = p.mode == GridSampleMode::Nearest;
      auto run = [&](auto pad, auto near) {
        detail::grid_sample_blocks<decltype(pad)::value, decltype(near)::value>(
            x, grid, y, p, u0, u1, per_image);
      };
      using Pad = GridSamplePadding;
      using std::integral_constant;
      auto with_pad = [&](auto near) {
        if (p.padding == Pad::Zeros)
          run(integral_constant<Pad, Pad::Zeros>{}, near);
        else if (p.padding == Pad::Border)
          run(integral_constant<Pad, Pad::Border>{}, near);
        else
          run(integral_constant<Pad, Pad::Reflection>{}, near);
      };
      if (nearest)
        with_pad(std::true_type{});
      else
        with_pad(std::false_type{});
    });
  }
}

} // namespace rt
} // namespace tract
