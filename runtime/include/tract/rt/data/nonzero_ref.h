// tract runtime: ONNX NonZero.
//
// y is [rank, max_count] (the static upper bound): column k holds the
// multi-index of the k-th nonzero element of x in row-major order. An element
// is nonzero when `x != 0` (NaN is nonzero, -0.0 is zero; half/bfloat16 by
// their bits, bool as is). At most max_count columns are written (a prefix of
// ONNX's result); the remaining columns are set to kPaddingIndex and the
// number of columns written is returned. Rank 0 has no rows to write (0 or 1
// is still returned); rank > kMaxRank writes nothing but the padding and
// returns 0.
#pragma once

#include "tract/rt/common.h"
#include "tract/rt/half.h"

namespace tract {
namespace rt {

namespace detail {

template <class T> inline bool is_nonzero(T v) {
  if constexpr (std::is_same<T, half>::value ||
                std::is_same<T, bfloat16>::value)
    return (v.bits & 0x7fffu) != 0; // +-0 is zero; NaN is nonzero
  else if constexpr (std::is_same<T, bool>::value)
    return v;
  else
    return v != T(0);
}

} // namespace detail

template <class T>
int64_t nonzero(const T *x, const int64_t *shape, int rank, int64_t *y,
                int64_t max_count) {
  if (max_count <= 0 || rank < 0)
    return 0;
  int64_t count = 0;
  if (rank <= kMaxRank) {
    const int64_t n = num_elements(shape, rank);
    int64_t idx[kMaxRank] = {};
    for (int64_t e = 0; e < n && count < max_count; ++e) {
      if (detail::is_nonzero(x[e])) {
        for (int d = 0; d < rank; ++d)
          y[d * max_count + count] = idx[d];
        ++count;
      }
      next_index(idx, shape, rank);
    }
  }
  for (int d = 0; d < rank; ++d)
    for (int64_t k = count; k < max_count; ++k)
      y[d * max_count + k] = kPaddingIndex;
  return count;
}

} // namespace rt
} // namespace tract
