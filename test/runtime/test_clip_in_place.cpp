// clip_in_place against op::Clip, bit for bit: NaNs of either sign, signed
// zeros, infinities, the bounds themselves and their neighbours, over runs
// of every length up to 3 vectors and more (the vector loop and its scalar
// tail); and from 0 to +inf against op::Relu (the compiler emits a lone
// ReLU epilogue that way). Built for each x86 instruction set this machine runs (SSE, AVX2,
// AVX-512: one vector path each).
#include "tract/rt/elementwise/clip_in_place.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// n values: every `every`-th one from `special` in turn, ordinary values of
// both signs between.
std::vector<float> mixed(int n, const std::vector<float> &special, int every) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int j = 0; j < n; ++j)
    v[size_t(j)] = j % every == 0 ? special[size_t(j / every) % special.size()]
                                  : float(j * 7 % 23) * 0.75f - 8.0f;
  return v;
}

TEST(ClipInPlace, MatchesClipBitForBit) {
  const float inf = std::numeric_limits<float>::infinity();
  const float bounds[][2] = {{0.0f, 6.0f}, {-0.0f, 6.0f}, {-1.5f, 0.0f}, {-inf, 2.0f},
                             {0.25f, 0.25f}};
  for (const auto &b : bounds) {
    const float lo = b[0], hi = b[1];
    std::vector<float> special = {std::nanf(""), -std::nanf(""), 0.0f, -0.0f, inf, -inf,
                                  lo, hi, std::nextafter(lo, -inf), std::nextafter(hi, inf),
                                  std::nextafter(lo, inf), std::nextafter(hi, -inf)};
    for (int n = 0; n <= 53; ++n) {
      const std::vector<float> v = mixed(n, special, 3);
      std::vector<float> got = v;
      tract::rt::clip_in_place(got.data(), n, lo, hi);
      const tract::rt::op::Clip<float> clip{lo, hi};
      for (int j = 0; j < n; ++j)
        ASSERT_EQ(bits(got[size_t(j)]), bits(clip(v[size_t(j)])))
            << "x " << v[size_t(j)] << " in [" << lo << ", " << hi << "], n " << n << ", j " << j;
    }
  }
}

// The compiler emits a conv's lone ReLU as ClipEpilogue{0, +inf}: the same
// function as op::Relu, subnormals, signed zeros, NaNs and infinities
// included.
TEST(ClipInPlace, FromZeroToInfinityIsRelu) {
  const float inf = std::numeric_limits<float>::infinity();
  const float tiny = std::numeric_limits<float>::denorm_min();
  const std::vector<float> special = {std::nanf(""), -std::nanf(""), 0.0f, -0.0f, inf, -inf,
                                      tiny, -tiny, std::numeric_limits<float>::max(),
                                      std::numeric_limits<float>::lowest(), 1.0f, -1.0f};
  for (int n = 0; n <= 53; ++n) {
    const std::vector<float> v = mixed(n, special, 2);
    std::vector<float> got = v;
    tract::rt::clip_in_place(got.data(), n, 0.0f, inf);
    for (int j = 0; j < n; ++j)
      ASSERT_EQ(bits(got[size_t(j)]), bits(tract::rt::op::Relu{}(v[size_t(j)])))
          << "x " << v[size_t(j)] << ", n " << n << ", j " << j;
  }
}

} // namespace
