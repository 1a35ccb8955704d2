// tract runtime: flat copy (ONNX Identity, Reshape, Flatten, Squeeze, ...).
#pragma once

#include <cstring>

#include "tract/rt/common.h"

namespace tract {
namespace rt {

// y[0..n) = x[0..n); the ranges may overlap (memmove).
template <class T> void copy(const T *x, T *y, int64_t n) {
  if (n > 0 && x != y)
    std::memmove(static_cast<void *>(y), static_cast<const void *>(x),
                 static_cast<size_t>(n) * sizeof(T));
}

} // namespace rt
} // namespace tract
