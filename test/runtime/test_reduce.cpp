#include "tract/rt/io/thread_pool.h"
#include "tract/rt/reduce/reduce_ref.h"
#include "tract/rt/reduce/reduce_rows.h"

#include "test_util.h"

#include <algorithm>

using namespace tract_test;
namespace rt = tract::rt;
namespace op = tract::rt::op;

namespace {

enum class R {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  SumSquare,
  L1,
  L2,
  LogSum,
  LogSumExp
};

// Gathers each output's inputs into a list, then reduces it in double.
std::vector<double> naive_reduce(const std::vector<double> &x, const Shape &s,
                                 uint32_t mask, R r) {
  Shape ys = s;
  for (size_t d = 0; d < s.size(); ++d)
    if (mask >> d & 1u)
      ys[d] = 1;
  std::vector<std::vector<double>> groups(size_t(numel(ys)));
  for (int64_t i = 0; i < numel(s); ++i) {
    Shape idx = unravel(i, s);
    for (size_t d = 0; d < s.size(); ++d)
      if (mask >> d & 1u)
        idx[d] = 0;
    int64_t lin = 0;
    for (size_t d = 0; d < s.size(); ++d)
      lin = lin * ys[d] + idx[d];
    groups[size_t(lin)].push_back(x[size_t(i)]);
  }
  std::vector<double> y;
  for (const auto &g : groups) {
    double acc = 0;
    switch (r) {
    case R::Sum:
      for (double v : g)
        acc += v;
      break;
    case R::Mean:
      for (double v : g)
        acc += v;
      acc = g.empty() ? 0 : acc / double(g.size());
      break;
    case R::Max:
      acc = g.empty() ? -INFINITY : *std::max_element(g.begin(), g.end());
      break;
    case R::Min:
      acc = g.empty() ? INFINITY : *std::min_element(g.begin(), g.end());
      break;
    case R::Prod:
      acc = 1;
      for (double v : g)
        acc *= v;
      break;
    case R::SumSquare:
      for (double v : g)
        acc += v * v;
      break;
    case R::L1:
      for (double v : g)
        acc += std::fabs(v);
      break;
    case R::L2:
      for (double v : g)
        acc += v * v;
      acc = std::sqrt(acc);
      break;
    case R::LogSum:
      for (double v : g)
        acc += v;
      acc = std::log(acc);
      break;
    case R::LogSumExp:
      for (double v : g)
        acc += std::exp(v);
      acc = std::log(acc);
      break;
    }
    y.push_back(acc);
  }
  return y;
}

template <class Op>
void check_reduce(R r, double lo, double hi, uint64_t seed) {
  Rng rng(seed);
  static const int64_t dims[] = {1, 2, 3, 5, 7, 8, 9, 17};
  for (int rank = 0; rank <= 4; ++rank)
    for (int t = 0; t < 20; ++t) {
      Shape s(static_cast<size_t>(rank));
      for (auto &d : s)
        d = dims[rng.range(0, rank >= 3 ? 4 : 7)];
      const uint32_t mask = uint32_t(rng.range(0, (1 << rank) - 1));
      const auto xd = random_vec<double>(size_t(numel(s)), rng.next(), lo, hi);
      const std::vector<float> x(xd.begin(), xd.end());
      const std::vector<double> xr(x.begin(), x.end());
      Shape ys = s;
      for (size_t d = 0; d < s.size(); ++d)
        if (mask >> d & 1u)
          ys[d] = 1;
      std::vector<float> y(size_t(numel(ys)) + 1, 55.f);
      rt::reduce<Op>(x.data(), s.data(), rank, mask, y.data());
      ASSERT_EQ(y.back(), 55.f);
      y.pop_back();
      const auto want = naive_reduce(xr, s, mask, r);
      const std::vector<float> wf(want.begin(), want.end());
      ASSERT_TRUE(all_near(y, wf, 2e-5, 2e-5))
          << "op " << int(r) << " shape " << shape_str(s) << " mask " << mask;
    }
}

} // namespace

TEST(Reduce, AllReducersRandomShapesAndAxes) {
  check_reduce<op::ReduceSum>(R::Sum, -2, 2, 1);
  check_reduce<op::ReduceMean>(R::Mean, -2, 2, 2);
  check_reduce<op::ReduceMax>(R::Max, -2, 2, 3);
  check_reduce<op::ReduceMin>(R::Min, -2, 2, 4);
  check_reduce<op::ReduceProd>(R::Prod, 0.8, 1.2, 5);
  check_reduce<op::ReduceSumSquare>(R::SumSquare, -2, 2, 6);
  check_reduce<op::ReduceL1>(R::L1, -2, 2, 7);
  check_reduce<op::ReduceL2>(R::L2, -2, 2, 8);
  check_reduce<op::ReduceLogSum>(R::LogSum, 0.1, 2, 9);
  check_reduce<op::ReduceLogSumExp>(R::LogSumExp, -5, 5, 10);
}

TEST(Reduce, EmptyReductionGivesIdentity) {
  const Shape s = {3, 0};
  float y[3];
  rt::reduce<op::ReduceSum>(static_cast<const float *>(nullptr), s.data(), 2,
                            2u, y);
  EXPECT_EQ(y[0], 0.f);
  rt::reduce<op::ReduceProd>(static_cast<const float *>(nullptr), s.data(), 2,
                             2u, y);
  EXPECT_EQ(y[1], 1.f);
  rt::reduce<op::ReduceMax>(static_cast<const float *>(nullptr), s.data(), 2,
                            2u, y);
  EXPECT_EQ(y[2], -INFINITY);
  rt::reduce<op::ReduceMin>(static_cast<const float *>(nullptr), s.data(), 2,
                            2u, y);
  EXPECT_EQ(y[0], INFINITY);
  rt::reduce<op::ReduceMean>(static_cast<const float *>(nullptr), s.data(), 2,
                             2u, y);
  EXPECT_EQ(y[0], 0.f);
  rt::reduce<op::ReduceLogSumExp>(static_cast<const float *>(nullptr), s.data(),
                                  2, 2u, y);
  EXPECT_EQ(y[0], -INFINITY);
  int32_t yi[3];
  rt::reduce<op::ReduceMax>(static_cast<const int32_t *>(nullptr), s.data(), 2,
                            2u, yi);
  EXPECT_EQ(yi[0], INT32_MIN);
  rt::reduce<op::ReduceMin>(static_cast<const int32_t *>(nullptr), s.data(), 2,
                            2u, yi);
  EXPECT_EQ(yi[0], INT32_MAX);
  rt::reduce<op::ReduceMean>(static_cast<const int32_t *>(nullptr), s.data(), 2,
                             2u, yi);
  EXPECT_EQ(yi[0], 0);
}

TEST(Reduce, IntegersAndSpecialValues) {
  const int32_t x[] = {1, -2, 3, -4, 5, -6};
  const Shape s = {2, 3};
  int32_t y[3];
  rt::reduce<op::ReduceSum>(x, s.data(), 2, 1u, y); // over rows
  EXPECT_EQ(y[0], -3);
  EXPECT_EQ(y[1], 3);
  EXPECT_EQ(y[2], -3);
  rt::reduce<op::ReduceMean>(x, s.data(), 2, 2u, y); // over columns
  EXPECT_EQ(y[0], 0);                                // 2 / 3 truncates
  EXPECT_EQ(y[1], -1);                               // -5 / 3 truncates
  rt::reduce<op::ReduceL1>(x, s.data(), 2, 3u, y);
  EXPECT_EQ(y[0], 21);
  rt::reduce<op::ReduceProd>(x, s.data(), 2, 3u, y);
  EXPECT_EQ(y[0], -720);
  rt::reduce<op::ReduceL2>(x, s.data(), 2, 3u, y);
  EXPECT_EQ(y[0], 9); // sqrt(91) truncated
  // NaN propagates through max/min, infinities through LogSumExp.
  const float f[] = {1.f, NAN, 3.f};
  const Shape s1 = {3};
  float r;
  rt::reduce<op::ReduceMax>(f, s1.data(), 1, 1u, &r);
  EXPECT_TRUE(std::isnan(r));
  const float g[] = {1.f, INFINITY, 3.f};
  rt::reduce<op::ReduceLogSumExp>(g, s1.data(), 1, 1u, &r);
  EXPECT_EQ(r, INFINITY);
  const float h[] = {-INFINITY, -INFINITY};
  const Shape s2 = {2};
  rt::reduce<op::ReduceLogSumExp>(h, s2.data(), 1, 1u, &r);
  EXPECT_EQ(r, -INFINITY);
  // Large values do not overflow LogSumExp.
  const float big[] = {1000.f, 1000.f};
  rt::reduce<op::ReduceLogSumExp>(big, s2.data(), 1, 1u, &r);
  EXPECT_NEAR(r, 1000.f + std::log(2.f), 1e-3);
  // Rank 0: the identity reduction.
  const float one = 4.f;
  rt::reduce<op::ReduceSumSquare>(&one, nullptr, 0, 0u, &r);
  EXPECT_EQ(r, 16.f);
}

TEST(ArgReduce, TiesAndDirections) {
  // x [outer=2, axis=4, inner=3]
  const float x[] = {
      1, 9, 0,  //
      3, 9, 0,  //
      3, 1, -1, //
      2, 9, -1, //
      5, 5, 5,  //
      5, 4, 6,  //
      0, 5, 6,  //
      5, 4, 1,
  };
  int64_t y[6];
  rt::arg_reduce(x, y, 2, 4, 3, true, false);
  EXPECT_EQ(std::vector<int64_t>(y, y + 6),
            (std::vector<int64_t>{1, 0, 0, 0, 0, 1}));
  rt::arg_reduce(x, y, 2, 4, 3, true, true);
  EXPECT_EQ(std::vector<int64_t>(y, y + 6),
            (std::vector<int64_t>{2, 3, 1, 3, 2, 2}));
  rt::arg_reduce(x, y, 2, 4, 3, false, false);
  EXPECT_EQ(std::vector<int64_t>(y, y + 6),
            (std::vector<int64_t>{0, 2, 2, 2, 1, 3}));
  rt::arg_reduce(x, y, 2, 4, 3, false, true);
  EXPECT_EQ(std::vector<int64_t>(y, y + 6),
            (std::vector<int64_t>{0, 2, 3, 2, 3, 3}));
  int32_t y32[6];
  rt::arg_reduce(x, y32, 2, 4, 3, true, false);
  EXPECT_EQ(y32[1], 0);
}

TEST(ArgReduce, RandomTailSizes) {
  for (int64_t len : tail_sizes())
    for (int64_t inner : {int64_t(1), int64_t(3), int64_t(8)}) {
      const auto x = random_vec<int16_t>(size_t(2 * len * inner),
                                         uint64_t(len * 10 + inner), -5, 5);
      std::vector<int64_t> y(size_t(2 * inner));
      rt::arg_reduce(x.data(), y.data(), 2, len, inner, true, false);
      for (int64_t o = 0; o < 2; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          int64_t best = 0;
          for (int64_t j = 0; j < len; ++j)
            if (x[size_t((o * len + j) * inner + i)] >
                x[size_t((o * len + best) * inner + i)])
              best = j;
          ASSERT_EQ(y[size_t(o * inner + i)], best);
        }
    }
}

TEST(CumSum, AllModes) {
  for (int64_t len : tail_sizes())
    for (int64_t inner : {int64_t(1), int64_t(2), int64_t(9)})
      for (int mode = 0; mode < 4; ++mode) {
        const bool excl = mode & 1, rev = mode & 2;
        const int64_t outer = 2;
        const auto x = random_vec<int32_t>(
            size_t(outer * len * inner), uint64_t(len + inner + mode), -50, 50);
        std::vector<int32_t> y(x.size());
        rt::cumsum(x.data(), y.data(), outer, len, inner, excl, rev);
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i)
            for (int64_t j = 0; j < len; ++j) {
              int32_t want = 0;
              for (int64_t t = 0; t < len; ++t) {
                const bool take =
                    rev ? (excl ? t > j : t >= j) : (excl ? t < j : t <= j);
                if (take)
                  want += x[size_t((o * len + t) * inner + i)];
              }
              ASSERT_EQ(y[size_t((o * len + j) * inner + i)], want)
                  << len << " " << inner << " " << mode;
            }
      }
  // Hand-computed float case.
  const float x[] = {1, 2, 3};
  float y[3];
  rt::cumsum(x, y, 1, 3, 1, false, false);
  EXPECT_EQ(std::vector<float>(y, y + 3), (std::vector<float>{1, 3, 6}));
  rt::cumsum(x, y, 1, 3, 1, true, false);
  EXPECT_EQ(std::vector<float>(y, y + 3), (std::vector<float>{0, 1, 3}));
  rt::cumsum(x, y, 1, 3, 1, false, true);
  EXPECT_EQ(std::vector<float>(y, y + 3), (std::vector<float>{6, 5, 3}));
  rt::cumsum(x, y, 1, 3, 1, true, true);
  EXPECT_EQ(std::vector<float>(y, y + 3), (std::vector<float>{5, 3, 0}));
}

// sum_rows (a global average pool's rows, split over threads) gives
// reduce()'s values bit for bit, on one thread and split over two or three,
// for rows of every tail length and none; it writes exactly `rows` outputs.
TEST(SumRows, MatchesReduceOnAnyThreads) {
  const int64_t shapes[][2] = {{1000, 169}, {7, 1}, {3, 0}, {513, 49}, {1, 70000}, {64, 1024}};
  for (const auto &s : shapes)
    for (int threads : {1, 2, 3}) {
      const int64_t rows = s[0], len = s[1];
      rt::ThreadPool pool(threads);
      const rt::Parallel par{threads > 1 ? rt::ThreadPool::parallel_for : nullptr, &pool,
                             threads};
      const auto xd = random_vec<double>(size_t(rows * len), uint64_t(rows + len));
      const std::vector<float> x(xd.begin(), xd.end());
      const int64_t shape[] = {rows, len};
      std::vector<float> want_sum(static_cast<size_t>(rows)), want_mean(static_cast<size_t>(rows));
      rt::reduce<op::ReduceSum>(x.data(), shape, 2, 2u, want_sum.data());
      rt::reduce<op::ReduceMean>(x.data(), shape, 2, 2u, want_mean.data());
      std::vector<float> sum(size_t(rows) + 1, 321.f), mean(size_t(rows) + 1, 321.f);
      rt::sum_rows<false>(x.data(), rows, len, sum.data(), par);
      rt::sum_rows<true>(x.data(), rows, len, mean.data(), par);
      for (int64_t r = 0; r < rows; ++r) {
        ASSERT_EQ(sum[size_t(r)], want_sum[size_t(r)]) << rows << "x" << len << " " << threads;
        ASSERT_EQ(mean[size_t(r)], want_mean[size_t(r)]) << rows << "x" << len << " " << threads;
      }
      EXPECT_EQ(sum[size_t(rows)], 321.f);
      EXPECT_EQ(mean[size_t(rows)], 321.f);
    }
}
