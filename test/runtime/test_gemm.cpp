// The blocked GEMM (linalg/gemm.h), conv-as-GEMM (nn/conv_gemm.h) and the
// batched matmul on it (linalg/matmul_gemm.h), against double-precision naive
// loops and the reference conv. Built once per instruction set the machine
// has (see CMakeLists.txt), so every micro-kernel path is checked.
#include "tract/rt/io/thread_pool.h"
#include "tract/rt/linalg/gemm.h"
#include "tract/rt/linalg/matmul_gemm.h"
#include "tract/rt/nn/conv_depthwise.h"
#include "tract/rt/nn/conv_expand_depthwise.h"
#include "tract/rt/nn/conv_fully_connected.h"
#include "tract/rt/nn/conv_lanes.h"
#include "tract/rt/nn/conv_row_taps.h"
#include "tract/rt/nn/conv_row_taps_pool.h"
#include "tract/rt/nn/conv_winograd.h"
#include "tract/rt/nn/conv_gemm.h"

#include "test_util.h"

#include <algorithm>
#include <tuple>

using namespace tract_test;
namespace rt = tract::rt;
namespace gm = tract::rt::gemm;

namespace {

std::vector<float> random_floats(size_t n, uint64_t seed) {
  Rng r(seed);
  std::vector<float> v(n);
  for (float &x : v)
    x = static_cast<float>(r.uniform(-1.0, 1.0));
  return v;
}

// |got - want| within float accumulation error of a K-term dot product.
void expect_close(const std::vector<float> &got, const std::vector<double> &want,
                  int64_t k, const char *what) {
  ASSERT_EQ(got.size(), want.size());
  const double tol = 1e-6 * (double)(k + 8);
  for (size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - want[i]) > tol * (1.0 + std::fabs(want[i]))) {
      ADD_FAILURE() << what << ": element " << i << " got " << got[i] << " want " << want[i];
      return;
    }
}

// C = A * B (+ row bias) + epilogue marker, A row-major m x k, B k x n.
std::vector<double> naive(const std::vector<float> &a, const std::vector<float> &b,
                          const float *bias, int64_t m, int64_t n, int64_t k) {
  std::vector<double> c(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = bias ? bias[i] : 0.0;
      for (int64_t p = 0; p < k; ++p)
        s += double(a[size_t(i * k + p)]) * double(b[size_t(p * n + j)]);
      c[size_t(i * n + j)] = s;
    }
  return c;
}

struct Dims {
  int64_t m, n, k;
};

// Sizes around the tile (8 x 16) and block (MC 96, NC 256, KC 512) edges;
// last panels of 1 to 8 columns take the narrow kernel. (33 x 520: a
// prepacked B swept NC columns at a time, the last sweep 8 columns.)
const Dims kDims[] = {{1, 1, 1},    {8, 16, 1},    {7, 15, 3},   {9, 17, 33},
                      {16, 32, 64}, {1, 100, 300}, {130, 5, 257}, {33, 520, 70},
                      {129, 513, 513}, {3, 3, 0}, {2, 33, 70}, {10, 40, 5},
                      {24, 52, 40}, {1, 37, 700},
                      // Narrow last panels under two row panels at once
                      // (micro_kernel_narrow_pair), over K blocks.
                      {40, 12, 600}, {32, 9, 1100},
                      // Four row panels at once (micro_kernel_narrow_quad,
                      // up to 12 columns; 13 stays on the pair): a row
                      // block of 96 then one of 104, 1 and 4 columns.
                      {200, 13, 70}, {200, 12, 90}, {104, 1, 40}, {96, 4, 520},
                      // K over 2 x KC: A packed per block against a packed
                      // B takes K in blocks of up to 1024.
                      {100, 300, 2100}};

TEST(Gemm, PackedAndStridedOperandsMatchNaive) {
  for (const Dims &d : kDims) {
    SCOPED_TRACE(::testing::Message() << d.m << "x" << d.n << "x" << d.k);
    const auto a = random_floats(size_t(d.m * d.k), 1), b = random_floats(size_t(d.k * d.n), 2);
    const auto bias = random_floats(size_t(d.m), 3);
    const auto want = naive(a, b, bias.data(), d.m, d.n, d.k);
    std::vector<float> pa(size_t(gm::packed_a_floats(d.m, d.k)));
    std::vector<float> pb(size_t(gm::packed_b_floats(d.k, d.n)));
    gm::pack_a(a.data(), d.k, 1, d.m, d.k, pa.data());
    gm::pack_b(b.data(), d.n, 1, d.k, d.n, pb.data());
    std::vector<float> scratch(size_t(gm::scratch_floats(d.m, d.n, d.k, true, true)) + 1);

    std::vector<float> c(size_t(d.m * d.n), -7.0f);
    gm::gemm(d.m, d.n, d.k, gm::PackedA{pa.data(), d.k}, gm::PackedB{pb.data(), d.k}, c.data(),
             d.n, 0, bias.data(), gm::NoEpilogue{}, nullptr);
    expect_close(c, want, d.k, "packed x packed");

    std::fill(c.begin(), c.end(), -7.0f);
    gm::gemm(d.m, d.n, d.k, gm::StridedA{a.data(), d.k, 1}, gm::StridedB{b.data(), d.n, 1},
             c.data(), d.n, 0, bias.data(), gm::NoEpilogue{}, scratch.data());
    expect_close(c, want, d.k, "strided x strided");

    // A packed per block against weights packed whole (a Linear layer): K
    // in blocks of up to 2 x KC, B swept half as many columns at a time.
    // (Its own scratch, exactly as large as scratch_floats says, then a
    // guard.)
    const size_t a_floats = size_t(gm::scratch_floats(d.m, d.n, d.k, true, false));
    std::vector<float> a_scratch(a_floats + 64, -7.0f);
    std::fill(c.begin(), c.end(), -7.0f);
    gm::gemm(d.m, d.n, d.k, gm::StridedA{a.data(), d.k, 1}, gm::PackedB{pb.data(), d.k},
             c.data(), d.n, 0, bias.data(), gm::NoEpilogue{}, a_scratch.data());
    expect_close(c, want, d.k, "strided x packed");
    for (size_t i = a_floats; i < a_scratch.size(); ++i)
      ASSERT_EQ(a_scratch[i], -7.0f) << "scratch overrun at " << i;

    // One row read in place (RowA, unblocked K), plain and from a strided
    // view (every other float), against packed B: no scratch.
    if (d.m == 1) {
      std::fill(c.begin(), c.end(), -7.0f);
      gm::gemm(d.m, d.n, d.k, gm::RowA{a.data(), 1}, gm::PackedB{pb.data(), d.k}, c.data(), d.n,
               0, bias.data(), gm::NoEpilogue{}, nullptr);
      expect_close(c, want, d.k, "row x packed");
      std::vector<float> a2(size_t(2 * d.k), 99.0f);
      for (int64_t p = 0; p < d.k; ++p)
        a2[size_t(2 * p)] = a[size_t(p)];
      std::fill(c.begin(), c.end(), -7.0f);
      gm::gemm(d.m, d.n, d.k, gm::RowA{a2.data(), 2}, gm::PackedB{pb.data(), d.k}, c.data(), d.n,
               0, bias.data(), gm::NoEpilogue{}, nullptr);
      expect_close(c, want, d.k, "strided row x packed");
    }

    // Transposed views: A stored column-major, B column-major (cs != 1).
    std::vector<float> at(a.size()), bt(b.size());
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t p = 0; p < d.k; ++p)
        at[size_t(p * d.m + i)] = a[size_t(i * d.k + p)];
    for (int64_t p = 0; p < d.k; ++p)
      for (int64_t j = 0; j < d.n; ++j)
        bt[size_t(j * d.k + p)] = b[size_t(p * d.n + j)];
    std::fill(c.begin(), c.end(), -7.0f);
    gm::gemm(d.m, d.n, d.k, gm::StridedA{at.data(), 1, d.m}, gm::StridedB{bt.data(), 1, d.k},
             c.data(), d.n, 0, bias.data(), gm::NoEpilogue{}, scratch.data());
    expect_close(c, want, d.k, "transposed views");

    // B read in place (row stride n), all its columns and all but the last
    // two (the columns past them are left alone): last panels of 1 to 15
    // columns (up to 8 one narrow kernel, 9 to 15 two).
    for (const int64_t full : {d.n, d.n - 2}) {
      if (full <= 0)
        continue;
      std::fill(c.begin(), c.end(), -7.0f);
      gm::gemm(d.m, full, d.k, gm::PackedA{pa.data(), d.k}, gm::InPlaceB{b.data(), d.n},
               c.data(), d.n, 0, bias.data(), gm::NoEpilogue{}, nullptr);
      std::vector<float> got_full;
      std::vector<double> want_full;
      for (int64_t i = 0; i < d.m; ++i)
        for (int64_t j = 0; j < d.n; ++j)
          if (j < full) {
            got_full.push_back(c[size_t(i * d.n + j)]);
            want_full.push_back(want[size_t(i * d.n + j)]);
          } else {
            ASSERT_EQ(c[size_t(i * d.n + j)], -7.0f);
          }
      expect_close(got_full, want_full, d.k, "packed x in place");
    }
  }
}

// A narrow last panel's rows get the same sums bit for bit whichever kernel
// takes them: four row panels at once, two, or one (which one depends on
// where the rows fall in the block, so on how threads split the rows).
// Each row panel offset is computed as the first of a gemm() over the rows
// from there, and compared with the whole gemm()'s rows.
TEST(Gemm, NarrowPanelsSumTheSameWhicheverKernelTakesThem) {
  const int64_t m = 56, k = 300; // seven row panels: quad + pair + one
  for (const int64_t n : {1, 3, 4, 7, 9, 12, 13}) {
    SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k);
    const auto a = random_floats(size_t(m * k), 11), b = random_floats(size_t(k * n), 12);
    std::vector<float> pa(size_t(gm::packed_a_floats(m, k)));
    gm::pack_a(a.data(), k, 1, m, k, pa.data());
    std::vector<float> whole(size_t(m * n));
    gm::gemm(m, n, k, gm::PackedA{pa.data(), k}, gm::InPlaceB{b.data(), n}, whole.data(), n, 0,
             nullptr, gm::NoEpilogue{}, nullptr);
    for (int64_t panel = 1; panel < m / gm::MR; ++panel) {
      const int64_t r0 = panel * gm::MR;
      std::vector<float> part(size_t((m - r0) * n));
      gm::gemm(m - r0, n, k, gm::PackedA{pa.data() + r0 * k, k}, gm::InPlaceB{b.data(), n},
               part.data(), n, 0, nullptr, gm::NoEpilogue{}, nullptr);
      for (int64_t i = 0; i < (m - r0) * n; ++i)
        ASSERT_EQ(part[size_t(i)], whole[size_t(r0 * n + i)]) << "from panel " << panel;
    }
  }
}

// The pair kernels store straight into C, adding the earlier K blocks'
// sums (and, on the last block, the bias and a ClipEpilogue's clip): the
// same results bit for bit as the tile buffer's path, which a plain
// functor epilogue takes on the last block. K in one to six blocks;
// rows as tall pairs, pairs and single tiles; columns as pairs, a single
// panel and a narrow tail; C rows wider than the matrix.
TEST(Gemm, DirectStoresOverKBlocksMatchTheTilePath) {
  const rt::ClipEpilogue relu6{0.0f, 6.0f};
  auto clip_pass = [](float *v, int64_t, int64_t count) {
    for (int64_t j = 0; j < count; ++j)
      v[j] = std::min(6.0f, std::max(0.0f, v[j]));
  };
  for (const Dims d : {Dims{40, 70, 300}, Dims{40, 70, 1100}, Dims{101, 53, 700},
                       Dims{64, 200, 1100}}) {
    SCOPED_TRACE(::testing::Message() << d.m << "x" << d.n << "x" << d.k);
    const auto a = random_floats(size_t(d.m * d.k), 21), b = random_floats(size_t(d.k * d.n), 22);
    const auto bias = random_floats(size_t(d.m), 23);
    std::vector<float> pa(size_t(gm::packed_a_floats(d.m, d.k)));
    gm::pack_a(a.data(), d.k, 1, d.m, d.k, pa.data());
    std::vector<float> scratch(size_t(gm::scratch_floats(d.m, d.n, d.k, false, true)));
    const int64_t ldc = d.n + 5;
    std::vector<float> direct(size_t(d.m * ldc), -7.0f), tiled(direct);
    // (B read in place: blocks of all the columns, where a packed B of a
    // matrix this small would be cut to one panel per block.)
    gm::gemm(d.m, d.n, d.k, gm::PackedA{pa.data(), d.k}, gm::InPlaceB{b.data(), d.n},
             direct.data(), ldc, 0, bias.data(), relu6, nullptr);
    gm::gemm(d.m, d.n, d.k, gm::PackedA{pa.data(), d.k}, gm::InPlaceB{b.data(), d.n},
             tiled.data(), ldc, 0, bias.data(), clip_pass, nullptr);
    ASSERT_EQ(direct, tiled);
    // B packed (its own K blocks, so its own sums).
    std::vector<float> packed_direct(direct.size(), -7.0f), packed_tiled(packed_direct);
    gm::gemm(d.m, d.n, d.k, gm::PackedA{pa.data(), d.k}, gm::StridedB{b.data(), d.n, 1},
             packed_direct.data(), ldc, 0, bias.data(), relu6, scratch.data());
    gm::gemm(d.m, d.n, d.k, gm::PackedA{pa.data(), d.k}, gm::StridedB{b.data(), d.n, 1},
             packed_tiled.data(), ldc, 0, bias.data(), clip_pass, scratch.data());
    ASSERT_EQ(packed_direct, packed_tiled);
    // And against the reference, clipped.
    const auto want = naive(a, b, bias.data(), d.m, d.n, d.k);
    std::vector<float> got;
    std::vector<double> clipped;
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < ldc; ++j) {
        if (j >= d.n) {
          ASSERT_EQ(direct[size_t(i * ldc + j)], -7.0f) << "wrote outside the matrix";
          continue;
        }
        got.push_back(direct[size_t(i * ldc + j)]);
        clipped.push_back(std::min(6.0, std::max(0.0, want[size_t(i * d.n + j)])));
      }
    expect_close(got, clipped, d.k, "clipped");
  }
}

// The epilogue runs once per element, after the last K block, with the
// element's flat index in the output (one gemm() of m x n into rows of ldc).
void epilogue_sees_every_element_once(int64_t m, int64_t n, int64_t ldc) {
  SCOPED_TRACE(::testing::Message() << m << "x" << n);
  const int64_t k = 600, c0 = 1000;
  const auto a = random_floats(size_t(m * k), 4), b = random_floats(size_t(k * n), 5);
  const auto want = naive(a, b, nullptr, m, n, k);
  std::vector<float> c(size_t(m * ldc), 0.0f), scratch(size_t(gm::scratch_floats(m, n, k, true, true)));
  std::vector<int> seen(size_t(m * ldc), 0);
  auto epi = [&](float *row, int64_t index, int64_t count) {
    for (int64_t j = 0; j < count; ++j) {
      ++seen[size_t(index + j - c0)];
      row[j] = row[j] * 2.0f + 1.0f;
    }
  };
  gm::gemm(m, n, k, gm::StridedA{a.data(), k, 1}, gm::StridedB{b.data(), n, 1}, c.data(), ldc, c0,
           nullptr, epi, scratch.data());
  std::vector<float> got;
  std::vector<double> expect;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < ldc; ++j) {
      EXPECT_EQ(seen[size_t(i * ldc + j)], j < n ? 1 : 0) << i << "," << j;
      if (j < n) {
        got.push_back(c[size_t(i * ldc + j)]);
        expect.push_back(want[size_t(i * n + j)] * 2.0 + 1.0);
      } else {
        EXPECT_EQ(c[size_t(i * ldc + j)], 0.0f) << "wrote outside the matrix";
      }
    }
  expect_close(got, expect, k, "epilogue");
}

TEST(Gemm, EpilogueSeesEveryElementOnceWithItsIndex) {
  // 19 rows: single tiles; 61 x 300: B blocks of two panels, so two groups
  // of tall tiles (12 rows across row panels) and a partial row panel.
  // K = 600: partial sums read back.
  epilogue_sees_every_element_once(19, 37, 40);
  epilogue_sees_every_element_once(61, 300, 304);
}

TEST(Gemm, BatchedMatmulWithPackedAndBroadcastOperands) {
  const int64_t m = 13, n = 21, k = 40;
  const int64_t batch[2] = {2, 3};
  const int64_t a_bs[2] = {3 * m * k, m * k}, b_bs[2] = {0, k * n}, zero[2] = {0, 0};
  const auto a = random_floats(size_t(6 * m * k), 6), b = random_floats(size_t(3 * k * n), 7);
  std::vector<float> scratch(size_t(gm::matmul_scratch_floats(m, n, k, false)));
  std::vector<float> c(size_t(6 * m * n));
  gm::matmul_f32(a.data(), b.data(), false, c.data(), 2, batch, a_bs, b_bs, m, n, k, k, 1, n, 1,
                 gm::NoEpilogue{}, scratch.data());
  for (int64_t bi = 0; bi < 6; ++bi) {
    std::vector<float> ab(a.begin() + bi * m * k, a.begin() + (bi + 1) * m * k);
    std::vector<float> bb(b.begin() + (bi % 3) * k * n, b.begin() + (bi % 3 + 1) * k * n);
    std::vector<float> cb(c.begin() + bi * m * n, c.begin() + (bi + 1) * m * n);
    expect_close(cb, naive(ab, bb, nullptr, m, n, k), k, "batched, strided B");
  }
  // One packed B shared by every batch.
  std::vector<float> pb(size_t(gm::packed_b_floats(k, n)));
  gm::pack_b(b.data(), n, 1, k, n, pb.data());
  gm::matmul_f32(a.data(), pb.data(), true, c.data(), 2, batch, a_bs, zero, m, n, k, k, 1, 0, 0,
                 gm::NoEpilogue{}, scratch.data());
  std::vector<float> b0(b.begin(), b.begin() + k * n);
  for (int64_t bi = 0; bi < 6; ++bi) {
    std::vector<float> ab(a.begin() + bi * m * k, a.begin() + (bi + 1) * m * k);
    std::vector<float> cb(c.begin() + bi * m * n, c.begin() + (bi + 1) * m * n);
    expect_close(cb, naive(ab, b0, nullptr, m, n, k), k, "batched, packed B");
  }
}

struct ConvGeom {
  int rank;
  int64_t batch, cin, cout, groups;
  int64_t in[3], ker[3], st[3], dil[3], pad[3]; // rank 1 and 2 leave the last ones 0
};

rt::ConvParams params(const ConvGeom &g) {
  rt::ConvParams p{};
  p.spatial_rank = g.rank;
  p.batch = g.batch;
  p.in_channels = g.cin;
  p.out_channels = g.cout;
  p.groups = g.groups;
  for (int d = 0; d < g.rank; ++d) {
    p.in_size[d] = g.in[d];
    p.kernel[d] = g.ker[d];
    p.stride[d] = g.st[d];
    p.dilation[d] = g.dil[d];
    p.pad_begin[d] = g.pad[d];
    p.out_size[d] = (g.in[d] + 2 * g.pad[d] - (g.ker[d] - 1) * g.dil[d] - 1) / g.st[d] + 1;
  }
  return p;
}

// Elements of an input plane, of an output plane, and kernel taps.
std::tuple<int64_t, int64_t, int64_t> volumes(const rt::ConvParams &p) {
  int64_t in_plane = 1, out_plane = 1, kvol = 1;
  for (int d = 0; d < p.spatial_rank; ++d) {
    in_plane *= p.in_size[d];
    out_plane *= p.out_size[d];
    kvol *= p.kernel[d];
  }
  return {in_plane, out_plane, kvol};
}

// Random input, weights and bias for `p`, and the reference conv's output.
struct ConvData {
  std::vector<float> x, w, bias, ref;
};
ConvData reference_conv(const rt::ConvParams &p, uint64_t seed) {
  const auto [in_plane, out_plane, kvol] = volumes(p);
  ConvData d;
  d.x = random_floats(size_t(p.batch * p.in_channels * in_plane), seed);
  d.w = random_floats(size_t(p.out_channels * p.in_channels / p.groups * kvol), seed + 1);
  d.bias = random_floats(size_t(p.out_channels), seed + 2);
  d.ref.resize(size_t(p.batch * p.out_channels * out_plane));
  rt::conv(d.x.data(), d.w.data(), d.bias.data(), d.ref.data(), p);
  return d;
}

TEST(ConvGemm, MatchesReferenceConv) {
  const ConvGeom cases[] = {
      {2, 1, 3, 8, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},      // 3x3 same
      {2, 2, 16, 24, 1, {7, 7}, {1, 1}, {1, 1}, {1, 1}, {0, 0}},     // pointwise
      {2, 1, 5, 17, 1, {13, 10}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},    // stride 2
      {2, 1, 4, 6, 2, {8, 8}, {3, 3}, {1, 1}, {2, 2}, {2, 2}},       // groups, dilation
      {2, 1, 3, 64, 1, {40, 40}, {7, 7}, {2, 2}, {1, 1}, {3, 3}},    // ResNet stem-like
      {2, 1, 3, 8, 1, {9, 70}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},      // stride 2, whole panels
      {2, 1, 300, 9, 1, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},     // K over KC
      {1, 2, 6, 10, 1, {50, 1}, {5, 1}, {1, 1}, {1, 1}, {2, 0}},     // 1-d
      {2, 1, 8, 8, 8, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},       // depthwise
      {2, 1, 8, 4, 1, {6, 6}, {1, 1}, {2, 2}, {1, 1}, {0, 0}},       // strided 1x1
      {2, 1, 16, 8, 1, {5, 5}, {1, 1}, {1, 1}, {1, 1}, {0, 0}},      // in place, 9-col tail
      {2, 1, 8, 72, 1, {5, 5}, {1, 1}, {1, 1}, {1, 1}, {0, 0}},      // 9 row panels: packed
      {1, 1, 24, 80, 1, {70, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}},    // in place, paired panels
      // Pads of 2: a block ends on a row's first pixel alone, whose taps
      // start past the segment (Inception-v3's 5x5 on 9x9 overran here).
      {2, 1, 48, 64, 1, {9, 9}, {5, 5}, {1, 1}, {1, 1}, {2, 2}},
      {2, 1, 4, 8, 1, {9, 9}, {5, 5}, {1, 1}, {1, 1}, {2, 2}},
      {2, 1, 3, 8, 1, {7, 5}, {7, 7}, {1, 1}, {1, 1}, {3, 3}},
      // Small 2-d maps read B from a zero-padded copy of each channel's
      // plane (Im2colB::block_padded; every im2col case above but the
      // stem, whose 45 x 45 reach is past kPaddedPlaneFloats): a
      // stride-2 conv onto 7x7 with K over KC, groups, dilation and two
      // column blocks (400 pixels, the second starting mid-row), 8 groups
      // of 8 channels on 4x4. Larger maps (800 pixels in rows of 20: four
      // column blocks, the last partial) and 3-d kernels gather B through
      // per-block masks (block_gather), with padding, strides and dilations.
      {2, 1, 64, 24, 1, {14, 14}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
      {2, 2, 8, 12, 2, {10, 9}, {3, 3}, {2, 1}, {1, 1}, {1, 0}},
      {2, 1, 8, 16, 1, {20, 20}, {3, 3}, {1, 1}, {2, 2}, {2, 2}},
      {2, 1, 64, 64, 8, {4, 4}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {2, 1, 8, 16, 1, {40, 20}, {3, 3}, {1, 1}, {2, 2}, {2, 2}},
      {3, 1, 4, 6, 1, {4, 6, 5}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
      {3, 2, 5, 7, 1, {7, 9, 6}, {3, 2, 3}, {2, 1, 2}, {2, 1, 1}, {2, 0, 1}},
      {3, 1, 2, 9, 1, {3, 40, 9}, {1, 3, 3}, {1, 1, 1}, {1, 1, 1}, {0, 1, 1}},
      // One input channel: too few rows per block for the masks, the 3-d
      // conv checks bounds per pixel and tap (Im2colB::block_nd).
      {3, 1, 1, 4, 1, {4, 5, 6}, {3, 3, 3}, {1, 2, 1}, {1, 1, 2}, {1, 0, 2}},
      // Pointwise on fewer pixels than a panel: B in place, K not blocked
      // (9 pixels, K 600 over KC; 12 pixels: two narrow kernels per tile).
      {2, 1, 600, 40, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}},
      {2, 2, 24, 16, 1, {3, 4}, {1, 1}, {1, 1}, {1, 1}, {0, 0}},
      // Gathered B of one panel, K over KC: with the weights packed at
      // compile time K is not blocked either (a 3x3 stride-2 conv onto 2x2,
      // K 648; 16 pixels, K 576), the whole-K B panel in scratch.
      {2, 1, 72, 24, 1, {4, 4}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
      {2, 1, 64, 16, 1, {4, 4}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      // A deep K onto a 7x7 map, where a block of all 49 columns as deep
      // as KC would outgrow C: K in six blocks of 192, then the columns in
      // blocks of 32 (packed_b_block).
      {2, 1, 128, 160, 1, {14, 14}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
  };
  for (const ConvGeom &g : cases) {
    const rt::ConvParams p = params(g);
    SCOPED_TRACE(::testing::Message() << "rank " << g.rank << " cin " << g.cin << " cout "
                                      << g.cout << " ker " << g.ker[0] << " in " << g.in[0]
                                      << "x" << g.in[1] << " groups " << g.groups);
    const int64_t k = g.cin / g.groups * std::get<2>(volumes(p));
    const ConvData d = reference_conv(p, 8);
    const auto &x = d.x, &w = d.w, &bias = d.bias;
    std::vector<float> got(d.ref.size());
    const std::vector<double> want(d.ref.begin(), d.ref.end());

    // Scratch exactly as conv_scratch_floats says, then guard floats that
    // must stay untouched (the in-place source needs little or none).
    constexpr size_t kGuard = 64;
    auto guarded = [&](bool packed) {
      std::vector<float> v(size_t(gm::conv_scratch_floats(p, packed)) + kGuard, -7.0f);
      return v;
    };
    auto expect_guard = [&](const std::vector<float> &v) {
      for (size_t i = v.size() - kGuard; i < v.size(); ++i)
        ASSERT_EQ(v[i], -7.0f) << "scratch overrun at " << i;
    };
    std::vector<float> scratch = guarded(false);
    gm::conv_gemm(x.data(), w.data(), false, bias.data(), got.data(), p, gm::NoEpilogue{},
                  scratch.data());
    expect_close(got, want, k, "weights packed per block");
    expect_guard(scratch);

    std::vector<float> pw(size_t(gm::packed_conv_weight_floats(g.cout, g.groups, k)));
    gm::pack_conv_weights(w.data(), g.cout, g.groups, k, pw.data());
    std::vector<float> scratch2 = guarded(true);
    std::fill(got.begin(), got.end(), 0.0f);
    gm::conv_gemm(x.data(), pw.data(), true, bias.data(), got.data(), p, gm::NoEpilogue{},
                  scratch2.data());
    expect_close(got, want, k, "weights packed at compile time");
    expect_guard(scratch2);
  }
}

// The B source each pointwise conv gets (the generated code's template
// argument): in place below 16 pixels (only narrow kernels), with the
// AVX-512 pair kernel in place from 16 pixels, else in place for few output
// channels or 64+ pixels; packed whenever the planes are a multiple of 4 KB
// apart (their rows would share one L1 set).
TEST(ConvGemm, PointwiseBSource) {
  auto source = [](int64_t cin, int64_t cout, int64_t hw, bool pair) {
    return gm::conv_b_source(
        params({2, 1, cin, cout, 1, {hw, hw}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}), pair);
  };
  for (bool pair : {false, true}) {
    EXPECT_EQ(source(960, 64, 7, pair), gm::ConvB::InPlace);  // 8 row panels
    EXPECT_EQ(source(16, 96, 112, pair), gm::ConvB::InPlace); // a wide map
    EXPECT_EQ(source(64, 64, 3, pair), gm::ConvB::InPlace);   // 9 pixels: no whole panel
    EXPECT_EQ(source(2048, 1024, 2, pair), gm::ConvB::InPlace); // ResNeXt's 2x2 map
    EXPECT_EQ(source(32, 16, 112, pair), gm::ConvB::Packed);  // 2 row panels, 12544 pixels
    EXPECT_EQ(source(64, 64, 32, pair), gm::ConvB::Packed);   // planes 4 KB apart
    EXPECT_EQ(source(128, 128, 64, pair), gm::ConvB::Packed); // 16 KB apart
    EXPECT_EQ(source(64, 64, 31, pair), gm::ConvB::InPlace);  // 31 x 31 pixels
  }
  EXPECT_EQ(source(960, 320, 7, false), gm::ConvB::Packed); // 40 row panels on 49 pixels
  EXPECT_EQ(source(960, 320, 7, true), gm::ConvB::InPlace);
  EXPECT_EQ(gm::conv_b_source(params({2, 1, 3, 8, 1, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}})),
            gm::ConvB::Im2col);
}

// A ReLU epilogue that counts how often it sees each output element.
struct CountingRelu {
  std::vector<int> *seen;
  void operator()(float *v, int64_t index, int64_t count) const {
    for (int64_t j = 0; j < count; ++j) {
      ++(*seen)[size_t(index + j)];
      v[j] = v[j] < 0.0f ? 0.0f : v[j];
    }
  }
};

TEST(ConvDepthwise, MatchesReferenceConvWithEpilogue) {
  const ConvGeom cases[] = {
      {2, 1, 8, 8, 8, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},      // 3x3 same
      {2, 2, 6, 6, 6, {13, 10}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},     // stride 2, batch 2
      {2, 1, 4, 8, 4, {12, 12}, {5, 5}, {1, 1}, {1, 1}, {2, 2}},     // 5x5, multiplier 2
      {2, 1, 3, 3, 3, {10, 10}, {3, 3}, {1, 1}, {2, 2}, {2, 2}},     // dilation
      {2, 1, 5, 5, 5, {7, 9}, {3, 1}, {2, 1}, {1, 1}, {0, 0}},       // no padding, 3x1
      {1, 1, 4, 4, 4, {33, 1}, {7, 1}, {1, 1}, {1, 1}, {3, 0}},      // 1-d
      // Strides 2 and 3 with dilation, unequal strides, a 7x7 kernel,
      // padding wider than the stride, rows wider than one 16-pixel transpose.
      {2, 1, 3, 3, 3, {15, 14}, {3, 3}, {2, 2}, {2, 2}, {2, 2}},
      {2, 1, 2, 4, 2, {17, 16}, {5, 5}, {3, 3}, {1, 1}, {2, 3}},
      {2, 1, 3, 3, 3, {11, 12}, {3, 3}, {2, 1}, {1, 1}, {1, 1}},
      {2, 1, 2, 2, 2, {12, 12}, {7, 7}, {2, 2}, {1, 1}, {3, 3}},
      {2, 1, 2, 2, 2, {5, 37}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {2, 1, 2, 2, 2, {40, 40}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, // epilogue in stripes
      // Channel blocks of 16: one full block; two full blocks and a partial
      // one (stride 2, batch 2); a multiplier whose lanes span input channels.
      {2, 1, 16, 16, 16, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {2, 2, 40, 40, 40, {9, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
      {2, 1, 7, 21, 7, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
  };
  for (const ConvGeom &g : cases) {
    const rt::ConvParams p = params(g);
    ASSERT_TRUE(rt::conv_is_depthwise(p));
    const int64_t kvol = std::get<2>(volumes(p));
    const ConvData d = reference_conv(p, 11);
    const auto &x = d.x, &w = d.w, &bias = d.bias, &ref = d.ref;
    const size_t ny = ref.size();
    std::vector<float> got(ny);
    // The epilogue sees each element once, at its flat index.
    std::vector<int> seen(ny, 0);
    std::vector<float> scratch(size_t(rt::depthwise_scratch_floats(p)), std::nanf(""));
    rt::conv_depthwise(x.data(), w.data(), bias.data(), got.data(), p, CountingRelu{&seen},
                       scratch.data());
    std::vector<double> want(ny);
    for (size_t i = 0; i < ny; ++i)
      want[i] = ref[i] < 0.0f ? 0.0 : ref[i];
    expect_close(got, want, kvol, "depthwise");
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  }
  rt::ConvParams grouped = params({2, 1, 8, 8, 4, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}});
  EXPECT_FALSE(rt::conv_is_depthwise(grouped)) << "two input channels per group";
}

// NCHW <-> lane layout (NCHW16c, C % 16 == 0) for checking the lane kernels.
std::vector<float> to_lanes(const std::vector<float> &v, int64_t n, int64_t c, int64_t plane) {
  std::vector<float> out(v.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < plane; ++i)
        out[size_t(((b * c / 16 + ch / 16) * plane + i) * 16 + ch % 16)] =
            v[size_t((b * c + ch) * plane + i)];
  return out;
}

std::vector<float> from_lanes(const std::vector<float> &v, int64_t n, int64_t c, int64_t plane) {
  std::vector<float> out(v.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < plane; ++i)
        out[size_t((b * c + ch) * plane + i)] =
            v[size_t(((b * c / 16 + ch / 16) * plane + i) * 16 + ch % 16)];
  return out;
}

std::vector<double> relu_of(const std::vector<float> &v) {
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = v[i] < 0.0f ? 0.0 : v[i];
  return out;
}

// How the lane kernels cut their work over two threads: the projection
// out of lanes (fine stripes) splits pixels down to 64-pixel stripes before
// it splits output blocks; the expansion into lanes splits blocks as soon
// as 128-pixel stripes cannot balance. Stripes start on 16-pixel tiles and
// cover the plane.
TEST(ConvLanes, SplitPrefersPixelStripesOutOfLanes) {
  const rt::Parallel par{[](void *, int64_t, tract_task_fn, void *) {}, nullptr, 2};
  const int64_t work = 1 << 30;
  struct Case {
    int64_t batch, plane;
    bool fine;
    int64_t stripes, groups;
  };
  for (const Case &c : {Case{1, 784, true, 8, 1}, Case{1, 784, false, 7, 2},
                        Case{1, 196, true, 2, 1}, Case{1, 196, false, 2, 2},
                        Case{1, 49, true, 1, 2}, Case{3, 130, true, 2, 1},
                        Case{1, 3136, true, 25, 1}}) {
    const rt::detail::LanesSplit s = rt::detail::lanes_split(par, work, c.batch, c.plane, 1, 4, c.fine);
    EXPECT_EQ(s.stripes, c.stripes) << c.plane << (c.fine ? " fine" : "");
    EXPECT_EQ(s.groups, c.groups) << c.plane << (c.fine ? " fine" : "");
    EXPECT_EQ(s.tasks, 2);
    int64_t covered = 0;
    for (int64_t u = 0; u < s.units / s.groups; ++u) {
      const rt::detail::LanesUnit e = rt::detail::lanes_unit(s, u, c.plane, 4);
      EXPECT_EQ(e.i0 % 16, 0);
      EXPECT_EQ(e.i0, u % s.stripes == 0 ? 0 : covered % c.plane);
      EXPECT_LT(e.i0, e.i1);
      covered += e.i1 - e.i0;
    }
    EXPECT_EQ(covered, c.batch * c.plane);
  }
}

// The 1x1 convs of a chain kept in lane layout, each against the reference
// conv on NCHW, with an epilogue that must see every output element once at
// its index in the output's own layout. Sizes hit the register tiles' tails
// (7x9 = 63 pixels, 7x7 = 49, 14x14 = 196), stripes of the epilogue (13x13
// = 169 > 128), an odd number of 16-channel blocks, a partial last block of
// NCHW output channels, and batch 2.
TEST(ConvLanes, PointwiseIntoOutOfAndBetweenLanesMatchReference) {
  struct Case {
    bool in_lanes, out_lanes;
    ConvGeom g;
  };
  const Case cases[] = {
      {false, true, {2, 2, 5, 32, 1, {7, 9}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      {false, true, {2, 1, 3, 48, 1, {13, 13}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      {false, true, {2, 1, 16, 16, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      {true, false, {2, 2, 32, 24, 1, {7, 7}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      {true, false, {2, 1, 48, 16, 1, {14, 14}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      {true, false, {2, 1, 16, 5, 1, {13, 13}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      {true, true, {2, 2, 32, 48, 1, {7, 9}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      {true, true, {2, 1, 16, 16, 1, {13, 13}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      // Pixels past the last whole register tile, computed for groups of
      // blocks (conv_lanes.h's tails): 7x7 (one pixel) over 10 and 9
      // blocks (a whole group, then the rest; the last block partial),
      // 14x14 out of lanes (four), 11 pixels (three) over 7 blocks, 15.
      {false, true, {2, 1, 24, 160, 1, {7, 7}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      {false, true, {2, 2, 8, 112, 1, {1, 11}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      {true, false, {2, 1, 48, 136, 1, {7, 7}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      {true, false, {2, 1, 32, 80, 1, {14, 14}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      {true, true, {2, 1, 32, 112, 1, {3, 5}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      // Register tiles of 3, 2 and 1 blocks (conv_lanes.h's
      // lanes_tile_blocks): 4 blocks as 2 + 2, 5 as 3 + 2, a lone block
      // out of lanes on tiles of twice the pixels (64 of them, whole) and
      // on one of the usual ones (40 = 16 + 16 + 8).
      {false, true, {2, 1, 8, 64, 1, {9, 9}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      {true, false, {2, 1, 32, 64, 1, {6, 6}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      {true, false, {2, 1, 16, 80, 1, {4, 4}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      {true, false, {2, 1, 16, 16, 1, {8, 8}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
      {true, false, {2, 1, 32, 12, 1, {5, 8}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}},
  };
  for (const Case &c : cases) {
    const ConvGeom &g = c.g;
    const rt::ConvParams p = params(g);
    ASSERT_TRUE(rt::conv_is_plain_pointwise(p));
    const ConvData d = reference_conv(p, 31);
    const int64_t plane = g.in[0] * g.in[1];
    std::vector<float> pw(size_t(rt::lane_weight_floats(g.cout, g.cin)));
    rt::pack_lane_weights(d.w.data(), g.cout, g.cin, pw.data());
    const std::vector<float> x = c.in_lanes ? to_lanes(d.x, g.batch, g.cin, plane) : d.x;
    std::vector<float> got(d.ref.size());
    std::vector<int> seen(got.size(), 0);
    std::vector<float> scratch(static_cast<size_t>(rt::from_lanes_scratch_floats()));
    const CountingRelu relu{&seen};
    if (!c.in_lanes)
      rt::conv_pointwise_to_lanes(x.data(), pw.data(), d.bias.data(), got.data(), p, relu);
    else if (c.out_lanes)
      rt::conv_pointwise_to_lanes<true>(x.data(), pw.data(), d.bias.data(), got.data(), p, relu);
    else
      rt::conv_pointwise_from_lanes(x.data(), pw.data(), d.bias.data(), got.data(), p, relu,
                                    scratch.data());
    SCOPED_TRACE(::testing::Message() << "lanes in " << c.in_lanes << " out " << c.out_lanes
                                      << ": cin " << g.cin << " cout " << g.cout);
    expect_close(c.out_lanes ? from_lanes(got, g.batch, g.cout, plane) : got, relu_of(d.ref),
                 g.cin, "pointwise lanes");
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  }
}

// A first conv (few input channels, k x k) into lane layout: MobileNet's
// 3x3 stride-2 stem, a KWS-style 10x4 kernel with unequal strides and
// asymmetric padding, dilation, batch 2, rows not a multiple of the tile.
// (Its output into NCHW too: conv_by_taps.)
TEST(ConvLanes, FirstConvIntoLanesMatchesReference) {
  const ConvGeom cases[] = {
      {2, 1, 3, 32, 1, {40, 37}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
      {2, 2, 1, 16, 1, {49, 10}, {10, 4}, {2, 1}, {1, 1}, {5, 1}},
      {2, 1, 2, 48, 1, {12, 21}, {3, 3}, {1, 1}, {2, 2}, {2, 2}},
      {2, 1, 3, 32, 1, {30, 41}, {7, 7}, {2, 2}, {1, 1}, {3, 3}}, // ResNet's stem
      // Rows' last pixels over groups of blocks: SqueezeNet 1.0's stem at
      // 64 x 64 (rows of 29 = 3 x 8 + 5, six blocks), rows of 17 over ten
      // blocks (a last pixel in tiles of 8 blocks, then 2), and a stride
      // of 3 (a pixel step known only at run time).
      {2, 1, 3, 96, 1, {64, 64}, {7, 7}, {2, 2}, {1, 1}, {0, 0}},
      {2, 1, 3, 160, 1, {9, 34}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
      {2, 1, 3, 32, 1, {20, 29}, {3, 3}, {3, 3}, {1, 1}, {1, 1}},
      // Rows of whole tiles over 4 blocks (tiles of 2 + 2) and 5 (3 + 2).
      {2, 1, 3, 64, 1, {16, 32}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
      {2, 1, 2, 80, 1, {10, 16}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
  };
  for (const ConvGeom &g : cases) {
    const rt::ConvParams p = params(g);
    ASSERT_TRUE(rt::conv_to_lanes_fits(p));
    const ConvData d = reference_conv(p, 43);
    const int64_t taps = g.cin * g.ker[0] * g.ker[1];
    const int64_t out_plane = p.out_size[0] * p.out_size[1];
    std::vector<float> pw(size_t(rt::lane_weight_floats(g.cout, taps)));
    rt::pack_lane_weights(d.w.data(), g.cout, taps, pw.data());
    std::vector<float> scratch(size_t(rt::conv_to_lanes_scratch_floats(p)));
    std::vector<float> got(d.ref.size());
    std::vector<int> seen(got.size(), 0);
    rt::conv_to_lanes(d.x.data(), pw.data(), d.bias.data(), got.data(), p, CountingRelu{&seen},
                      scratch.data());
    SCOPED_TRACE(::testing::Message() << "cin " << g.cin << " kernel " << g.ker[0] << "x"
                                      << g.ker[1]);
    expect_close(from_lanes(got, g.batch, g.cout, out_plane), relu_of(d.ref), taps,
                 "conv to lanes");
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    // The same conv into NCHW (conv_by_taps); nothing past its scratch is
    // written.
    std::vector<float> planes_scratch(size_t(rt::conv_by_taps_scratch_floats(p)) + 64,
                                      std::nanf(""));
    std::vector<float> planes(d.ref.size());
    std::vector<int> seen_planes(planes.size(), 0);
    rt::conv_to_lanes<false>(d.x.data(), pw.data(), d.bias.data(), planes.data(), p,
                             CountingRelu{&seen_planes}, planes_scratch.data());
    expect_close(planes, relu_of(d.ref), taps, "conv by taps");
    EXPECT_TRUE(std::all_of(seen_planes.begin(), seen_planes.end(), [](int n) { return n == 1; }));
    EXPECT_TRUE(std::all_of(planes_scratch.end() - 64, planes_scratch.end(),
                            [](float v) { return std::isnan(v); }));
  }
  EXPECT_TRUE(rt::conv_by_taps_pays(
      params({2, 1, 3, 64, 1, {224, 224}, {7, 7}, {2, 2}, {1, 1}, {3, 3}})));  // 147 taps
  EXPECT_FALSE(rt::conv_by_taps_pays(
      params({2, 1, 3, 64, 1, {224, 224}, {3, 3}, {2, 2}, {1, 1}, {1, 1}})));  // 27 taps
  EXPECT_FALSE(rt::conv_to_lanes_fits(
      params({2, 1, 16, 32, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}})));  // 16 inputs
  EXPECT_FALSE(rt::conv_to_lanes_fits(
      params({2, 1, 3, 24, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}})));   // 24 outputs
}

// conv_to_lanes<false> (by taps into NCHW) on conv `p` against the reference
// conv, on 1 and 3 threads (bit for bit: split by output rows), each output
// through the epilogue once, nothing written past the tasks' scratch.
void check_conv_by_taps(const rt::ConvParams &p, uint64_t seed) {
  ASSERT_TRUE(rt::conv_by_taps_fits(p));
  ASSERT_FALSE(rt::conv_to_lanes_fits(p));
  const ConvData d = reference_conv(p, seed);
  const int64_t taps = int64_t(d.w.size()) / p.out_channels;
  std::vector<float> pw(size_t(rt::lane_weight_floats(p.out_channels, taps)));
  rt::pack_lane_weights(d.w.data(), p.out_channels, taps, pw.data());
  const int64_t per_task = rt::conv_by_taps_scratch_floats(p);
  std::vector<float> one;
  rt::ThreadPool pool(3);
  for (int threads : {1, 3}) {
    // Each task's scratch, then 64 guard floats past the last one.
    std::vector<float> scratch(size_t(per_task * threads + 64), std::nanf(""));
    rt::Parallel par;
    if (threads > 1)
      par = rt::Parallel{rt::ThreadPool::parallel_for, &pool, threads, scratch.data() + per_task,
                         per_task};
    std::vector<float> got(d.ref.size());
    std::vector<int> seen(got.size(), 0);
    rt::conv_to_lanes<false>(d.x.data(), pw.data(), d.bias.data(), got.data(), p,
                             CountingRelu{&seen}, scratch.data(), par);
    expect_close(got, relu_of(d.ref), taps, "conv by taps");
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    EXPECT_TRUE(std::all_of(scratch.end() - 64, scratch.end(),
                            [](float v) { return std::isnan(v); }));
    if (threads == 1)
      one = got;
    else
      EXPECT_EQ(got, one) << "split over " << threads << " tasks";
  }
}

// Deeper convs by taps into NCHW (conv_by_taps where Winograd does not take
// them): strided, dilated, 5x5, 1x7 and 7x1 kernels, many input channels
// (staged rows and weights past L1), rows that end mid-tile (5, 6, 7, 9, 11
// and 17 pixels), batch 2, asymmetric padding, on 1 and 3 threads (bit for
// bit, split by output rows).
TEST(ConvLanes, DeepConvByTapsMatchesReference) {
  const ConvGeom cases[] = {
      {2, 1, 16, 64, 1, {14, 14}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
      {2, 2, 24, 32, 1, {13, 11}, {3, 3}, {1, 1}, {2, 2}, {2, 2}},
      {2, 1, 12, 48, 1, {9, 9}, {5, 5}, {1, 1}, {1, 1}, {2, 2}},
      {2, 1, 40, 32, 1, {17, 17}, {1, 7}, {1, 1}, {1, 1}, {0, 3}},
      {2, 1, 40, 32, 1, {17, 17}, {7, 1}, {1, 1}, {1, 1}, {3, 0}},
      {2, 1, 96, 160, 1, {12, 12}, {3, 3}, {2, 2}, {1, 1}, {0, 1}},
      {2, 1, 64, 32, 1, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
  };
  for (const ConvGeom &g : cases) {
    const rt::ConvParams p = params(g);
    SCOPED_TRACE(::testing::Message() << "cin " << g.cin << " cout " << g.cout << " kernel "
                                      << g.ker[0] << "x" << g.ker[1] << " stride " << g.st[0]);
    check_conv_by_taps(p, 47);
  }
  // Where it beats im2col: rows of 5 pixels or more, weights within L2,
  // more than one tap per input channel.
  EXPECT_TRUE(rt::conv_by_taps_pays(
      params({2, 1, 64, 128, 1, {56, 56}, {3, 3}, {2, 2}, {1, 1}, {1, 1}})));
  EXPECT_TRUE(rt::conv_by_taps_pays(
      params({2, 1, 128, 128, 1, {17, 17}, {1, 7}, {1, 1}, {1, 1}, {0, 3}})));
  EXPECT_FALSE(rt::conv_by_taps_pays(   // rows of 4
      params({2, 1, 128, 128, 1, {7, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}})));
  EXPECT_FALSE(rt::conv_by_taps_pays(   // 4.7 MB of weights
      params({2, 1, 256, 512, 1, {14, 14}, {3, 3}, {2, 2}, {1, 1}, {1, 1}})));
  EXPECT_FALSE(rt::conv_by_taps_pays(   // 1x1 stride 2
      params({2, 1, 64, 128, 1, {56, 56}, {1, 1}, {2, 2}, {1, 1}, {0, 0}})));
  EXPECT_FALSE(rt::conv_by_taps_pays(   // 24 outputs
      params({2, 1, 64, 24, 1, {56, 56}, {3, 3}, {2, 2}, {1, 1}, {1, 1}})));
}

// 3-d convs by taps (video models): each (depth, row) of the output is a
// row reading cin x kd x kh staged rows. 3x3x3 with padding, strides 2 in
// every dim, dilation, a 3x7x7 stem (few input channels), 1x3x3 and 3x1x1
// kernels, asymmetric padding, batch 2, depths where the padding reaches
// past the input; on 1 and 3 threads, bit for bit (split by output rows,
// which cross depths).
TEST(ConvLanes, ThreeDConvByTapsMatchesReference) {
  const ConvGeom cases[] = {
      {3, 1, 16, 32, 1, {4, 9, 10}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
      {3, 2, 8, 16, 1, {5, 11, 13}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}},
      {3, 1, 3, 32, 1, {4, 20, 18}, {3, 7, 7}, {1, 2, 2}, {1, 1, 1}, {1, 3, 3}},
      {3, 1, 12, 48, 1, {3, 8, 9}, {1, 3, 3}, {1, 1, 1}, {1, 1, 1}, {0, 1, 1}},
      {3, 1, 20, 16, 1, {5, 6, 7}, {3, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 0, 0}},
      {3, 1, 6, 16, 1, {6, 9, 9}, {3, 3, 3}, {1, 1, 1}, {2, 1, 2}, {2, 0, 2}},
      {3, 1, 10, 32, 1, {1, 6, 8}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
  };
  for (const ConvGeom &g : cases) {
    const rt::ConvParams p = params(g);
    SCOPED_TRACE(::testing::Message() << "cin " << g.cin << " cout " << g.cout << " kernel "
                                      << g.ker[0] << "x" << g.ker[1] << "x" << g.ker[2]);
    check_conv_by_taps(p, 53);
  }
  // Where it beats im2col: a kernel that spans depth and rows, rows of 5
  // pixels or more, whatever the weights' size; not rows of 4, nor a
  // temporal-only 3x1x1.
  EXPECT_TRUE(rt::conv_by_taps_pays(
      params({3, 1, 64, 64, 1, {4, 16, 16}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}})));
  EXPECT_TRUE(rt::conv_by_taps_pays(   // 7 MB of weights
      params({3, 1, 256, 256, 1, {2, 7, 7}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}})));
  EXPECT_TRUE(rt::conv_by_taps_pays(   // a stem
      params({3, 1, 3, 64, 1, {4, 32, 32}, {3, 7, 7}, {1, 2, 2}, {1, 1, 1}, {1, 3, 3}})));
  EXPECT_FALSE(rt::conv_by_taps_pays(  // rows of 4
      params({3, 1, 256, 256, 1, {1, 4, 4}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}})));
  EXPECT_FALSE(rt::conv_by_taps_pays(  // temporal only
      params({3, 1, 144, 64, 1, {4, 16, 16}, {3, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 0, 0}})));
  EXPECT_FALSE(rt::conv_by_taps_fits(  // grouped
      params({3, 1, 16, 16, 2, {4, 8, 8}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}})));
}


// A conv with few input channels, output pixels in vector lanes (the 3x3
// stride-2 stem of SqueezeNet, ResNet's 7x7, a 1-d audio conv): rows that
// end mid-vector (1, 2 and 3 vectors past the widest tile), channel counts
// that leave tiles of every smaller size, strides 1-4, dilation, padding
// wider than a phase, batch 2; every output once through the epilogue and
// nothing written past the scratch.
TEST(ConvRowTaps, MatchesReferenceConv) {
  const ConvGeom cases[] = {
      {2, 1, 3, 22, 1, {37, 35}, {3, 3}, {2, 2}, {1, 1}, {0, 0}},   // 17 columns
      {2, 2, 3, 27, 1, {30, 69}, {7, 7}, {2, 2}, {1, 1}, {3, 3}},   // 35 columns
      {2, 1, 8, 16, 1, {9, 70}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},    // 70 columns
      {2, 1, 4, 12, 1, {20, 61}, {3, 3}, {1, 1}, {2, 2}, {2, 2}},   // dilation
      {2, 1, 2, 13, 1, {21, 200}, {5, 5}, {3, 3}, {1, 1}, {4, 4}},  // stride 3
      {2, 2, 3, 8, 1, {23, 50}, {2, 2}, {3, 3}, {1, 1}, {1, 1}},    // rows skipped
      {1, 2, 1, 9, 1, {1000}, {80}, {4}, {1}, {0}},                 // 1-d, 231 columns
      {1, 1, 3, 5, 1, {90}, {4}, {1}, {3}, {5}},                    // 1-d, dilation 3
      {2, 2, 128, 64, 32, {16, 16}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, // ResNeXt: 32 groups of 4
      {2, 1, 12, 18, 3, {20, 33}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},   // groups of 4 -> 6, stride 2
  };
  for (const ConvGeom &g : cases) {
    const rt::ConvParams p = params(g);
    ASSERT_TRUE(rt::conv_row_taps_fits(p));
    const ConvData d = reference_conv(p, 47);
    int64_t taps = g.cin / g.groups;
    for (int i = 0; i < g.rank; ++i)
      taps *= g.ker[i];
    std::vector<float> scratch(size_t(rt::conv_row_taps_scratch_floats(p)) + 64, std::nanf(""));
    std::vector<float> got(d.ref.size());
    std::vector<int> seen(got.size(), 0);
    rt::conv_row_taps(d.x.data(), d.w.data(), d.bias.data(), got.data(), p, CountingRelu{&seen},
                      scratch.data());
    SCOPED_TRACE(::testing::Message() << "rank " << g.rank << " cin " << g.cin << " cout "
                                      << g.cout << " kernel " << g.ker[0]);
    expect_close(got, relu_of(d.ref), taps, "row taps");
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    EXPECT_TRUE(std::all_of(scratch.end() - 64, scratch.end(),
                            [](float v) { return std::isnan(v); }));
  }
  // The choice: a stem of rows 112 wide, or of few taps; not 72 taps on rows
  // of 56 (taps into 16-channel tiles), 16 input channels, or rows of 15.
  EXPECT_TRUE(rt::conv_row_taps_pays(
      params({2, 1, 3, 64, 1, {224, 224}, {7, 7}, {2, 2}, {1, 1}, {3, 3}})));
  EXPECT_TRUE(rt::conv_row_taps_pays(
      params({2, 1, 3, 64, 1, {224, 224}, {3, 3}, {2, 2}, {1, 1}, {0, 0}})));
  EXPECT_FALSE(rt::conv_row_taps_pays(
      params({2, 1, 8, 32, 1, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}})));
  EXPECT_FALSE(rt::conv_row_taps_fits(
      params({2, 1, 16, 32, 1, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}})));
  // Grouped: 16 groups of 16 channels is too many per group; a depthwise
  // conv (one channel per group) is conv_depthwise's.
  EXPECT_FALSE(rt::conv_row_taps_fits(
      params({2, 1, 256, 256, 16, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}})));
  EXPECT_FALSE(rt::conv_row_taps_fits(
      params({2, 1, 32, 32, 32, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}})));
  EXPECT_FALSE(rt::conv_row_taps_fits(
      params({2, 1, 3, 32, 1, {15, 15}, {3, 3}, {1, 1}, {1, 1}, {1, 1}})));
}

// A ClipEpilogue (ReLU, ReLU6: what the compiler emits for a conv and its
// clip) is applied in the row-taps tiles' registers instead of a pass over
// each row: the same floats as the pass, with NaN in the input (which the
// clip keeps) and zeros of both signs (ReLU keeps -0), alone and chained
// into a max pool.
TEST(ConvRowTaps, ClipInTilesMatchesClipPass) {
  const ConvGeom cases[] = {
      {2, 1, 3, 22, 1, {37, 35}, {3, 3}, {2, 2}, {1, 1}, {0, 0}},
      {2, 2, 3, 27, 1, {30, 69}, {7, 7}, {2, 2}, {1, 1}, {3, 3}},
      {1, 2, 1, 9, 1, {1000}, {80}, {4}, {1}, {0}},
      {2, 1, 12, 18, 3, {20, 33}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
  };
  for (const ConvGeom &g : cases)
    for (const rt::ClipEpilogue clip : {rt::ClipEpilogue{0.0f, INFINITY}, rt::ClipEpilogue{0.0f, 6.0f}}) {
      const rt::ConvParams p = params(g);
      SCOPED_TRACE(::testing::Message() << "cin " << g.cin << " cout " << g.cout << " kernel "
                                        << g.ker[0] << " clip to " << clip.hi);
      ConvData d = reference_conv(p, 61);
      for (size_t i = 0; i < d.x.size(); i += 37)
        d.x[i] = std::nanf("");
      for (size_t i = 0; i < d.w.size(); i += 11)
        d.w[i] *= 8.0f; // outputs past 6
      std::fill(d.bias.begin(), d.bias.begin() + 2, 0.0f); // with zero inputs: +-0 sums
      auto pass = [&](float *v, int64_t, int64_t n) { rt::clip_in_place(v, n, clip.lo, clip.hi); };
      std::vector<float> scratch(size_t(rt::conv_row_taps_scratch_floats(p)));
      std::vector<float> want(d.ref.size()), got(d.ref.size());
      rt::conv_row_taps(d.x.data(), d.w.data(), d.bias.data(), want.data(), p, pass,
                        scratch.data());
      rt::conv_row_taps(d.x.data(), d.w.data(), d.bias.data(), got.data(), p, clip,
                        scratch.data());
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(std::memcmp(&want[i], &got[i], sizeof(float)), 0)
            << i << ": " << got[i] << " vs " << want[i];
      if (g.groups > 1)
        continue; // (the chained pool takes ungrouped convs)
      rt::PoolParams pp{};
      pp.spatial_rank = g.rank;
      pp.batch_channels = p.batch * p.out_channels;
      int64_t pooled_plane = 1;
      for (int k = 0; k < g.rank; ++k) {
        pp.in_size[k] = p.out_size[k];
        pp.out_size[k] = (p.out_size[k] - 3) / 2 + 1;
        pp.kernel[k] = 3;
        pp.stride[k] = 2;
        pp.dilation[k] = 1;
        pooled_plane *= pp.out_size[k];
      }
      ASSERT_TRUE(rt::conv_row_taps_max_pool_fits(p, pp));
      std::vector<float> pool_scratch(size_t(rt::conv_row_taps_max_pool_scratch_floats(p, pp)));
      std::vector<float> want_pooled(size_t(pp.batch_channels * pooled_plane)),
          got_pooled(want_pooled.size());
      const rt::gemm::NoEpilogue none{};
      rt::conv_row_taps_max_pool(d.x.data(), d.w.data(), d.bias.data(), want_pooled.data(), p,
                                 pp, pass, none, pool_scratch.data());
      rt::conv_row_taps_max_pool(d.x.data(), d.w.data(), d.bias.data(), got_pooled.data(), p,
                                 pp, clip, none, pool_scratch.data());
      for (size_t i = 0; i < want_pooled.size(); ++i)
        ASSERT_EQ(std::memcmp(&want_pooled[i], &got_pooled[i], sizeof(float)), 0)
            << "pooled " << i << ": " << got_pooled[i] << " vs " << want_pooled[i];
    }
}

// A conv on rows of taps chained into the max pool that reads its output
// (a CNN stem): the same outputs as conv_row_taps then max_pool, bit for
// bit, on 1 and 2 threads (tasks split pooled rows, across images too):
// overlapping 3x3 stride-2 windows with padding (ResNet), a ceil_mode
// window past the end (SqueezeNet 1.0), non-overlapping 2x2 windows, a
// stride-1 pool, windows with gaps between them (conv rows never computed),
// a 1-d conv. Every pooled output once through the pool's epilogue; nothing
// written past the scratch.
TEST(ConvRowTapsMaxPool, MatchesConvThenPool) {
  struct Case {
    ConvGeom conv;
    int64_t ker[2], st[2], pb[2], pe[2], out[2]; // the pool's, rank as the conv's
  };
  const Case cases[] = {
      {{2, 1, 3, 24, 1, {40, 38}, {7, 7}, {2, 2}, {1, 1}, {3, 3}}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {10, 10}},
      {{2, 2, 3, 20, 1, {31, 37}, {3, 3}, {2, 2}, {1, 1}, {0, 0}}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, {7, 9}},
      {{2, 1, 4, 16, 1, {21, 36}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, {10, 18}},
      {{2, 1, 2, 9, 1, {12, 40}, {3, 3}, {1, 1}, {2, 2}, {2, 2}}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {12, 40}},
      {{2, 2, 1, 8, 1, {25, 50}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, {2, 2}, {3, 2}, {0, 0}, {0, 0}, {8, 25}},
      {{1, 2, 2, 8, 1, {100}, {5}, {1}, {1}, {2}}, {3}, {2}, {1}, {1}, {50}},
  };
  rt::ThreadPool pool(2);
  for (const Case &cs : cases) {
    const rt::ConvParams p = params(cs.conv);
    rt::PoolParams pp{};
    pp.spatial_rank = cs.conv.rank;
    pp.batch_channels = p.batch * p.out_channels;
    for (int d = 0; d < cs.conv.rank; ++d) {
      pp.in_size[d] = p.out_size[d];
      pp.out_size[d] = cs.out[d];
      pp.kernel[d] = cs.ker[d];
      pp.stride[d] = cs.st[d];
      pp.dilation[d] = 1;
      pp.pad_begin[d] = cs.pb[d];
      pp.pad_end[d] = cs.pe[d];
    }
    SCOPED_TRACE(::testing::Message() << "conv cin " << cs.conv.cin << " cout " << cs.conv.cout
                                      << ", pool " << cs.ker[0] << " stride " << cs.st[0]);
    ASSERT_TRUE(rt::conv_row_taps_max_pool_fits(p, pp));
    const ConvData d = reference_conv(p, 53);
    const auto [in_plane, out_plane, kvol] = volumes(p);
    (void)in_plane;
    (void)kvol;
    std::vector<float> conv(size_t(p.batch * p.out_channels * out_plane));
    std::vector<float> conv_scratch(size_t(rt::conv_row_taps_scratch_floats(p)));
    rt::conv_row_taps(d.x.data(), d.w.data(), d.bias.data(), conv.data(), p,
                      [](float *v, int64_t, int64_t n) {
                        for (int64_t j = 0; j < n; ++j)
                          v[j] = v[j] > 0 ? v[j] : 0.1f * v[j];
                      },
                      conv_scratch.data());
    const int64_t pooled_plane = cs.out[0] * (cs.conv.rank == 2 ? cs.out[1] : 1);
    std::vector<float> want(size_t(pp.batch_channels * pooled_plane));
    rt::max_pool(conv.data(), want.data(), pp);
    const int64_t per = rt::conv_row_taps_max_pool_scratch_floats(p, pp);
    for (int threads = 1; threads <= 2; ++threads) {
      SCOPED_TRACE(::testing::Message() << "threads " << threads);
      std::vector<float> scratch(size_t(per * threads) + 64, std::nanf(""));
      rt::Parallel par{rt::ThreadPool::parallel_for, &pool, threads, scratch.data() + per, per};
      std::vector<float> got(want.size());
      std::vector<int> seen(got.size(), 0);
      rt::conv_row_taps_max_pool(
          d.x.data(), d.w.data(), d.bias.data(), got.data(), p, pp,
          [](float *v, int64_t, int64_t n) {
            for (int64_t j = 0; j < n; ++j)
              v[j] = v[j] > 0 ? v[j] : 0.1f * v[j];
          },
          [&](float *v, int64_t i0, int64_t n) {
            EXPECT_EQ(v, got.data() + i0);
            for (int64_t j = 0; j < n; ++j)
              ++seen[size_t(i0 + j)];
          },
          scratch.data(), threads > 1 ? par : rt::Parallel{});
      EXPECT_EQ(got, want);
      EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
      EXPECT_TRUE(std::all_of(scratch.end() - 64, scratch.end(),
                              [](float v) { return std::isnan(v); }));
    }
    // The scalar row kernel (cores without vector registers) from the
    // window's rows pools as max_pool does.
    const rt::detail::Pool4 r = rt::detail::pool4(pp);
    const int64_t ow_n = p.out_size[cs.conv.rank - 1];
    std::vector<float> row(size_t(r.out[3]));
    for (int64_t ph = 0; ph < r.out[2]; ++ph) {
      const float *win[rt::detail::kMaxPoolVectorRows];
      int64_t n = 0;
      for (int64_t kh = 0; kh < r.ker[2]; ++kh) {
        const int64_t ih = ph * r.st[2] + kh - r.pb[2];
        if (ih >= 0 && ih < r.in[2])
          win[n++] = conv.data() + ih * ow_n;
      }
      float folded[rt::detail::kMaxPoolRowElements];
      rt::detail::max_pool_row_of([&](const auto &f) {
        for (int64_t i = 0; i < n; ++i)
          f(win[i]);
      }, row.data(), r, folded);
      EXPECT_TRUE(std::equal(row.begin(), row.end(), want.begin() + ph * r.out[3]))
          << "scalar row kernel, pooled row " << ph;
    }
  }
  // Not taken: dilated pools, a pool over another tensor's shape, rows wider
  // than the pool's staged row.
  const rt::ConvParams stem = params({2, 1, 3, 64, 1, {224, 224}, {7, 7}, {2, 2}, {1, 1}, {3, 3}});
  rt::PoolParams resnet{2, 64, {112, 112}, {56, 56}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, false};
  EXPECT_TRUE(rt::conv_row_taps_max_pool_fits(stem, resnet));
  rt::PoolParams dilated = resnet;
  dilated.dilation[1] = 2;
  EXPECT_FALSE(rt::conv_row_taps_max_pool_fits(stem, dilated));
  rt::PoolParams other = resnet;
  other.in_size[0] = 111;
  EXPECT_FALSE(rt::conv_row_taps_max_pool_fits(stem, other));
  const rt::ConvParams wide = params({1, 1, 1, 16, 1, {600}, {3}, {1}, {1}, {1}});
  rt::PoolParams wide_pool{1, 16, {600}, {300}, {2}, {2}, {1}, {0}, {0}, false};
  EXPECT_FALSE(rt::conv_row_taps_max_pool_fits(wide, wide_pool));
}

TEST(ConvLanes, DepthwiseReadsAndWritesLanes) {
  const ConvGeom cases[] = {
      {2, 2, 32, 32, 32, {9, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {2, 1, 16, 16, 16, {15, 14}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
      {2, 1, 48, 48, 48, {40, 40}, {5, 5}, {1, 1}, {1, 1}, {2, 2}}, // epilogue in stripes
      // Rows ending in a block narrower than the register block (14 = 8 + 6,
      // 7, 15 = 8 + 7 with a 5x5 kernel, 13 = 8 + 5 at stride 2).
      {2, 1, 16, 16, 16, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {2, 2, 32, 32, 32, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {2, 1, 16, 16, 16, {15, 15}, {5, 5}, {1, 1}, {1, 1}, {2, 2}},
      {2, 1, 16, 16, 16, {26, 26}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
  };
  for (const ConvGeom &g : cases) {
    const rt::ConvParams p = params(g);
    ASSERT_TRUE(rt::conv_depthwise_lanes_fits(p));
    const ConvData d = reference_conv(p, 41);
    const int64_t in_plane = g.in[0] * g.in[1], out_plane = p.out_size[0] * p.out_size[1];
    const std::vector<float> x_lanes = to_lanes(d.x, g.batch, g.cin, in_plane);
    std::vector<float> scratch(size_t(rt::depthwise_scratch_floats(p)));
    const std::vector<double> want = relu_of(d.ref);
    for (int mode = 1; mode < 4; ++mode) {
      const bool in_lanes = mode & 1, out_lanes = mode & 2;
      // Rows are stored in place in lane layout: a canary past the output
      // catches a register block stored past the last row.
      const size_t n = d.ref.size();
      std::vector<float> got(n + 8 * 16, -7.0f);
      std::vector<int> seen(got.size(), 0);
      const float *x = in_lanes ? x_lanes.data() : d.x.data();
      const CountingRelu relu{&seen};
      if (mode == 1)
        rt::conv_depthwise<true, false>(x, d.w.data(), d.bias.data(), got.data(), p, relu,
                                        scratch.data());
      else if (mode == 2)
        rt::conv_depthwise<false, true>(x, d.w.data(), d.bias.data(), got.data(), p, relu,
                                        scratch.data());
      else
        rt::conv_depthwise<true, true>(x, d.w.data(), d.bias.data(), got.data(), p, relu,
                                       scratch.data());
      SCOPED_TRACE(::testing::Message() << "channels " << g.cin << " in lanes " << in_lanes
                                        << " out lanes " << out_lanes);
      EXPECT_TRUE(std::all_of(got.begin() + n, got.end(), [](float v) { return v == -7.0f; }));
      got.resize(n);
      expect_close(out_lanes ? from_lanes(got, g.batch, g.cout, out_plane) : got, want,
                   g.ker[0] * g.ker[1], "depthwise lanes");
      EXPECT_TRUE(std::all_of(seen.begin(), seen.begin() + n, [](int k) { return k == 1; }));
    }
  }
  EXPECT_FALSE(rt::conv_depthwise_lanes_fits(
      params({2, 1, 24, 24, 24, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}})));
}

// In place (y == x, lane layout), as the memory plan runs a stride-1 "same"
// depthwise conv whose input dies there: serial and over 2 and 3 tasks
// (which then take whole blocks of an image: rows of one block split over
// two tasks would overwrite each other's input). 3x3, 5x5, dilation 2, a
// partial last block (40 channels).
TEST(ConvLanes, DepthwiseInPlaceMatchesReference) {
  const ConvGeom cases[] = {
      {2, 2, 32, 32, 32, {30, 28}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {2, 1, 48, 48, 48, {40, 40}, {5, 5}, {1, 1}, {1, 1}, {2, 2}},
      {2, 2, 16, 16, 16, {33, 31}, {3, 3}, {1, 1}, {2, 2}, {2, 2}},
  };
  for (const ConvGeom &g : cases) {
    const rt::ConvParams p = params(g);
    ASSERT_TRUE(rt::conv_depthwise_in_place_fits(p));
    const ConvData d = reference_conv(p, 43);
    const int64_t plane = g.in[0] * g.in[1];
    const std::vector<double> want = relu_of(d.ref);
    const int64_t per = rt::depthwise_scratch_floats(p);
    for (int threads : {1, 2, 3}) {
      rt::ThreadPool pool(threads);
      std::vector<float> scratch(size_t(per * (threads + 1)));
      const rt::Parallel par{threads > 1 ? rt::ThreadPool::parallel_for : nullptr, &pool,
                             threads, scratch.data() + per, per};
      std::vector<float> xy = to_lanes(d.x, g.batch, g.cin, plane);
      std::vector<int> seen(xy.size(), 0);
      rt::conv_depthwise<true, true>(xy.data(), d.w.data(), d.bias.data(), xy.data(), p,
                                     CountingRelu{&seen}, scratch.data(), par);
      SCOPED_TRACE(::testing::Message() << g.cin << " channels, threads " << threads);
      expect_close(from_lanes(xy, g.batch, g.cout, plane), want, g.ker[0] * g.ker[1],
                   "depthwise in place");
      EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int k) { return k == 1; }));
    }
  }
  // Stride 2, or more padding above than the kernel reaches below: output
  // rows would land on input rows still to be read.
  EXPECT_FALSE(rt::conv_depthwise_in_place_fits(
      params({2, 1, 16, 16, 16, {12, 12}, {3, 3}, {2, 2}, {1, 1}, {1, 1}})));
  rt::ConvParams shifted = params({2, 1, 16, 16, 16, {12, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1}});
  shifted.pad_begin[0] = 3;
  shifted.out_size[0] = 12;
  EXPECT_FALSE(rt::conv_depthwise_in_place_fits(shifted));
}

// A 1x1 expand fused into the depthwise conv that reads it, against the
// two reference convs: each side in NCHW or lane layout, rows that end in
// the expand's 4- and 1-pixel tails (21, 37), stride 2, a 5x5 kernel, batch
// 2, no biases. Each epilogue sees every element of its tensor once, at its
// index in that tensor's layout (the expanded one in lane layout).
TEST(ConvLanes, ExpandFusedIntoDepthwiseMatchesTwoConvs) {
  struct Case {
    bool in_lanes, out_lanes, bias;
    int64_t batch, cin, c, h, w, ker, stride;
  };
  const Case cases[] = {
      {false, false, true, 2, 5, 32, 9, 21, 3, 1},
      {false, true, true, 1, 3, 48, 15, 14, 3, 2},
      {true, true, false, 1, 16, 16, 13, 37, 5, 1},
      {true, false, true, 2, 32, 32, 7, 7, 3, 2},
  };
  for (const Case &c : cases) {
    const int64_t pad = c.ker / 2;
    const rt::ConvParams pe =
        params({2, c.batch, c.cin, c.c, 1, {c.h, c.w}, {1, 1}, {1, 1}, {1, 1}, {0, 0}});
    const rt::ConvParams pd = params({2, c.batch, c.c, c.c, c.c, {c.h, c.w}, {c.ker, c.ker},
                                      {c.stride, c.stride}, {1, 1}, {pad, pad}});
    ASSERT_TRUE(rt::conv_expand_depthwise_fits(pe, pd));
    const int64_t plane = c.h * c.w, out_plane = pd.out_size[0] * pd.out_size[1];
    // The reference: expand, ReLU, depthwise conv (ReLU again below).
    ConvData e = reference_conv(pe, 51);
    if (!c.bias)
      rt::conv(e.x.data(), e.w.data(), nullptr, e.ref.data(), pe);
    std::vector<float> expanded(e.ref.size());
    for (size_t i = 0; i < expanded.size(); ++i)
      expanded[i] = e.ref[i] < 0.0f ? 0.0f : e.ref[i];
    const auto wd = random_floats(size_t(c.c * c.ker * c.ker), 52);
    const auto bd = random_floats(size_t(c.c), 53);
    std::vector<float> ref(size_t(c.batch * c.c * out_plane));
    rt::conv(expanded.data(), wd.data(), c.bias ? bd.data() : nullptr, ref.data(), pd);

    std::vector<float> we(size_t(rt::lane_weight_floats(c.c, c.cin)));
    rt::pack_lane_weights(e.w.data(), c.c, c.cin, we.data());
    const std::vector<float> x = c.in_lanes ? to_lanes(e.x, c.batch, c.cin, plane) : e.x;
    std::vector<float> scratch(size_t(rt::expand_depthwise_scratch_floats(pd)), std::nanf(""));
    std::vector<float> got(ref.size());
    std::vector<int> seen_e(expanded.size(), 0), seen(got.size(), 0);
    const CountingRelu relu_e{&seen_e}, relu{&seen};
    const float *be = c.bias ? e.bias.data() : nullptr, *bdp = c.bias ? bd.data() : nullptr;
    auto run = [&](std::vector<float> &out, const CountingRelu &epi_e, const CountingRelu &epi,
                   float *scr, const rt::Parallel &par) {
      if (c.in_lanes && c.out_lanes)
        rt::conv_expand_depthwise<true, true>(x.data(), we.data(), be, wd.data(), bdp,
                                              out.data(), pe, pd, epi_e, epi, scr, par);
      else if (c.in_lanes)
        rt::conv_expand_depthwise<true, false>(x.data(), we.data(), be, wd.data(), bdp,
                                               out.data(), pe, pd, epi_e, epi, scr, par);
      else if (c.out_lanes)
        rt::conv_expand_depthwise<false, true>(x.data(), we.data(), be, wd.data(), bdp,
                                               out.data(), pe, pd, epi_e, epi, scr, par);
      else
        rt::conv_expand_depthwise<false, false>(x.data(), we.data(), be, wd.data(), bdp,
                                                out.data(), pe, pd, epi_e, epi, scr, par);
    };
    run(got, relu_e, relu, scratch.data(), rt::Parallel{});
    SCOPED_TRACE(::testing::Message() << "lanes in " << c.in_lanes << " out " << c.out_lanes
                                      << ": " << c.cin << " -> " << c.c << " at " << c.h << "x"
                                      << c.w << ", " << c.ker << "x" << c.ker << " stride "
                                      << c.stride);
    expect_close(c.out_lanes ? from_lanes(got, c.batch, c.c, out_plane) : got, relu_of(ref),
                 c.cin + c.ker * c.ker, "expand + depthwise");
    EXPECT_TRUE(std::all_of(seen_e.begin(), seen_e.end(), [](int n) { return n == 1; }));
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    // On 2 and 3 threads (bands of rows in every block where the rows allow
    // 4 per task, else blocks): the same output bit for bit, its epilogue
    // once per element; the expand's may run twice where two bands meet.
    const int64_t per = rt::expand_depthwise_scratch_floats(pd);
    for (int threads : {2, 3}) {
      SCOPED_TRACE(::testing::Message() << "threads " << threads);
      rt::ThreadPool pool(threads);
      std::vector<float> scratch_t(size_t(per * threads), std::nanf(""));
      const rt::Parallel par{rt::ThreadPool::parallel_for, &pool, threads,
                             scratch_t.data() + per, per};
      std::vector<float> got_t(ref.size());
      std::vector<int> seen_et(expanded.size(), 0), seen_t(got.size(), 0);
      run(got_t, CountingRelu{&seen_et}, CountingRelu{&seen_t}, scratch_t.data(), par);
      EXPECT_EQ(got_t, got);
      EXPECT_EQ(seen_t, seen);
      EXPECT_TRUE(std::all_of(seen_et.begin(), seen_et.end(), [](int n) { return n >= 1; }));
    }
  }
  // Fused where the expanded tensor outgrows L2, not where it stays there.
  const auto pays = [](int64_t cin, int64_t c, int64_t hw) {
    return rt::conv_expand_depthwise_pays(
        params({2, 1, cin, c, 1, {hw, hw}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}),
        params({2, 1, c, c, c, {hw, hw}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}));
  };
  EXPECT_TRUE(pays(16, 96, 112));
  EXPECT_TRUE(pays(32, 192, 28));
  EXPECT_FALSE(pays(64, 384, 14));
  EXPECT_FALSE(rt::conv_expand_depthwise_fits(
      params({2, 1, 8, 24, 1, {8, 8}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}),
      params({2, 1, 24, 24, 24, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}))); // 24 channels
}

// A 1x1 conv on one-pixel maps as a fully connected layer: batch 1 (the
// row read in place) and 3, output channels past whole column panels, with
// and without bias; the epilogue sees each output once at its index.
TEST(ConvFullyConnected, MatchesReferenceConv) {
  for (int64_t batch : {1, 3})
    for (bool bias : {true, false}) {
      const rt::ConvParams p = params({2, batch, 70, 37, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}});
      ASSERT_TRUE(rt::conv_is_fully_connected(p));
      ConvData d = reference_conv(p, 61);
      if (!bias)
        rt::conv(d.x.data(), d.w.data(), nullptr, d.ref.data(), p);
      std::vector<float> packed(size_t(rt::fully_connected_weight_floats(p)));
      rt::pack_fully_connected_weights(d.w.data(), p, packed.data());
      std::vector<float> scratch(size_t(rt::fully_connected_scratch_floats(p)) + 1);
      std::vector<float> got(d.ref.size());
      std::vector<int> seen(got.size(), 0);
      const float *b = bias ? d.bias.data() : nullptr;
      if (batch == 1)
        rt::conv_fully_connected<true>(d.x.data(), packed.data(), b, got.data(), p,
                                       CountingRelu{&seen}, scratch.data());
      else
        rt::conv_fully_connected<false>(d.x.data(), packed.data(), b, got.data(), p,
                                        CountingRelu{&seen}, scratch.data());
      SCOPED_TRACE(::testing::Message() << "batch " << batch << " bias " << bias);
      expect_close(got, relu_of(d.ref), 70, "fully connected conv");
      EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    }
  EXPECT_EQ(rt::fully_connected_scratch_floats(
                params({2, 1, 70, 37, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}})),
            0);
  EXPECT_FALSE(rt::conv_is_fully_connected(
      params({2, 1, 70, 37, 1, {2, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}}))); // two pixels
}

// Lane layout round trip (the depthwise conv's transposes): rows of every
// length around the 16-float blocks, an offset, null rows.
TEST(LaneTranspose, GatherAndScatterMatchScalarTranspose) {
  for (int64_t n : {1, 3, 4, 7, 16, 17, 33, 50}) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    const int64_t at = 5, stride = at + n + 3;
    const std::vector<float> src = random_floats(size_t(16 * stride), uint64_t(n));
    const float *rows[16];
    for (int64_t c = 0; c < 16; ++c)
      rows[c] = c == 6 || c == 15 ? nullptr : src.data() + c * stride;
    std::vector<float> lanes(size_t(n * 16), std::nanf(""));
    rt::lanes::gather(rows, at, n, lanes.data());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t c = 0; c < 16; ++c)
        ASSERT_EQ(lanes[size_t(i * 16 + c)], rows[c] ? rows[c][at + i] : 0.0f) << i << " " << c;
    // Back into fresh rows: the null rows and the floats around [at, at + n)
    // are left alone.
    std::vector<float> back(size_t(16 * stride), -1.0f);
    float *out[16];
    for (int64_t c = 0; c < 16; ++c)
      out[c] = rows[c] ? back.data() + c * stride : nullptr;
    rt::lanes::scatter(lanes.data(), n, out, at);
    for (int64_t c = 0; c < 16; ++c)
      for (int64_t i = 0; i < stride; ++i) {
        const bool inside = rows[c] && i >= at && i < at + n;
        ASSERT_EQ(back[size_t(c * stride + i)], inside ? src[size_t(c * stride + i)] : -1.0f)
            << c << " " << i;
      }
  }
}

// Winograd F(2x2) and F(4x4) against the reference conv: output sizes that
// are and are not multiples of the tile, padding 0..2, several blocks of
// tiles (the small block budget of many channels), batch 2; the epilogue
// sees each element once at its index; split over threads, bit-identical.
template <int M> void check_winograd(const ConvGeom &g) {
  const rt::ConvParams p = params(g);
  ASSERT_TRUE(rt::winograd::conv_fits(p));
  const ConvData d = reference_conv(p, 31);
  std::vector<float> u(size_t(rt::winograd::transformed_weight_floats<M>(p)));
  rt::winograd::transform_weights<M>(d.w.data(), p, u.data());
  const size_t ny = d.ref.size();
  std::vector<float> got(ny, std::nanf(""));
  std::vector<int> seen(ny, 0);
  const int64_t per = rt::winograd::scratch_floats<M>(p);
  std::vector<float> scratch(size_t(per * 3), std::nanf(""));
  rt::winograd::conv_winograd<M>(d.x.data(), u.data(), d.bias.data(), got.data(), p,
                                 CountingRelu{&seen}, scratch.data());
  std::vector<double> want(ny);
  for (size_t i = 0; i < ny; ++i)
    want[i] = d.ref[i] < 0.0f ? 0.0 : d.ref[i];
  // The transforms add a few roundings per input channel (F(4x4) more).
  expect_close(got, want, g.cin * 9 * (M == 4 ? 4 : 2), M == 4 ? "winograd F(4x4)" : "winograd F(2x2)");
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  rt::ThreadPool pool(3);
  rt::Parallel par{rt::ThreadPool::parallel_for, &pool, 3, scratch.data() + per, per};
  std::vector<float> parallel(ny);
  std::vector<int> seen_parallel(ny, 0);
  rt::winograd::conv_winograd<M>(d.x.data(), u.data(), d.bias.data(), parallel.data(), p,
                                 CountingRelu{&seen_parallel}, scratch.data(), par);
  EXPECT_EQ(got, parallel);
  EXPECT_EQ(seen, seen_parallel);
  // A ClipEpilogue (ReLU6 here) clips the tiles before their scatter: the
  // same floats as the clip pass, serial and split, with NaN in the input
  // (its tile's outputs NaN, which the clip keeps) and outputs past 6.
  std::vector<float> x = d.x;
  for (size_t i = 0; i < x.size(); i += 53)
    x[i] = i % 106 ? 40.0f : std::nanf("");
  const rt::ClipEpilogue relu6{0.0f, 6.0f};
  auto clip_pass = [&](float *v, int64_t, int64_t n) { rt::clip_in_place(v, n, 0.0f, 6.0f); };
  for (const rt::Parallel &run_par : {rt::Parallel{}, par}) {
    std::vector<float> want_clip(ny), got_clip(ny);
    rt::winograd::conv_winograd<M>(x.data(), u.data(), d.bias.data(), want_clip.data(), p,
                                   clip_pass, scratch.data(), run_par);
    rt::winograd::conv_winograd<M>(x.data(), u.data(), d.bias.data(), got_clip.data(), p, relu6,
                                   scratch.data(), run_par);
    for (size_t i = 0; i < ny; ++i)
      ASSERT_EQ(std::memcmp(&want_clip[i], &got_clip[i], sizeof(float)), 0)
          << (run_par.parallel_for ? "split, " : "serial, ") << i << ": " << got_clip[i]
          << " vs " << want_clip[i];
  }
}

TEST(ConvWinograd, MatchesReferenceConv) {
  const ConvGeom cases[] = {
      {2, 1, 3, 5, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},       // whole tiles
      {2, 2, 7, 9, 1, {11, 13}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},     // partial tiles, batch 2
      {2, 1, 4, 3, 1, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {0, 0}},      // no padding
      {2, 1, 2, 17, 1, {6, 7}, {3, 3}, {1, 1}, {1, 1}, {2, 2}},      // padding 2, Cout past a panel
      {2, 1, 300, 40, 1, {30, 30}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},  // several blocks
      {2, 1, 3, 4, 1, {4, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},       // narrower than a patch
      {2, 3, 5, 6, 1, {22, 19}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},     // panels across images
  };
  for (const ConvGeom &g : cases) {
    SCOPED_TRACE(::testing::Message() << "cin " << g.cin << " cout " << g.cout << " in "
                                      << g.in[0] << "x" << g.in[1] << " pad " << g.pad[0]);
    check_winograd<2>(g);
    check_winograd<4>(g);
  }
}

TEST(Gemm, ReportsTheMicroKernelCompiledIn) {
  const std::string isa = gm::kMicroKernelIsa;
#if defined(__AVX512F__)
  EXPECT_EQ(isa, "avx512");
#elif defined(__AVX2__) && defined(__FMA__)
  EXPECT_EQ(isa, "avx2");
#else
  EXPECT_FALSE(isa.empty());
#endif
}

} // namespace

namespace {

// The kernels split over 1..3 tasks through the ThreadPool hook give the
// same results as the serial calls (bit for bit: each output element is
// computed by one task in the same order).
TEST(Parallel, KernelsSplitOverTasksMatchSerial) {
  for (int threads : {2, 3}) {
    rt::ThreadPool pool(threads);
    // GEMM, split by columns (wide) and by rows (tall).
    for (const Dims &d : {Dims{40, 300, 70}, Dims{300, 20, 90}}) {
      const auto a = random_floats(size_t(d.m * d.k), 21), b = random_floats(size_t(d.k * d.n), 22);
      const int64_t per = gm::scratch_floats(d.m, d.n, d.k, true, true);
      std::vector<float> scratch(size_t(per * threads));
      rt::Parallel par{rt::ThreadPool::parallel_for, &pool, threads, scratch.data() + per, per};
      std::vector<float> serial(size_t(d.m * d.n)), parallel(serial.size());
      gm::gemm(d.m, d.n, d.k, gm::StridedA{a.data(), d.k, 1}, gm::StridedB{b.data(), d.n, 1},
               serial.data(), d.n, 0, nullptr, gm::NoEpilogue{}, scratch.data());
      gm::gemm_parallel(par, d.m, d.n, d.k, gm::StridedA{a.data(), d.k, 1},
                        gm::StridedB{b.data(), d.n, 1}, parallel.data(), d.n, 0, nullptr,
                        gm::NoEpilogue{}, scratch.data());
      EXPECT_EQ(serial, parallel) << d.m << "x" << d.n << "x" << d.k << " threads " << threads;
    }
    // Weights packed whole-K, B packed per block, two column panels, K over
    // KC: a task's single panel blocks K as the whole problem does (a task
    // that took K whole summed in another order, in more scratch than
    // scratch_floats gave it).
    {
      const int64_t m = 8, n = 17, k = 2000;
      const auto a = random_floats(size_t(m * k), 25), b = random_floats(size_t(k * n), 26);
      std::vector<float> pa(size_t(gm::packed_a_floats(m, k)));
      gm::pack_a(a.data(), k, 1, m, k, pa.data());
      constexpr int64_t kGuard = 64;
      const int64_t per = gm::scratch_floats(m, n, k, false, true) + kGuard;
      std::vector<float> scratch(size_t(per * threads), -7.0f);
      rt::Parallel par{rt::ThreadPool::parallel_for, &pool, threads, scratch.data() + per, per};
      std::vector<float> serial(size_t(m * n)), parallel(serial.size());
      gm::gemm(m, n, k, gm::PackedA{pa.data(), k}, gm::StridedB{b.data(), n, 1}, serial.data(),
               n, 0, nullptr, gm::NoEpilogue{}, scratch.data());
      gm::gemm_parallel(par, m, n, k, gm::PackedA{pa.data(), k}, gm::StridedB{b.data(), n, 1},
                        parallel.data(), n, 0, nullptr, gm::NoEpilogue{}, scratch.data());
      EXPECT_EQ(serial, parallel) << "packed A, 17 columns, threads " << threads;
      for (int64_t t = 0; t < threads; ++t)
        for (int64_t i = per - kGuard; i < per; ++i)
          ASSERT_EQ(scratch[size_t(t * per + i)], -7.0f) << "task " << t << " overran its scratch";
    }
    // A 3x3 conv (im2col views start mid-image) and a depthwise conv.
    // (Big enough to be split: see kMinParallelWork.)
    const rt::ConvParams conv = params({2, 2, 16, 24, 1, {40, 38}, {3, 3}, {1, 1}, {1, 1}, {1, 1}});
    // Rows 20 wide: B read from padded planes, column views mid-image.
    const rt::ConvParams conv_short =
        params({2, 2, 16, 24, 1, {30, 20}, {3, 3}, {1, 1}, {1, 1}, {1, 1}});
    // Depthwise convs split by output rows, blocks cut mid-image (40
    // channels: a partial block).
    const rt::ConvParams dw = params({2, 2, 32, 32, 32, {64, 62}, {3, 3}, {2, 2}, {1, 1}, {1, 1}});
    const rt::ConvParams dw40 = params({2, 1, 40, 40, 40, {50, 47}, {3, 3}, {1, 1}, {1, 1}, {1, 1}});
    // Deep K onto 7x7, split by rows: each task blocks K as the serial call.
    const rt::ConvParams conv_deep =
        params({2, 1, 128, 160, 1, {14, 14}, {3, 3}, {2, 2}, {1, 1}, {1, 1}});
    for (const rt::ConvParams &p : {conv, conv_short, conv_deep, dw, dw40}) {
      const bool depthwise = rt::conv_is_depthwise(p);
      const int64_t k = p.in_channels / p.groups * 9;
      const auto x = random_floats(size_t(p.batch * p.in_channels * p.in_size[0] * p.in_size[1]), 23);
      const auto w = random_floats(size_t(p.out_channels * k), 24);
      const size_t ny = size_t(p.batch * p.out_channels * p.out_size[0] * p.out_size[1]);
      const int64_t per = depthwise ? rt::depthwise_scratch_floats(p) : gm::conv_scratch_floats(p, false);
      std::vector<float> scratch(size_t(per * threads)), serial(ny), parallel(ny);
      rt::Parallel par{rt::ThreadPool::parallel_for, &pool, threads, scratch.data() + per, per};
      if (depthwise) {
        rt::conv_depthwise(x.data(), w.data(), nullptr, serial.data(), p, gm::NoEpilogue{}, scratch.data());
        rt::conv_depthwise(x.data(), w.data(), nullptr, parallel.data(), p, gm::NoEpilogue{},
                           scratch.data(), par);
      } else {
        gm::conv_gemm(x.data(), w.data(), false, nullptr, serial.data(), p, gm::NoEpilogue{}, scratch.data());
        gm::conv_gemm(x.data(), w.data(), false, nullptr, parallel.data(), p, gm::NoEpilogue{},
                      scratch.data(), par);
      }
      EXPECT_EQ(serial, parallel) << (depthwise ? "depthwise" : "conv") << " threads " << threads;
    }
    // Pointwise convs into and out of lane layout: pixel stripes split
    // (30x31, batch 2), output blocks split (7x7 is one stripe); out of
    // lanes, stripes cut finer than 128 pixels to balance the tasks (28x28
    // and 14x14 of one image, 10x13 of three).
    struct LaneCase {
      int64_t batch, h, w, c, e;
    };
    for (const LaneCase &lc : {LaneCase{2, 30, 31, 32, 48}, LaneCase{1, 7, 7, 128, 64},
                               LaneCase{1, 28, 28, 32, 48}, LaneCase{1, 14, 14, 16, 32},
                               LaneCase{3, 10, 13, 16, 32}}) {
      const rt::ConvParams to =
          params({2, lc.batch, lc.c, lc.e, 1, {lc.h, lc.w}, {1, 1}, {1, 1}, {1, 1}, {0, 0}});
      const rt::ConvParams back =
          params({2, lc.batch, lc.e, lc.c, 1, {lc.h, lc.w}, {1, 1}, {1, 1}, {1, 1}, {0, 0}});
      const size_t nx = size_t(lc.batch * lc.c * lc.h * lc.w), ne = nx / size_t(lc.c) * size_t(lc.e);
      const auto x = random_floats(nx, 25), w = random_floats(size_t(lc.e * lc.c), 26);
      std::vector<float> packed(size_t(rt::lane_weight_floats(lc.e, lc.c)));
      std::vector<float> packed_back(size_t(rt::lane_weight_floats(lc.c, lc.e)));
      rt::pack_lane_weights(w.data(), lc.e, lc.c, packed.data());
      rt::pack_lane_weights(w.data(), lc.c, lc.e, packed_back.data());
      const int64_t per = rt::from_lanes_scratch_floats();
      std::vector<float> scratch(size_t(per * threads)), serial(ne), parallel(ne);
      rt::Parallel par{rt::ThreadPool::parallel_for, &pool, threads, scratch.data() + per, per};
      rt::conv_pointwise_to_lanes(x.data(), packed.data(), nullptr, serial.data(), to,
                                  gm::NoEpilogue{});
      rt::conv_pointwise_to_lanes(x.data(), packed.data(), nullptr, parallel.data(), to,
                                  gm::NoEpilogue{}, par);
      EXPECT_EQ(serial, parallel) << "to lanes " << lc.h << "x" << lc.w << ", threads " << threads;
      std::vector<float> serial_back(nx), parallel_back(nx);
      rt::conv_pointwise_from_lanes(serial.data(), packed_back.data(), nullptr, serial_back.data(),
                                    back, gm::NoEpilogue{}, scratch.data());
      rt::conv_pointwise_from_lanes(serial.data(), packed_back.data(), nullptr,
                                    parallel_back.data(), back, gm::NoEpilogue{}, scratch.data(),
                                    par);
      EXPECT_EQ(serial_back, parallel_back)
          << "from lanes " << lc.h << "x" << lc.w << ", threads " << threads;
    }
    // An expand fused into a depthwise conv (output rows split) and a
    // fully connected conv (columns split).
    {
      const rt::ConvParams pe = params({2, 2, 8, 64, 1, {40, 36}, {1, 1}, {1, 1}, {1, 1}, {0, 0}});
      const rt::ConvParams pd = params({2, 2, 64, 64, 64, {40, 36}, {3, 3}, {2, 2}, {1, 1}, {1, 1}});
      const auto x = random_floats(2 * 8 * 40 * 36, 29), w = random_floats(64 * 8, 30);
      const auto wd = random_floats(64 * 9, 31);
      std::vector<float> we(size_t(rt::lane_weight_floats(64, 8)));
      rt::pack_lane_weights(w.data(), 64, 8, we.data());
      const int64_t per = rt::expand_depthwise_scratch_floats(pd);
      std::vector<float> scratch(size_t(per * threads)), serial(2 * 64 * 20 * 18),
          parallel(serial.size());
      rt::Parallel par{rt::ThreadPool::parallel_for, &pool, threads, scratch.data() + per, per};
      rt::conv_expand_depthwise<false, true>(x.data(), we.data(), nullptr, wd.data(), nullptr,
                                             serial.data(), pe, pd, gm::NoEpilogue{},
                                             gm::NoEpilogue{}, scratch.data());
      rt::conv_expand_depthwise<false, true>(x.data(), we.data(), nullptr, wd.data(), nullptr,
                                             parallel.data(), pe, pd, gm::NoEpilogue{},
                                             gm::NoEpilogue{}, scratch.data(), par);
      EXPECT_EQ(serial, parallel) << "expand + depthwise, threads " << threads;

      const rt::ConvParams fc = params({2, 1, 1152, 480, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}});
      const auto xf = random_floats(1152, 32), wf = random_floats(480 * 1152, 33);
      std::vector<float> packed(size_t(rt::fully_connected_weight_floats(fc)));
      rt::pack_fully_connected_weights(wf.data(), fc, packed.data());
      std::vector<float> fc_serial(480), fc_parallel(480);
      rt::Parallel fc_par{rt::ThreadPool::parallel_for, &pool, threads, nullptr, 0};
      rt::conv_fully_connected<true>(xf.data(), packed.data(), nullptr, fc_serial.data(), fc,
                                     gm::NoEpilogue{}, nullptr);
      rt::conv_fully_connected<true>(xf.data(), packed.data(), nullptr, fc_parallel.data(), fc,
                                     gm::NoEpilogue{}, nullptr, fc_par);
      EXPECT_EQ(fc_serial, fc_parallel) << "fully connected conv, threads " << threads;
    }
    // A stem into lane layout (output rows split).
    const rt::ConvParams stem = params({2, 2, 3, 32, 1, {64, 60}, {3, 3}, {2, 2}, {1, 1}, {1, 1}});
    const auto xs = random_floats(2 * 3 * 64 * 60, 27), ws = random_floats(32 * 27, 28);
    std::vector<float> packed_stem(size_t(rt::lane_weight_floats(32, 27)));
    rt::pack_lane_weights(ws.data(), 32, 27, packed_stem.data());
    const int64_t per = rt::conv_to_lanes_scratch_floats(stem);
    std::vector<float> scratch(size_t(per * threads)), serial(2 * 32 * 32 * 30), parallel(serial.size());
    rt::Parallel par{rt::ThreadPool::parallel_for, &pool, threads, scratch.data() + per, per};
    rt::conv_to_lanes(xs.data(), packed_stem.data(), nullptr, serial.data(), stem, gm::NoEpilogue{},
                      scratch.data());
    rt::conv_to_lanes(xs.data(), packed_stem.data(), nullptr, parallel.data(), stem,
                      gm::NoEpilogue{}, scratch.data(), par);
    EXPECT_EQ(serial, parallel) << "stem to lanes, threads " << threads;
    // A stem by rows of taps into NCHW (output rows split, across images).
    const int64_t row_per = rt::conv_row_taps_scratch_floats(stem);
    std::vector<float> row_scratch(size_t(row_per * threads)), row_serial(serial.size()),
        row_parallel(serial.size());
    rt::Parallel row_par{rt::ThreadPool::parallel_for, &pool, threads, row_scratch.data() + row_per,
                         row_per};
    rt::conv_row_taps(xs.data(), ws.data(), nullptr, row_serial.data(), stem, gm::NoEpilogue{},
                      row_scratch.data());
    rt::conv_row_taps(xs.data(), ws.data(), nullptr, row_parallel.data(), stem, gm::NoEpilogue{},
                      row_scratch.data(), row_par);
    EXPECT_EQ(row_serial, row_parallel) << "stem by rows of taps, threads " << threads;
  }
}

} // namespace

// A ClipEpilogue is applied by the lane kernels to their tiles before the
// store (clip_in_place.h's LaneClip), with no pass over the output: the
// outputs are the same bits as with the same clip as a pass (an epilogue
// lambda calling clip_in_place), NaNs and values past both bounds included,
// on whole tiles and tails, into lanes and NCHW, 1 and 2 threads; and the
// GEMM, which calls it as a pass on each row of a tile.
TEST(ConvLanes, ClipEpilogueInTilesMatchesItsPass) {
  const rt::ClipEpilogue clip{0.0f, 6.0f};
  const auto pass = [](float *v, int64_t, int64_t n) { rt::clip_in_place(v, n, 0.0f, 6.0f); };
  tract::rt::ThreadPool pool(2);
  std::vector<float> extra(1 << 18);
  for (int threads : {1, 2}) {
    rt::Parallel par{};
    if (threads == 2) {
      par.parallel_for = tract::rt::ThreadPool::parallel_for;
      par.pool = &pool;
      par.threads = 2;
      par.extra_scratch = extra.data();
      par.scratch_stride = 1 << 17;
    }
    // Inputs from -8 to 8 (so outputs past both bounds), one NaN.
    auto input = [](size_t n, uint64_t seed) {
      std::vector<float> v = random_floats(n, seed);
      for (float &x : v)
        x *= 8.0f;
      v[n / 3] = std::nanf("");
      return v;
    };
    auto same_bits = [&](const std::vector<float> &a, const std::vector<float> &b,
                         const char *what) {
      ASSERT_EQ(a.size(), b.size());
      EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0)
          << what << ", " << threads << " threads";
    };
    std::vector<float> scratch(1 << 17);
    { // into lanes: 24 -> 144 (9 blocks) on 9 x 11 (tiles and a tail)
      const rt::ConvParams p = params({2, 1, 24, 144, 1, {9, 11}, {1, 1}, {1, 1}, {1, 1}, {0, 0}});
      const std::vector<float> x = input(24 * 99, 1), w = input(144 * 24, 2), b = input(144, 3);
      std::vector<float> pw(size_t(rt::lane_weight_floats(144, 24)));
      rt::pack_lane_weights(w.data(), 144, 24, pw.data());
      std::vector<float> a(144 * 99), c(144 * 99);
      rt::conv_pointwise_to_lanes(x.data(), pw.data(), b.data(), a.data(), p, clip, par);
      rt::conv_pointwise_to_lanes(x.data(), pw.data(), b.data(), c.data(), p, pass, par);
      same_bits(a, c, "pointwise into lanes");
    }
    for (int64_t cout : {40, 112}) { // out of lanes: 48 -> 40 (a partial block), 48 -> 112 (7
                                     // blocks) on 9 x 11 (tiles, a lone block's, a tail)
      const rt::ConvParams p = params({2, 1, 48, cout, 1, {9, 11}, {1, 1}, {1, 1}, {1, 1}, {0, 0}});
      const std::vector<float> x = input(48 * 99, 12), w = input(size_t(cout) * 48, 13),
                               b = input(size_t(cout), 14);
      std::vector<float> pw(size_t(rt::lane_weight_floats(cout, 48)));
      rt::pack_lane_weights(w.data(), cout, 48, pw.data());
      std::vector<float> a(size_t(cout) * 99), c(size_t(cout) * 99);
      rt::conv_pointwise_from_lanes(x.data(), pw.data(), b.data(), a.data(), p, clip,
                                    scratch.data(), par);
      rt::conv_pointwise_from_lanes(x.data(), pw.data(), b.data(), c.data(), p, pass,
                                    scratch.data(), par);
      same_bits(a, c, "pointwise out of lanes");
    }
    { // the GEMM: 37 x 45 x 24, whole and partial tiles, with a row bias
      const int64_t m = 37, n = 45, k = 24;
      const std::vector<float> av = input(size_t(m * k), 15), bv = input(size_t(k * n), 16),
                               bias = input(size_t(m), 17);
      std::vector<float> pa(size_t(gm::packed_a_floats(m, k)));
      gm::pack_a(av.data(), k, 1, m, k, pa.data());
      std::vector<float> gs(size_t(gm::scratch_floats(m, n, k, true, true)));
      std::vector<float> a(size_t(m * n)), c(size_t(m * n));
      gm::gemm(m, n, k, gm::PackedA{pa.data(), k}, gm::StridedB{bv.data(), n, 1}, a.data(), n, 0,
               bias.data(), clip, gs.data());
      gm::gemm(m, n, k, gm::PackedA{pa.data(), k}, gm::StridedB{bv.data(), n, 1}, c.data(), n, 0,
               bias.data(), pass, gs.data());
      same_bits(a, c, "gemm");
    }
    for (bool out_lanes : {true, false}) { // a stem by taps, 3 -> 48, rows of 9
      const rt::ConvParams p = params({2, 1, 3, 48, 1, {15, 17}, {3, 3}, {2, 2}, {1, 1}, {1, 1}});
      const std::vector<float> x = input(3 * 255, 4), w = input(48 * 27, 5), b = input(48, 6);
      std::vector<float> pw(size_t(rt::lane_weight_floats(48, 27)));
      rt::pack_lane_weights(w.data(), 48, 27, pw.data());
      std::vector<float> a(48 * 72), c(48 * 72);
      if (out_lanes) {
        rt::conv_to_lanes<true>(x.data(), pw.data(), b.data(), a.data(), p, clip, scratch.data(), par);
        rt::conv_to_lanes<true>(x.data(), pw.data(), b.data(), c.data(), p, pass, scratch.data(), par);
      } else {
        rt::conv_to_lanes<false>(x.data(), pw.data(), b.data(), a.data(), p, clip, scratch.data(), par);
        rt::conv_to_lanes<false>(x.data(), pw.data(), b.data(), c.data(), p, pass, scratch.data(), par);
      }
      same_bits(a, c, out_lanes ? "stem into lanes" : "by taps into NCHW");
    }
    for (int64_t stride : {1, 2}) { // depthwise 3x3 on 32 channels, lanes in and out
      const rt::ConvParams p =
          params({2, 1, 32, 32, 32, {10, 13}, {3, 3}, {stride, stride}, {1, 1}, {1, 1}});
      const int64_t out_plane = p.out_size[0] * p.out_size[1];
      const std::vector<float> x = input(32 * 130, 7), w = input(32 * 9, 8), b = input(32, 9);
      std::vector<float> a(size_t(32 * out_plane)), c(size_t(32 * out_plane));
      rt::conv_depthwise<true, true>(x.data(), w.data(), b.data(), a.data(), p, clip, scratch.data(), par);
      rt::conv_depthwise<true, true>(x.data(), w.data(), b.data(), c.data(), p, pass, scratch.data(), par);
      same_bits(a, c, "depthwise");
      // The same conv after a fused expand (16 -> 32), both epilogues clips.
      const rt::ConvParams pe = params({2, 1, 16, 32, 1, {10, 13}, {1, 1}, {1, 1}, {1, 1}, {0, 0}});
      const std::vector<float> xe = input(16 * 130, 10), we = input(32 * 16, 11);
      std::vector<float> pwe(size_t(rt::lane_weight_floats(32, 16)));
      rt::pack_lane_weights(we.data(), 32, 16, pwe.data());
      rt::conv_expand_depthwise<false, true>(xe.data(), pwe.data(), b.data(), w.data(), b.data(),
                                             a.data(), pe, p, clip, clip, scratch.data(), par);
      rt::conv_expand_depthwise<false, true>(xe.data(), pwe.data(), b.data(), w.data(), b.data(),
                                             c.data(), pe, p, pass, pass, scratch.data(), par);
      same_bits(a, c, "expand + depthwise");
    }
  }
}
