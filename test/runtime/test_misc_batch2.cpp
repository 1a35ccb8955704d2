// Det (linalg/det_ref.h), ReverseSequence, Range, OneHot
// (data/{reverse_sequence,range,one_hot}_ref.h) and cumsum_axis
// (reduce/reduce_ref.h) against naive references and the ONNX examples.
#include "tract/rt/data/one_hot_ref.h"
#include "tract/rt/data/range_ref.h"
#include "tract/rt/data/reverse_sequence_ref.h"
#include "tract/rt/linalg/det_ref.h"
#include "tract/rt/reduce/reduce_ref.h"
// The batch-2 kernels through the umbrella header too (instantiation test).
#include "tract/rt/all.h"

#include "test_util.h"

#include <algorithm>
#include <tuple>

using namespace tract_test;
namespace rt = tract::rt;

namespace {

// Cofactor expansion along the first row (n <= 6).
double cofactor_det(const std::vector<double> &a, int64_t n) {
  if (n == 0)
    return 1.0;
  if (n == 1)
    return a[0];
  double d = 0.0;
  for (int64_t j = 0; j < n; ++j) {
    std::vector<double> m;
    for (int64_t r = 1; r < n; ++r)
      for (int64_t c = 0; c < n; ++c)
        if (c != j)
          m.push_back(a[size_t(r * n + c)]);
    const double s = (j % 2 ? -1.0 : 1.0) * a[size_t(j)];
    d += s * cofactor_det(m, n - 1);
  }
  return d;
}

} // namespace

TEST(Det, OnnxExamples) {
  const float x[] = {0, 1, 2, 3};
  float y[1];
  rt::det(x, y, 1, 2);
  EXPECT_FLOAT_EQ(y[0], -2.f);
  const float xb[] = {1, 2, 3, 4, 1, 2, 2, 1, 1, 3, 3, 1};
  float yb[3];
  rt::det(xb, yb, 3, 2);
  EXPECT_TRUE(all_near(std::vector<float>(yb, yb + 3), {-2.f, -3.f, -8.f}));
}

TEST(Det, SmallAgainstCofactors) {
  Rng r(5);
  for (int64_t n = 1; n <= 6; ++n)
    for (int t = 0; t < 20; ++t) {
      const int64_t batch = 3;
      const auto x = random_vec<double>(size_t(batch * n * n), r.next());
      std::vector<double> y(static_cast<size_t>(batch));
      rt::det(x.data(), y.data(), batch, n);
      for (int64_t b = 0; b < batch; ++b) {
        const std::vector<double> m(x.begin() + b * n * n,
                                    x.begin() + (b + 1) * n * n);
        ASSERT_TRUE(near(y[size_t(b)], cofactor_det(m, n), 1e-10, 1e-10))
            << "n=" << n;
      }
      // float input: computed in double, rounded once.
      std::vector<float> xf(x.begin(), x.end());
      std::vector<float> yf(static_cast<size_t>(batch));
      rt::det(xf.data(), yf.data(), batch, n);
      for (int64_t b = 0; b < batch; ++b) {
        const std::vector<double> m(xf.begin() + b * n * n,
                                    xf.begin() + (b + 1) * n * n);
        ASSERT_TRUE(near(yf[size_t(b)], float(cofactor_det(m, n)), 1e-5, 1e-5));
      }
    }
}

// Larger sizes (tails of 8/16/64): A = P L U with a known determinant.
TEST(Det, LargeKnownDeterminant) {
  Rng r(6);
  for (int64_t n : {7, 8, 9, 15, 16, 17, 33, 63, 64}) {
    std::vector<double> L(static_cast<size_t>(n * n), 0.0), U(size_t(n * n), 0.0);
    double want = 1.0;
    for (int64_t i = 0; i < n; ++i) {
      L[size_t(i * n + i)] = 1.0;
      for (int64_t j = 0; j < i; ++j)
        L[size_t(i * n + j)] = r.uniform(-1, 1);
      const double d = r.uniform(0.5, 1.5) * (r.next() & 1 ? 1 : -1);
      U[size_t(i * n + i)] = d;
      want *= d;
      for (int64_t j = i + 1; j < n; ++j)
        U[size_t(i * n + j)] = r.uniform(-1, 1);
    }
    std::vector<double> A(static_cast<size_t>(n * n), 0.0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t k = 0; k < n; ++k)
          A[size_t(i * n + j)] += L[size_t(i * n + k)] * U[size_t(k * n + j)];
    // Reverse the row order: a permutation of sign (-1)^(n(n-1)/2).
    std::vector<double> P(A.size());
    for (int64_t i = 0; i < n; ++i)
      std::copy(A.begin() + (n - 1 - i) * n, A.begin() + (n - i) * n,
                P.begin() + i * n);
    if ((n * (n - 1) / 2) % 2)
      want = -want;
    double y = 0.0;
    rt::det(P.data(), &y, 1, n);
    EXPECT_TRUE(near(y, want, n > 32 ? 1e-7 : 1e-9, 1e-12)) << "n=" << n;
  }
}

TEST(Det, SingularEmptyAndTooLarge) {
  const double s[] = {2, 4, 1, 2};
  double y = 5;
  rt::det(s, &y, 1, 2);
  EXPECT_EQ(y, 0.0);
  const double z[9] = {};
  rt::det(z, &y, 1, 3);
  EXPECT_EQ(y, 0.0);
  rt::det(static_cast<const double *>(nullptr), &y, 1, 0);
  EXPECT_EQ(y, 1.0);
  std::vector<float> big(static_cast<size_t>(65 * 65), 1.f);
  float yf = 0;
  rt::det(big.data(), &yf, 1, 65);
  EXPECT_TRUE(std::isnan(yf));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float xn[] = {1, nan, 3, 4};
  rt::det(xn, &yf, 1, 2);
  EXPECT_TRUE(std::isnan(yf));
}

TEST(ReverseSequence, OnnxExamples) {
  {
    const float x[] = {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
    const int64_t len[] = {4, 3, 2, 1}, s[] = {4, 4};
    float y[16];
    rt::reverse_sequence(x, len, y, s, 2, 1, 0);
    EXPECT_EQ(std::vector<float>(y, y + 16),
              (std::vector<float>{3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0,
                                  7, 11, 15}));
  }
  {
    const float x[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    const int32_t len[] = {1, 2, 3, 4};
    const int64_t s[] = {4, 4};
    float y[16];
    rt::reverse_sequence(x, len, y, s, 2, 0, 1);
    EXPECT_EQ(std::vector<float>(y, y + 16),
              (std::vector<float>{0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14,
                                  13, 12}));
  }
}

TEST(ReverseSequence, RandomAxesAndLengths) {
  Rng r(7);
  for (int rank = 2; rank <= 4; ++rank)
    for (int ba = 0; ba < rank; ++ba)
      for (int ta = 0; ta < rank; ++ta) {
        if (ba == ta)
          continue;
        for (int t = 0; t < 5; ++t) {
          Shape s(static_cast<size_t>(rank));
          for (auto &d : s)
            d = r.range(1, 4);
          if (t == 4)
            s.back() = tail_sizes()[size_t(r.range(0, 10))];
          const auto x = random_vec<int32_t>(size_t(numel(s)), r.next(), -99, 99);
          const int64_t nt = s[size_t(ta)];
          std::vector<int64_t> len(static_cast<size_t>(s[size_t(ba)]));
          for (auto &l : len)
            l = r.range(-1, nt + 1); // clamped into [0, nt]
          std::vector<int32_t> want(x.size()), y(x.size());
          const Shape st = strides_of(s);
          for (int64_t k = 0; k < numel(s); ++k) {
            Shape p = unravel(k, s);
            const int64_t L =
                std::min(std::max(len[size_t(p[size_t(ba)])], int64_t(0)), nt);
            if (p[size_t(ta)] < L)
              p[size_t(ta)] = L - 1 - p[size_t(ta)];
            int64_t lin = 0;
            for (int d = 0; d < rank; ++d)
              lin += p[size_t(d)] * st[size_t(d)];
            want[size_t(k)] = x[size_t(lin)];
          }
          rt::reverse_sequence(x.data(), len.data(), y.data(), s.data(), rank,
                               ba, ta);
          ASSERT_TRUE(all_equal(y, want))
              << shape_str(s) << " b" << ba << " t" << ta;
        }
      }
}

TEST(Range, OnnxExamplesAndTypes) {
  {
    const float s = 3, d = 3;
    float y[2];
    rt::range(&s, &d, y, 2);
    EXPECT_EQ(std::vector<float>(y, y + 2), (std::vector<float>{3, 6}));
  }
  {
    const int32_t s = 10, d = -2;
    int32_t y[3];
    rt::range(&s, &d, y, 3);
    EXPECT_EQ(std::vector<int32_t>(y, y + 3),
              (std::vector<int32_t>{10, 8, 6}));
  }
  for (int64_t n : tail_sizes()) {
    const float s = 0.1f, d = 0.3f;
    std::vector<float> y(static_cast<size_t>(n));
    rt::range(&s, &d, y.data(), n);
    for (int64_t i = 0; i < n; ++i) // start + i * delta, not accumulated
      ASSERT_EQ(y[size_t(i)], s + float(i) * d);
    const int16_t si = -7, di = 5;
    std::vector<int16_t> yi(static_cast<size_t>(n));
    rt::range(&si, &di, yi.data(), n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(yi[size_t(i)], int16_t(-7 + 5 * i));
    const int64_t sl = int64_t(1) << 40, dl = -3;
    std::vector<int64_t> yl(static_cast<size_t>(n));
    rt::range(&sl, &dl, yl.data(), n);
    ASSERT_EQ(yl[size_t(n - 1)], sl - 3 * (n - 1));
  }
  const double s = 1.5, d = -0.25;
  double y = 9;
  rt::range(&s, &d, &y, 0); // empty: nothing written
  EXPECT_EQ(y, 9.0);
}

TEST(OneHot, OnnxExamples) {
  // axis = 1 (inner = 1), negative indices.
  const int64_t idx[] = {0, -7, -8};
  const float vals[] = {1, 3};
  float y[30];
  rt::one_hot(idx, vals, y, 3, 10, 1);
  std::vector<float> want(30, 1.f);
  want[0] = 3;
  want[10 + 3] = 3;
  want[20 + 2] = 3;
  EXPECT_TRUE(all_equal(std::vector<float>(y, y + 30), want));
  // axis = 1 of a [2, 2] float indices -> [2, 10, 2] (outer 2, inner 2).
  const float fidx[] = {1, 9, 2, 4};
  const float v2[] = {0, 1};
  float y2[40];
  rt::one_hot(fidx, v2, y2, 2, 10, 2);
  std::vector<float> w2(40, 0.f);
  w2[size_t(1 * 2 + 0)] = 1;
  w2[size_t(9 * 2 + 1)] = 1;
  w2[size_t(20 + 2 * 2 + 0)] = 1;
  w2[size_t(20 + 4 * 2 + 1)] = 1;
  EXPECT_TRUE(all_equal(std::vector<float>(y2, y2 + 40), w2));
}

TEST(OneHot, RandomOutOfRangeAndFloatIndices) {
  Rng r(9);
  for (int64_t depth : {int64_t(1), int64_t(3), int64_t(8), int64_t(17)})
    for (int64_t inner : tail_sizes()) {
      const int64_t outer = 3;
      std::vector<int32_t> idx(static_cast<size_t>(outer * inner));
      for (auto &v : idx)
        v = int32_t(r.range(-depth - 2, depth + 2));
      const int64_t vals[] = {-5, 7};
      std::vector<int64_t> y(static_cast<size_t>(outer * depth * inner));
      rt::one_hot(idx.data(), vals, y.data(), outer, depth, inner);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t d = 0; d < depth; ++d)
          for (int64_t i = 0; i < inner; ++i) {
            int64_t k = idx[size_t(o * inner + i)];
            if (k < 0)
              k += depth;
            ASSERT_EQ(y[size_t((o * depth + d) * inner + i)],
                      k == d ? 7 : -5);
          }
    }
  const double fi[] = {1.9, -1.5, 3.0, std::nan(""), -4.2};
  const uint8_t v[] = {0, 1};
  uint8_t y[15];
  rt::one_hot(fi, v, y, 5, 3, 1);
  // 1.9 -> 1; -1.5 -> -1 -> 2; 3 -> out; NaN -> out; -4.2 -> -4 -> out.
  EXPECT_EQ(std::vector<uint8_t>(y, y + 15),
            (std::vector<uint8_t>{0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(CumSumAxis, MatchesCumsumForEveryAxis) {
  Rng r(10);
  for (int rank = 1; rank <= 4; ++rank)
    for (int t = 0; t < 4; ++t) {
      Shape s(static_cast<size_t>(rank));
      for (auto &d : s)
        d = r.range(1, 4);
      if (t == 3)
        s.back() = tail_sizes()[size_t(r.range(0, 10))];
      const auto x = random_vec<int32_t>(size_t(numel(s)), r.next(), -50, 50);
      for (int64_t a = -rank; a < rank; ++a)
        for (bool excl : {false, true})
          for (bool rev : {false, true}) {
            const int64_t ax = a < 0 ? a + rank : a;
            int64_t outer = 1, inner = 1;
            for (int64_t d = 0; d < ax; ++d)
              outer *= s[size_t(d)];
            for (int64_t d = ax + 1; d < rank; ++d)
              inner *= s[size_t(d)];
            const int64_t len = s[size_t(ax)];
            // Naive prefix sums.
            std::vector<int32_t> want(x.size());
            for (int64_t o = 0; o < outer; ++o)
              for (int64_t i = 0; i < inner; ++i) {
                int32_t acc = 0;
                for (int64_t j0 = 0; j0 < len; ++j0) {
                  const int64_t j = rev ? len - 1 - j0 : j0;
                  const size_t p = size_t((o * len + j) * inner + i);
                  if (excl) {
                    want[p] = acc;
                    acc += x[p];
                  } else {
                    acc += x[p];
                    want[p] = acc;
                  }
                }
              }
            std::vector<int32_t> y(x.size());
            const int32_t a32 = int32_t(a);
            rt::cumsum_axis(x.data(), &a32, y.data(), s.data(), rank, excl, rev);
            ASSERT_TRUE(all_equal(y, want))
                << shape_str(s) << " axis " << a << " excl " << excl << " rev "
                << rev;
            rt::cumsum_axis(x.data(), &a, y.data(), s.data(), rank, excl, rev);
            ASSERT_TRUE(all_equal(y, want));
          }
    }
}

TEST(CumSumAxis, OnnxExamplesAndBadAxis) {
  const double x[] = {1, 2, 3, 4, 5, 6};
  const int64_t s[] = {2, 3};
  double y[6];
  const int32_t a1 = 1, am1 = -1, a0 = 0;
  rt::cumsum_axis(x, &a0, y, s, 2, false, false);
  EXPECT_EQ(std::vector<double>(y, y + 6),
            (std::vector<double>{1, 2, 3, 5, 7, 9}));
  rt::cumsum_axis(x, &a1, y, s, 2, false, false);
  EXPECT_EQ(std::vector<double>(y, y + 6),
            (std::vector<double>{1, 3, 6, 4, 9, 15}));
  rt::cumsum_axis(x, &am1, y, s, 2, false, false);
  EXPECT_EQ(std::vector<double>(y, y + 6),
            (std::vector<double>{1, 3, 6, 4, 9, 15}));
  const int64_t s1[] = {5};
  rt::cumsum_axis(x, &a0, y, s1, 1, true, true);
  EXPECT_EQ(std::vector<double>(y, y + 5),
            (std::vector<double>{14, 12, 9, 5, 0}));
  // Out of range: copy. In place inclusive: allowed.
  const int64_t bad = 2, bad2 = -3;
  rt::cumsum_axis(x, &bad, y, s, 2, false, false);
  EXPECT_EQ(std::vector<double>(y, y + 6), std::vector<double>(x, x + 6));
  rt::cumsum_axis(x, &bad2, y, s, 2, true, false);
  EXPECT_EQ(std::vector<double>(y, y + 6), std::vector<double>(x, x + 6));
  double z[6] = {1, 2, 3, 4, 5, 6};
  rt::cumsum_axis(z, &a1, z, s, 2, false, true);
  EXPECT_EQ(std::vector<double>(z, z + 6),
            (std::vector<double>{6, 5, 3, 15, 11, 6}));
}

// Every batch-2 kernel instantiated with every element type the compiler may
// emit (warnings show up under -Wall -Wextra -Wpedantic), with a smoke check.
namespace {
template <class T> void batch2_instantiate() {
  const T x[8] = {T(1), T(0), T(1), T(1), T(0), T(1), T(0), T(1)};
  T y[8] = {}, v[8] = {};
  const int64_t s[3] = {2, 2, 2}, is[3] = {2, 2, 1};
  const int64_t i64[4] = {1, 0, -1, 0};
  const int32_t i32[4] = {0, 1, 0, -2};
  rt::ResizeParams p{};
  p.rank = 3;
  for (int d = 0; d < 3; ++d) {
    p.in_shape[d] = 2;
    p.out_shape[d] = 2;
    p.scales[d] = 1.f;
    p.roi_end[d] = 1.f;
  }
  for (auto m : {rt::ResizeMode::Nearest, rt::ResizeMode::Linear,
                 rt::ResizeMode::Cubic}) {
    p.mode = m;
    rt::resize(x, y, p);
    ASSERT_TRUE(std::equal(x, x + 8, y));
  }
  rt::gather_nd(x, i64, y, s, 3, is, 3, 1);
  rt::gather_nd(x, i32, y, s, 3, is, 3, 0);
  rt::scatter_elements(x, i64, x, y, s, is, 3, 2, rt::ScatterReduction::Max);
  rt::scatter_nd(x, i32, x, y, s, 3, is, 3, rt::ScatterReduction::Mul);
  int64_t ix[8];
  int32_t ix32[8];
  rt::top_k(x, v, ix, 2, 2, 2, 1, true, true);
  rt::top_k(x, v, ix32, 2, 2, 2, 2, false, false);
  rt::reverse_sequence(x, i64, y, s, 3, 0, 2);
  rt::reverse_sequence(x, i32, y, s, 3, 1, 0);
  rt::one_hot(i64, x, y, 2, 2, 1);
  rt::one_hot(x, x, y, 2, 2, 2);
  rt::cumsum_axis(x, i64, y, s, 3, true, false);
  rt::cumsum_axis(x, i32, y, s, 3, false, true);
  if constexpr (!std::is_same<T, bool>::value) {
    rt::range(x, x + 1, y, 8);
    rt::det(x, y, 2, 2);
  }
}
} // namespace

TEST(Batch2AllTypes, EveryKernelInstantiates) {
  using All = std::tuple<float, double, int8_t, uint8_t, int16_t, uint16_t,
                         int32_t, uint32_t, int64_t, uint64_t, bool>;
  std::apply([](auto... t) { (batch2_instantiate<decltype(t)>(), ...); },
             All{});
}
