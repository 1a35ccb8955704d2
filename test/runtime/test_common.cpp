#include "tract/rt/common.h"

#include "test_util.h"

using namespace tract_test;
namespace rt = tract::rt;

TEST(Common, Constants) {
  EXPECT_EQ(rt::kAbiVersion, 1);
  EXPECT_EQ(rt::kMaxRank, 8);
}

TEST(Common, NumElementsAndStrides) {
  const int64_t s[] = {2, 3, 4};
  EXPECT_EQ(rt::num_elements(s, 3), 24);
  EXPECT_EQ(rt::num_elements(nullptr, 0), 1);
  const int64_t z[] = {2, 0, 4};
  EXPECT_EQ(rt::num_elements(z, 3), 0);
  int64_t st[3];
  rt::contiguous_strides(s, 3, st);
  EXPECT_EQ(st[0], 12);
  EXPECT_EQ(st[1], 4);
  EXPECT_EQ(st[2], 1);
}

TEST(Common, NextIndexVisitsRowMajor) {
  const Shape s = {2, 3, 1, 2};
  int64_t idx[4] = {0, 0, 0, 0};
  for (int64_t lin = 0; lin < numel(s); ++lin) {
    const Shape want = unravel(lin, s);
    for (int d = 0; d < 4; ++d)
      ASSERT_EQ(idx[d], want[d]) << lin;
    const bool more = rt::next_index(idx, s.data(), 4);
    EXPECT_EQ(more, lin + 1 < numel(s));
  }
}

// Every element of the iteration space must be visited exactly once, in
// row-major order, with each operand's offset = sum idx * stride.
static void check_walk(const Shape &shape, const std::vector<Shape> &strides) {
  const int K = 2;
  ASSERT_EQ(strides.size(), size_t(K));
  const int64_t *st[K] = {strides[0].data(), strides[1].data()};
  int64_t next = 0;
  rt::detail::for_each_row<K>(
      shape.data(), int(shape.size()), st,
      [&](int64_t pos, const int64_t *off, int64_t len, const int64_t *inc) {
        ASSERT_EQ(pos, next);
        for (int64_t i = 0; i < len; ++i) {
          const Shape idx = unravel(pos + i, shape);
          for (int k = 0; k < K; ++k) {
            int64_t want = 0;
            for (size_t d = 0; d < shape.size(); ++d)
              want += idx[d] * strides[k][d];
            ASSERT_EQ(off[k] + i * inc[k], want)
                << shape_str(shape) << " k=" << k;
          }
        }
        next += len;
      });
  EXPECT_EQ(next, numel(shape)) << shape_str(shape);
}

TEST(Common, ForEachRowMatchesNaiveOffsets) {
  Rng r(7);
  for (int rank = 0; rank <= 6; ++rank) {
    for (int trial = 0; trial < 30; ++trial) {
      Shape s(rank);
      for (auto &d : s)
        d = r.range(1, 4);
      // Operand 0: contiguous with some dims broadcast; operand 1: arbitrary
      // (possibly negative) strides.
      Shape a = strides_of(s), b(rank);
      for (int d = 0; d < rank; ++d) {
        if (r.range(0, 2) == 0)
          a[d] = 0;
        b[d] = r.range(-5, 9);
      }
      check_walk(s, {a, b});
      check_walk(s, {strides_of(s), strides_of(s)}); // fully merged: one row
    }
  }
}

TEST(Common, ForEachRowEmptyAndScalar) {
  const Shape s = {3, 0, 2};
  const Shape st = {0, 0, 0};
  const int64_t *p[2] = {st.data(), st.data()};
  int calls = 0;
  rt::detail::for_each_row<2>(
      s.data(), 3, p,
      [&](int64_t, const int64_t *, int64_t, const int64_t *) { ++calls; });
  EXPECT_EQ(calls, 0);
  rt::detail::for_each_row<2>(
      nullptr, 0, p,
      [&](int64_t pos, const int64_t *off, int64_t len, const int64_t *) {
        ++calls;
        EXPECT_EQ(pos, 0);
        EXPECT_EQ(off[0], 0);
        EXPECT_EQ(len, 1);
      });
  EXPECT_EQ(calls, 1);
}

TEST(Common, FloatToIntSaturates) {
  using rt::detail::float_to_int;
  EXPECT_EQ(float_to_int<int32_t>(2.9), 2);
  EXPECT_EQ(float_to_int<int32_t>(-2.9), -2);
  EXPECT_EQ(float_to_int<int32_t>(NAN), 0);
  EXPECT_EQ(float_to_int<int32_t>(1e20), INT32_MAX);
  EXPECT_EQ(float_to_int<int32_t>(-1e20), INT32_MIN);
  EXPECT_EQ(float_to_int<int32_t>(2147483647.5), INT32_MAX);
  EXPECT_EQ(float_to_int<int32_t>(-2147483648.5), INT32_MIN);
  EXPECT_EQ(float_to_int<int64_t>(9.3e18), INT64_MAX);
  EXPECT_EQ(float_to_int<int64_t>(-9.3e18), INT64_MIN);
  EXPECT_EQ(float_to_int<int64_t>(-9223372036854775808.0), INT64_MIN);
  EXPECT_EQ(float_to_int<uint64_t>(1.9e19), UINT64_MAX);
  EXPECT_EQ(float_to_int<uint8_t>(-0.5), 0);
  EXPECT_EQ(float_to_int<uint8_t>(-7.0), 0);
  EXPECT_EQ(float_to_int<uint8_t>(255.9), 255);
  EXPECT_EQ(float_to_int<uint8_t>(256.0), 255);
  EXPECT_EQ(float_to_int<int8_t>(-128.9), -128);
  EXPECT_EQ(float_to_int<int8_t>(INFINITY), 127);
  EXPECT_EQ(float_to_int<bool>(0.0), false);
  EXPECT_EQ(float_to_int<bool>(-0.1), true);
  EXPECT_EQ(float_to_int<bool>(NAN), true);
}

TEST(Common, DivHelpers) {
  using namespace rt::detail;
  EXPECT_EQ(floor_div(7, 2), 3);
  EXPECT_EQ(floor_div(-7, 2), -4);
  EXPECT_EQ(floor_div(-8, 2), -4);
  EXPECT_EQ(ceil_div(7, 2), 4);
  EXPECT_EQ(ceil_div(-7, 2), -3);
  EXPECT_EQ(ceil_div(0, 3), 0);
}
