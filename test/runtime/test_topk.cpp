// TopK (reduce/topk_ref.h) against a naive (index-stable) sort per row.
#include "tract/rt/reduce/topk_ref.h"

#include "test_util.h"

#include <algorithm>
#include <numeric>

using namespace tract_test;
namespace rt = tract::rt;

namespace {

// NaN is the largest value (numpy sort order); ties: lower index first.
template <class T> bool gt(T a, T b) {
  const bool na = std::isnan(double(a)), nb = std::isnan(double(b));
  if (na || nb)
    return na && !nb;
  return a > b;
}

template <class T, class TI>
void naive_topk(const std::vector<T> &x, std::vector<T> &v, std::vector<TI> &ix,
                int64_t outer, int64_t n, int64_t inner, int64_t k,
                bool largest) {
  v.assign(size_t(outer * k * inner), T());
  ix.assign(size_t(outer * k * inner), static_cast<TI>(rt::kPaddingIndex));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<int64_t> ord(static_cast<size_t>(n));
      std::iota(ord.begin(), ord.end(), int64_t(0));
      auto at = [&](int64_t j) { return x[size_t((o * n + j) * inner + i)]; };
      // Stable by construction: ties compare by index.
      std::sort(ord.begin(), ord.end(), [&](int64_t a, int64_t b) {
        if (largest ? gt(at(a), at(b)) : gt(at(b), at(a)))
          return true;
        if (largest ? gt(at(b), at(a)) : gt(at(a), at(b)))
          return false;
        return a < b;
      });
      for (int64_t j = 0; j < std::min(k, n); ++j) {
        v[size_t((o * k + j) * inner + i)] = at(ord[size_t(j)]);
        ix[size_t((o * k + j) * inner + i)] = TI(ord[size_t(j)]);
      }
    }
}

template <class T, class TI> void random_topk(uint64_t seed, double lo, double hi) {
  Rng r(seed);
  for (int64_t n : tail_sizes())
    for (int64_t inner : {int64_t(1), int64_t(3)})
      for (bool largest : {true, false})
        for (int64_t k : {int64_t(1), int64_t(2), n / 2, n - 1, n, n + 2}) {
          if (k <= 0)
            continue;
          const int64_t outer = 2;
          // Small integer range: many ties.
          const auto x = random_vec<T>(size_t(outer * n * inner), r.next(), lo, hi);
          std::vector<T> wv, gv(size_t(outer * k * inner));
          std::vector<TI> wi, gi(size_t(outer * k * inner));
          naive_topk(x, wv, wi, outer, n, inner, k, largest);
          rt::top_k(x.data(), gv.data(), gi.data(), outer, n, inner, k,
                    largest, true);
          ASSERT_TRUE(all_equal(gi, wi))
              << "n=" << n << " inner=" << inner << " k=" << k
              << " largest=" << largest;
          ASSERT_TRUE(all_equal(gv, wv));
        }
}

} // namespace

TEST(TopK, OnnxExample) {
  const float x[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  float v[9];
  int64_t ix[9];
  rt::top_k(x, v, ix, 3, 4, 1, 3, true, true);
  EXPECT_EQ(std::vector<float>(v, v + 9),
            (std::vector<float>{3, 2, 1, 7, 6, 5, 11, 10, 9}));
  EXPECT_EQ(std::vector<int64_t>(ix, ix + 9),
            (std::vector<int64_t>{3, 2, 1, 3, 2, 1, 3, 2, 1}));
  rt::top_k(x, v, ix, 3, 4, 1, 3, false, true);
  EXPECT_EQ(std::vector<float>(v, v + 9),
            (std::vector<float>{0, 1, 2, 4, 5, 6, 8, 9, 10}));
  // Along axis 0 (inner = 4).
  rt::top_k(x, v, ix, 1, 3, 4, 2, true, false);
  EXPECT_EQ(std::vector<float>(v, v + 8),
            (std::vector<float>{8, 9, 10, 11, 4, 5, 6, 7}));
  EXPECT_EQ(std::vector<int64_t>(ix, ix + 8),
            (std::vector<int64_t>{2, 2, 2, 2, 1, 1, 1, 1}));
}

TEST(TopK, TiesKeepLowerIndexFirst) {
  const int32_t x[] = {5, 1, 5, 3, 1, 5};
  int32_t v[6];
  int64_t ix[6];
  rt::top_k(x, v, ix, 1, 6, 1, 6, true, true);
  EXPECT_EQ(std::vector<int64_t>(ix, ix + 6),
            (std::vector<int64_t>{0, 2, 5, 3, 1, 4}));
  rt::top_k(x, v, ix, 1, 6, 1, 4, false, true);
  EXPECT_EQ(std::vector<int64_t>(ix, ix + 4),
            (std::vector<int64_t>{1, 4, 3, 0}));
}

TEST(TopK, RandomAgainstSort) {
  random_topk<float, int64_t>(1, -2.0, 2.0);
  random_topk<int32_t, int64_t>(2, -3.0, 3.0); // many ties
  random_topk<double, int32_t>(3, -1.0, 1.0);
  random_topk<uint8_t, int64_t>(4, 0.0, 5.0);
}

TEST(TopK, NaNIsLargest) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float x[] = {1, nan, 3, nan, -1};
  float v[5];
  int64_t ix[5];
  rt::top_k(x, v, ix, 1, 5, 1, 3, true, true);
  EXPECT_EQ(std::vector<int64_t>(ix, ix + 3), (std::vector<int64_t>{1, 3, 2}));
  rt::top_k(x, v, ix, 1, 5, 1, 5, false, true);
  EXPECT_EQ(std::vector<int64_t>(ix, ix + 5),
            (std::vector<int64_t>{4, 0, 2, 1, 3}));
  EXPECT_TRUE(std::isnan(v[3]) && std::isnan(v[4]));
}

TEST(TopK, KBeyondAxisFillsTail) {
  const float x[] = {2, 7};
  float v[4];
  int64_t ix[4];
  rt::top_k(x, v, ix, 1, 2, 1, 4, true, true);
  EXPECT_EQ(std::vector<float>(v, v + 4), (std::vector<float>{7, 2, 0, 0}));
  EXPECT_EQ(std::vector<int64_t>(ix, ix + 4),
            (std::vector<int64_t>{1, 0, rt::kPaddingIndex, rt::kPaddingIndex}));
  // Empty axis: only the fill.
  rt::top_k(static_cast<const float *>(nullptr), v, ix, 1, 0, 1, 1, true,
            true);
  EXPECT_EQ(ix[0], rt::kPaddingIndex);
}
