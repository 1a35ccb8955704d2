// tract runtime: ONNX Trilu on a batch of [rows, cols] matrices.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

// upper: keep x[i][j] where j - i >= k; lower: keep where j - i <= k; the
// rest is 0.
template <class T>
void trilu(const T *x, T *y, int64_t batch, int64_t rows, int64_t cols,
           int64_t k, bool upper) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < rows; ++i) {
      const T *xr = x + (b * rows + i) * cols;
      T *yr = y + (b * rows + i) * cols;
      // Kept columns are [lo, hi).
      const int64_t lo =
          upper ? detail::max_(int64_t(0), detail::min_(cols, i + k)) : 0;
      const int64_t hi =
          upper ? cols
                : detail::max_(int64_t(0), detail::min_(cols, i + k + 1));
      for (int64_t j = 0; j < lo; ++j)
        yr[j] = T(0);
      for (int64_t j = lo; j < hi; ++j)
        yr[j] = xr[j];
      for (int64_t j = hi; j < cols; ++j)
        yr[j] = T(0);
    }
}

} // namespace rt
} // namespace tract
