// tract runtime: reference (batched, strided) matrix multiplication.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

namespace detail {

// Accumulator: T for floating types; 64-bit unsigned (i.e. wrapping int64
// arithmetic) for integers.
template <class T>
using mm_acc_t = typename std::conditional<std::is_floating_point<T>::value, T,
                                           uint64_t>::type;

template <class T> inline mm_acc_t<T> mm_widen(T v) {
  if constexpr (std::is_floating_point<T>::value)
    return v;
  else if constexpr (std::is_signed<T>::value)
    return static_cast<uint64_t>(static_cast<int64_t>(v)); // sign-extend
  else
    return static_cast<uint64_t>(v);
}

// One (m x k) * (k x n) product into contiguous c (row stride n). Each output
// sums its products in increasing p, whichever loop order is used.
template <class T>
inline void gemm_ref(const T *a, const T *b, T *c, int64_t m, int64_t n,
                     int64_t k, int64_t a_rs, int64_t a_cs, int64_t b_rs,
                     int64_t b_cs) {
  using Acc = mm_acc_t<T>;
  if (b_rs == 1 && b_cs != 1 && a_cs == 1) {
    // B transposed: both operands are contiguous along p; dot products.
    for (int64_t i = 0; i < m; ++i) {
      const T *ar = a + i * a_rs;
      for (int64_t j = 0; j < n; ++j) {
        const T *bc = b + j * b_cs;
        Acc acc = Acc(0);
        for (int64_t p = 0; p < k; ++p)
          acc += mm_widen(ar[p]) * mm_widen(bc[p]);
        c[i * n + j] = static_cast<T>(acc);
      }
    }
    return;
  }
  // Otherwise a row of C is built as a sum of scaled rows of B, in blocks of
  // kBlock columns held in registers / on the stack.
  constexpr int64_t kBlock = 64;
  Acc acc[kBlock];
  for (int64_t i = 0; i < m; ++i) {
    const T *ar = a + i * a_rs;
    for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
      const int64_t jn = min_(kBlock, n - j0);
      for (int64_t j = 0; j < jn; ++j)
        acc[j] = Acc(0);
      for (int64_t p = 0; p < k; ++p) {
        const Acc av = mm_widen(ar[p * a_cs]);
        const T *br = b + p * b_rs + j0 * b_cs;
        if (b_cs == 1) {
          for (int64_t j = 0; j < jn; ++j)
            acc[j] += av * mm_widen(br[j]);
        } else {
          for (int64_t j = 0; j < jn; ++j)
            acc[j] += av * mm_widen(br[j * b_cs]);
        }
      }
      T *cr = c + i * n + j0;
      for (int64_t j = 0; j < jn; ++j)
        cr[j] = static_cast<T>(acc[j]);
    }
  }
}

// Calls f(batch, a_offset, b_offset) for every matrix of a batched matmul
// (batch = the flat index of the output matrix), offsets from the batch
// strides (0 = broadcast). Shared by every matmul kernel.
template <class F>
inline void for_each_matrix(int batch_rank, const int64_t *batch_shape,
                            const int64_t *a_batch_strides,
                            const int64_t *b_batch_strides, F &&f) {
  const int64_t *st[2] = {a_batch_strides, b_batch_strides};
  for_each_row<2>(batch_shape, batch_rank, st,
                  [&](int64_t pos, const int64_t *off, int64_t len, const int64_t *inc) {
                    for (int64_t i = 0; i < len; ++i)
                      f(pos + i, off[0] + i * inc[0], off[1] + i * inc[1]);
                  });
}

} // namespace detail

// c[batch..., i, j] = sum_p A(i, p) * B(p, j) with
//   A(i, p) = a[a_off + i*a_rs + p*a_cs], B(p, j) = b[b_off + p*b_rs + j*b_cs]
// where a_off / b_off come from the batch index and the batch strides (0 =
// broadcast). c is contiguous [batch_shape..., m, n].
template <class T>
void matmul(const T *a, const T *b, T *c, int batch_rank,
            const int64_t *batch_shape, const int64_t *a_batch_strides,
            const int64_t *b_batch_strides, int64_t m, int64_t n, int64_t k,
            int64_t a_rs, int64_t a_cs, int64_t b_rs, int64_t b_cs) {
  if (m <= 0 || n <= 0)
    return;
  detail::for_each_matrix(batch_rank, batch_shape, a_batch_strides, b_batch_strides,
                          [&](int64_t batch, int64_t a_off, int64_t b_off) {
                            detail::gemm_ref(a + a_off, b + b_off, c + batch * m * n, m, n,
                                             k, a_rs, a_cs, b_rs, b_cs);
                          });
}

} // namespace rt
} // namespace tract
