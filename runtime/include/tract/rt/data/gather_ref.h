// tract runtime: ONNX Gather and GatherElements.
//
// Indices are wrapped once if negative (i + axis_len); an index still out of
// range reads T() (ONNX calls it an error: here it is how the padding slots
// of a data-dependent result, kPaddingIndex, gather zeros). Never reads out of
// bounds.
#pragma once

#include <cstring>

#include "tract/rt/common.h"

namespace tract {
namespace rt {

namespace detail {
// Wrapped index in [0, axis_len), or -1 when out of range.
template <class TI> inline int64_t fix_index(TI raw, int64_t axis_len) {
  int64_t i = static_cast<int64_t>(raw);
  if (i < 0)
    i += axis_len;
  return (i < 0 || i >= axis_len) ? -1 : i;
}
} // namespace detail

// x [outer, axis_len, inner], idx [n_idx] (flattened indices tensor),
// y [outer, n_idx, inner].
template <class T, class TI>
void gather(const T *x, const TI *idx, T *y, int64_t outer, int64_t axis_len,
            int64_t inner, int64_t n_idx) {
  if (inner <= 0)
    return;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < n_idx; ++j) {
      T *yr = y + (o * n_idx + j) * inner;
      const int64_t k = detail::fix_index(idx[j], axis_len);
      if (k < 0) {
        for (int64_t i = 0; i < inner; ++i)
          yr[i] = T();
        continue;
      }
      std::memcpy(static_cast<void *>(yr),
                  static_cast<const void *>(x + (o * axis_len + k) * inner),
                  static_cast<size_t>(inner) * sizeof(T));
    }
  }
}

// y[i...] = x[i...] with the axis coordinate replaced by idx[i...]; y has
// idx_shape. x and idx have the same rank.
template <class T, class TI>
void gather_elements(const T *x, const TI *idx, T *y, const int64_t *x_shape,
                     const int64_t *idx_shape, int rank, int axis) {
  if (rank > kMaxRank || axis < 0 || axis >= rank)
    return;
  int64_t xs[kMaxRank];
  contiguous_strides(x_shape, rank, xs);
  const int64_t axis_len = x_shape[axis];
  const int64_t axis_stride = xs[axis];
  xs[axis] = 0;
  const int64_t *st[1] = {xs};
  detail::for_each_row<1>(
      idx_shape, rank, st,
      [&](int64_t pos, const int64_t *off, int64_t len, const int64_t *inc) {
        for (int64_t i = 0; i < len; ++i) {
          const int64_t k = detail::fix_index(idx[pos + i], axis_len);
          y[pos + i] = k < 0 ? T() : x[off[0] + i * inc[0] + k * axis_stride];
        }
      });
}

} // namespace rt
} // namespace tract
