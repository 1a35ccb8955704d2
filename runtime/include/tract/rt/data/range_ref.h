// tract runtime: ONNX Range.
//
// y[i] = start + i * delta, computed in T for every i (not accumulated);
// integer arithmetic wraps. n = max(ceil((limit - start) / delta), 0) is the
// caller's (it is the output shape).
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

template <class T> void range(const T *start, const T *delta, T *y, int64_t n) {
  const T s = *start, d = *delta;
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral<T>::value)
      y[i] = detail::wrap_add(s, detail::wrap_mul(static_cast<T>(i), d));
    else
      y[i] = static_cast<T>(s + static_cast<T>(i) * d);
  }
}

} // namespace rt
} // namespace tract
