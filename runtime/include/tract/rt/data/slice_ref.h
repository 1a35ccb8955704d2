// tract runtime: strided N-d slice (ONNX Slice with resolved starts/steps).
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

// y[i...] = x[starts + i * steps] for i over out_shape; starts must be valid
// indices (already clamped) and steps may be negative.
template <class T>
void slice(const T *x, T *y, const int64_t *in_shape, int rank,
           const int64_t *starts, const int64_t *steps,
           const int64_t *out_shape) {
  if (rank > kMaxRank)
    return;
  int64_t xs[kMaxRank];
  contiguous_strides(in_shape, rank, xs);
  int64_t base = 0;
  for (int d = 0; d < rank; ++d) {
    base += starts[d] * xs[d];
    xs[d] *= steps[d];
  }
  const T *xb = x + base;
  const int64_t *st[1] = {xs};
  detail::for_each_row<1>(
      out_shape, rank, st,
      [&](int64_t pos, const int64_t *off, int64_t len, const int64_t *inc) {
        T *yp = y + pos;
        if (inc[0] == 1) {
          for (int64_t i = 0; i < len; ++i)
            yp[i] = xb[off[0] + i];
        } else {
          for (int64_t i = 0; i < len; ++i)
            yp[i] = xb[off[0] + i * inc[0]];
        }
      });
}

} // namespace rt
} // namespace tract
