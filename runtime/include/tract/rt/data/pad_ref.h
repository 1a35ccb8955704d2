// tract runtime: N-d padding (ONNX Pad: constant, reflect, edge).
#pragma once

#include <cstring>

#include "tract/rt/common.h"

namespace tract {
namespace rt {

enum class PadMode { Constant, Reflect, Edge };

namespace detail {
// Source index for output coordinate i - pad along a dim of size n, or -1
// when it is outside and the mode is Constant (or n == 0).
inline int64_t pad_source(int64_t i, int64_t n, PadMode mode) {
  if (i >= 0 && i < n)
    return i;
  if (mode == PadMode::Constant || n <= 0)
    return -1;
  if (mode == PadMode::Edge || n == 1)
    return i < 0 ? 0 : n - 1;
  // Reflect without repeating the edge; period 2(n-1) so any pad works.
  const int64_t period = 2 * (n - 1);
  int64_t r = i % period;
  if (r < 0)
    r += period;
  return r < n ? r : period - r;
}
} // namespace detail

// y (shape out_shape) = x (shape in_shape) placed at offset pad_begin;
// pad_begin may be negative (crop). Outside values come from `mode`.
template <class T>
void pad(const T *x, T *y, const int64_t *in_shape, int rank,
         const int64_t *pad_begin, const int64_t *out_shape, PadMode mode,
         T value) {
  if (rank > kMaxRank)
    return;
  const int64_t ny = num_elements(out_shape, rank);
  if (ny <= 0)
    return;
  if (rank == 0) {
    y[0] = x[0];
    return;
  }
  int64_t xs[kMaxRank];
  contiguous_strides(in_shape, rank, xs);
  const int last = rank - 1;
  const int64_t n = in_shape[last], pb = pad_begin[last], len = out_shape[last];
  // Columns [c0, c1) of every row copy x contiguously.
  const int64_t c0 = detail::min_(len, detail::max_(int64_t(0), pb));
  const int64_t c1 = detail::max_(c0, detail::min_(len, pb + n));
  int64_t idx[kMaxRank] = {};
  for (int64_t row = 0; row < ny; row += len) {
    T *yr = y + row;
    int64_t src = 0;
    bool inside = true;
    for (int d = 0; d < last; ++d) {
      const int64_t s =
          detail::pad_source(idx[d] - pad_begin[d], in_shape[d], mode);
      if (s < 0) {
        inside = false;
        break;
      }
      src += s * xs[d];
    }
    if (!inside || n <= 0) {
      for (int64_t i = 0; i < len; ++i)
        yr[i] = value;
    } else {
      const T *xr = x + src;
      for (int64_t i = 0; i < c0; ++i) {
        const int64_t s = detail::pad_source(i - pb, n, mode);
        yr[i] = s < 0 ? value : xr[s];
      }
      if (c1 > c0)
        std::memcpy(static_cast<void *>(yr + c0),
                    static_cast<const void *>(xr + (c0 - pb)),
                    static_cast<size_t>(c1 - c0) * sizeof(T));
      for (int64_t i = c1; i < len; ++i) {
        const int64_t s = detail::pad_source(i - pb, n, mode);
        yr[i] = s < 0 ? value : xr[s];
      }
    }
    next_index(idx, out_shape, last);
  }
}

} // namespace rt
} // namespace tract
