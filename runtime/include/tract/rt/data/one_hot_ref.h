// tract runtime: ONNX OneHot.
//
// indices [outer, inner] -> y [outer, depth, inner]:
// y[o, d, i] = d == indices[o, i] ? values[1] : values[0]. Indices are
// converted to integers (floating values truncate toward zero), negative ones
// get depth added, and those still outside [0, depth) (or NaN) leave the row
// all `off`.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

template <class TI, class T>
void one_hot(const TI *indices, const T *values /*[off, on]*/, T *y,
             int64_t outer, int64_t depth, int64_t inner) {
  if (outer <= 0 || depth <= 0 || inner <= 0)
    return;
  const T off = values[0], on = values[1];
  for (int64_t o = 0; o < outer; ++o) {
    T *yo = y + o * depth * inner;
    for (int64_t j = 0; j < depth * inner; ++j)
      yo[j] = off;
    for (int64_t i = 0; i < inner; ++i) {
      const TI raw = indices[o * inner + i];
      int64_t k;
      if constexpr (std::is_floating_point<TI>::value) {
        if (std::isnan(raw))
          continue;
        k = detail::float_to_int<int64_t>(static_cast<double>(raw));
      } else {
        k = static_cast<int64_t>(raw);
      }
      if (k < 0)
        k += depth;
      if (k >= 0 && k < depth)
        yo[k * inner + i] = on;
    }
  }
}

} // namespace rt
} // namespace tract
