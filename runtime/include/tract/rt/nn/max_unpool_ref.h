// tract runtime: ONNX MaxUnpool (opset 9-11).
//
// max_unpool: y (n_y elements) is zero-filled, then y[indices[i]] = x[i] in
// order (a later duplicate wins); indices outside [0, n_y) (floating ones:
// truncated, NaN) are ignored.
//
// max_unpool_nd (extra, for an explicit output_shape that differs from the
// shape the indices were computed for): each index is unravelled row-major in
// idx_shape (the default output shape: N, C, then (in - 1) * stride - pads +
// kernel per spatial dim) and stored at the same coordinates of y_shape
// (rank dims each); indices outside idx_shape or landing outside y_shape are
// ignored. This is what ONNX's test_maxunpool_export_with_output_shape
// expects (4x4 indices placed into a 5x5 output). With idx_shape == y_shape it
// is max_unpool. Negative dims or rank > kMaxRank leave y untouched.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

namespace detail {

template <class TI> inline bool unpool_index(TI raw, int64_t *out) {
  if constexpr (std::is_floating_point<TI>::value) {
    if (!(raw == raw))
      return false;
    *out = float_to_int<int64_t>(static_cast<double>(raw));
  } else if constexpr (std::is_unsigned<TI>::value) {
    if (static_cast<uint64_t>(raw) >
        static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return false;
    *out = static_cast<int64_t>(raw);
  } else {
    *out = static_cast<int64_t>(raw);
  }
  return true;
}

} // namespace detail

template <class T, class TI>
void max_unpool(const T *x, const TI *indices, T *y, int64_t n_x, int64_t n_y) {
  for (int64_t i = 0; i < n_y; ++i)
    y[i] = T(0);
  for (int64_t i = 0; i < n_x; ++i) {
    int64_t k;
    if (detail::unpool_index(indices[i], &k) && k >= 0 && k < n_y)
      y[k] = x[i];
  }
}

template <class T, class TI>
void max_unpool_nd(const T *x, const TI *indices, T *y, int64_t n_x,
                   const int64_t *idx_shape, const int64_t *y_shape, int rank) {
  if (rank < 0 || rank > kMaxRank)
    return;
  for (int d = 0; d < rank; ++d)
    if (idx_shape[d] < 0 || y_shape[d] < 0)
      return;
  const int64_t n_y = num_elements(y_shape, rank);
  for (int64_t i = 0; i < n_y; ++i)
    y[i] = T(0);
  const int64_t n_idx = num_elements(idx_shape, rank);
  int64_t ys[kMaxRank];
  contiguous_strides(y_shape, rank, ys);
  for (int64_t i = 0; i < n_x; ++i) {
    int64_t k;
    if (!detail::unpool_index(indices[i], &k) || k < 0 || k >= n_idx)
      continue;
    int64_t off = 0;
    bool in = true;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t c = k % idx_shape[d]; // idx_shape[d] > 0 as k < n_idx
      k /= idx_shape[d];
      if (c >= y_shape[d]) {
        in = false;
        break;
      }
      off += c * ys[d];
    }
    if (in)
      y[off] = x[i];
  }
}

} // namespace rt
} // namespace tract
