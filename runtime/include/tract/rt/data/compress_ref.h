// tract runtime: ONNX Compress.
//
// x viewed as [outer, axis_len, inner] (a flattened input is outer = inner =
// 1); slice i of the axis is selected when i < cond_len and cond[i] != 0
// (a condition longer than the axis is ignored past it). y is
// [outer, max_selected, inner] (the static upper bound): the selected slices
// in order, at most max_selected of them (a prefix of ONNX's result), the
// remaining slots set to T(). Returns the number of slices written.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

template <class T, class TC>
int64_t compress(const T *x, const TC *cond, int64_t cond_len, T *y,
                 int64_t outer, int64_t axis_len, int64_t inner,
                 int64_t max_selected) {
  if (max_selected <= 0)
    return 0;
  const int64_t scan = cond_len < axis_len ? cond_len : axis_len;
  int64_t count = 0;
  for (int64_t i = 0; i < scan && count < max_selected; ++i)
    if (static_cast<bool>(cond[i]))
      ++count;
  if (outer <= 0 || inner <= 0)
    return count;
  for (int64_t o = 0; o < outer; ++o) {
    T *yo = y + o * max_selected * inner;
    int64_t k = 0;
    for (int64_t i = 0; i < scan && k < max_selected; ++i) {
      if (!static_cast<bool>(cond[i]))
        continue;
      const T *xs = x + (o * axis_len + i) * inner;
      T *ys = yo + k * inner;
      for (int64_t j = 0; j < inner; ++j)
        ys[j] = xs[j];
      ++k;
    }
    for (int64_t j = k * inner; j < max_selected * inner; ++j)
      yo[j] = T();
  }
  return count;
}

} // namespace rt
} // namespace tract
