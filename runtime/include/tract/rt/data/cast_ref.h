// tract runtime: element type conversion (ONNX Cast).
//
// float -> integer truncates toward zero, NaN -> 0 and out-of-range values
// saturate; anything -> bool is `x != 0` (NaN is true); bool -> number is 0/1;
// integer -> integer wraps (two's complement), double -> float rounds (to
// +-inf beyond the float range, never UB).
#pragma once

#include "tract/rt/common.h"
#include "tract/rt/half.h"

namespace tract {
namespace rt {

namespace detail {
// double -> float without UB: values beyond FLT_MAX round like IEEE (to
// +-FLT_MAX below FLT_MAX + half an ulp, to +-inf from there on).
inline float narrow_to_float(double v) {
  constexpr double fmax =
      static_cast<double>(std::numeric_limits<float>::max());
  constexpr double half_ulp = pow2(103); // ulp(FLT_MAX) = 2^104
  const double a = v < 0 ? -v : v;
  if (a > fmax) {
    const float r = a < fmax + half_ulp
                        ? std::numeric_limits<float>::max()
                        : std::numeric_limits<float>::infinity();
    return v < 0 ? -r : r;
  }
  return static_cast<float>(v);
}

template <class TO, class TI> inline TO cast_one(TI v) {
  if constexpr (std::is_same<TI, TO>::value)
    return v;
  else if constexpr (std::is_same<TI, bfloat16>::value) // through float
    return cast_one<TO>(bfloat16_to_float(v));
  else if constexpr (std::is_same<TO, bfloat16>::value)
    return float_to_bfloat16(cast_one<float>(v));
  else if constexpr (std::is_same<TI, half>::value) // half goes through float
    return cast_one<TO>(half_to_float(v));
  else if constexpr (std::is_same<TO, half>::value)
    return float_to_half(cast_one<float>(v));
  else if constexpr (std::is_same<TO, bool>::value)
    return v != TI(0);
  else if constexpr (std::is_same<TI, bool>::value)
    return v ? TO(1) : TO(0);
  else if constexpr (std::is_floating_point<TI>::value &&
                     std::is_integral<TO>::value)
    return float_to_int<TO>(static_cast<double>(v));
  else if constexpr (std::is_same<TI, double>::value &&
                     std::is_same<TO, float>::value)
    return narrow_to_float(v);
  else
    return static_cast<TO>(v);
}
} // namespace detail

template <class TI, class TO> void cast(const TI *x, TO *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = detail::cast_one<TO>(x[i]);
}

} // namespace rt
} // namespace tract
