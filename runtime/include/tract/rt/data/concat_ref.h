// tract runtime: one input of a concatenation (ONNX Concat is one call per
// input).
#pragma once

#include <cstring>

#include "tract/rt/common.h"

namespace tract {
namespace rt {

// Copies x viewed as [outer, x_inner] into columns [y_offset, y_offset +
// x_inner) of y viewed as [outer, y_inner].
template <class T>
void concat_part(const T *x, T *y, int64_t outer, int64_t x_inner,
                 int64_t y_inner, int64_t y_offset) {
  if (x_inner <= 0)
    return;
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(static_cast<void *>(y + o * y_inner + y_offset),
                static_cast<const void *>(x + o * x_inner),
                static_cast<size_t>(x_inner) * sizeof(T));
}

} // namespace rt
} // namespace tract
