// tract runtime: ONNX ReverseSequence.
//
// For each batch b (index along batch_axis), the first L = lengths[b]
// entries along time_axis are reversed and the rest copied; L is clamped
// into [0, shape[time_axis]]. Any two distinct axes are accepted (ONNX only
// uses 0 and 1). Must not run in place. Invalid axes or rank > kMaxRank
// leave y untouched.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

template <class T, class TL>
void reverse_sequence(const T *x, const TL *lengths, T *y,
                      const int64_t *shape, int rank, int batch_axis,
                      int time_axis) {
  if (rank < 2 || rank > kMaxRank || batch_axis < 0 || batch_axis >= rank ||
      time_axis < 0 || time_axis >= rank || batch_axis == time_axis)
    return;
  int64_t xs[kMaxRank], sub[kMaxRank];
  contiguous_strides(shape, rank, xs);
  for (int d = 0; d < rank; ++d)
    sub[d] = (d == batch_axis || d == time_axis) ? 1 : shape[d];
  const int64_t nb = shape[batch_axis], nt = shape[time_axis];
  const int64_t sb = xs[batch_axis], stt = xs[time_axis];
  const int64_t *st[1] = {xs};
  for (int64_t b = 0; b < nb; ++b) {
    int64_t len = static_cast<int64_t>(lengths[b]);
    len = len < 0 ? 0 : (len > nt ? nt : len);
    for (int64_t t = 0; t < nt; ++t) {
      const int64_t src = t < len ? len - 1 - t : t;
      const T *xb = x + b * sb + src * stt;
      T *yb = y + b * sb + t * stt;
      detail::for_each_row<1>(
          sub, rank, st,
          [&](int64_t, const int64_t *off, int64_t n, const int64_t *inc) {
            for (int64_t i = 0; i < n; ++i)
              yb[off[0] + i * inc[0]] = xb[off[0] + i * inc[0]];
          });
    }
  }
}

} // namespace rt
} // namespace tract
