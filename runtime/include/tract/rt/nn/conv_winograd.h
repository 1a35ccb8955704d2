// tract runtime: 3x3 stride-1 f32 convolution by Winograd F(m x m, 3 x 3).
//
// Each m x m block of outputs ("tile") comes from an a x a input patch
// (a = m + 2). With the transforms of Lavin & Gray (2015),
//   Y = A^T [ (G g G^T) (.) (B^T d B) ] A,
// the a^2 element-wise products, summed over input channels, are a^2
// independent GEMMs  M_xi[Cout x tiles] = U_xi[Cout x Cin] * V_xi[Cin x tiles]:
// 36 multiplies per 16 outputs for F(4x4) and 16 per 4 for F(2x2), where
// the direct conv needs 144 and 36.
//   - U = G g G^T is computed at compile time (transform_weights, in double)
//     and emitted as a^2 packed A operands: the GEMMs read them in place.
//   - Tiles go in blocks of up to `block_tiles` (a multiple of 16). Per
//     block, the input transform writes V straight into the GEMM's B-panel
//     layout in scratch (16 tiles per panel = one vector of lanes, so the
//     transform is vectorised across tiles); a^2 GEMMs write M_xi to scratch;
//     the output transform adds the bias and scatters the tiles into y.
//   - The fused epilogue runs at the end, on the output rows or planes; a
//     ClipEpilogue (ReLU, ReLU6) instead clips each tile before its scatter.
// F(4x4) is accurate to a few 1e-6 relative on trained-weight scales; the
// compiler picks it, F(2x2) or im2col per layer (tract-choose-kernels).
#pragma once

#include "tract/rt/elementwise/clip_in_place.h"
#include "tract/rt/linalg/gemm.h"
#include "tract/rt/nn/lane_transpose.h"
#include "tract/rt/nn/conv_ref.h"
#include "tract/rt/warm_lines.h"

#include <cstring>

namespace tract {
namespace rt {
namespace winograd {

template <int M> struct Transforms;

template <> struct Transforms<2> {
  static constexpr int A = 4;
  static constexpr float BT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
  static constexpr double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  static constexpr float AT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
};

// Interpolation points 0, 1, -1, 2, -2 and infinity.
template <> struct Transforms<4> {
  static constexpr int A = 6;
  static constexpr float BT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0},
                                     {0, 4, -4, -1, 1, 0}, {0, -2, -1, 2, 1, 0},
                                     {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
  static constexpr double G[6][3] = {{1.0 / 4, 0, 0},
                                     {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                     {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                     {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                     {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                     {0, 0, 1}};
  static constexpr float AT[4][6] = {
      {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
};

// Tiles per vector of lanes (and per B panel).
constexpr int64_t kLanes = gemm::NR;
static_assert(kLanes == lanes::kLanes, "tiles move to lane layout 16 at a time");
// Scratch per block aims at L2: V and M of one block, in floats.
constexpr int64_t kBlockBudgetFloats = 160 * 1024;

// The convs it computes: 2-d, ungrouped, 3x3, stride 1, no dilation.
inline bool conv_fits(const ConvParams &p) {
  if (p.spatial_rank != 2 || p.groups != 1)
    return false;
  for (int d = 0; d < 2; ++d)
    if (p.kernel[d] != 3 || (p.stride[d] != 1 && p.stride[d] != 0) ||
        (p.dilation[d] != 1 && p.dilation[d] != 0))
      return false;
  return true;
}

template <int M> int64_t tiles(const ConvParams &p) {
  return p.batch * ((p.out_size[0] + M - 1) / M) * ((p.out_size[1] + M - 1) / M);
}

// Tiles per block: a multiple of the lanes, within the budget, no more
// than the conv has.
template <int M> int64_t block_tiles(const ConvParams &p) {
  constexpr int64_t A = Transforms<M>::A;
  const int64_t per_tile = A * A * (p.in_channels + p.out_channels);
  const int64_t fit = kBlockBudgetFloats / per_tile / kLanes * kLanes;
  return gemm::min64(gemm::round_up(tiles<M>(p), kLanes), fit < kLanes ? kLanes : fit);
}

// One cache line between the a^2 matrices of V and of M: their sizes are
// multiples of 4 KB for most channel counts, which would put the a^2 rows
// one tile's transform reads or writes into a single L1 set.
constexpr int64_t kMatrixPad = 16;

template <int M> int64_t scratch_floats(const ConvParams &p) {
  constexpr int64_t A = Transforms<M>::A;
  return A * A * ((p.in_channels + p.out_channels) * block_tiles<M>(p) + 2 * kMatrixPad);
}

template <int M> int64_t transformed_weight_floats(const ConvParams &p) {
  constexpr int64_t A = Transforms<M>::A;
  return A * A * gemm::packed_a_floats(p.out_channels, p.in_channels);
}

// What the cost model charges for the moves around the GEMMs, in GEMM
// multiply-adds: each (tile, transform element, channel) of Winograd's input
// and output transforms, and each element im2col gathers. They are measured
// per CPU kind (bench/run-conv.sh --fit-only) and tractc's --cpu picks them
// (the compiler's compiler/Support/CpuModels.cpp says where each was
// measured). The defaults are Zen 4's: fitted with warm weights when tiles
// moved to and from lane layout element by element (see bench/README.md).
struct ConvCosts {
  double winograd_transform = 44.0;
  double im2col_gather = 20.0;
  // Output rows this wide or narrower run conv_by_taps where F(2x2) would
  // (conv_lanes.h, conv_by_taps_beats_winograd_f2; bench/run-conv.sh
  // --fit-only measures it): 7 on Zen 5 (kept for Zen 4, not measured
  // there); 5 on a Sapphire Rapids class Xeon, where F(2x2) was faster
  // from 6 x 6 on, alone and at 7 x 7 in SqueezeNet 1.0.
  int64_t taps_over_f2_cols = 7;
  // Where deeper convs (more input channels than a network's first,
  // conv_lanes.h's kMaxConvToLanesInChannels) with more than 64 output
  // channels run im2col + GEMM although conv_by_taps_pays: from this many
  // outputs per image (channels x pixels) on; 0: nowhere (bench/run-conv.sh
  // --fit-only measures it). conv_by_taps runs at about the same speed
  // whatever the shape, im2col's GEMM gains with rows and columns. On Zen 5
  // taps won on the shapes conv_by_taps_pays was fitted on (taps / im2col
  // 0.61-0.96; kept for Zen 4, not measured there); on a Sapphire Rapids
  // class Xeon im2col won from 25088 outputs on (AlexNet's 5x5 conv, 192 x
  // 27 x 27: 1.42-1.47; 3x3 stride 2 onto 28 x 28, 128 channels, and onto
  // 14 x 14, 256: 1.2-1.5; 1x7 and 7x1 onto 17 x 17: 1.25-1.46) and lost
  // or tied below (5x5 64 -> 128 onto 13 x 13: 0.85-0.91).
  int64_t im2col_over_taps_outputs = 0;
};

// Estimated cost of F(m) in multiply-adds: the a^2 GEMMs at their padded
// sizes, plus the transforms.
template <int M> double cost(const ConvParams &p, const ConvCosts &c = ConvCosts{}) {
  constexpr int64_t A = Transforms<M>::A;
  const double t = static_cast<double>(tiles<M>(p));
  return static_cast<double>(A * A * gemm::round_up(p.out_channels, gemm::MR) *
                             gemm::round_up(tiles<M>(p), kLanes) * p.in_channels) +
         c.winograd_transform * t * A * A * static_cast<double>(p.in_channels + p.out_channels);
}

// The im2col GEMM for the same conv: the padded GEMM, plus the gather of
// 9 Cin x output pixels elements, which dominates when Cin is small.
inline double im2col_cost(const ConvParams &p, const ConvCosts &c = ConvCosts{}) {
  const int64_t pixels = p.batch * p.out_size[0] * p.out_size[1];
  return static_cast<double>(gemm::round_up(p.out_channels, gemm::MR) *
                             gemm::round_up(pixels, gemm::NR) * 9 * p.in_channels) +
         c.im2col_gather * 9 * static_cast<double>(p.in_channels * pixels);
}

// The tile size to use for this conv, or 0 for none (im2col is cheaper or
// the conv does not fit).
inline int choose_tile(const ConvParams &p, const ConvCosts &c = ConvCosts{}) {
  if (!conv_fits(p))
    return 0;
  const double c2 = cost<2>(p, c), c4 = cost<4>(p, c), direct = im2col_cost(p, c);
  if (c4 <= c2 && c4 < direct)
    return 4;
  return c2 < direct ? 2 : 0;
}

// U_xi = G g G^T for every (output, input) channel pair, as a^2 packed A
// operands ([Cout x Cin] each, gemm::pack_a's layout) one after another.
// `w` is the ONNX [Cout, Cin, 3, 3] tensor. Run by the compiler.
template <int M> void transform_weights(const float *w, const ConvParams &p, float *dst) {
  using T = Transforms<M>;
  constexpr int A = T::A;
  const int64_t cout = p.out_channels, cin = p.in_channels;
  const int64_t matrix = gemm::packed_a_floats(cout, cin);
  for (int64_t i = 0; i < A * A * matrix; ++i)
    dst[i] = 0.0f; // the rows past Cout in the last panel
  for (int64_t co = 0; co < cout; ++co)
    for (int64_t ci = 0; ci < cin; ++ci) {
      const float *g = w + (co * cin + ci) * 9;
      double gg[A][3]; // G g
      for (int i = 0; i < A; ++i)
        for (int j = 0; j < 3; ++j)
          gg[i][j] = T::G[i][0] * g[j] + T::G[i][1] * g[3 + j] + T::G[i][2] * g[6 + j];
      float *at = dst + (co / gemm::MR) * cin * gemm::MR + ci * gemm::MR + co % gemm::MR;
      for (int i = 0; i < A; ++i)
        for (int j = 0; j < A; ++j)
          at[(i * A + j) * matrix] = static_cast<float>(
              gg[i][0] * T::G[j][0] + gg[i][1] * T::G[j][1] + gg[i][2] * T::G[j][2]);
    }
}

namespace detail {

// A vector of one value per tile of a panel.
#if defined(__GNUC__)
typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));
#else
struct Lanes {
  float v[kLanes];
  friend Lanes operator+(Lanes a, const Lanes &b) {
    for (int64_t l = 0; l < kLanes; ++l)
      a.v[l] += b.v[l];
    return a;
  }
  Lanes &operator+=(const Lanes &b) { return *this = *this + b; }
  friend Lanes operator+(Lanes a, float b) {
    for (int64_t l = 0; l < kLanes; ++l)
      a.v[l] += b;
    return a;
  }
  friend Lanes operator*(float a, Lanes b) {
    for (int64_t l = 0; l < kLanes; ++l)
      b.v[l] *= a;
    return b;
  }
};
#endif

// Where tile t starts: its image and its top-left output.
struct TileOrigin {
  int64_t image, row, col;
};

template <int M> TileOrigin tile_origin(const ConvParams &p, int64_t t) {
  const int64_t tw = (p.out_size[1] + M - 1) / M, th = (p.out_size[0] + M - 1) / M;
  return {t / (th * tw), (t / tw) % th * M, t % tw * M};
}

// out[j][i] = sum_k L[i][k] in[j][k]: L applied to each row of `in`, the
// result transposed. Twice gives the separable Y = L X L^T. Fully unrolled,
// so the zero and unit entries of L fold away.
template <int RO, int RI, int C, class Vec>
inline void rows_times_lt(const float (&l)[RO][RI], const Vec (&in)[C][RI], Vec (&out)[RO][C]) {
#pragma GCC unroll 8
  for (int j = 0; j < C; ++j)
#pragma GCC unroll 8
    for (int i = 0; i < RO; ++i) {
      Vec s = Vec{};
#pragma GCC unroll 8
      for (int k = 0; k < RI; ++k)
        if (l[i][k] != 0.0f)
          s += l[i][k] * in[j][k];
      out[i][j] = s;
    }
}

template <int RO, int RI, class Vec>
inline void transform2d(const float (&l)[RO][RI], const Vec (&in)[RI][RI], Vec (&out)[RO][RO]) {
  Vec tmp[RO][RI];
  rows_times_lt(l, in, tmp);  // tmp = L X^T
  rows_times_lt(l, tmp, out); // out = L tmp^T = L X L^T
}

// One block of `nt` tiles starting at tile t0, its phases split over `tasks`
// of `par` (1: all inline).
template <int M>
void winograd_block(const float *x, const float *u, const float *bias, float *y,
                    const ConvParams &p, int64_t t0, int64_t nt, float *scratch,
                    const Parallel &par, int64_t tasks, const LaneClip &clip = LaneClip{}) {
  using T = Transforms<M>;
  constexpr int A = T::A;
  const int64_t cin = p.in_channels, cout = p.out_channels;
  const int64_t ih_n = p.in_size[0], iw_n = p.in_size[1];
  const int64_t oh_n = p.out_size[0], ow_n = p.out_size[1];
  // Planes in_ps floats apart in x and out_ps in y: dense, or padded to
  // whole cache lines (ConvParams's plane strides).
  const rt::detail::Conv4 q = rt::detail::conv4(p);
  const int64_t in_ps = q.in_ps, out_ps = q.out_ps;
  const int64_t ntp = gemm::round_up(nt, kLanes), panels_n = ntp / kLanes;
  // V: A*A x [panels x Cin x lanes], then M: A*A x [Cout x ntp], each
  // matrix kMatrixPad floats after the one before.
  const int64_t v_stride = cin * ntp + kMatrixPad, m_stride = cout * ntp + kMatrixPad;
  float *v = scratch;
  float *mm = scratch + A * A * v_stride;
  using Vec = Lanes;

  // Each phase splits over `tasks` (inline when 1): input channels, then
  // products, then output channels; the tasks write disjoint parts.
  auto split = [&](int64_t n, auto &&phase) {
    run_tasks(par, tasks, [&](int64_t t) { phase(n * t / tasks, n * (t + 1) / tasks); });
  };

  // Input transform, one panel of 16 tiles at a time. Patches wholly inside
  // the image move to lane layout four floats of a row at a time
  // (lanes::gather4); in a panel with others, at the borders, all of them
  // by masked loads (AVX-512) or those element by element.
  split(cin, [&](int64_t ci0, int64_t ci1) {
  const int64_t plane = in_ps;
  for (int64_t pn = 0; pn < panels_n; ++pn) {
    int64_t row0[kLanes], col0[kLanes], img[kLanes], at[kLanes];
    uint32_t inside = 0;
    for (int64_t l = 0; l < kLanes; ++l) {
      const int64_t t = t0 + pn * kLanes + l;
      const TileOrigin o = tile_origin<M>(p, t < t0 + nt ? t : t0);
      img[l] = o.image;
      row0[l] = o.row - p.pad_begin[0];
      col0[l] = o.col - p.pad_begin[1];
      const bool in = t < t0 + nt && row0[l] >= 0 && col0[l] >= 0 && row0[l] + A <= ih_n &&
                      col0[l] + A <= iw_n;
      inside |= static_cast<uint32_t>(in) << l;
      at[l] = in ? img[l] * cin * plane + row0[l] * iw_n + col0[l] : 0;
    }
    // A panel with tiles at the image's borders: each row of each tile is
    // one masked load (lanes::gather4_masked) of the columns inside the
    // image, zeros elsewhere, where element by element the border tiles
    // took 5-10% of SqueezeNet's F(4x4) convs (3 in 4 tiles of a 13 x 13
    // map touch a border). Per patch row i and column group g (columns 2g
    // to 2g + 3: 0-3, then 2-5 of which 4-5 are kept), once per panel.
    // (Where the masked gather is element by element, the loop below
    // reads the border tiles' elements itself.)
    constexpr int kGroups = A > 4 ? 2 : 1;
    int64_t border_at[A][kGroups][kLanes];
    uint8_t border_cols[A][kGroups][kLanes];
    const bool masked = lanes::kVectorGather4Masked && inside != 0xffffu;
    if (masked)
      for (int64_t l = 0; l < kLanes; ++l) {
        const bool real = t0 + pn * kLanes + l < t0 + nt;
        uint8_t cols[kGroups];
        for (int g = 0; g < kGroups; ++g) {
          cols[g] = 0;
          for (int j = 0; j < 4; ++j)
            cols[g] |= static_cast<uint8_t>(col0[l] + 2 * g + j >= 0 &&
                                            col0[l] + 2 * g + j < iw_n)
                       << j;
        }
        for (int i = 0; i < A; ++i) {
          const int64_t r = row0[l] + i;
          const bool row_in = real && r >= 0 && r < ih_n;
          for (int g = 0; g < kGroups; ++g) {
            border_cols[i][g][l] = row_in ? cols[g] : 0;
            border_at[i][g][l] = row_in ? img[l] * cin * plane + r * iw_n + col0[l] + 2 * g : 0;
          }
        }
      }
    for (int64_t ci = ci0; ci < ci1; ++ci) {
      alignas(64) float d[A][A][kLanes];
      // The patch rows into d, four floats of a row at a time: column
      // group g's at d[i][2g] (of the second group, A > 4, the last two).
      auto rows_of = [&](auto &&gather4_row) {
        for (int i = 0; i < A; ++i) {
          gather4_row(i, 0, d[i][0]);
          if constexpr (A > 4) {
            alignas(64) float rest[4][kLanes];
            gather4_row(i, 1, rest[0]);
            std::memcpy(d[i][4], rest[2], sizeof rest[2] * (A - 4));
          }
        }
      };
      if (masked) {
        rows_of([&](int i, int g, float *to) {
          lanes::gather4_masked(x + ci * plane, border_at[i][g], border_cols[i][g], to);
        });
      } else {
        rows_of([&](int i, int g, float *to) {
          lanes::gather4(x + ci * plane + i * iw_n + 2 * g, at, inside, to);
        });
        for (int64_t l = 0; inside != 0xffffu && l < kLanes; ++l) {
          if (inside >> l & 1u)
            continue;
          const float *src = x + (img[l] * cin + ci) * plane;
          const bool real = t0 + pn * kLanes + l < t0 + nt;
          for (int i = 0; i < A; ++i)
            for (int j = 0; j < A; ++j) {
              const int64_t r = row0[l] + i, c = col0[l] + j;
              d[i][j][l] = real && r >= 0 && r < ih_n && c >= 0 && c < iw_n
                               ? src[r * iw_n + c]
                               : 0.0f;
            }
        }
      }
      Vec dv[A][A], vv[A][A];
      std::memcpy(dv, d, sizeof dv);
      transform2d(T::BT, dv, vv);
      float *dst = v + (pn * cin + ci) * kLanes;
      for (int i = 0; i < A; ++i)
        for (int j = 0; j < A; ++j, dst += v_stride)
          std::memcpy(dst, &vv[i][j], sizeof(Vec));
    }
  }
  });

  // The a^2 products, each a whole-K GEMM over packed operands.
  split(A * A, [&](int64_t xi0, int64_t xi1) {
    for (int64_t xi = xi0; xi < xi1; ++xi)
      gemm::gemm(cout, ntp, cin, gemm::PackedA{u + xi * gemm::packed_a_floats(cout, cin), cin},
                 gemm::PackedB{v + xi * v_stride, cin}, mm + xi * m_stride, ntp, 0, nullptr,
                 gemm::NoEpilogue{}, nullptr);
  });

  // Output transform, bias, and the scatter of each tile into y: whole
  // tiles a row at a time (lanes::scatter4), those at the borders (and all
  // of F(2x2)'s) element by element.
  split(cout, [&](int64_t co0, int64_t co1) {
  const int64_t plane = out_ps;
  for (int64_t pn = 0; pn < panels_n; ++pn) {
    // Where each lane's tile lands (once per panel, not per channel: the
    // divisions cost more than the scatter).
    const int64_t lanes = gemm::min64(kLanes, nt - pn * kLanes);
    int64_t at[kLanes] = {};
    int rows[kLanes] = {}, cols[kLanes] = {};
    uint32_t whole = 0;
    for (int64_t l = 0; l < lanes; ++l) {
      const TileOrigin o = tile_origin<M>(p, t0 + pn * kLanes + l);
      at[l] = o.image * cout * plane + o.row * ow_n + o.col;
      rows[l] = static_cast<int>(gemm::min64(M, oh_n - o.row));
      cols[l] = static_cast<int>(gemm::min64(M, ow_n - o.col));
      whole |= static_cast<uint32_t>(M == 4 && rows[l] == M && cols[l] == M) << l;
    }
    for (int64_t co = co0; co < co1; ++co) {
      Vec mv[A][A], yv[M][M];
      const float *src = mm + co * ntp + pn * kLanes;
      for (int i = 0; i < A; ++i)
        for (int j = 0; j < A; ++j, src += m_stride)
          std::memcpy(&mv[i][j], src, sizeof(Vec));
      transform2d(T::AT, mv, yv);
      alignas(64) float out[M][M][kLanes];
      const float b0 = bias ? bias[co] : 0.0f;
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < M; ++j) {
          const Vec s = yv[i][j] + b0;
          std::memcpy(out[i][j], &s, sizeof s);
        }
      if (clip.on) // (the pass's own steps: the same floats)
        for (int i = 0; i < M; ++i)
          for (int j = 0; j < M; ++j)
            clip16_in_place(out[i][j], clip.lo, clip.hi);
      float *y_co = y + co * plane;
      if constexpr (M == 4)
        if (whole)
          for (int i = 0; i < M; ++i)
            lanes::scatter4(out[i][0], y_co + i * ow_n, at, whole);
      for (int64_t l = 0; l < lanes; ++l) {
        if (whole >> l & 1u)
          continue;
        float *tile = y_co + at[l];
        for (int i = 0; i < rows[l]; ++i)
          for (int j = 0; j < cols[l]; ++j)
            tile[i * ow_n + j] = out[i][j][l];
      }
    }
  }
  });
}

// Loads the input rows of tile rows [g0, g1) (over all images, as
// tile_origin numbers them), every input channel, in address order
// (warm_lines.h): the input transform reads them a few floats of a row at a
// time, channel after channel.
template <int M>
void warm_tile_rows(const float *x, const ConvParams &p, int64_t g0, int64_t g1) {
  constexpr int A = Transforms<M>::A;
  const rt::detail::Conv4 q = rt::detail::conv4(p);
  const int64_t th = (p.out_size[0] + M - 1) / M, ih_n = p.in_size[0], iw_n = p.in_size[1];
  for (int64_t g = g0; g < g1;) {
    const int64_t n = g / th, end = gemm::min64(g1, (n + 1) * th);
    const int64_t r0 = gemm::max64(0, (g - n * th) * M - p.pad_begin[0]);
    const int64_t r1 = gemm::min64(ih_n, (end - 1 - n * th) * M - p.pad_begin[0] + A);
    warm_lines(x + n * p.in_channels * q.in_ps + r0 * iw_n, p.in_channels, q.in_ps,
               (r1 - r0) * iw_n);
    g = end;
  }
}

} // namespace detail

// y = conv(x, w) + bias, then epi (a ClipEpilogue in the tiles, before
// their scatter); `u` from transform_weights<M>. With
// threads: whole rows of tiles split over the tasks (scratch_of each), each
// task's epilogue on its own rows, when there are enough of them; else each
// block's phases are split (few tiles: a small deep layer), then the
// epilogue over output planes.
template <int M, class Epi>
void conv_winograd(const float *x, const float *u, const float *bias, float *y,
                   const ConvParams &p, const Epi &epi, float *scratch,
                   const Parallel &par = Parallel{}) {
  const int64_t total = tiles<M>(p);
  const int64_t work = 9 * total * M * M * p.in_channels * p.out_channels;
  const int64_t threads = par.parallel_for && work >= kMinParallelWork ? par.threads : 1;
  // Smaller blocks when that gives every thread one.
  const int64_t per_thread = gemm::round_up((total + threads - 1) / threads, kLanes);
  const int64_t nt = gemm::min64(block_tiles<M>(p), per_thread);
  const int64_t blocks = (total + nt - 1) / nt;
  const int64_t planes = p.batch * p.out_channels, plane = p.out_size[0] * p.out_size[1];
  const int64_t out_ps = rt::detail::conv4(p).out_ps;
  const int64_t tw = (p.out_size[1] + M - 1) / M, th = (p.out_size[0] + M - 1) / M;
  const int64_t tile_rows = total / tw; // over all images: image n holds rows n*th ..
  // A ClipEpilogue (a conv's ReLU or ReLU6) clips each tile before its
  // scatter instead of a pass over the output (SqueezeNet 1.1's 64-channel
  // 55 x 55 expands: 14 us a pass from L2).
  const LaneClip clip = lane_clip_of(epi);
  if (blocks >= threads && tile_rows >= threads) {
    // Each task takes whole tile rows, its blocks within them, then runs
    // the epilogue on the output rows it wrote (for every channel): split
    // by planes, each core read and wrote half of the other's output, which
    // on a VM whose cores share no cache runs at DRAM speed (ResNet-18's
    // epilogues: 5 us on one core, 17 us on two).
    run_tasks(par, threads, [&](int64_t task) {
      float *own = par.scratch_of(task, scratch);
      const int64_t g0 = tile_rows * task / threads, g1 = tile_rows * (task + 1) / threads;
      for (int64_t t = g0 * tw; t < g1 * tw; t += nt) {
        const int64_t n_t = gemm::min64(nt, g1 * tw - t);
        if (threads > 1) // (the block's input rows, which the other core may have written)
          detail::warm_tile_rows<M>(x, p, t / tw, (t + n_t - 1) / tw + 1);
        detail::winograd_block<M>(x, u, bias, y, p, t, n_t, own, par, 1, clip);
      }
      if constexpr (kClipsInTiles<Epi>)
        return;
      for (int64_t g = g0; g < g1;) {
        const int64_t n = g / th, end = gemm::min64(g1, (n + 1) * th);
        const int64_t r0 = (g - n * th) * M, r1 = gemm::min64(p.out_size[0], (end - n * th) * M);
        for (int64_t c = 0; c < p.out_channels; ++c) {
          const int64_t at = (n * p.out_channels + c) * out_ps + r0 * p.out_size[1];
          epi(y + at, at, gemm::opaque((r1 - r0) * p.out_size[1]));
        }
        g = end;
      }
    });
    return;
  }
  for (int64_t b = 0; b < blocks; ++b)
    detail::winograd_block<M>(x, u, bias, y, p, b * nt, gemm::min64(nt, total - b * nt),
                              scratch, par, threads, clip);
  if constexpr (kClipsInTiles<Epi>)
    return;
  run_tasks(par, threads, [&](int64_t task) {
    for (int64_t i = planes * task / threads; i < planes * (task + 1) / threads; ++i)
      epi(y + i * out_ps, i * out_ps, gemm::opaque(plane));
  });
}

} // namespace winograd
} // namespace rt
} // namespace tract
