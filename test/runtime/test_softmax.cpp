#include "tract/rt/io/thread_pool.h"
#include "tract/rt/nn/softmax_ref.h"

#include "test_util.h"

using namespace tract_test;
namespace rt = tract::rt;

namespace {

// Reference in double, one (outer, inner) column at a time.
void naive(const std::vector<double> &x, std::vector<double> &sm,
           std::vector<double> &lsm, std::vector<double> &hm, int64_t outer,
           int64_t len, int64_t inner) {
  sm.assign(x.size(), 0);
  lsm.assign(x.size(), 0);
  hm.assign(x.size(), 0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return size_t((o * len + j) * inner + i); };
      double m = -INFINITY;
      int64_t arg = 0;
      for (int64_t j = 0; j < len; ++j)
        if (x[at(j)] > m) {
          m = x[at(j)];
          arg = j;
        }
      double s = 0;
      for (int64_t j = 0; j < len; ++j)
        s += std::exp(x[at(j)] - m);
      for (int64_t j = 0; j < len; ++j) {
        sm[at(j)] = std::exp(x[at(j)] - m) / s;
        lsm[at(j)] = x[at(j)] - m - std::log(s);
        hm[at(j)] = j == arg ? 1 : 0;
      }
    }
}

template <class T>
void check(int64_t outer, int64_t len, int64_t inner, uint64_t seed,
           double tol) {
  const auto xd = random_vec<double>(size_t(outer * len * inner), seed, -8, 8);
  const std::vector<T> x(xd.begin(), xd.end());
  const std::vector<double> xr(x.begin(), x.end());
  std::vector<double> sm, lsm, hm;
  naive(xr, sm, lsm, hm, outer, len, inner);
  std::vector<T> y(x.size());
  rt::softmax(x.data(), y.data(), outer, len, inner);
  ASSERT_TRUE(all_near(y, std::vector<T>(sm.begin(), sm.end()), tol, tol))
      << outer << "x" << len << "x" << inner;
  rt::log_softmax(x.data(), y.data(), outer, len, inner);
  ASSERT_TRUE(all_near(y, std::vector<T>(lsm.begin(), lsm.end()), tol, tol))
      << outer << "x" << len << "x" << inner;
  rt::hardmax(x.data(), y.data(), outer, len, inner);
  ASSERT_TRUE(all_equal(y, std::vector<T>(hm.begin(), hm.end())))
      << outer << "x" << len << "x" << inner;
  // In place gives the same result.
  std::vector<T> z = x;
  rt::softmax(z.data(), z.data(), outer, len, inner);
  ASSERT_TRUE(all_near(z, std::vector<T>(sm.begin(), sm.end()), tol, tol));
  z = x;
  rt::hardmax(z.data(), z.data(), outer, len, inner);
  ASSERT_TRUE(all_equal(z, std::vector<T>(hm.begin(), hm.end())));
}

// Softmax of the contiguous row x (y) against the naive one.
void expect_row_near_naive(const std::vector<float> &x, std::vector<float> &y) {
  const int64_t len = int64_t(x.size());
  const std::vector<double> xr(x.begin(), x.end());
  std::vector<double> sm, lsm, hm;
  naive(xr, sm, lsm, hm, 1, len, 1);
  y.assign(x.size(), 0.0f);
  rt::softmax(x.data(), y.data(), 1, len, 1);
  ASSERT_TRUE(all_near(y, std::vector<float>(sm.begin(), sm.end()), 1e-5, 1e-5)) << len;
}

} // namespace

TEST(Softmax, TailSizesAndInnerBlocks) {
  uint64_t seed = 1;
  for (int64_t len : tail_sizes())
    for (int64_t inner :
         {int64_t(1), int64_t(3), int64_t(64), int64_t(65), int64_t(130)}) {
      check<float>(2, len, inner, seed++, 1e-5);
      if (inner == 3)
        check<double>(1, len, inner, seed++, 1e-12);
    }
}

TEST(Softmax, StableAndHandComputed) {
  const float x[] = {1000.f, 1000.f, -1000.f};
  float y[3];
  rt::softmax(x, y, 1, 3, 1);
  EXPECT_FLOAT_EQ(y[0], 0.5f);
  EXPECT_FLOAT_EQ(y[1], 0.5f);
  EXPECT_EQ(y[2], 0.f);
  rt::log_softmax(x, y, 1, 3, 1);
  EXPECT_FLOAT_EQ(y[0], -std::log(2.f));
  rt::hardmax(x, y, 1, 3, 1); // first max wins
  EXPECT_EQ(y[0], 1.f);
  EXPECT_EQ(y[1], 0.f);
  EXPECT_EQ(y[2], 0.f);
}

// A contiguous row (the attention case) is computed in 16 lanes: a lane
// whose values are all -inf (a masked stretch) must give zeros, not NaN,
// and the rest must still sum to one.
TEST(Softmax, MaskedRowWithWholeLanesAtMinusInfinity) {
  for (int64_t len : {int64_t(37), int64_t(100), int64_t(128)}) {
    auto xd = random_vec<double>(size_t(len), 77 + uint64_t(len), -8, 8);
    for (int64_t j = 0; j < 40 && j < len - 5; ++j)
      xd[size_t(j)] = -INFINITY;
    const std::vector<float> x(xd.begin(), xd.end());
    std::vector<float> y;
    expect_row_near_naive(x, y);
    for (int64_t j = 0; j < 40 && j < len - 5; ++j)
      EXPECT_EQ(y[size_t(j)], 0.0f) << len << " at " << j;
  }
}

// Rows split over 2 and 3 threads (an attention's 4 heads x 128 rows of
// 128, and a strided axis) give the serial result bit for bit.
TEST(Softmax, SplitOverThreadsMatchesSerial) {
  struct Case {
    int64_t outer, len, inner;
  };
  for (const Case &c : {Case{512, 128, 1}, Case{30, 50, 70}}) {
    const auto xd = random_vec<double>(size_t(c.outer * c.len * c.inner), 91, -6, 6);
    const std::vector<float> x(xd.begin(), xd.end());
    std::vector<float> serial(x.size()), parallel(x.size());
    rt::softmax(x.data(), serial.data(), c.outer, c.len, c.inner);
    for (int threads : {2, 3}) {
      rt::ThreadPool pool(threads);
      const rt::Parallel par{rt::ThreadPool::parallel_for, &pool, threads, nullptr, 0};
      std::fill(parallel.begin(), parallel.end(), -1.0f);
      rt::softmax(x.data(), parallel.data(), c.outer, c.len, c.inner, par);
      EXPECT_EQ(serial, parallel) << c.outer << "x" << c.len << "x" << c.inner << ", threads "
                                  << threads;
    }
  }
}

// A contiguous float row folds its max and sum in 4 x 16 lanes, then 16,
// then a scalar tail: rows long enough for each part, against the naive
// softmax, and a NaN anywhere (the 4 x 16 body, the 16 body, the tail)
// makes the whole row NaN, as the scalar fold does.
TEST(Softmax, LongRowsAndNanInEachPartOfTheRow) {
  for (int64_t len : {int64_t(64), int64_t(65), int64_t(80), int64_t(200), int64_t(257)}) {
    const auto xd = random_vec<double>(size_t(len), 500 + uint64_t(len), -8, 8);
    const std::vector<float> x(xd.begin(), xd.end());
    std::vector<float> y;
    expect_row_near_naive(x, y);
  }
  const int64_t len = 200; // 3 x 64, then 0 x 16, then 8 in the tail
  for (int64_t at : {int64_t(3), int64_t(70), int64_t(130), int64_t(191), int64_t(195)}) {
    auto xd = random_vec<double>(size_t(len), 9, -8, 8);
    xd[size_t(at)] = NAN;
    const std::vector<float> x(xd.begin(), xd.end());
    std::vector<float> y(x.size());
    rt::softmax(x.data(), y.data(), 1, len, 1);
    for (int64_t j = 0; j < len; ++j)
      ASSERT_TRUE(std::isnan(y[size_t(j)])) << "NaN at " << at << ", output " << j;
  }
  const int64_t len2 = 90; // 1 x 64, 1 x 16, 10 in the tail: NaN in the 16 body
  auto xd = random_vec<double>(size_t(len2), 10, -8, 8);
  xd[70] = NAN;
  const std::vector<float> x(xd.begin(), xd.end());
  std::vector<float> y(x.size());
  rt::softmax(x.data(), y.data(), 1, len2, 1);
  for (float v : y)
    ASSERT_TRUE(std::isnan(v));
}
