// tract runtime: strided N-d slice (ONNX Slice with resolved starts/steps).
#pragma once

#include <cstring>

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

// A slice whose output is `rows` contiguous runs of `len` elements, run r
// starting at x[first + r * row_stride] (unit steps; the compiler proves the
// shape): one memcpy per run, no per-element index walk. A recurrent cell's
// gate slices are a single run, a channel slice of NCHW one run per image.
template <class T>
void slice_rows(const T *x, T *y, int64_t first, int64_t rows, int64_t row_stride,
                int64_t len) {
  if (len <= 0)
    return;
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(static_cast<void *>(y + r * len),
                static_cast<const void *>(x + first + r * row_stride),
                static_cast<size_t>(len) * sizeof(T));
}

namespace detail {

template <class TI> inline int64_t slice_int(TI v) {
  if constexpr (std::is_floating_point<TI>::value)
    return float_to_int<int64_t>(static_cast<double>(v));
  else if constexpr (std::is_unsigned<TI>::value)
    return static_cast<uint64_t>(v) >
                   static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
               ? std::numeric_limits<int64_t>::max()
               : static_cast<int64_t>(v);
  else
    return static_cast<int64_t>(v);
}

} // namespace detail

// ONNX Slice (opset 10-13) with starts/ends/axes/steps read at run time
// (n_axes entries each; axes == nullptr means 0..n_axes-1, steps == nullptr
// means 1). Per axis: negative starts/ends add the dim, then for step > 0
// both clamp into [0, dim], for step < 0 start into [0, dim-1] and end into
// [-1, dim-1]; the length is max(0, ceil((end - start) / step)). Axes not
// listed are taken whole. An axis entry outside [-rank, rank) is ignored, a
// repeated axis: the last entry wins, a step of 0 (invalid) gives an empty
// window. y has the static out_shape: the part of it inside the run-time
// window is written, everything else is zeroed (never out of bounds either
// way). rank > kMaxRank does nothing. axes/steps are nodeduce_t (the same
// type as const TI*) so that a bare nullptr can be passed.
template <class T, class TI>
void slice_dynamic(const T *x, T *y, const int64_t *in_shape, int rank,
                   const TI *starts, const TI *ends,
                   const detail::nodeduce_t<TI> *axes /*nullable: 0..n-1*/,
                   const detail::nodeduce_t<TI> *steps /*nullable: 1*/,
                   int64_t n_axes, const int64_t *out_shape) {
  if (rank < 0 || rank > kMaxRank)
    return;
  int64_t start[kMaxRank], step[kMaxRank], len[kMaxRank];
  for (int d = 0; d < rank; ++d) {
    if (in_shape[d] < 0 || out_shape[d] < 0)
      return;
    start[d] = 0;
    step[d] = 1;
    len[d] = in_shape[d];
  }
  for (int64_t i = 0; i < n_axes; ++i) {
    int64_t a = axes ? detail::slice_int(axes[i]) : i;
    if (a < 0)
      a += rank;
    if (a < 0 || a >= rank)
      continue;
    const int ai = static_cast<int>(a);
    const int64_t dim = in_shape[ai];
    const int64_t st = steps ? detail::slice_int(steps[i]) : 1;
    int64_t s = detail::slice_int(starts[i]), e = detail::slice_int(ends[i]);
    if (s < 0)
      s += dim; // no overflow: s < 0 <= dim
    if (e < 0)
      e += dim;
    int64_t n = 0;
    if (st > 0) {
      s = detail::min_(detail::max_(s, int64_t(0)), dim);
      e = detail::min_(detail::max_(e, int64_t(0)), dim);
      if (e > s)
        n = (e - s - 1) / st + 1;
    } else if (st < 0 && dim > 0) {
      s = detail::min_(detail::max_(s, int64_t(0)), dim - 1);
      e = detail::min_(detail::max_(e, int64_t(-1)), dim - 1);
      if (s > e) {
        const uint64_t span = static_cast<uint64_t>(s - e - 1);
        const uint64_t mag = uint64_t(0) - static_cast<uint64_t>(st);
        n = static_cast<int64_t>(span / mag) + 1;
      }
    }
    start[ai] = n > 0 ? s : 0;
    step[ai] = n > 1 ? st : 1; // |st| < dim when n > 1: no overflow below
    len[ai] = n;
  }
  int64_t xs[kMaxRank], ys[kMaxRank], box[kMaxRank];
  contiguous_strides(in_shape, rank, xs);
  contiguous_strides(out_shape, rank, ys);
  bool partial = false;
  int64_t base = 0;
  for (int d = 0; d < rank; ++d) {
    box[d] = detail::min_(len[d], out_shape[d]);
    partial = partial || box[d] != out_shape[d];
    if (box[d] > 0)
      base += start[d] * xs[d];
    xs[d] *= step[d];
  }
  if (partial) {
    const int64_t ny = num_elements(out_shape, rank);
    for (int64_t i = 0; i < ny; ++i)
      y[i] = T(0);
  }
  const T *xb = x + base;
  const int64_t *st[2] = {xs, ys};
  detail::for_each_row<2>(
      box, rank, st,
      [&](int64_t, const int64_t *off, int64_t n, const int64_t *inc) {
        const T *xp = xb + off[0];
        T *yp = y + off[1];
        for (int64_t i = 0; i < n; ++i)
          yp[i * inc[1]] = xp[i * inc[0]];
      });
}

} // namespace rt
} // namespace tract
