// tract runtime: element type conversion (ONNX Cast).
//
// float -> integer truncates toward zero, NaN -> 0 and out-of-range values
// saturate; anything -> bool is `x != 0` (NaN is true); bool -> number is 0/1;
// integer -> integer wraps (two's complement), float -> float rounds.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

namespace detail {
template <class TO, class TI> inline TO cast_one(TI v) {
  if constexpr (std::is_same<TO, bool>::value)
    return v != TI(0);
  else if constexpr (std::is_same<TI, bool>::value)
    return v ? TO(1) : TO(0);
  else if constexpr (std::is_floating_point<TI>::value && std::is_integral<TO>::value)
    return float_to_int<TO>(static_cast<double>(v));
  else
    return static_cast<TO>(v);
}
} // namespace detail

template <class TI, class TO> void cast(const TI* x, TO* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = detail::cast_one<TO>(x[i]);
}

} // namespace rt
} // namespace tract
