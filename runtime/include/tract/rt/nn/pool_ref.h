// tract runtime: reference N-d max / average / Lp pooling (1 to 4 spatial
// dims, strides, dilations, asymmetric padding, ceil-mode output sizes).
#pragma once

#include "tract/rt/common.h"
#include "tract/rt/nn/lane_transpose.h"
#include "tract/rt/parallel.h"

#include <cstring>
#include <type_traits>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace tract {
namespace rt {

struct PoolParams {
  int spatial_rank;
  int64_t batch_channels;
  int64_t in_size[4], out_size[4], kernel[4], stride[4], dilation[4],
      pad_begin[4], pad_end[4];
  bool count_include_pad;
  // Floats from one plane to the next in x and in y; 0: the plane's size
  // (dense). Padded planes (ConvParams's plane strides): honoured by
  // max_pool, avg_pool and lp_pool, not by max_pool_with_indices.
  int64_t in_plane_stride = 0, out_plane_stride = 0;
};

namespace detail {

struct Pool4 {
  int64_t in[4], out[4], ker[4], st[4], dil[4], pb[4], pe[4];
  int64_t in_plane, out_plane;
  int64_t in_ps, out_ps; // the plane strides (PoolParams's, or the planes)
};

inline Pool4 pool4(const PoolParams &p) {
  Pool4 q{};
  const int r =
      p.spatial_rank < 0 ? 0 : (p.spatial_rank > 4 ? 4 : p.spatial_rank);
  const int lead = 4 - r;
  for (int d = 0; d < 4; ++d) {
    const bool real = d >= lead;
    const int s = d - lead;
    q.in[d] = real ? p.in_size[s] : 1;
    q.out[d] = real ? p.out_size[s] : 1;
    q.ker[d] = real ? p.kernel[s] : 1;
    q.st[d] = real && p.stride[s] > 0 ? p.stride[s] : 1;
    q.dil[d] = real && p.dilation[s] > 0 ? p.dilation[s] : 1;
    q.pb[d] = real ? p.pad_begin[s] : 0;
    q.pe[d] = real ? p.pad_end[s] : 0;
  }
  q.in_plane = q.in[0] * q.in[1] * q.in[2] * q.in[3];
  q.out_plane = q.out[0] * q.out[1] * q.out[2] * q.out[3];
  q.in_ps = p.in_plane_stride > 0 ? p.in_plane_stride : q.in_plane;
  q.out_ps = p.out_plane_stride > 0 ? p.out_plane_stride : q.out_plane;
  return q;
}

// Taps k with start + k*dil in [lo_pos, hi_pos): returns [klo, khi).
inline void pool_taps(int64_t start, int64_t dil, int64_t ker, int64_t lo_pos,
                      int64_t hi_pos, int64_t *klo, int64_t *khi) {
  *klo = max_(int64_t(0), ceil_div(lo_pos - start, dil));
  *khi = min_(ker, floor_div(hi_pos - 1 - start, dil) + 1);
  if (*khi < *klo)
    *khi = *klo;
}

// Calls visit(y_index, in_offset_of_window_origin, klo, khi, pad_count) for
// every output element of one plane; klo/khi are per-dim in-bounds tap
// ranges and pad_count the number of taps inside the padded input.
template <class F> inline void pool_windows(const Pool4 &q, F &&visit) {
  int64_t o[4];
  int64_t yi = 0;
  for (o[0] = 0; o[0] < q.out[0]; ++o[0])
    for (o[1] = 0; o[1] < q.out[1]; ++o[1])
      for (o[2] = 0; o[2] < q.out[2]; ++o[2])
        for (o[3] = 0; o[3] < q.out[3]; ++o[3], ++yi) {
          int64_t klo[4], khi[4], start[4];
          int64_t pad_count = 1;
          for (int d = 0; d < 4; ++d) {
            start[d] = o[d] * q.st[d] - q.pb[d];
            pool_taps(start[d], q.dil[d], q.ker[d], 0, q.in[d], &klo[d],
                      &khi[d]);
            int64_t plo, phi;
            pool_taps(start[d], q.dil[d], q.ker[d], -q.pb[d], q.in[d] + q.pe[d],
                      &plo, &phi);
            pad_count *= phi - plo;
          }
          visit(yi, start, static_cast<const int64_t *>(klo),
                static_cast<const int64_t *>(khi), pad_count);
        }
}

// Folds g over the in-bounds taps of one window.
template <class T, class Acc, class G>
inline Acc pool_fold(const Pool4 &q, const T *xp, const int64_t *start,
                     const int64_t *klo, const int64_t *khi, Acc acc, G &&g) {
  for (int64_t k0 = klo[0]; k0 < khi[0]; ++k0) {
    const int64_t i0 = start[0] + k0 * q.dil[0];
    for (int64_t k1 = klo[1]; k1 < khi[1]; ++k1) {
      const int64_t i1 = start[1] + k1 * q.dil[1];
      for (int64_t k2 = klo[2]; k2 < khi[2]; ++k2) {
        const int64_t i2 = start[2] + k2 * q.dil[2];
        const int64_t row =
            ((i0 * q.in[1] + i1) * q.in[2] + i2) * q.in[3] + start[3];
        for (int64_t k3 = klo[3]; k3 < khi[3]; ++k3)
          acc = g(acc, xp[row + k3 * q.dil[3]]);
      }
    }
  }
  return acc;
}

inline int64_t tap_count(const int64_t *klo, const int64_t *khi) {
  return (khi[0] - klo[0]) * (khi[1] - klo[1]) * (khi[2] - klo[2]) *
         (khi[3] - klo[3]);
}

} // namespace detail

namespace detail {

// A 1-d or 2-d pool (pool4 puts the spatial dims last): the row kernels'.
inline bool is_rows_pool(const Pool4 &q) {
  return q.ker[0] == 1 && q.ker[1] == 1 && q.in[0] == 1 && q.in[1] == 1 && q.out[0] == 1 &&
         q.out[1] == 1;
}

// Tasks a pool over `planes` planes is split into: a pooling layer is
// memory-bound, so `work` counts compares or adds at a quarter of a GEMM's.
inline int64_t pool_tasks(const Parallel &par, int64_t planes, int64_t work) {
  return par.parallel_for && work >= kMinParallelWork ? min_(par.threads, planes) : 1;
}

// Calls f(input row) for each row of output row oh's window that lies
// inside the plane xp (a row of a rows pool).
template <class T, class F>
inline void for_window_rows(const Pool4 &q, const T *xp, int64_t oh, F &&f) {
  for (int64_t kh = 0; kh < q.ker[2]; ++kh) {
    const int64_t ih = oh * q.st[2] + kh * q.dil[2] - q.pb[2];
    if (ih >= 0 && ih < q.in[2])
      f(xp + ih * q.in[3]);
  }
}

// row[ow] = max(row[ow], src[ow * stride + off]) for ow in [lo, hi), with
// strides 1 and 2 as constants so the loop vectorises.
template <int64_t kStride, class T>
inline void max_fold_strided(T *row, const T *src, int64_t off, int64_t stride, int64_t lo,
                             int64_t hi) {
  const int64_t s = kStride ? kStride : stride;
  for (int64_t ow = lo; ow < hi; ++ow) {
    const T v = src[ow * s + off];
    row[ow] = row[ow] < v ? v : row[ow];
  }
}

// Input rows up to this many elements take the two-pass row kernel (its
// row buffer is on the stack: 1 KB of floats, small enough for a
// microcontroller task's stack; CNN feature maps are rarely wider).
constexpr int64_t kMaxPoolRowElements = 256;

// max_pool of 1-d and 2-d windows, one output row at a time, in two passes:
// the window's input rows are folded into one row (contiguous, vectorised),
// then per column tap the in-bounds run of outputs (tap_range) is folded
// from it. Same fold as the general path (`m < v ? v : m` from -inf, so NaN
// never wins); only the order of the taps differs. Rows wider than
// kMaxPoolRowElements fold each tap straight from the input rows.
// max_pool_row_of: one output row, from the window rows for_rows(f) passes
// to f (`folded`: kMaxPoolRowElements elements); max_pool_rows: every row
// of `planes` planes.
template <class T, class ForRows>
inline void max_pool_row_of(const ForRows &for_rows, T *row, const Pool4 &q, T *folded) {
  const int64_t iw_n = q.in[3], ow_n = q.out[3], sw = q.st[3];
  const bool two_pass = iw_n <= kMaxPoolRowElements;
  for (int64_t ow = 0; ow < ow_n; ++ow)
    row[ow] = lowest_or_neg_inf<T>();
  if (two_pass)
    for (int64_t iw = 0; iw < iw_n; ++iw)
      folded[iw] = lowest_or_neg_inf<T>();
  for_rows([&](const T *in) {
    if (two_pass) {
      for (int64_t iw = 0; iw < iw_n; ++iw)
        folded[iw] = folded[iw] < in[iw] ? in[iw] : folded[iw];
      return;
    }
    for (int64_t kw = 0; kw < q.ker[3]; ++kw) {
      const int64_t off = kw * q.dil[3] - q.pb[3];
      int64_t lo = 0, hi = 0;
      tap_range(ow_n, iw_n, sw, off, &lo, &hi);
      max_fold_strided<0>(row, in, off, sw, lo, hi);
    }
  });
  if (!two_pass)
    return;
  for (int64_t kw = 0; kw < q.ker[3]; ++kw) {
    const int64_t off = kw * q.dil[3] - q.pb[3];
    int64_t lo = 0, hi = 0;
    tap_range(ow_n, iw_n, sw, off, &lo, &hi);
    if (sw == 1)
      max_fold_strided<1>(row, folded, off, sw, lo, hi);
    else if (sw == 2)
      max_fold_strided<2>(row, folded, off, sw, lo, hi);
    else
      max_fold_strided<0>(row, folded, off, sw, lo, hi);
  }
}

template <class T> void max_pool_rows(const T *x, T *y, const Pool4 &q, int64_t planes) {
  T folded[kMaxPoolRowElements];
  for (int64_t bc = 0; bc < planes; ++bc) {
    const T *xp = x + bc * q.in_ps;
    for (int64_t oh = 0; oh < q.out[2]; ++oh)
      max_pool_row_of([&](const auto &f) { for_window_rows(q, xp, oh, f); },
                      y + bc * q.out_ps + oh * q.out[3], q, folded);
  }
}

// Floats per row max_pool_rows_floats stages: the left padding, the row, the
// windows' reach past it and one vector of slack.
constexpr int64_t kMaxPoolStagedFloats = 2 * kMaxPoolRowElements + 64;
constexpr int64_t kMaxPoolVectorRows = 16;

// Whether max_pool_rows_floats takes a 1-d or 2-d float pool: input rows
// that fit the staged row, strides 1 or 2 along the row.
inline bool max_pool_rows_floats_fit(const Pool4 &q) {
  // (At least one whole vector of outputs is computed: a 13-wide row too.)
  const int64_t outs = q.out[3] > 16 ? q.out[3] : 16;
  const int64_t reach = (outs - 1) * q.st[3] + (q.ker[3] - 1) * q.dil[3] + 1;
  return q.pb[3] + q.in[3] <= kMaxPoolRowElements &&
         reach + 32 <= kMaxPoolStagedFloats && (q.st[3] == 1 || q.st[3] == 2) &&
         q.ker[2] <= kMaxPoolVectorRows;
}

// (Where there are vector registers: on a scalar core, a Cortex-M, the
// 16-float vectors would be emulated, more code than the scalar kernel.)
#if defined(__GNUC__) && (defined(__AVX__) || defined(__SSE2__) || defined(__ARM_NEON))
#define TRACT_RT_POOL_VECTOR_ROWS 1
typedef float pool_v16 __attribute__((vector_size(64)));

// The max of the window's n input rows (iw_n floats each), stored once at
// row (a staged buffer's first element past its left padding). A window all
// padding (n = 0) stages -inf.
inline void stage_window_max(const float *const *rows, int64_t n, int64_t iw_n, float *row) {
  const float lowest = lowest_or_neg_inf<float>();
  // Rows narrower than a vector (GoogLeNet's 8x8, 4x4 and 2x2 maps,
  // SqueezeNet 1.0's 14x14 at a 64x64 input): the staged row's padding past
  // them stays -inf. With AVX-512 one masked load per input row and a masked
  // store; else element by element, rows outside so the elements' folds are
  // independent (elements inside: a chain of dependent maxes per element,
  // 130 cycles a 14-wide row).
  if (iw_n < 16) {
#if defined(__AVX512F__)
    const __mmask16 k = static_cast<__mmask16>((1u << iw_n) - 1u);
    pool_v16 m;
    for (int64_t j = 0; j < 16; ++j)
      m[j] = lowest;
    for (int64_t r = 0; r < n; ++r) {
      const __m512 loaded = _mm512_maskz_loadu_ps(k, rows[r]);
      pool_v16 v;
      std::memcpy(&v, &loaded, sizeof v);
      m = m < v ? v : m;
    }
    __m512 out;
    std::memcpy(&out, &m, sizeof out);
    _mm512_mask_storeu_ps(row, k, out);
#else
    float m[16];
    for (int64_t iw = 0; iw < iw_n; ++iw)
      m[iw] = lowest;
    for (int64_t r = 0; r < n; ++r)
      for (int64_t iw = 0; iw < iw_n; ++iw)
        m[iw] = m[iw] < rows[r][iw] ? rows[r][iw] : m[iw];
    for (int64_t iw = 0; iw < iw_n; ++iw)
      row[iw] = m[iw];
#endif
  }
  for (int64_t iw = 0; iw_n >= 16; iw += 16) {
    iw = iw < iw_n - 16 ? iw : iw_n - 16;
    pool_v16 m;
    for (int64_t j = 0; j < 16; ++j)
      m[j] = lowest;
    for (int64_t r = 0; r < n; ++r) {
      pool_v16 v;
      std::memcpy(&v, rows[r] + iw, sizeof v);
      m = m < v ? v : m;
    }
    std::memcpy(row + iw, &m, sizeof m);
    if (iw == iw_n - 16)
      break;
  }
}

// Output row `out` (q.out[3] outputs) from a staged row: the max over the
// taps along the row (at stride 2, the even lanes of two vectors).
inline void emit_pooled_row(const float *buffer, float *out, const Pool4 &q) {
  const int64_t ow_n = q.out[3], sw = q.st[3];
  const float lowest = lowest_or_neg_inf<float>();
  for (int64_t ow = 0;; ow += 16) {
    ow = ow < ow_n - 16 ? ow : ow_n - 16;
    // (A row narrower than a vector, 13 wide at SqueezeNet's last pool,
    // computes one whose lanes past the row read the staged padding
    // and slack, and stores its first ow_n.)
    ow = ow < 0 ? 0 : ow;
    pool_v16 m;
    for (int64_t j = 0; j < 16; ++j)
      m[j] = lowest;
    for (int64_t kw = 0; kw < q.ker[3]; ++kw) {
      const float *s = buffer + ow * sw + kw * q.dil[3];
      pool_v16 v;
      if (sw == 1) {
        std::memcpy(&v, s, sizeof v);
      } else {
        pool_v16 a, b;
        std::memcpy(&a, s, sizeof a);
        std::memcpy(&b, s + 16, sizeof b);
        v = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                    28, 30);
      }
      m = m < v ? v : m;
    }
    if (ow_n < 16) { // (a memcpy of a run-time length: a library call)
#if defined(__AVX512F__)
      __m512 mv;
      std::memcpy(&mv, &m, sizeof mv);
      _mm512_mask_storeu_ps(out, static_cast<__mmask16>((1u << ow_n) - 1u), mv);
#else
      for (int64_t j = 0; j < ow_n; ++j)
        out[j] = m[j];
#endif
      break;
    }
    std::memcpy(out + ow, &m, sizeof m);
    if (ow == ow_n - 16)
      break;
  }
}

// max_pool_rows for floats, 16 elements a vector and each value folded in
// registers: per output row, the max over the window's input rows is staged
// once (between -inf padding, so every tap of every output is in bounds),
// then each output vector is the max over the taps along the row (at
// stride 2, the even lanes of two vectors). A row's last vector overlaps the
// one before instead of leaving a scalar tail (rows of 55 or 111): its
// elements get the same value twice. The compiler's loops on such short rows
// spent most of their time in scalar tails and in loads waiting on the
// previous pass's stores. Two staged rows alternate, and row u's outputs are
// computed after row u + 1 is staged: a load right after the stores it
// spans (overlapping vectors, unaligned taps) cannot take their data from
// the store buffer and waits for them to reach the cache (SqueezeNet's
// 27x27 -> 13x13 pool alone: 69 -> 45 us). Same fold as the scalar kernel
// (`m < v ? v : m` from -inf: NaN never wins); only the order of the taps
// differs.
inline void max_pool_rows_floats(const float *x, float *y, const Pool4 &q, int64_t planes) {
  const int64_t ow_n = q.out[3], pb = q.pb[3], oh_n = q.out[2];
  const float lowest = lowest_or_neg_inf<float>();
  float staged[2][kMaxPoolStagedFloats];
  for (float &v : staged[0])
    v = lowest;
  for (float &v : staged[1])
    v = lowest;
  // The window rows' max of output row oh of plane xp, stored once (a
  // window all padding: -inf).
  auto stage = [&](const float *xp, int64_t oh, float *buffer) {
    const float *rows[kMaxPoolVectorRows];
    int64_t n = 0;
    for_window_rows(q, xp, oh, [&](const float *in) { rows[n++] = in; });
    stage_window_max(rows, n, q.in[3], buffer + pb);
  };
  // Output rows are numbered through the planes (the previous one's
  // outputs wait for the next one's staging across planes too).
  float *previous = nullptr;
  int64_t u = 0;
  for (int64_t bc = 0; bc < planes; ++bc) {
    const float *xp = x + bc * q.in_ps;
    float *out = y + bc * q.out_ps;
    for (int64_t oh = 0; oh < oh_n; ++oh, ++u, out += ow_n) {
      stage(xp, oh, staged[u & 1]);
      if (previous)
        emit_pooled_row(staged[(u - 1) & 1], previous, q);
      previous = out;
    }
  }
  if (previous)
    emit_pooled_row(staged[(u - 1) & 1], previous, q);
}
#endif

#if defined(TRACT_RT_POOL_VECTOR_ROWS) && defined(__AVX512F__)
#define TRACT_RT_POOL_LANES 1
// Small planes (at most kMaxPoolLanesPixels pixels in and out): 16 planes
// at a time moved into lane layout (nn/lane_transpose.h: position i holds
// the 16 planes' pixel i), each output pixel one vector max per tap for
// all 16, then moved back. Per output row the row kernels pay a staging
// pass and a call or two, which on 4 x 4 to 14 x 14 maps (GoogLeNet and
// SqueezeNet 1.0 at 64 x 64, ResNet's last stages) is most of the time:
// GoogLeNet's 4x4 3x3 stride-1 pools of 512 planes 49 -> 7 us. Same fold as
// the scalar kernel (`m < v ? v : m` from -inf over the in-bounds taps).
constexpr int64_t kMaxPoolLanesPixels = 256;

inline bool max_pool_lanes_fit(const Pool4 &q, int64_t planes) {
  return q.in_plane <= kMaxPoolLanesPixels && q.out_plane <= kMaxPoolLanesPixels &&
         planes >= 8;
}

// Each block of 16 planes in lane layout: gathered into in_l, pool(in_l,
// out_l) computes the block's outputs in lane layout, scattered back.
template <class PoolBlock>
inline void for_lane_blocks(const float *x, float *y, const Pool4 &q, int64_t planes,
                            const PoolBlock &pool) {
  constexpr int64_t L = lanes::kLanes;
  alignas(64) float in_l[kMaxPoolLanesPixels * L];
  alignas(64) float out_l[kMaxPoolLanesPixels * L];
  for (int64_t c0 = 0; c0 < planes; c0 += L) {
    const float *in_rows[L];
    float *out_rows[L];
    for (int64_t c = 0; c < L; ++c) {
      const bool real = c0 + c < planes;
      in_rows[c] = real ? x + (c0 + c) * q.in_ps : nullptr;
      out_rows[c] = real ? y + (c0 + c) * q.out_ps : nullptr;
    }
    lanes::gather(in_rows, 0, q.in_plane, in_l);
    pool(static_cast<const float *>(in_l), out_l);
    lanes::scatter(out_l, q.out_plane, out_rows, 0);
  }
}

inline void max_pool_lanes(const float *x, float *y, const Pool4 &q, int64_t planes) {
  constexpr int64_t L = lanes::kLanes;
  const float lowest = lowest_or_neg_inf<float>();
  const int64_t ih_n = q.in[2], iw_n = q.in[3];
  for_lane_blocks(x, y, q, planes, [&](const float *in_l, float *o) {
    for (int64_t oh = 0; oh < q.out[2]; ++oh) {
      int64_t khlo, khhi;
      const int64_t h0 = oh * q.st[2] - q.pb[2];
      pool_taps(h0, q.dil[2], q.ker[2], 0, ih_n, &khlo, &khhi);
      for (int64_t ow = 0; ow < q.out[3]; ++ow, o += L) {
        int64_t kwlo, kwhi;
        const int64_t w0 = ow * q.st[3] - q.pb[3];
        pool_taps(w0, q.dil[3], q.ker[3], 0, iw_n, &kwlo, &kwhi);
        pool_v16 m;
        for (int64_t j = 0; j < L; ++j)
          m[j] = lowest;
        for (int64_t kh = khlo; kh < khhi; ++kh) {
          const float *row = in_l + (h0 + kh * q.dil[2]) * iw_n * L;
          for (int64_t kw = kwlo; kw < kwhi; ++kw) {
            pool_v16 v;
            std::memcpy(&v, row + (w0 + kw * q.dil[3]) * L, sizeof v);
            m = m < v ? v : m;
          }
        }
        std::memcpy(o, &m, sizeof m);
      }
    }
  });
}
#endif

#if defined(TRACT_RT_POOL_LANES)
// Rows of at most 32 floats with their padding on planes lane layout does
// not take (SqueezeNet 1.0's 29 x 29 at a 64 x 64 input, SqueezeNet 1.1's
// 27 x 27), whole in two registers: per output row the window's input rows
// are loaded masked (-inf past the row and in the padding) and folded, then
// each column tap is one two-register permute of the folded row (the even
// lanes for stride 2) and a max, and the row is stored masked. No staging:
// the row kernel's staging and calls per output row were most of these
// pools' time (96 planes of 29 x 29 -> 14 x 14: 15.5 -> 8.3 us; 128 of
// 27 x 27 -> 13 x 13: 19.3 -> 10.0 us, Zen 5). The row kernel's fold in
// its order (rows, then the taps along the row, each
// `m < v ? v : m`, which _mm512_max_ps(v, m) is, NaN and signed zeros
// included), so the same floats.
constexpr int64_t kMaxPoolNarrowTaps = 8;

inline bool max_pool_narrow_rows_fit(const Pool4 &q) {
  const int64_t reach = (q.out[3] - 1) * q.st[3] + (q.ker[3] - 1) * q.dil[3] + 1;
  return q.pb[3] + q.in[3] <= 32 && reach <= 32 && q.out[3] <= 16 &&
         q.ker[3] <= kMaxPoolNarrowTaps && q.ker[2] <= kMaxPoolVectorRows;
}

// m < v ? v : m in each lane. (The masked form: GCC 12's _mm512_max_ps
// warns at -O3 of the undefined source operand it passes itself.)
inline __m512 fold_max(__m512 v, __m512 m) {
  return _mm512_mask_max_ps(m, static_cast<__mmask16>(0xffff), v, m);
}

inline void max_pool_narrow_rows(const float *x, float *y, const Pool4 &q, int64_t planes) {
  const int64_t iw_n = q.in[3], pw = q.pb[3], ow_n = q.out[3];
  const __m512 lowest = _mm512_set1_ps(lowest_or_neg_inf<float>());
  // Lanes [pw, pw + iw_n) of the two registers hold the row.
  const uint32_t row_bits = static_cast<uint32_t>(((uint64_t(1) << iw_n) - 1) << pw);
  const __mmask16 lo_mask = static_cast<__mmask16>(row_bits), hi_mask =
                                                               static_cast<__mmask16>(row_bits >> 16);
  const __mmask16 out_mask = static_cast<__mmask16>((1u << ow_n) - 1u);
  __m512i taps[kMaxPoolNarrowTaps];
  for (int64_t kw = 0; kw < q.ker[3]; ++kw) {
    alignas(64) int32_t at[16];
    for (int64_t ow = 0; ow < 16; ++ow) {
      const int64_t i = ow * q.st[3] + kw * q.dil[3];
      at[ow] = static_cast<int32_t>(ow < ow_n && i < 32 ? i : 31);
    }
    taps[kw] = _mm512_load_si512(at);
  }
  for (int64_t bc = 0; bc < planes; ++bc) {
    const float *xp = x + bc * q.in_ps;
    float *out = y + bc * q.out_ps;
    for (int64_t oh = 0; oh < q.out[2]; ++oh, out += ow_n) {
      __m512 lo = lowest, hi = lowest;
      for_window_rows(q, xp, oh, [&](const float *in) {
        // (Masked-off lanes are not read: `in - pw` may point before x.)
        lo = fold_max(_mm512_mask_loadu_ps(lowest, lo_mask, in - pw), lo);
        hi = fold_max(_mm512_mask_loadu_ps(lowest, hi_mask, in - pw + 16), hi);
      });
      __m512 m = lowest;
      for (int64_t kw = 0; kw < q.ker[3]; ++kw)
        m = fold_max(_mm512_permutex2var_ps(lo, taps[kw], hi), m);
      _mm512_mask_storeu_ps(out, out_mask, m);
    }
  }
}

// Rows of 16 outputs or more at stride 2 with 2 or 3 column taps (the
// common CNN pool, 3x3 or 2x2 stride 2: SqueezeNet 1.1's 55 x 55 -> 27 x 27,
// AlexNet's, VGG's, Inception's), 16 outputs at a time in registers: the
// 33 input columns they read (32 with 2 taps) are loaded from each input
// row of the window and folded, then the taps are the even lanes, the odd
// lanes and the even lanes one further (two-register permutes), a max
// each. Columns in the padding or past the row load as -inf (masked loads).
// A row's last 16 outputs overlap the ones before instead of leaving a
// tail. The row kernel (max_pool_rows_floats) stages each output row in
// memory and reads it back per tap: 128 planes of 55 x 55 -> 27 x 27 from
// L2, 88 -> 57 us (Sapphire Rapids class Xeon). Windows of three rows inside
// the plane (the common case) have their own code: the generic loop over
// the window's rows compiled to spills (19 against 11-14 ns an output row).
// Same fold, in the same order, as the row kernel, so the same floats.
inline bool max_pool_rows_s2_fit(const Pool4 &q) {
  return q.st[3] == 2 && q.dil[3] == 1 && (q.ker[3] == 2 || q.ker[3] == 3) && q.out[3] >= 16 &&
         q.ker[2] <= kMaxPoolVectorRows;
}

// The lanes j of the 16 columns from `col` that lie in [0, iw_n).
inline __mmask16 columns_inside(int64_t col, int64_t iw_n) {
  const int64_t lo = col < 0 ? -col : 0, hi = iw_n - col < 16 ? iw_n - col : 16;
  if (hi <= lo)
    return 0;
  return static_cast<__mmask16>(((1u << hi) - 1u) & ~((1u << lo) - 1u));
}

// Output columns [ow, ow + 16) of one output row from the 33 input columns
// from `col` (kTaps = 3; 32 for 2) of each of its window's input rows, in
// row order: row(r) is input row r of the window; columns outside [0,
// iw_n) are -inf (masked loads, whose masked-off lanes are not read: `col`
// may be before the row). Folds from -inf, so NaN never wins.
template <int kTaps, class Row>
inline __m512 pooled_columns_s2(const Row &row, int64_t rows, int64_t col, int64_t iw_n,
                                __m512i even, __m512i odd, __m512i next, __m512 lowest) {
  __m512 a = lowest, b = lowest, c = lowest;
  if (col >= 0 && col + 30 + kTaps <= iw_n) {
    for (int64_t r = 0; r < rows; ++r) {
      a = fold_max(_mm512_loadu_ps(row(r) + col), a);
      b = fold_max(_mm512_loadu_ps(row(r) + col + 16), b);
      if (kTaps == 3)
        c = fold_max(_mm512_mask_loadu_ps(lowest, 1, row(r) + col + 32), c);
    }
  } else {
    const __mmask16 ka = columns_inside(col, iw_n), kb = columns_inside(col + 16, iw_n),
                    kc = static_cast<__mmask16>(columns_inside(col + 32, iw_n) & 1u);
    for (int64_t r = 0; r < rows; ++r) {
      a = fold_max(_mm512_mask_loadu_ps(lowest, ka, row(r) + col), a);
      b = fold_max(_mm512_mask_loadu_ps(lowest, kb, row(r) + col + 16), b);
      if (kTaps == 3)
        c = fold_max(_mm512_mask_loadu_ps(lowest, kc, row(r) + col + 32), c);
    }
  }
  const __m512 taps0 = _mm512_permutex2var_ps(a, even, b);
  __m512 m = fold_max(taps0, lowest);
  m = fold_max(_mm512_permutex2var_ps(a, odd, b), m);
  if (kTaps == 3)
    m = fold_max(_mm512_permutex2var_ps(taps0, next, c), m);
  return m;
}

// pooled_columns_s2 for three window rows, all 33 (32) columns inside the
// row: r0..r2 point at column `col` of each.
template <int kTaps>
inline __m512 pooled_columns_s2_inside3(const float *r0, const float *r1, const float *r2,
                                        __m512i even, __m512i odd, __m512i next,
                                        __m512 lowest) {
  const __m512 a = fold_max(_mm512_loadu_ps(r2),
                            fold_max(_mm512_loadu_ps(r1), fold_max(_mm512_loadu_ps(r0), lowest)));
  const __m512 b = fold_max(
      _mm512_loadu_ps(r2 + 16),
      fold_max(_mm512_loadu_ps(r1 + 16), fold_max(_mm512_loadu_ps(r0 + 16), lowest)));
  const __m512 taps0 = _mm512_permutex2var_ps(a, even, b);
  __m512 m = fold_max(_mm512_permutex2var_ps(a, odd, b), fold_max(taps0, lowest));
  if (kTaps == 3) {
    const __m512 c = fold_max(_mm512_maskz_loadu_ps(1, r2 + 32),
                              fold_max(_mm512_maskz_loadu_ps(1, r1 + 32),
                                       fold_max(_mm512_maskz_loadu_ps(1, r0 + 32), lowest)));
    m = fold_max(_mm512_permutex2var_ps(taps0, next, c), m);
  }
  return m;
}

// One output row of a pool max_pool_rows_s2 takes, from its window's n
// input rows win[0..n) (in window order): out[0..ow_n).
template <int kTaps> class PoolRowS2 {
public:
  explicit PoolRowS2(const Pool4 &q)
      : iw_n_(q.in[3]), pw_(q.pb[3]), ow_n_(q.out[3]),
        lowest_(_mm512_set1_ps(lowest_or_neg_inf<float>())) {
    alignas(64) int32_t even[16], odd[16], next[16];
    for (int j = 0; j < 16; ++j) {
      even[j] = 2 * j;    // column 2j of the two registers a, b
      odd[j] = 2 * j + 1; // 2j + 1
      next[j] = j + 1;    // 2j + 2: the even lanes' next, the last from c
    }
    even_ = _mm512_load_si512(even);
    odd_ = _mm512_load_si512(odd);
    next_ = _mm512_load_si512(next);
  }

  void operator()(const float *const *win, int64_t n, float *out) const {
    auto row = [&](int64_t r) { return win[r]; };
    if (n == 3) {
      const float *r0 = win[0], *r1 = win[1], *r2 = win[2];
      for_blocks(out, [&](int64_t col) {
        return col >= 0 && col + 30 + kTaps <= iw_n_
                   ? pooled_columns_s2_inside3<kTaps>(r0 + col, r1 + col, r2 + col, even_, odd_,
                                                      next_, lowest_)
                   : pooled_columns_s2<kTaps>(row, 3, col, iw_n_, even_, odd_, next_, lowest_);
      });
      return;
    }
    for_blocks(out, [&](int64_t col) {
      return pooled_columns_s2<kTaps>(row, n, col, iw_n_, even_, odd_, next_, lowest_);
    });
  }

private:
  // out[ow..ow + 16) = block(input column of ow's first tap), for ow = 0,
  // 16, ... and the row's last 16 (overlapping the ones before).
  template <class Block> void for_blocks(float *out, const Block &block) const {
    for (int64_t ow = 0;; ow += 16) {
      ow = ow < ow_n_ - 16 ? ow : ow_n_ - 16;
      _mm512_storeu_ps(out + ow, block(2 * ow - pw_));
      if (ow == ow_n_ - 16)
        break;
    }
  }

  int64_t iw_n_, pw_, ow_n_;
  __m512 lowest_;
  __m512i even_, odd_, next_;
};

template <int kTaps>
inline void max_pool_rows_s2_taps(const float *x, float *y, const Pool4 &q, int64_t planes) {
  const PoolRowS2<kTaps> pool_row(q);
  for (int64_t bc = 0; bc < planes; ++bc) {
    const float *xp = x + bc * q.in_ps;
    float *out = y + bc * q.out_ps;
    for (int64_t oh = 0; oh < q.out[2]; ++oh, out += q.out[3]) {
      const float *rows[kMaxPoolVectorRows];
      int64_t n = 0;
      const int64_t first = oh * q.st[2] - q.pb[2];
      if (q.ker[2] == 3 && q.dil[2] == 1 && first >= 0 && first + 3 <= q.in[2]) {
        // (The common window, without for_window_rows' loop.)
        rows[0] = xp + first * q.in[3];
        rows[1] = rows[0] + q.in[3];
        rows[2] = rows[1] + q.in[3];
        n = 3;
      } else {
        for_window_rows(q, xp, oh, [&](const float *in) { rows[n++] = in; });
      }
      pool_row(rows, n, out);
    }
  }
}

inline void max_pool_rows_s2(const float *x, float *y, const Pool4 &q, int64_t planes) {
  if (q.ker[3] == 3)
    max_pool_rows_s2_taps<3>(x, y, q, planes);
  else
    max_pool_rows_s2_taps<2>(x, y, q, planes);
}
#endif

// Floats per row avg_pool_rows_floats stages (zeros around the row).
constexpr int64_t kAvgPoolStagedFloats = 2 * kMaxPoolRowElements + 64;

// Whether avg_pool_rows_floats takes a 1-d or 2-d pool: every window's
// reach along the row within the staged row.
inline bool avg_pool_rows_floats_fit(const Pool4 &q) {
  const int64_t reach = (q.out[3] - 1) * q.st[3] + (q.ker[3] - 1) * q.dil[3] + 1;
  return q.pb[3] + q.in[3] <= kAvgPoolStagedFloats && reach <= kAvgPoolStagedFloats &&
         q.out[3] <= kMaxPoolRowElements;
}

// Divisor taps along one dim for output o: in-bounds taps, or with
// count_include_pad the taps inside [-pad_begin, in + pad_end).
inline int64_t avg_taps(const Pool4 &q, int d, int64_t o, bool include_pad) {
  int64_t lo = 0, hi = 0;
  const int64_t start = o * q.st[d] - q.pb[d];
  if (include_pad)
    pool_taps(start, q.dil[d], q.ker[d], -q.pb[d], q.in[d] + q.pe[d], &lo, &hi);
  else
    pool_taps(start, q.dil[d], q.ker[d], 0, q.in[d], &lo, &hi);
  return hi - lo;
}

// avg_pool of 1-d and 2-d float windows, one output row at a time: the
// window's input rows are summed into one staged row (between zeros, so
// every tap of every output is in bounds), then each output sums its taps
// along that row and divides by its tap count (the product of the row's and
// the column's: windows are boxes). Contiguous loops the compiler
// vectorises; the reference walked every window tap by tap (Inception-v3's
// 3x3 stride-1 average pools took a quarter of its time). The sum's order
// differs from the reference's (columns of the summed rows, not row by row).
inline void avg_pool_rows_floats(const float *x, float *y, const Pool4 &q, int64_t planes,
                                 bool include_pad) {
  const int64_t iw_n = q.in[3], ow_n = q.out[3], sw = q.st[3], dw = q.dil[3];
  float staged[kAvgPoolStagedFloats];
  for (float &v : staged)
    v = 0.0f;
  float *row = staged + q.pb[3];
  float col_taps[kMaxPoolRowElements];
  for (int64_t ow = 0; ow < ow_n; ++ow)
    col_taps[ow] = float(avg_taps(q, 3, ow, include_pad));
  for (int64_t bc = 0; bc < planes; ++bc) {
    const float *xp = x + bc * q.in_ps;
    for (int64_t oh = 0; oh < q.out[2]; ++oh) {
      int64_t n = 0;
      for_window_rows(q, xp, oh, [&](const float *in) {
        if (n++ == 0)
          std::memcpy(row, in, sizeof(float) * static_cast<size_t>(iw_n));
        else
          for (int64_t iw = 0; iw < iw_n; ++iw)
            row[iw] += in[iw];
      });
      if (n == 0)
        for (int64_t iw = 0; iw < iw_n; ++iw)
          row[iw] = 0.0f;
      const float row_taps = float(avg_taps(q, 2, oh, include_pad));
      float *out = y + bc * q.out_ps + oh * ow_n;
      for (int64_t ow = 0; ow < ow_n; ++ow)
        out[ow] = 0.0f;
      for (int64_t kw = 0; kw < q.ker[3]; ++kw) {
        const float *s = staged + kw * dw;
        if (sw == 1)
          for (int64_t ow = 0; ow < ow_n; ++ow)
            out[ow] += s[ow];
        else
          for (int64_t ow = 0; ow < ow_n; ++ow)
            out[ow] += s[ow * sw];
      }
      for (int64_t ow = 0; ow < ow_n; ++ow) {
        const float taps = row_taps * col_taps[ow];
        out[ow] = taps > 0 ? out[ow] / taps : 0.0f;
      }
    }
  }
}

#if defined(TRACT_RT_POOL_LANES)
// avg_pool_rows_floats on small planes (max_pool_lanes_fit), 16 planes at a
// time in lane layout, as max_pool_lanes: per output row the window rows'
// column sums, then each output the sum of its columns, one vector for 16
// planes. The row kernel's staging, calls and scalar tails per output row
// were most of the time on Inception-v3's 768 planes of 6 x 6 (93 us a
// pool, 121 ns a plane of 16 outputs). Same sums in the same order as
// avg_pool_rows_floats (the rows in order, then the columns from +0 in
// order; the padding's zeros left out, which changes no sum that starts
// at +0), and the same division, bit for bit: a thread's planes may go
// either way.
inline void avg_pool_lanes(const float *x, float *y, const Pool4 &q, int64_t planes,
                           bool include_pad) {
  constexpr int64_t L = lanes::kLanes;
  alignas(64) float col_sums[kMaxPoolLanesPixels * L];
  const int64_t ih_n = q.in[2], iw_n = q.in[3];
  for_lane_blocks(x, y, q, planes, [&](const float *in_l, float *o) {
    for (int64_t oh = 0; oh < q.out[2]; ++oh) {
      int64_t khlo, khhi;
      const int64_t h0 = oh * q.st[2] - q.pb[2];
      pool_taps(h0, q.dil[2], q.ker[2], 0, ih_n, &khlo, &khhi);
      for (int64_t iw = 0; iw < iw_n; ++iw) {
        pool_v16 sum = {};
        for (int64_t kh = khlo; kh < khhi; ++kh) {
          pool_v16 v;
          std::memcpy(&v, in_l + ((h0 + kh * q.dil[2]) * iw_n + iw) * L, sizeof v);
          sum = kh == khlo ? v : sum + v;
        }
        std::memcpy(col_sums + iw * L, &sum, sizeof sum);
      }
      const float row_taps = float(avg_taps(q, 2, oh, include_pad));
      for (int64_t ow = 0; ow < q.out[3]; ++ow, o += L) {
        int64_t kwlo, kwhi;
        const int64_t w0 = ow * q.st[3] - q.pb[3];
        pool_taps(w0, q.dil[3], q.ker[3], 0, iw_n, &kwlo, &kwhi);
        pool_v16 sum = {};
        for (int64_t kw = kwlo; kw < kwhi; ++kw) {
          pool_v16 v;
          std::memcpy(&v, col_sums + (w0 + kw * q.dil[3]) * L, sizeof v);
          sum += v;
        }
        const float taps = row_taps * float(avg_taps(q, 3, ow, include_pad));
        if (taps > 0)
          sum /= taps;
        else
          sum = pool_v16{};
        std::memcpy(o, &sum, sizeof sum);
      }
    }
  });
}
#endif

} // namespace detail

// Max over the in-bounds taps (padding never wins). A window with no
// in-bounds tap gives -inf (lowest for integers). The batch x channel planes
// are split over par.threads tasks (a pooling layer is memory-bound: split
// from a quarter of the GEMM threshold, counted in compares).
template <class T>
void max_pool(const T *x, T *y, const PoolParams &p, const Parallel &par = Parallel{}) {
  const detail::Pool4 q = detail::pool4(p);
  const int64_t planes = p.batch_channels;
  const int64_t work = 4 * planes * q.out_plane * q.ker[0] * q.ker[1] * q.ker[2] * q.ker[3];
  const int64_t tasks = detail::pool_tasks(par, planes, work);
  const bool rows = detail::is_rows_pool(q);
  run_tasks(par, tasks, [&](int64_t t) {
    const int64_t b0 = planes * t / tasks, b1 = planes * (t + 1) / tasks;
#if defined(TRACT_RT_POOL_LANES)
    // (Lane layout first: on 14 x 14 and smaller maps it beat the narrow
    // rows, 7.2 against 9.1 us for 256 planes of 14 x 14 -> 7 x 7.)
    if constexpr (std::is_same<T, float>::value)
      if (rows && detail::max_pool_lanes_fit(q, b1 - b0))
        return detail::max_pool_lanes(x + b0 * q.in_ps, y + b0 * q.out_ps, q, b1 - b0);
    if constexpr (std::is_same<T, float>::value)
      if (rows && detail::max_pool_narrow_rows_fit(q))
        return detail::max_pool_narrow_rows(x + b0 * q.in_ps, y + b0 * q.out_ps, q,
                                            b1 - b0);
    if constexpr (std::is_same<T, float>::value)
      if (rows && detail::max_pool_rows_s2_fit(q))
        return detail::max_pool_rows_s2(x + b0 * q.in_ps, y + b0 * q.out_ps, q, b1 - b0);
#endif
#if defined(TRACT_RT_POOL_VECTOR_ROWS)
    if constexpr (std::is_same<T, float>::value)
      if (rows && detail::max_pool_rows_floats_fit(q))
        return detail::max_pool_rows_floats(x + b0 * q.in_ps, y + b0 * q.out_ps, q,
                                            b1 - b0);
#endif
    if (rows)
      return detail::max_pool_rows(x + b0 * q.in_ps, y + b0 * q.out_ps, q, b1 - b0);
    for (int64_t bc = b0; bc < b1; ++bc) {
      const T *xp = x + bc * q.in_ps;
      T *yp = y + bc * q.out_ps;
      detail::pool_windows(q, [&](int64_t yi, const int64_t *start, const int64_t *klo,
                                  const int64_t *khi, int64_t) {
        yp[yi] = detail::pool_fold(q, xp, start, klo, khi, detail::lowest_or_neg_inf<T>(),
                                   [](T m, T v) { return m < v ? v : m; });
      });
    }
  });
}

// max_pool plus the flat offset into x of each max (ONNX MaxPool's Indices
// output): bc * in_plane + the spatial offset, row-major, or with
// column_major (storage_order 1) the first spatial dim fastest (the
// batch/channel part stays row-major, like onnxruntime). y is exactly
// max_pool's; the first tap in row-major window order wins ties, and a window
// whose taps never beat -inf (all -inf or NaN) points at its first in-bounds
// tap. A window with no in-bounds tap gives -inf and index -1.
template <class T>
void max_pool_with_indices(const T *x, T *y, int64_t *indices,
                           const PoolParams &p, bool column_major) {
  const detail::Pool4 q = detail::pool4(p);
  int64_t is[4];
  if (column_major) {
    is[0] = 1;
    for (int d = 1; d < 4; ++d)
      is[d] = is[d - 1] * q.in[d - 1];
  } else {
    is[3] = 1;
    for (int d = 2; d >= 0; --d)
      is[d] = is[d + 1] * q.in[d + 1];
  }
  for (int64_t bc = 0; bc < p.batch_channels; ++bc) {
    const T *xp = x + bc * q.in_plane;
    T *yp = y + bc * q.out_plane;
    int64_t *ip = indices + bc * q.out_plane;
    detail::pool_windows(q, [&](int64_t yi, const int64_t *start,
                                const int64_t *klo, const int64_t *khi,
                                int64_t) {
      T m = detail::lowest_or_neg_inf<T>();
      int64_t best = -1;
      for (int64_t k0 = klo[0]; k0 < khi[0]; ++k0) {
        const int64_t i0 = start[0] + k0 * q.dil[0];
        for (int64_t k1 = klo[1]; k1 < khi[1]; ++k1) {
          const int64_t i1 = start[1] + k1 * q.dil[1];
          for (int64_t k2 = klo[2]; k2 < khi[2]; ++k2) {
            const int64_t i2 = start[2] + k2 * q.dil[2];
            const int64_t row = ((i0 * q.in[1] + i1) * q.in[2] + i2) * q.in[3];
            const int64_t irow = i0 * is[0] + i1 * is[1] + i2 * is[2];
            for (int64_t k3 = klo[3]; k3 < khi[3]; ++k3) {
              const int64_t i3 = start[3] + k3 * q.dil[3];
              const T v = xp[row + i3];
              if (m < v) {
                m = v;
                best = irow + i3 * is[3];
              } else if (best < 0) {
                best = irow + i3 * is[3];
              }
            }
          }
        }
      }
      yp[yi] = m;
      ip[yi] = best < 0 ? -1 : bc * q.in_plane + best;
    });
  }
}

// Average; the divisor is the number of taps inside [-pad_begin, in+pad_end)
// with count_include_pad, else the number of in-bounds taps (0 taps -> 0).
// Float 1-d and 2-d pools whose rows fit a staged row run
// detail::avg_pool_rows_floats, the batch x channel planes split over
// par.threads tasks like max_pool's.
template <class T>
void avg_pool(const T *x, T *y, const PoolParams &p, const Parallel &par = Parallel{}) {
  const detail::Pool4 q = detail::pool4(p);
  if constexpr (std::is_same<T, float>::value) {
    if (detail::is_rows_pool(q) && detail::avg_pool_rows_floats_fit(q)) {
      const int64_t planes = p.batch_channels;
      const int64_t tasks =
          detail::pool_tasks(par, planes, 4 * planes * q.out_plane * q.ker[2] * q.ker[3]);
      run_tasks(par, tasks, [&](int64_t t) {
        const int64_t b0 = planes * t / tasks, b1 = planes * (t + 1) / tasks;
#if defined(TRACT_RT_POOL_LANES)
        if (detail::max_pool_lanes_fit(q, b1 - b0))
          return detail::avg_pool_lanes(x + b0 * q.in_ps, y + b0 * q.out_ps, q, b1 - b0,
                                        p.count_include_pad);
#endif
        detail::avg_pool_rows_floats(x + b0 * q.in_ps, y + b0 * q.out_ps, q, b1 - b0,
                                     p.count_include_pad);
      });
      return;
    }
  }
  for (int64_t bc = 0; bc < p.batch_channels; ++bc) {
    const T *xp = x + bc * q.in_ps;
    T *yp = y + bc * q.out_ps;
    detail::pool_windows(q, [&](int64_t yi, const int64_t *start,
                                const int64_t *klo, const int64_t *khi,
                                int64_t pad_count) {
      const T s = detail::pool_fold(q, xp, start, klo, khi, T(0), [](T a, T v) {
        return detail::wrap_add(a, v);
      });
      const int64_t cnt =
          p.count_include_pad ? pad_count : detail::tap_count(klo, khi);
      yp[yi] = cnt > 0 ? static_cast<T>(s / static_cast<T>(cnt)) : T(0);
    });
  }
}

// (sum |x|^p)^(1/p) over the in-bounds taps (padding contributes 0).
template <class T>
void lp_pool(const T *x, T *y, const PoolParams &p, int pnorm) {
  const detail::Pool4 q = detail::pool4(p);
  for (int64_t bc = 0; bc < p.batch_channels; ++bc) {
    const T *xp = x + bc * q.in_ps;
    T *yp = y + bc * q.out_ps;
    detail::pool_windows(q, [&](int64_t yi, const int64_t *start,
                                const int64_t *klo, const int64_t *khi,
                                int64_t) {
      if (pnorm == 1) {
        yp[yi] = detail::pool_fold(q, xp, start, klo, khi, T(0), [](T a, T v) {
          return a + T(std::fabs(v));
        });
      } else if (pnorm == 2) {
        yp[yi] = static_cast<T>(std::sqrt(detail::pool_fold(
            q, xp, start, klo, khi, T(0), [](T a, T v) { return a + v * v; })));
      } else {
        const T pp = static_cast<T>(pnorm);
        const T s =
            detail::pool_fold(q, xp, start, klo, khi, T(0), [pp](T a, T v) {
              return a + static_cast<T>(std::pow(std::fabs(v), pp));
            });
        yp[yi] = static_cast<T>(std::pow(s, T(1) / pp));
      }
    });
  }
}

} // namespace rt
} // namespace tract
