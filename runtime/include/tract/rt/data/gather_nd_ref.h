// tract runtime: ONNX GatherND (opset 11-13, with batch_dims).
//
// idx has shape [b..., n..., q] where the first batch_dims dims equal x's
// and q = idx_shape[idx_rank - 1] <= x_rank - batch_dims; y has shape
// [b..., n..., x_shape[batch_dims + q]...]. Every index is wrapped once if
// negative; a tuple with an index still out of its dim (a zero-sized dim, or
// kPaddingIndex) yields T(), as Gather does. Inconsistent shapes (q too
// large, batch dims that differ, rank > kMaxRank) leave y untouched.
#pragma once

#include <cstring>

#include "tract/rt/common.h"
#include "tract/rt/data/gather_ref.h"

namespace tract {
namespace rt {

template <class T, class TI>
void gather_nd(const T *x, const TI *idx, T *y, const int64_t *x_shape,
               int x_rank, const int64_t *idx_shape, int idx_rank,
               int batch_dims) {
  if (x_rank < 0 || x_rank > kMaxRank || idx_rank < 1 ||
      idx_rank > kMaxRank || batch_dims < 0 || batch_dims >= idx_rank ||
      batch_dims > x_rank)
    return;
  const int64_t q = idx_shape[idx_rank - 1];
  if (q < 0 || batch_dims + q > x_rank)
    return;
  for (int d = 0; d < batch_dims; ++d)
    if (x_shape[d] != idx_shape[d])
      return;
  const int qi = static_cast<int>(q);
  const int64_t nb = num_elements(idx_shape, batch_dims);
  const int64_t nt = num_elements(idx_shape + batch_dims,
                                  idx_rank - 1 - batch_dims);
  const int64_t slice =
      num_elements(x_shape + batch_dims + qi, x_rank - batch_dims - qi);
  const int64_t xbatch = num_elements(x_shape + batch_dims, x_rank - batch_dims);
  if (nb <= 0 || nt <= 0 || slice <= 0)
    return;
  // Strides (in elements) of the q indexed dims within one batch of x.
  int64_t qs[kMaxRank];
  {
    int64_t s = slice;
    for (int k = qi - 1; k >= 0; --k) {
      qs[k] = s;
      s *= x_shape[batch_dims + k];
    }
  }
  for (int64_t b = 0; b < nb; ++b) {
    for (int64_t t = 0; t < nt; ++t) {
      const int64_t row = b * nt + t;
      const TI *it = idx + row * q;
      T *yr = y + row * slice;
      int64_t off = b * xbatch;
      bool empty = false;
      for (int k = 0; k < qi && !empty; ++k) {
        const int64_t i = detail::fix_index(it[k], x_shape[batch_dims + k]);
        empty = i < 0;
        off += i * qs[k];
      }
      if (empty) {
        for (int64_t i = 0; i < slice; ++i)
          yr[i] = T();
      } else {
        std::memcpy(static_cast<void *>(yr), static_cast<const void *>(x + off),
                    static_cast<size_t>(slice) * sizeof(T));
      }
    }
  }
}

} // namespace rt
} // namespace tract
