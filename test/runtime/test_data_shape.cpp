#include "tract/rt/data/concat_ref.h"
#include "tract/rt/data/depth_space_ref.h"
#include "tract/rt/data/pad_ref.h"
#include "tract/rt/data/slice_ref.h"
#include "tract/rt/data/tile_ref.h"
#include "tract/rt/data/transpose_ref.h"

#include "test_util.h"

#include <algorithm>
#include <numeric>

using namespace tract_test;
namespace rt = tract::rt;

namespace {
int64_t ravel(const Shape &idx, const Shape &s) {
  int64_t lin = 0;
  for (size_t d = 0; d < s.size(); ++d)
    lin = lin * s[d] + idx[d];
  return lin;
}
std::vector<int32_t> iota_vec(int64_t n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}
} // namespace

namespace {
// rt::transpose of x (s) by perm against the index definition.
template <class T>
void expect_transposed(const std::vector<T> &x, const Shape &s, const Shape &perm) {
  const int rank = static_cast<int>(s.size());
  Shape ys(s.size());
  for (int i = 0; i < rank; ++i)
    ys[size_t(i)] = s[size_t(perm[size_t(i)])];
  std::vector<T> y(x.size());
  rt::transpose(x.data(), y.data(), s.data(), rank, perm.data());
  for (int64_t k = 0; k < numel(ys); ++k) {
    const Shape yi = unravel(k, ys);
    Shape xi(s.size());
    for (int i = 0; i < rank; ++i)
      xi[size_t(perm[size_t(i)])] = yi[size_t(i)];
    ASSERT_EQ(y[size_t(k)], x[size_t(ravel(xi, s))]) << shape_str(s) << " perm " << shape_str(perm);
  }
}

void expect_all_permutations(const Shape &s) {
  Shape perm(s.size());
  std::iota(perm.begin(), perm.end(), 0);
  do
    expect_transposed(iota_vec(numel(s)), s, perm);
  while (std::next_permutation(perm.begin(), perm.end()));
}
} // namespace

TEST(Transpose, AllPermutationsUpToRank4) {
  Rng r(5);
  static const int64_t dims[] = {1, 2, 3, 4, 5, 7, 9};
  for (int rank = 0; rank <= 4; ++rank)
    for (int t = 0; t < 6; ++t) {
      Shape s(static_cast<size_t>(rank));
      for (auto &d : s)
        d = dims[r.range(0, 6)];
      expect_all_permutations(s);
    }
}

// Dims past the 16 x 16 tiles of a 2-d transpose, with partial tiles.
TEST(Transpose, TiledBlocksWithPartialTiles) {
  expect_all_permutations({37, 20});
  expect_all_permutations({3, 17, 33});
  expect_all_permutations({2, 16, 1, 18});
}

// Float 2-d transposes go through registers a 16 x 16 tile at a time
// (lanes::gather), tiles of fewer rows with null rows, tiles of fewer
// columns element by element: NCHW <-> NHWC as in ConvNeXt, attention's
// head split, tails in both dims, and which path transpose_path names.
TEST(Transpose, FloatTilesInRegisters) {
  auto floats = [](int64_t n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>(i) * 0.25f - 3.0f;
    return v;
  };
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{1, 96, 14, 14}, {0, 2, 3, 1}}, {{1, 14, 14, 96}, {0, 3, 1, 2}}, {{4, 64, 50}, {1, 0, 2}},
      {{2, 50, 6, 64}, {0, 2, 1, 3}},  {{37, 20}, {1, 0}},               {{33, 48}, {1, 0}},
      {{3, 17, 33}, {0, 2, 1}},        {{16, 16}, {1, 0}}};
  for (const auto &[s, perm] : cases)
    expect_transposed(floats(numel(s)), s, perm);
  const int64_t nchw[] = {1, 96, 14, 14}, to_nhwc[] = {0, 2, 3, 1}, keep_rows[] = {1, 0, 2, 3};
  EXPECT_EQ(rt::transpose_path(nchw, 4, to_nhwc), rt::TransposePath::Tiles);
  EXPECT_EQ(rt::transpose_path(nchw, 4, keep_rows), rt::TransposePath::Rows);
  const int64_t column[] = {5, 1}, swap[] = {1, 0};
  EXPECT_EQ(rt::transpose_path(column, 2, swap), rt::TransposePath::Rows);
}

// The interleave a transposed conv's phases end in: [N, C, s1, s2, Q1, Q2]
// -> [N, C, Q1, s1, Q2, s2] (few rows of y per 2-d transpose), and a 1-d
// and a 3-d one.
TEST(Transpose, PhaseInterleaves) {
  expect_transposed(iota_vec(2 * 3 * 2 * 2 * 5 * 7), {2, 3, 2, 2, 5, 7}, {0, 1, 4, 2, 5, 3});
  expect_transposed(iota_vec(1 * 4 * 3 * 19), {1, 4, 3, 19}, {0, 1, 3, 2});
  expect_transposed(iota_vec(2 * 2 * 1 * 2 * 3 * 4 * 5), {2, 2, 1, 2, 3, 4, 5, 1},
                    {0, 1, 5, 2, 6, 3, 7, 4});
}

TEST(Transpose, LargeRankAndDoubles) {
  const Shape s = {2, 1, 3, 2, 1, 2, 3};
  std::vector<double> x(size_t(numel(s)));
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = double(i) * 0.5;
  expect_transposed(x, s, {6, 0, 5, 1, 4, 2, 3});
}

TEST(Concat, PartsFillColumns) {
  for (int64_t outer : {int64_t(1), int64_t(3), int64_t(7)}) {
    const int64_t widths[] = {1, 8, 3, 17};
    const int64_t yi = 1 + 8 + 3 + 17;
    std::vector<float> y(size_t(outer * yi), -1.f);
    int64_t off = 0;
    std::vector<std::vector<float>> parts;
    for (int64_t w : widths) {
      parts.push_back(
          random_vec<float>(size_t(outer * w), uint64_t(w + outer)));
      rt::concat_part(parts.back().data(), y.data(), outer, w, yi, off);
      off += w;
    }
    for (int64_t o = 0; o < outer; ++o) {
      int64_t col = 0;
      for (size_t p = 0; p < parts.size(); ++p)
        for (int64_t j = 0; j < widths[p]; ++j, ++col)
          ASSERT_EQ(y[size_t(o * yi + col)],
                    parts[p][size_t(o * widths[p] + j)]);
    }
  }
}

TEST(Slice, PositiveAndNegativeSteps) {
  Rng r(17);
  for (int rank = 1; rank <= 4; ++rank)
    for (int t = 0; t < 60; ++t) {
      Shape s(static_cast<size_t>(rank)), starts(static_cast<size_t>(rank)),
          steps(static_cast<size_t>(rank)), out(static_cast<size_t>(rank));
      for (int d = 0; d < rank; ++d) {
        const size_t k = size_t(d);
        s[k] = r.range(1, 17);
        steps[k] = r.range(-3, 3);
        if (steps[k] == 0)
          steps[k] = 1;
        starts[k] = r.range(0, s[k] - 1);
        // Number of valid elements from start in direction of step.
        const int64_t avail = steps[k] > 0
                                  ? (s[k] - starts[k] + steps[k] - 1) / steps[k]
                                  : starts[k] / -steps[k] + 1;
        out[k] = r.range(0, avail);
      }
      const auto x = iota_vec(numel(s));
      std::vector<int32_t> y(size_t(numel(out)) + 1, -5);
      rt::slice(x.data(), y.data(), s.data(), rank, starts.data(), steps.data(),
                out.data());
      ASSERT_EQ(y.back(), -5);
      for (int64_t k = 0; k < numel(out); ++k) {
        const Shape oi = unravel(k, out);
        Shape xi(static_cast<size_t>(rank));
        for (int d = 0; d < rank; ++d)
          xi[size_t(d)] = starts[size_t(d)] + oi[size_t(d)] * steps[size_t(d)];
        ASSERT_EQ(y[size_t(k)], x[size_t(ravel(xi, s))]);
      }
    }
  // Hand-computed: x[::-1] of a 5-vector, and x[1::2].
  const float x[] = {0, 1, 2, 3, 4};
  float y[5];
  const int64_t s = 5, st = 4, step = -1, n = 5;
  rt::slice(x, y, &s, 1, &st, &step, &n);
  EXPECT_EQ(std::vector<float>(y, y + 5), (std::vector<float>{4, 3, 2, 1, 0}));
  const int64_t st2 = 1, step2 = 2, n2 = 2;
  rt::slice(x, y, &s, 1, &st2, &step2, &n2);
  EXPECT_EQ(y[0], 1);
  EXPECT_EQ(y[1], 3);
}

TEST(Tile, RepeatsAndPartialTiles) {
  Rng r(3);
  for (int rank = 1; rank <= 4; ++rank)
    for (int t = 0; t < 30; ++t) {
      Shape s(static_cast<size_t>(rank)), out(static_cast<size_t>(rank));
      for (int d = 0; d < rank; ++d) {
        s[size_t(d)] = r.range(1, 5);
        // Mostly multiples (ONNX Tile), sometimes not (Expand-like use).
        out[size_t(d)] = t % 3 ? s[size_t(d)] * r.range(1, 4) : r.range(1, 17);
      }
      const auto x = iota_vec(numel(s));
      std::vector<int32_t> y(size_t(numel(out)));
      rt::tile(x.data(), y.data(), s.data(), rank, out.data());
      for (int64_t k = 0; k < numel(out); ++k) {
        Shape oi = unravel(k, out);
        for (int d = 0; d < rank; ++d)
          oi[size_t(d)] %= s[size_t(d)];
        ASSERT_EQ(y[size_t(k)], x[size_t(ravel(oi, s))])
            << shape_str(s) << "->" << shape_str(out);
      }
    }
}

namespace {
// numpy.pad semantics for one coordinate, written as explicit loops.
int64_t ref_src(int64_t i, int64_t n, rt::PadMode m) {
  if (i >= 0 && i < n)
    return i;
  if (m == rt::PadMode::Constant)
    return -1;
  if (m == rt::PadMode::Edge)
    return i < 0 ? 0 : n - 1;
  if (n == 1)
    return 0;
  // Reflect by bouncing step by step.
  int64_t p = 0, dir = 1;
  const int64_t steps = i < 0 ? -i : i;
  dir = i < 0 ? -1 : 1;
  for (int64_t s = 0; s < steps; ++s) {
    if (p + dir < 0 || p + dir >= n)
      dir = -dir;
    p += dir;
  }
  return p;
}
} // namespace

TEST(Pad, ModesWithCropping) {
  Rng r(23);
  for (rt::PadMode mode :
       {rt::PadMode::Constant, rt::PadMode::Reflect, rt::PadMode::Edge})
    for (int rank = 1; rank <= 4; ++rank)
      for (int t = 0; t < 40; ++t) {
        Shape s(static_cast<size_t>(rank)), pb(static_cast<size_t>(rank)),
            out(static_cast<size_t>(rank));
        for (int d = 0; d < rank; ++d) {
          const size_t k = size_t(d);
          s[k] = r.range(1, 9);
          const int64_t lim = mode == rt::PadMode::Reflect ? s[k] - 1 : 4;
          pb[k] = r.range(-s[k] + 1, lim);
          const int64_t pe = r.range(-(s[k] + pb[k]) + 1, lim);
          out[k] = s[k] + pb[k] + pe;
          if (out[k] < 1)
            out[k] = 1;
        }
        const auto x = iota_vec(numel(s));
        std::vector<int32_t> y(size_t(numel(out)));
        rt::pad(x.data(), y.data(), s.data(), rank, pb.data(), out.data(), mode,
                int32_t(-7));
        for (int64_t k = 0; k < numel(out); ++k) {
          const Shape oi = unravel(k, out);
          Shape xi(static_cast<size_t>(rank));
          bool inside = true;
          for (int d = 0; d < rank; ++d) {
            xi[size_t(d)] =
                ref_src(oi[size_t(d)] - pb[size_t(d)], s[size_t(d)], mode);
            inside = inside && xi[size_t(d)] >= 0;
          }
          const int32_t want = inside ? x[size_t(ravel(xi, s))] : -7;
          ASSERT_EQ(y[size_t(k)], want)
              << "mode " << int(mode) << " " << shape_str(s) << " pb "
              << shape_str(pb) << " out " << shape_str(out) << " at " << k;
        }
      }
}

TEST(Pad, HandComputed) {
  const float x[] = {1, 2, 3};
  const int64_t s = 3, pb = 2, out = 8;
  float y[8];
  rt::pad(x, y, &s, 1, &pb, &out, rt::PadMode::Reflect, 0.f);
  EXPECT_EQ(std::vector<float>(y, y + 8),
            (std::vector<float>{3, 2, 1, 2, 3, 2, 1, 2}));
  rt::pad(x, y, &s, 1, &pb, &out, rt::PadMode::Edge, 0.f);
  EXPECT_EQ(std::vector<float>(y, y + 8),
            (std::vector<float>{1, 1, 1, 2, 3, 3, 3, 3}));
  rt::pad(x, y, &s, 1, &pb, &out, rt::PadMode::Constant, 9.f);
  EXPECT_EQ(std::vector<float>(y, y + 8),
            (std::vector<float>{9, 9, 1, 2, 3, 9, 9, 9}));
}

TEST(DepthSpace, MatchesNumpyReshapeTranspose) {
  for (int64_t b : {int64_t(1), int64_t(2), int64_t(3)})
    for (int64_t oc : {int64_t(1), int64_t(3)})
      for (int64_t h : {int64_t(1), int64_t(2), int64_t(5)})
        for (int64_t w : {int64_t(1), int64_t(3), int64_t(4)})
          for (bool crd : {false, true}) {
            const int64_t n = 2, c = oc * b * b;
            const auto x = iota_vec(n * c * h * w);
            std::vector<int32_t> y(x.size());
            rt::depth_to_space(x.data(), y.data(), n, c, h, w, b, crd);
            // DCR: x.reshape(n, b, b, oc, h, w).transpose(0, 3, 4, 1, 5, 2)
            // CRD: x.reshape(n, oc, b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
            const Shape s6 =
                crd ? Shape{n, oc, b, b, h, w} : Shape{n, b, b, oc, h, w};
            const Shape perm =
                crd ? Shape{0, 1, 4, 2, 5, 3} : Shape{0, 3, 4, 1, 5, 2};
            std::vector<int32_t> want(x.size());
            rt::transpose(x.data(), want.data(), s6.data(), 6, perm.data());
            ASSERT_EQ(y, want) << "b=" << b << " crd=" << crd;
            // SpaceToDepth inverts DCR DepthToSpace.
            std::vector<int32_t> back(x.size());
            rt::space_to_depth(y.data(), back.data(), n, oc, h * b, w * b, b);
            if (!crd) {
              ASSERT_EQ(back, x);
            }
            // And is itself x.reshape(n, C, H/b, b, W/b, b).transpose(0, 3, 5,
            // 1, 2, 4).
            const Shape s2 = {n, oc, h, b, w, b};
            const Shape p2 = {0, 3, 5, 1, 2, 4};
            std::vector<int32_t> want2(x.size());
            rt::transpose(y.data(), want2.data(), s2.data(), 6, p2.data());
            ASSERT_EQ(back, want2);
          }
}
