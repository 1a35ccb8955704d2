#include "tract/rt/elementwise/binary_ref.h"

#include "test_util.h"

#include <memory>

using namespace tract_test;
namespace rt = tract::rt;
namespace op = tract::rt::op;

namespace {

// A random output shape and, for one operand, strides that broadcast some
// dims (0) and are otherwise contiguous over the operand's own shape.
struct BcastCase {
  Shape y;
  Shape a_shape, b_shape; // operand shapes (1 where broadcast)
  Shape a_st, b_st;
};

Shape bcast_strides(const Shape &s) {
  Shape st = strides_of(s);
  for (size_t d = 0; d < s.size(); ++d)
    if (s[d] == 1)
      st[d] = 0;
  return st;
}

BcastCase make_case(Rng &r, int rank) {
  static const int64_t dims[] = {1, 2, 3, 4, 5, 7, 8, 9, 17};
  BcastCase c;
  c.y.resize(size_t(rank));
  for (auto &d : c.y)
    d = dims[r.range(0, rank > 3 ? 4 : 8)];
  c.a_shape = c.y;
  c.b_shape = c.y;
  for (int d = 0; d < rank; ++d) {
    const int64_t k = r.range(0, 3);
    if (k == 0)
      c.a_shape[size_t(d)] = 1;
    else if (k == 1)
      c.b_shape[size_t(d)] = 1;
  }
  c.a_st = bcast_strides(c.a_shape);
  c.b_st = bcast_strides(c.b_shape);
  return c;
}

// Naive: every output position by division, then the operands' offsets.
template <class TA, class TB, class TO, class F>
std::vector<TO> naive_bcast(const std::vector<TA> &a, const Shape &a_st,
                            const std::vector<TB> &b, const Shape &b_st,
                            const Shape &y, F f) {
  std::vector<TO> out(size_t(numel(y)));
  for (int64_t i = 0; i < numel(y); ++i) {
    const Shape idx = unravel(i, y);
    int64_t oa = 0, ob = 0;
    for (size_t d = 0; d < y.size(); ++d) {
      oa += idx[d] * a_st[d];
      ob += idx[d] * b_st[d];
    }
    out[size_t(i)] = static_cast<TO>(f(a[size_t(oa)], b[size_t(ob)]));
  }
  return out;
}

template <class T, class TO, class F>
void check_bcast_random(F f, uint64_t seed) {
  Rng r(seed);
  for (int rank = 0; rank <= 5; ++rank) {
    for (int trial = 0; trial < 25; ++trial) {
      const BcastCase c = make_case(r, rank);
      const auto a = random_vec<T>(size_t(numel(c.a_shape)), r.next(), -20, 20);
      const auto b = random_vec<T>(size_t(numel(c.b_shape)), r.next(), -20, 20);
      // Plain array: std::vector<bool> has no data().
      std::unique_ptr<TO[]> yb(new TO[size_t(numel(c.y)) + 1]);
      rt::binary_bcast(a.data(), c.a_st.data(), b.data(), c.b_st.data(),
                       yb.get(), c.y.data(), rank, f);
      const auto want = naive_bcast<T, T, TO>(a, c.a_st, b, c.b_st, c.y, f);
      const std::vector<TO> y(yb.get(), yb.get() + numel(c.y));
      ASSERT_TRUE(all_equal(y, want))
          << shape_str(c.a_shape) << " op " << shape_str(c.b_shape);
    }
  }
}

} // namespace

TEST(Binary, FlatAllTailSizes) {
  for (int64_t n : tail_sizes()) {
    const auto a = random_vec<float>(size_t(n), 1);
    const auto b = random_vec<float>(size_t(n), 2);
    std::vector<float> y(size_t(n) + 1, 42.f);
    rt::binary_flat(a.data(), b.data(), y.data(), n, op::Mul{});
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(y[size_t(i)], a[size_t(i)] * b[size_t(i)]);
    EXPECT_EQ(y[size_t(n)], 42.f); // no write past n
  }
}

TEST(Binary, BroadcastRandomShapes) {
  check_bcast_random<float, float>(op::Add{}, 1);
  check_bcast_random<double, double>(op::Sub{}, 2);
  check_bcast_random<int32_t, int32_t>(op::Mul{}, 3);
  check_bcast_random<int64_t, int64_t>(op::Div{}, 4);
  check_bcast_random<int8_t, int8_t>(op::Mod{}, 5);
  check_bcast_random<float, bool>(op::Less{}, 6);
  check_bcast_random<uint16_t, bool>(op::Equal{}, 7);
  check_bcast_random<float, float>(op::Max{}, 8);
}

TEST(Binary, NonContiguousAndNegativeStrides) {
  // a is a transposed [3, 4] view of a [4, 3] buffer; b is a row read
  // backwards (negative stride) from its last element.
  const Shape y = {3, 4};
  const auto abuf = random_vec<float>(12, 11);
  const auto bbuf = random_vec<float>(4, 12);
  const Shape a_st = {1, 3};
  const Shape b_st = {0, -1};
  std::vector<float> out(12);
  rt::binary_bcast(abuf.data(), a_st.data(), bbuf.data() + 3, b_st.data(),
                   out.data(), y.data(), 2, op::Sub{});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(out[size_t(i * 4 + j)],
                abuf[size_t(j * 3 + i)] - bbuf[size_t(3 - j)]);
}

TEST(Binary, MixedInputTypes) {
  // Pow with a float base and an integer exponent (ONNX T1 != T2).
  const std::vector<float> a = {2.f, 3.f, 0.5f};
  const std::vector<int64_t> e = {3, -1, 2};
  std::vector<float> y(3);
  rt::binary_flat(a.data(), e.data(), y.data(), 3, op::Pow{});
  EXPECT_FLOAT_EQ(y[0], 8.f);
  EXPECT_FLOAT_EQ(y[1], 1.f / 3.f);
  EXPECT_FLOAT_EQ(y[2], 0.25f);
  const std::vector<int32_t> ib = {2, 3, -2};
  const std::vector<float> fe = {0.5f, 2.f, 3.f};
  std::vector<int32_t> iy(3);
  rt::binary_flat(ib.data(), fe.data(), iy.data(), 3, op::Pow{});
  EXPECT_EQ(iy, (std::vector<int32_t>{1, 9, -8}));
  // Broadcast scalar (rank 0 operand).
  const float s = 10.f;
  const Shape ys = {5};
  const Shape zero = {0};
  const Shape one = {1};
  const auto v = random_vec<float>(5, 3);
  std::vector<float> out(5);
  rt::binary_bcast(&s, zero.data(), v.data(), one.data(), out.data(), ys.data(),
                   1, op::Sub{});
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(out[size_t(i)], 10.f - v[size_t(i)]);
  float r0 = 0;
  rt::binary_bcast(&s, nullptr, &s, nullptr, &r0, nullptr, 0, op::Add{});
  EXPECT_EQ(r0, 20.f);
}

TEST(Binary, SelectAndExpand) {
  Rng r(99);
  for (int rank = 0; rank <= 4; ++rank) {
    for (int trial = 0; trial < 20; ++trial) {
      const BcastCase c = make_case(r, rank);
      const BcastCase c2 = make_case(r, rank);
      Shape cond_shape = c.y;
      for (size_t d = 0; d < cond_shape.size(); ++d)
        if (c2.a_shape[d] == 1)
          cond_shape[d] = 1;
      const Shape c_st = bcast_strides(cond_shape);
      const auto cond = random_vec<bool>(size_t(numel(cond_shape)), r.next());
      const auto a =
          random_vec<int16_t>(size_t(numel(c.a_shape)), r.next(), -100, 100);
      const auto b =
          random_vec<int16_t>(size_t(numel(c.b_shape)), r.next(), -100, 100);
      std::vector<int16_t> y(size_t(numel(c.y)));
      // bool cannot be read as std::vector<bool> data; copy to a plain array.
      std::unique_ptr<bool[]> cb(new bool[cond.size() + 1]);
      for (size_t i = 0; i < cond.size(); ++i)
        cb[i] = cond[i];
      rt::select_bcast(cb.get(), c_st.data(), a.data(), c.a_st.data(), b.data(),
                       c.b_st.data(), y.data(), c.y.data(), rank);
      for (int64_t i = 0; i < numel(c.y); ++i) {
        const Shape idx = unravel(i, c.y);
        int64_t oc = 0, oa = 0, ob = 0;
        for (size_t d = 0; d < idx.size(); ++d) {
          oc += idx[d] * c_st[d];
          oa += idx[d] * c.a_st[d];
          ob += idx[d] * c.b_st[d];
        }
        ASSERT_EQ(y[size_t(i)], cb[size_t(oc)] ? a[size_t(oa)] : b[size_t(ob)]);
      }
      // Expand a to y's shape.
      std::vector<int16_t> e(size_t(numel(c.y)));
      rt::broadcast(a.data(), c.a_st.data(), e.data(), c.y.data(), rank);
      for (int64_t i = 0; i < numel(c.y); ++i) {
        const Shape idx = unravel(i, c.y);
        int64_t oa = 0;
        for (size_t d = 0; d < idx.size(); ++d)
          oa += idx[d] * c.a_st[d];
        ASSERT_EQ(e[size_t(i)], a[size_t(oa)]);
      }
    }
  }
}

TEST(Binary, IntegerArithmeticNeverTraps) {
  EXPECT_EQ(op::Div{}(7, 2), 3);
  EXPECT_EQ(op::Div{}(-7, 2), -3); // truncates like C
  EXPECT_EQ(op::Div{}(7, 0), 0);
  EXPECT_EQ(op::Div{}(INT32_MIN, -1), INT32_MIN);
  EXPECT_EQ(op::Div{}(INT64_MIN, int64_t(-1)), INT64_MIN);
  EXPECT_EQ(op::Div{}(int8_t(-128), int8_t(-1)), int8_t(-128));
  EXPECT_EQ(op::Div{}(uint8_t(200), uint8_t(0)), 0);
  EXPECT_EQ(op::Add{}(INT32_MAX, 1), INT32_MIN);
  EXPECT_EQ(op::Sub{}(INT64_MIN, int64_t(1)), INT64_MAX);
  EXPECT_EQ(op::Mul{}(INT32_MAX, 2), -2);
  EXPECT_EQ(op::Mul{}(uint16_t(65535), uint16_t(65535)), uint16_t(1));
  EXPECT_EQ(op::Add{}(uint8_t(250), uint8_t(10)), uint8_t(4));
  // Results keep the operand type (no promotion to int).
  static_assert(
      std::is_same<decltype(op::Add{}(int8_t(1), int8_t(2))), int8_t>::value,
      "");
  static_assert(std::is_same<decltype(op::Div{}(uint16_t(1), uint16_t(2))),
                             uint16_t>::value,
                "");
  static_assert(
      std::is_same<decltype(op::Max{}(int8_t(1), int8_t(2))), int8_t>::value,
      "");
}

TEST(Binary, ModSignFollowsDivisor) {
  // fmod=0: Python semantics.
  EXPECT_EQ(op::Mod{}(7, 3), 1);
  EXPECT_EQ(op::Mod{}(-7, 3), 2);
  EXPECT_EQ(op::Mod{}(7, -3), -2);
  EXPECT_EQ(op::Mod{}(-7, -3), -1);
  EXPECT_EQ(op::Mod{}(6, -3), 0);
  EXPECT_EQ(op::Mod{}(7, 0), 0);
  EXPECT_EQ(op::Mod{}(INT32_MIN, -1), 0);
  EXPECT_EQ(op::Mod{}(int8_t(-128), int8_t(127)), int8_t(126));
  EXPECT_EQ(op::Mod{}(uint32_t(7), uint32_t(3)), 1u);
  EXPECT_FLOAT_EQ(op::Mod{}(-7.5f, 2.f), 0.5f);
  EXPECT_FLOAT_EQ(op::Mod{}(7.5f, -2.f), -0.5f);
  // fmod=1: C semantics, sign of the dividend.
  EXPECT_EQ(op::FMod{}(-7, 3), -1);
  EXPECT_EQ(op::FMod{}(7, -3), 1);
  EXPECT_EQ(op::FMod{}(7, 0), 0);
  EXPECT_EQ(op::FMod{}(INT64_MIN, int64_t(-1)), 0);
  EXPECT_FLOAT_EQ(op::FMod{}(-7.5f, 2.f), -1.5f);
  EXPECT_DOUBLE_EQ(op::FMod{}(7.5, -2.0), 1.5);
}

TEST(Binary, Pow) {
  EXPECT_EQ(op::Pow{}(3, 4), 81);
  EXPECT_EQ(op::Pow{}(-2, 3), -8);
  EXPECT_EQ(op::Pow{}(5, 0), 1);
  EXPECT_EQ(op::Pow{}(0, 0), 1);
  EXPECT_EQ(op::Pow{}(2, -1), 0);
  EXPECT_EQ(op::Pow{}(0, -1), 0);
  EXPECT_EQ(op::Pow{}(1, -5), 1);
  EXPECT_EQ(op::Pow{}(-1, -5), -1);
  EXPECT_EQ(op::Pow{}(-1, -4), 1);
  EXPECT_EQ(op::Pow{}(int64_t(2), int64_t(62)), int64_t(1) << 62);
  EXPECT_EQ(op::Pow{}(int64_t(2), int64_t(64)), 0); // wraps
  EXPECT_EQ(op::Pow{}(uint8_t(3), uint8_t(5)), uint8_t(243));
  EXPECT_EQ(op::Pow{}(uint64_t(1), UINT64_MAX), 1u);
  EXPECT_FLOAT_EQ(op::Pow{}(2.f, 0.5f), std::sqrt(2.f));
  EXPECT_DOUBLE_EQ(op::Pow{}(-2.0, 3.0), -8.0);
}

TEST(Binary, MaxMinPropagateNaN) {
  EXPECT_TRUE(std::isnan(op::Max{}(NAN, 1.f)));
  EXPECT_TRUE(std::isnan(op::Max{}(1.f, NAN)));
  EXPECT_TRUE(std::isnan(op::Min{}(1.0, static_cast<double>(NAN))));
  EXPECT_EQ(op::Max{}(-3, 2), 2);
  EXPECT_EQ(op::Min{}(uint8_t(3), uint8_t(200)), 3);
}

TEST(Binary, ComparisonsAndLogic) {
  EXPECT_TRUE(op::Equal{}(2, 2));
  EXPECT_FALSE(op::Equal{}(NAN, NAN));
  EXPECT_TRUE(op::Less{}(-1.f, 0.f));
  EXPECT_FALSE(op::Less{}(NAN, 0.f));
  EXPECT_TRUE(op::Greater{}(uint8_t(5), uint8_t(4)));
  EXPECT_TRUE(op::LessOrEqual{}(3, 3));
  EXPECT_TRUE(op::GreaterOrEqual{}(int64_t(3), int64_t(3)));
  EXPECT_FALSE(op::GreaterOrEqual{}(2.0, 3.0));
  const bool t = true, f = false;
  EXPECT_TRUE(op::And{}(t, t));
  EXPECT_FALSE(op::And{}(t, f));
  EXPECT_TRUE(op::Or{}(f, t));
  EXPECT_FALSE(op::Or{}(f, f));
  EXPECT_TRUE(op::Xor{}(t, f));
  EXPECT_FALSE(op::Xor{}(t, t));
}

TEST(Binary, Shifts) {
  EXPECT_EQ(op::BitShiftLeft{}(uint8_t(0x81), uint8_t(1)), uint8_t(0x02));
  EXPECT_EQ(op::BitShiftLeft{}(uint16_t(1), uint16_t(15)), uint16_t(0x8000));
  EXPECT_EQ(op::BitShiftLeft{}(uint32_t(1), uint32_t(32)), 0u);
  EXPECT_EQ(op::BitShiftLeft{}(uint64_t(3), uint64_t(63)), uint64_t(1) << 63);
  EXPECT_EQ(op::BitShiftLeft{}(uint64_t(3), uint64_t(1000)), 0u);
  EXPECT_EQ(op::BitShiftRight{}(uint8_t(0x80), uint8_t(7)), 1);
  EXPECT_EQ(op::BitShiftRight{}(uint8_t(0x80), uint8_t(8)), 0);
  EXPECT_EQ(op::BitShiftRight{}(uint64_t(UINT64_MAX), uint64_t(60)), 15u);
  EXPECT_EQ(op::BitwiseAnd{}(uint8_t(0xF0), uint8_t(0x3C)), 0x30);
  EXPECT_EQ(op::BitwiseOr{}(int32_t(1), int32_t(4)), 5);
  EXPECT_EQ(op::BitwiseXor{}(int16_t(-1), int16_t(0)), -1);
  EXPECT_EQ(op::BitwiseNot{}(uint8_t(0x0F)), 0xF0);
}

TEST(Binary, PRelu) {
  EXPECT_FLOAT_EQ(op::PRelu{}(-2.f, 0.25f), -0.5f);
  EXPECT_FLOAT_EQ(op::PRelu{}(2.f, 0.25f), 2.f);
  EXPECT_EQ(op::PRelu{}(int32_t(-3), int32_t(2)), -6);
  EXPECT_EQ(op::PRelu{}(uint8_t(3), uint8_t(2)), 3);
  // Per-channel slope broadcast over [N=2, C=3, W=4].
  const Shape y = {2, 3, 4};
  const Shape x_st = strides_of(y);
  const Shape s_st = {0, 1, 0};
  const auto x = random_vec<float>(24, 5);
  const std::vector<float> slope = {0.1f, 0.2f, 0.3f};
  std::vector<float> out(24);
  rt::binary_bcast(x.data(), x_st.data(), slope.data(), s_st.data(), out.data(),
                   y.data(), 3, op::PRelu{});
  for (int i = 0; i < 24; ++i) {
    const float s = slope[size_t((i / 4) % 3)];
    EXPECT_EQ(out[size_t(i)],
              x[size_t(i)] < 0 ? x[size_t(i)] * s : x[size_t(i)]);
  }
}
