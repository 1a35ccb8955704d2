// tract runtime: ONNX Unique.
//
// x viewed as [outer, axis_len, inner] (a flattened input is outer = inner =
// 1); the slices x[:, i, :] are compared as sequences of outer * inner
// values in row-major order. sorted: the unique slices in ascending
// lexicographic order; else in order of first occurrence. Values compare
// numerically (-0.0 == 0.0; half/bfloat16 through float); NaNs equal each
// other and sort after every number.
//
// Outputs (each but y may be nullptr): y [outer, max_unique, inner] the unique
// slices, indices [max_unique] the first occurrence of each, counts
// [max_unique] how often it occurs, inverse [axis_len] the position in y of
// each input slice. At most max_unique slices are written (the first ones of
// ONNX's result); the remaining slots are set to T(), index -1 and count 0,
// and the number written is returned. inverse always holds ONNX's values,
// which are >= the returned number for slices that did not fit.
//
// No scratch memory: O(axis_len * unique) slice comparisons when sorted (each
// unique slice is the smallest one greater than the previous), O(axis_len^2)
// otherwise.
#pragma once

#include "tract/rt/common.h"
#include "tract/rt/half.h"

namespace tract {
namespace rt {

namespace detail {

template <class T> inline auto unique_key(T v) {
  if constexpr (std::is_same<T, half>::value)
    return half_to_float(v);
  else if constexpr (std::is_same<T, bfloat16>::value)
    return bfloat16_to_float(v);
  else
    return v;
}

// -1, 0, 1 for a < b, a == b, a > b; NaN is greater than everything and
// equal to NaN.
template <class T> inline int unique_cmp_value(T a, T b) {
  const auto ka = unique_key(a), kb = unique_key(b);
  if constexpr (std::is_floating_point<decltype(ka)>::value) {
    const bool na = std::isnan(ka), nb = std::isnan(kb);
    if (na || nb)
      return na == nb ? 0 : (na ? 1 : -1);
  }
  return ka < kb ? -1 : (kb < ka ? 1 : 0);
}

template <class T> struct UniqueSlices {
  const T *x;
  int64_t outer, axis_len, inner;
  // Lexicographic comparison of slices a and b.
  int cmp(int64_t a, int64_t b) const {
    if (a == b)
      return 0;
    for (int64_t o = 0; o < outer; ++o) {
      const T *xa = x + (o * axis_len + a) * inner;
      const T *xb = x + (o * axis_len + b) * inner;
      for (int64_t j = 0; j < inner; ++j) {
        const int c = unique_cmp_value(xa[j], xb[j]);
        if (c != 0)
          return c;
      }
    }
    return 0;
  }
};

} // namespace detail

template <class T>
int64_t unique(const T *x, int64_t outer, int64_t axis_len, int64_t inner,
               bool sorted, T *y, int64_t *indices, int64_t *inverse,
               int64_t *counts, int64_t max_unique) {
  if (max_unique < 0)
    max_unique = 0;
  if (axis_len < 0)
    axis_len = 0;
  const bool has_data = outer > 0 && inner > 0;
  const detail::UniqueSlices<T> s{x, has_data ? outer : 0, axis_len,
                                  has_data ? inner : 0};
  int64_t k = 0; // unique slices found so far
  // Records unique slice number k, first seen at `first`.
  auto emit = [&](int64_t first) {
    int64_t c = 0;
    for (int64_t j = first; j < axis_len; ++j) {
      if (s.cmp(j, first) == 0) {
        ++c;
        if (inverse)
          inverse[j] = k;
      }
    }
    if (k < max_unique) {
      if (has_data && y) {
        for (int64_t o = 0; o < outer; ++o) {
          const T *xs = x + (o * axis_len + first) * inner;
          T *ys = y + (o * max_unique + k) * inner;
          for (int64_t j = 0; j < inner; ++j)
            ys[j] = xs[j];
        }
      }
      if (indices)
        indices[k] = first;
      if (counts)
        counts[k] = c;
    }
    ++k;
  };
  if (sorted) {
    int64_t prev = -1;
    for (;;) {
      if (k >= max_unique && !inverse)
        break;
      // The smallest slice greater than `prev`; the lowest index among
      // equal ones (its first occurrence).
      int64_t best = -1;
      for (int64_t j = 0; j < axis_len; ++j)
        if ((prev < 0 || s.cmp(j, prev) > 0) &&
            (best < 0 || s.cmp(j, best) < 0))
          best = j;
      if (best < 0)
        break;
      emit(best);
      prev = best;
    }
  } else {
    for (int64_t i = 0; i < axis_len; ++i) {
      if (k >= max_unique && !inverse)
        break;
      bool first = true;
      for (int64_t j = 0; j < i && first; ++j)
        first = s.cmp(j, i) != 0;
      if (first)
        emit(i);
    }
  }
  const int64_t written = k < max_unique ? k : max_unique;
  for (int64_t u = written; u < max_unique; ++u) {
    if (has_data && y)
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < inner; ++j)
          y[(o * max_unique + u) * inner + j] = T();
    if (indices)
      indices[u] = kPaddingIndex;
    if (counts)
      counts[u] = 0;
  }
  return written;
}

} // namespace rt
} // namespace tract
