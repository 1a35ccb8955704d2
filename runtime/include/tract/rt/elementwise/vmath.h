// tract runtime: exp, sigmoid, tanh and erf for float, written so that
// compilers vectorise loops over them (no calls, no branches: every path is
// computed and the right one selected), at about 1e-7 relative accuracy
// (a few ulp; test/runtime/test_vmath.cpp sweeps them against libm).
// Doubles go to libm. NaN in gives NaN out; the infinities and the
// saturation points behave like libm's.
//
// exp:     Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, Cephes' degree-6
//          polynomial for e^r, then 2^n built from exponent bits in two
//          halves (so 2^n with n down to -150 needs no denormal arithmetic).
// GCC will not vectorise a loop whose body it has split into branches that
// contain an operation it considers possibly trapping (float -> int and
// int -> float conversions, under the default -ftrapping-math); every
// function here is straight-line code with selects only at the end.
// tanh:    Cephes' odd polynomial for |x| < 0.625, else 1 - 2 / (e^2|x| + 1).
// erf:     an odd polynomial for |x| <= 0.921875 (relative accuracy near
//          0), else 1 - e^-q(|x|) with q a degree-8 polynomial: no division
//          (the coefficients of N. Juffa's faithfully rounded erff, which
//          ONNX Runtime's MLAS uses too), within 1.2e-7 of libm's erf
//          relative on every float in [-6, 6]. A bias add and GELU on a
//          Sapphire Rapids class Xeon: 0.76 -> 0.49 ns per float on long
//          rows, 1.10 -> 0.78 in the GEMM's 16-float calls, where 1 - erfc
//          took a vector division per 16 floats.
// tanh, erf, sigmoid and SiLU take e^x from exp_normal on a clamped
// argument (their results saturate long before it leaves the normal range):
// GELU 67 -> 48 cycles per 16 floats, tanh 39 -> 25 on Zen 4.
#pragma once

#include "tract/rt/common.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tract {
namespace rt {
namespace vm {

namespace detail {
TRACT_RT_INLINE float from_bits(uint32_t i) {
  float f;
  std::memcpy(&f, &i, sizeof f);
  return f;
}
} // namespace detail

namespace detail {
// x = n ln2 + r with |r| <= ln2 / 2 (returns r), shared by exp and
// exp_normal. Round(x log2e) without a float -> int conversion and without
// clamping x first (compilers turn both into branches they will not
// vectorise): adding 1.5 * 2^23 leaves round(t) in the low mantissa bits.
// Out-of-range x give garbage here and are replaced by the callers.
TRACT_RT_INLINE float exp_reduce(float x, int32_t &n) {
  const float t = x * 1.44269504088896341f;
  const float shifted = t + 12582912.0f;
  uint32_t bits;
  std::memcpy(&bits, &shifted, sizeof bits);
  n = static_cast<int32_t>(bits - 0x4B400000u);
#if defined(__FAST_MATH__)
  const float nf = static_cast<float>(n); // (t + C) - C would fold to t
#else
  const float nf = shifted - 12582912.0f; // exact: no int -> float conversion
#endif
  const float r = x - nf * 0.693359375f;
  return r - nf * -2.12194440e-4f;
}
} // namespace detail

TRACT_RT_INLINE float exp(float x) {
  int32_t n;
  const float r = detail::exp_reduce(x, n);
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // 2^n in two halves, so n down to -150 needs no denormal scale factor;
  // unsigned arithmetic: garbage n must not be undefined behaviour.
  const uint32_t n1 = static_cast<uint32_t>(n / 2), n2 = static_cast<uint32_t>(n) - n1;
  float y = p * detail::from_bits((n1 + 127u) << 23) * detail::from_bits((n2 + 127u) << 23);
  y = x > 88.7228f ? std::numeric_limits<float>::infinity() : y;
  y = x < -103.9f ? 0.0f : y;
  return x == x ? y : x;
}

// e^x for x in [-kExpNormal, kExpNormal] (a normal result: 2^n in one
// step, no range selects; NaN passes through), with a degree-5 polynomial
// in Horner form (2.1e-7 relative on |r| <= ln2 / 2, fitted for float
// evaluation; 5 FMAs where exp's more accurate form takes 8 operations).
// Callers clamp: the logistic functions, where results past the range are 0
// or 1 to float precision, and which are most of EfficientNet's
// element-wise work.
constexpr float kExpNormal = 87.3f;
TRACT_RT_INLINE float exp_normal(float x) {
  int32_t n;
  const float r = detail::exp_reduce(x, n);
  float p = 8.297642693e-3f;
  p = p * r + 4.191537946e-2f;
  p = p * r + 1.666757464e-1f;
  p = p * r + 4.999889433e-1f;
  p = p * r + 9.999997020e-1f;
  p = p * r + 1.000000119f;
  return p * detail::from_bits(static_cast<uint32_t>(n + 127) << 23);
}

// x clamped to [-kExpNormal, kExpNormal] (NaN to one of them: callers keep
// NaN by other means), on the magnitude's bits: an integer min. Written as
// float selects, GCC threads the constant bound into a copy of everything
// after the clamp (one division per path: SiLU 22 -> 15 cycles per 16
// floats on Zen 4 this way).
TRACT_RT_INLINE float clamp_exp_arg(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  constexpr uint32_t kLimitBits = 0x42AE999Au; // kExpNormal
  static_assert(kExpNormal == 87.3f, "kLimitBits is kExpNormal's bit pattern");
  const int32_t magnitude = static_cast<int32_t>(bits & 0x7FFFFFFFu);
  const int32_t clamped = magnitude < static_cast<int32_t>(kLimitBits)
                              ? magnitude
                              : static_cast<int32_t>(kLimitBits);
  return detail::from_bits(static_cast<uint32_t>(clamped) | (bits & 0x80000000u));
}

TRACT_RT_INLINE float sigmoid(float x) {
  const float y = 1.0f / (1.0f + exp_normal(clamp_exp_arg(-x)));
  const float z = x < -kExpNormal ? 0.0f : y; // (e^87.3 would give 1.5e-38, not 0)
  return x == x ? z : x;
}
// x * sigmoid(x) with one division and no multiply (EfficientNet's
// activation: the division is most of its cost). Below -87.3, x * 0 (so
// -inf gives NaN, as x * sigmoid(x) does); NaN gives NaN through x / ....
TRACT_RT_INLINE float silu(float x) {
  const float y = x / (1.0f + exp_normal(clamp_exp_arg(-x)));
  return x < -kExpNormal ? x * 0.0f : y;
}

TRACT_RT_INLINE float tanh(float x) {
  const float a = std::fabs(x);
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = x + x * z * p;
  const float big = 1.0f - 2.0f / (exp_normal(clamp_exp_arg(2.0f * a)) + 1.0f);
  const float signed_big = x < 0.0f ? -big : big;
  const float y = a < 0.625f ? small : signed_big;
  return x == x ? y : x;
}

TRACT_RT_INLINE float erf(float x) {
  const float a = std::fabs(x);
  const float z = x * x;
  // |x| <= 0.921875: an odd polynomial, x + x * p(x^2).
  float p = -5.99104969e-4f;
  p = p * z + 4.99339588e-3f;
  p = p * z - 2.67667342e-2f;
  p = p * z + 1.12818025e-1f;
  p = p * z - 3.76124859e-1f;
  p = p * z + 1.28379151e-1f;
  const float small = x + x * p;
  // Beyond: 1 - e^-q(|x|), q a polynomial in |x| (no division); |x| is
  // clamped where erf is 1 to float precision, so e^-q stays normal.
  const float t = a < 3.925f ? a : 3.925f;
  float q = 1.72948930e-5f;
  q = q * t - 3.83208680e-4f;
  q = q * t + 3.88393435e-3f;
  q = q * t - 2.42545605e-2f;
  q = q * t + 1.06777847e-1f;
  q = q * t + 6.34846687e-1f;
  q = q * t + 1.28717512e-1f;
  q = q * t + t;
  const float big = a < 3.925f ? 1.0f - exp_normal(-q) : 1.0f;
  const float signed_big = x < 0.0f ? -big : big;
  const float y = a <= 0.921875f ? small : signed_big;
  return x == x ? y : x;
}

inline double exp(double x) { return std::exp(x); }
inline double sigmoid(double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); }
inline double silu(double x) { return x * sigmoid(x); }
inline double tanh(double x) { return std::tanh(x); }
inline double erf(double x) { return std::erf(x); }

} // namespace vm
} // namespace rt
} // namespace tract
