// tract runtime: N-d transpose (ONNX Transpose).
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

namespace detail {

// Rows of y that interleave into one contiguous block (ys_i == nj): with
// nj a constant the compiler vectorises the interleaving stores.
template <int kRows, class T>
inline void interleave_rows(const T *x, T *y, int64_t ni, int64_t xs_j) {
  for (int64_t i = 0; i < ni; ++i)
    for (int j = 0; j < kRows; ++j)
      y[i * kRows + j] = x[j * xs_j + i];
}

// y[j * ys_j + i * ys_i] = x[j * xs_j + i] for i < ni, j < nj: one 2-d
// transpose, x contiguous along i and y along j (ys_j == 1 in practice).
// Few rows of y (a stride-2 interleave: nj == 2) are copied row by row,
// each a contiguous read; larger blocks in 16 x 16 tiles, whose reads and
// writes both stay within 16 cache lines.
template <class T>
inline void transpose_2d(const T *x, T *y, int64_t ni, int64_t nj, int64_t xs_j, int64_t ys_i,
                         int64_t ys_j) {
  if (ys_j == 1 && ys_i == nj && nj >= 2 && nj <= 4) {
    if (nj == 2)
      interleave_rows<2>(x, y, ni, xs_j);
    else if (nj == 3)
      interleave_rows<3>(x, y, ni, xs_j);
    else
      interleave_rows<4>(x, y, ni, xs_j);
    return;
  }
  if (nj <= 4) {
    for (int64_t j = 0; j < nj; ++j)
      for (int64_t i = 0; i < ni; ++i)
        y[j * ys_j + i * ys_i] = x[j * xs_j + i];
    return;
  }
  constexpr int64_t kTile = 16;
  for (int64_t i0 = 0; i0 < ni; i0 += kTile) {
    const int64_t i1 = i0 + kTile < ni ? i0 + kTile : ni;
    for (int64_t j0 = 0; j0 < nj; j0 += kTile) {
      const int64_t j1 = j0 + kTile < nj ? j0 + kTile : nj;
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j)
          y[j * ys_j + i * ys_i] = x[j * xs_j + i];
    }
  }
}

} // namespace detail

// y dim i = x dim perm[i]; y is contiguous. When y's innermost (non-unit)
// dim is contiguous in x too, y is walked in rows copied from x (dims that
// stay adjacent are merged by for_each_row). Otherwise the y dim that reads
// x contiguously is taken out of the walk and every row becomes a 2-d
// transpose with it (transpose_2d): reading x one element per row of y,
// strided, took a stride-2 interleave of 72K floats 80 us.
template <class T>
void transpose(const T *x, T *y, const int64_t *in_shape, int rank,
               const int64_t *perm) {
  if (rank > kMaxRank)
    return;
  int64_t xs[kMaxRank], ps[kMaxRank], yshape[kMaxRank], ys[kMaxRank];
  contiguous_strides(in_shape, rank, xs);
  for (int i = 0; i < rank; ++i) {
    yshape[i] = in_shape[perm[i]];
    ps[i] = xs[perm[i]];
  }
  contiguous_strides(yshape, rank, ys);
  int inner = rank - 1; // y's innermost dim that is not of size 1
  while (inner >= 0 && yshape[inner] == 1)
    --inner;
  int along = -1; // the y dim that walks x contiguously
  for (int i = 0; i < rank; ++i)
    if (ps[i] == 1 && yshape[i] > 1)
      along = i;
  if (inner < 0 || along < 0 || along == inner) {
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
    return;
  }
  int64_t outer[kMaxRank];
  for (int i = 0; i < rank; ++i)
    outer[i] = i == along ? 1 : yshape[i];
  const int64_t *st[2] = {ps, ys};
  detail::for_each_row<2>(
      outer, rank, st, [&](int64_t, const int64_t *off, int64_t len, const int64_t *inc) {
        detail::transpose_2d(x + off[0], y + off[1], yshape[along], len, inc[0], ys[along],
                             inc[1]);
      });
}

} // namespace rt
} // namespace tract
