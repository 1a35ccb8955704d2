// tract runtime: N-d tiling (ONNX Tile).
#pragma once

#include <cstring>

#include "tract/rt/common.h"

namespace tract {
namespace rt {

// y[i...] = x[i mod in_shape ...] over out_shape (any out size, not only
// multiples of in_shape).
template <class T>
void tile(const T *x, T *y, const int64_t *in_shape, int rank,
          const int64_t *out_shape) {
  if (rank > kMaxRank)
    return;
  const int64_t ny = num_elements(out_shape, rank);
  if (ny <= 0 || num_elements(in_shape, rank) <= 0)
    return;
  if (rank == 0) {
    y[0] = x[0];
    return;
  }
  int64_t xs[kMaxRank];
  contiguous_strides(in_shape, rank, xs);
  const int last = rank - 1;
  const int64_t n = in_shape[last], len = out_shape[last];
  int64_t src_idx[kMaxRank] = {}; // i mod in, kept incrementally
  int64_t idx[kMaxRank] = {};
  for (int64_t row = 0; row < ny; row += len) {
    int64_t src = 0;
    for (int d = 0; d < last; ++d)
      src += src_idx[d] * xs[d];
    const T *xr = x + src;
    T *yr = y + row;
    for (int64_t i = 0; i < len; i += n)
      std::memcpy(static_cast<void *>(yr + i), static_cast<const void *>(xr),
                  static_cast<size_t>(detail::min_(n, len - i)) * sizeof(T));
    for (int d = last - 1; d >= 0; --d) {
      ++src_idx[d];
      if (src_idx[d] == in_shape[d])
        src_idx[d] = 0;
      if (++idx[d] < out_shape[d])
        break;
      idx[d] = 0;
      src_idx[d] = 0;
    }
  }
}

} // namespace rt
} // namespace tract
