// tract runtime: N-d transpose (ONNX Transpose).
#pragma once

#include "tract/rt/common.h"
#include "tract/rt/nn/lane_transpose.h"

#include <cstring>
#include <type_traits>

namespace tract {
namespace rt {

namespace detail {

// Whether lanes::gather transposes in registers (else its scalar loop,
// which the tiles' own loop does without the copy).
#if defined(__AVX512F__) || defined(__SSE__) || defined(__ARM_NEON)
constexpr bool kTransposeInRegisters = true;
#else
constexpr bool kTransposeInRegisters = false;
#endif

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
      if constexpr (std::is_same<T, float>::value && kTransposeInRegisters) {
        // Float tiles transposed in registers (lanes::gather: a 16 x 16
        // transpose on AVX-512, 4 x 4 blocks on SSE and NEON), then stored
        // a row of y at a time (a short last tile: the rows it has). Tiles
        // of fewer than 16 columns stay scalar: a 16 x 16 transpose for a
        // column or two costs more than it saves.
        if (ys_j == 1 && i1 - i0 == kTile) {
          const int64_t rows_n = j1 - j0;
          const float *rows[kTile];
          for (int64_t c = 0; c < kTile; ++c)
            rows[c] = c < rows_n ? x + (j0 + c) * xs_j : nullptr;
          alignas(64) float tile[kTile * kTile];
          lanes::gather(rows, i0, kTile, tile);
          for (int64_t i = 0; i < kTile; ++i) {
            float *yr = y + j0 + (i0 + i) * ys_i;
            if (rows_n == kTile) {
              std::memcpy(yr, tile + i * kTile, sizeof(float) * kTile);
            } else {
              for (int64_t c = 0; c < rows_n; ++c)
                yr[c] = tile[i * kTile + c];
            }
          }
          continue;
        }
      }
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j)
          y[j * ys_j + i * ys_i] = x[j * xs_j + i];
    }
  }
}

// y's innermost dim that is not of size 1 (-1: none) and the y dim that
// reads x contiguously (-1: none).
inline void transpose_dims(const int64_t *in_shape, int rank, const int64_t *perm, int *inner,
                           int *along) {
  int64_t xs[kMaxRank];
  contiguous_strides(in_shape, rank, xs);
  *inner = rank - 1;
  while (*inner >= 0 && in_shape[perm[*inner]] == 1)
    --*inner;
  *along = -1;
  for (int i = 0; i < rank; ++i)
    if (xs[perm[i]] == 1 && in_shape[perm[i]] > 1)
      *along = i;
}

} // namespace detail

// How transpose() moves x: by rows of y, each a contiguous run of x
// (Rows); by 2-d transposes, x contiguous along one y dim and y along
// another (Tiles); else element by element along strided rows (Elements).
// The compiler's report names the first two.
enum class TransposePath { Rows, Tiles, Elements };

inline TransposePath transpose_path(const int64_t *in_shape, int rank, const int64_t *perm) {
  if (rank > kMaxRank)
    return TransposePath::Elements;
  int inner = -1, along = -1;
  detail::transpose_dims(in_shape, rank, perm, &inner, &along);
  if (inner < 0 || along == inner)
    return TransposePath::Rows;
  return along < 0 ? TransposePath::Elements : TransposePath::Tiles;
}

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
  if (transpose_path(in_shape, rank, perm) != TransposePath::Tiles) {
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
  int inner = -1, along = -1;
  detail::transpose_dims(in_shape, rank, perm, &inner, &along);
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
