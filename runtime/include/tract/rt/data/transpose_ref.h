// tract runtime: N-d transpose (ONNX Transpose).
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

// y dim i = x dim perm[i]; y is contiguous. Walks y in order, reading x with
// permuted strides (dims that stay adjacent are merged by for_each_row).
template <class T>
void transpose(const T *x, T *y, const int64_t *in_shape, int rank,
               const int64_t *perm) {
  if (rank > kMaxRank)
    return;
  int64_t xs[kMaxRank], ps[kMaxRank], yshape[kMaxRank];
  contiguous_strides(in_shape, rank, xs);
  for (int i = 0; i < rank; ++i) {
    yshape[i] = in_shape[perm[i]];
    ps[i] = xs[perm[i]];
  }
  const int64_t *st[1] = {ps};
  detail::for_each_row<1>(
      yshape, rank, st,
      [&](int64_t pos, const int64_t *off, int64_t len, const int64_t *inc) {
        const T *xp = x + off[0];
        T *yp = y + pos;
        if (inc[0] == 1) {
          for (int64_t i = 0; i < len; ++i)
            yp[i] = xp[i];
        } else {
          for (int64_t i = 0; i < len; ++i)
            yp[i] = xp[i * inc[0]];
        }
      });
}

} // namespace rt
} // namespace tract
