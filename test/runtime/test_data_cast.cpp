#include "tract/rt/data/cast_ref.h"
#include "tract/rt/data/copy_ref.h"

#include "test_util.h"

#include <cfloat>
#include <memory>

using namespace tract_test;
namespace rt = tract::rt;

TEST(Copy, TailSizesAndOverlap) {
  for (int64_t n : tail_sizes()) {
    const auto x = random_vec<int16_t>(size_t(n), uint64_t(n), -1000, 1000);
    std::vector<int16_t> y(size_t(n) + 1, 9);
    rt::copy(x.data(), y.data(), n);
    EXPECT_EQ(std::vector<int16_t>(y.begin(), y.begin() + n), x);
    EXPECT_EQ(y.back(), 9);
  }
  // Overlapping ranges behave like memmove.
  std::vector<int32_t> v = {0, 1, 2, 3, 4, 5, 6, 7};
  rt::copy(v.data(), v.data() + 2, 5);
  EXPECT_EQ(v, (std::vector<int32_t>{0, 1, 0, 1, 2, 3, 4, 7}));
  rt::copy(v.data() + 3, v.data(), 5);
  EXPECT_EQ(v, (std::vector<int32_t>{1, 2, 3, 4, 7, 3, 4, 7}));
  bool b[3] = {true, false, true}, c[3] = {};
  rt::copy(b, c, 3);
  EXPECT_TRUE(c[0] && !c[1] && c[2]);
}

TEST(Cast, FloatToIntTruncatesSaturatesAndZeroesNaN) {
  const float x[] = {2.7f,      -2.7f, 0.5f,   -0.5f,  NAN,     INFINITY,
                     -INFINITY, 1e10f, -1e10f, 127.9f, -128.9f, 300.f};
  int8_t y8[12];
  rt::cast(x, y8, 12);
  const int8_t w8[] = {2, -2, 0, 0, 0, 127, -128, 127, -128, 127, -128, 127};
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(y8[i], w8[i]) << i;
  uint8_t yu[12];
  rt::cast(x, yu, 12);
  const uint8_t wu[] = {2, 0, 0, 0, 0, 255, 0, 255, 0, 127, 0, 255};
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(yu[i], wu[i]) << i;
  int64_t y64[12];
  rt::cast(x, y64, 12);
  EXPECT_EQ(y64[7], 10000000000LL);
  EXPECT_EQ(y64[5], INT64_MAX);
  EXPECT_EQ(y64[6], INT64_MIN);
  const double d[] = {4294967295.9, 4294967296.0, -1.0, 1e300};
  uint32_t y32[4];
  rt::cast(d, y32, 4);
  EXPECT_EQ(y32[0], 4294967295u);
  EXPECT_EQ(y32[1], 4294967295u);
  EXPECT_EQ(y32[2], 0u);
  EXPECT_EQ(y32[3], 4294967295u);
}

TEST(Cast, BoolAndIntegerConversions) {
  const float x[] = {0.f, -0.f, 0.1f, -3.f, NAN};
  bool b[5];
  rt::cast(x, b, 5);
  EXPECT_FALSE(b[0]);
  EXPECT_FALSE(b[1]);
  EXPECT_TRUE(b[2]);
  EXPECT_TRUE(b[3]);
  EXPECT_TRUE(b[4]);
  const bool bb[] = {true, false};
  float f[2];
  rt::cast(bb, f, 2);
  EXPECT_EQ(f[0], 1.f);
  EXPECT_EQ(f[1], 0.f);
  int64_t i[2];
  rt::cast(bb, i, 2);
  EXPECT_EQ(i[0], 1);
  const int32_t v[] = {300, -1, 0, 256};
  uint8_t u[4];
  rt::cast(v, u, 4); // integer -> integer wraps
  EXPECT_EQ(u[0], 44);
  EXPECT_EQ(u[1], 255);
  EXPECT_EQ(u[3], 0);
  bool vb[4];
  rt::cast(v, vb, 4);
  EXPECT_TRUE(vb[0] && vb[1] && !vb[2] && vb[3]);
  const int64_t big[] = {(int64_t(1) << 53) + 1};
  double dd[1];
  rt::cast(big, dd, 1);
  EXPECT_EQ(dd[0], 9007199254740992.0);
  const double fmax = double(FLT_MAX);
  const double dbl[] = {1.0 / 3.0,
                        1e300,
                        -1e300,
                        fmax,
                        fmax + std::ldexp(1.0, 102),
                        fmax + std::ldexp(1.0, 103),
                        double(NAN),
                        -double(INFINITY)};
  float ff[8];
  rt::cast(dbl, ff, 8);
  EXPECT_EQ(ff[0], 1.0f / 3.0f);
  EXPECT_EQ(ff[1], INFINITY);
  EXPECT_EQ(ff[2], -INFINITY);
  EXPECT_EQ(ff[3], FLT_MAX);
  EXPECT_EQ(ff[4], FLT_MAX); // rounds down, like the IEEE conversion
  EXPECT_EQ(ff[5], INFINITY);
  EXPECT_TRUE(std::isnan(ff[6]));
  EXPECT_EQ(ff[7], -INFINITY);
}

TEST(Cast, TailSizesMatchElementwise) {
  for (int64_t n : tail_sizes()) {
    const auto x = random_vec<double>(size_t(n), uint64_t(n) + 3, -200, 200);
    std::vector<int16_t> y(static_cast<size_t>(n));
    rt::cast(x.data(), y.data(), n);
    for (int64_t k = 0; k < n; ++k)
      ASSERT_EQ(y[size_t(k)], int16_t(std::trunc(x[size_t(k)])));
  }
}
