// tract runtime: ONNX ScatterElements (and Scatter) and ScatterND, with the
// opset 16/18 reductions.
//
// y starts as a copy of x (x == y is allowed: the copy is skipped), then the
// updates are applied in row-major index order, so with reduction None a
// later duplicate index wins. Indices are wrapped once if negative; an index
// still outside its dim is skipped (nothing is written). Max/Min propagate
// NaN (numpy maximum/minimum); Add/Mul wrap for integers (or/and for bool).
#pragma once

#include <cstring>

#include "tract/rt/common.h"

namespace tract {
namespace rt {

enum class ScatterReduction { None, Add, Mul, Max, Min };

namespace detail {

template <class T> inline T scatter_apply(ScatterReduction r, T a, T b) {
  switch (r) {
  case ScatterReduction::None:
    return b;
  case ScatterReduction::Add:
    return wrap_add(a, b);
  case ScatterReduction::Mul:
    return wrap_mul(a, b);
  case ScatterReduction::Max:
    return (a < b || is_nan(b)) ? b : a;
  case ScatterReduction::Min:
    return (b < a || is_nan(b)) ? b : a;
  }
  return b;
}

// Wrapped index in [0, len), or -1 when out of range.
template <class TI> inline int64_t scatter_index(TI raw, int64_t len) {
  int64_t i = static_cast<int64_t>(raw);
  if (i < 0)
    i += len;
  return (i < 0 || i >= len) ? -1 : i;
}

template <class T> inline void scatter_copy(const T *x, T *y, int64_t n) {
  if (n > 0 && x != y)
    std::memmove(static_cast<void *>(y), static_cast<const void *>(x),
                 static_cast<size_t>(n) * sizeof(T));
}

} // namespace detail

// x, y [x_shape]; idx, updates [idx_shape] (same rank; idx_shape[d] <=
// x_shape[d] for d != axis, otherwise only the copy is done).
// y[i with i[axis] = idx[i]] (op)= updates[i].
template <class T, class TI>
void scatter_elements(const T *x, const TI *idx, const T *updates, T *y,
                      const int64_t *x_shape, const int64_t *idx_shape,
                      int rank, int axis, ScatterReduction r) {
  if (rank < 0 || rank > kMaxRank)
    return;
  detail::scatter_copy(x, y, num_elements(x_shape, rank));
  if (axis < 0 || axis >= rank)
    return;
  for (int d = 0; d < rank; ++d)
    if (d != axis && idx_shape[d] > x_shape[d])
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
          const int64_t k = detail::scatter_index(idx[pos + i], axis_len);
          if (k < 0)
            continue;
          T &t = y[off[0] + i * inc[0] + k * axis_stride];
          t = detail::scatter_apply(r, t, updates[pos + i]);
        }
      });
}

// idx [n..., q] with q <= x_rank; updates [n..., x_shape[q]...].
// y[idx[n...]] (op)= updates[n...] (slices of x_shape[q...]); a tuple with an
// out-of-range index is skipped.
template <class T, class TI>
void scatter_nd(const T *x, const TI *idx, const T *updates, T *y,
                const int64_t *x_shape, int x_rank, const int64_t *idx_shape,
                int idx_rank, ScatterReduction r) {
  if (x_rank < 0 || x_rank > kMaxRank || idx_rank < 1 || idx_rank > kMaxRank)
    return;
  detail::scatter_copy(x, y, num_elements(x_shape, x_rank));
  const int64_t q = idx_shape[idx_rank - 1];
  if (q < 0 || q > x_rank)
    return;
  const int qi = static_cast<int>(q);
  const int64_t nt = num_elements(idx_shape, idx_rank - 1);
  const int64_t slice = num_elements(x_shape + qi, x_rank - qi);
  if (nt <= 0 || slice <= 0)
    return;
  int64_t qs[kMaxRank];
  {
    int64_t s = slice;
    for (int k = qi - 1; k >= 0; --k) {
      qs[k] = s;
      s *= x_shape[k];
    }
  }
  for (int64_t t = 0; t < nt; ++t) {
    const TI *it = idx + t * q;
    int64_t off = 0;
    bool valid = true;
    for (int k = 0; k < qi && valid; ++k) {
      const int64_t i = detail::scatter_index(it[k], x_shape[k]);
      valid = i >= 0;
      off += i * qs[k];
    }
    if (!valid)
      continue;
    const T *u = updates + t * slice;
    T *yr = y + off;
    for (int64_t s = 0; s < slice; ++s)
      yr[s] = detail::scatter_apply(r, yr[s], u[s]);
  }
}

} // namespace rt
} // namespace tract
