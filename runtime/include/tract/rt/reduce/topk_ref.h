// tract runtime: ONNX TopK.
//
// x [outer, axis_len, inner] -> values, indices [outer, k, inner]: the k
// largest (or smallest) elements along the axis, best first; equal values
// keep the lower index first (ONNX), so the order is total and the result
// deterministic (sorted=false also sorts). NaN compares greater than every
// number (numpy's sort order): it comes first for largest, last otherwise.
// Works in place in the output (a binary heap of the k best, then heap
// sort): O(axis_len log k), no scratch. k > axis_len fills the tail with T()
// and index kPaddingIndex.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

namespace detail {

// a > b in a total order where NaN is the largest (NaNs are equal).
template <class T> inline bool topk_gt(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(a))
      return !std::isnan(b);
    if (std::isnan(b))
      return false;
  }
  return b < a;
}

// Strict "a ranks before b".
template <class T>
inline bool topk_before(T va, int64_t ia, T vb, int64_t ib, bool largest) {
  if (largest ? topk_gt(va, vb) : topk_gt(vb, va))
    return true;
  if (largest ? topk_gt(vb, va) : topk_gt(va, vb))
    return false;
  return ia < ib;
}

// Heap of `size` entries at v[j * st], ix[j * st] whose root is the entry
// that ranks last.
template <class T, class TI> struct TopkHeap {
  T *v;
  TI *ix;
  int64_t st;
  bool largest;
  bool worse(int64_t a, int64_t b) const { // entry a ranks after entry b
    return topk_before(v[b * st], static_cast<int64_t>(ix[b * st]),
                       v[a * st], static_cast<int64_t>(ix[a * st]), largest);
  }
  void swap(int64_t a, int64_t b) {
    const T tv = v[a * st];
    v[a * st] = v[b * st];
    v[b * st] = tv;
    const TI ti = ix[a * st];
    ix[a * st] = ix[b * st];
    ix[b * st] = ti;
  }
  void sift_up(int64_t j) {
    while (j > 0) {
      const int64_t parent = (j - 1) / 2;
      if (!worse(j, parent))
        return;
      swap(j, parent);
      j = parent;
    }
  }
  void sift_down(int64_t j, int64_t size) {
    for (;;) {
      const int64_t l = 2 * j + 1, r = l + 1;
      int64_t w = j;
      if (l < size && worse(l, w))
        w = l;
      if (r < size && worse(r, w))
        w = r;
      if (w == j)
        return;
      swap(j, w);
      j = w;
    }
  }
};

} // namespace detail

template <class T, class TI>
void top_k(const T *x, T *values, TI *indices, int64_t outer, int64_t axis_len,
           int64_t inner, int64_t k, bool largest, bool sorted) {
  (void)sorted; // always sorted
  if (k <= 0 || inner <= 0)
    return;
  const int64_t m = axis_len < k ? (axis_len < 0 ? 0 : axis_len) : k;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T *xp = x + o * axis_len * inner + i;
      detail::TopkHeap<T, TI> h{values + o * k * inner + i,
                                indices + o * k * inner + i, inner, largest};
      for (int64_t j = 0; j < m; ++j) {
        h.v[j * inner] = xp[j * inner];
        h.ix[j * inner] = static_cast<TI>(j);
        h.sift_up(j);
      }
      if (m > 0) {
        for (int64_t j = m; j < axis_len; ++j) {
          const T v = xp[j * inner];
          // j is larger than every stored index, so it must rank strictly
          // before the root to enter.
          if (detail::topk_before(v, j, h.v[0],
                                  static_cast<int64_t>(h.ix[0]), largest)) {
            h.v[0] = v;
            h.ix[0] = static_cast<TI>(j);
            h.sift_down(0, m);
          }
        }
      }
      // Heap sort: the last-ranking entry moves to the back each time.
      for (int64_t e = m - 1; e > 0; --e) {
        h.swap(0, e);
        h.sift_down(0, e);
      }
      for (int64_t j = m; j < k; ++j) {
        h.v[j * inner] = T();
        h.ix[j * inner] = static_cast<TI>(kPaddingIndex);
      }
    }
  }
}

} // namespace rt
} // namespace tract
