// tract runtime: f32 batched matrix multiplication on the blocked GEMM.
//
// Same operand description as matmul() (matmul_ref.h): A(i, p) =
// a[a_off + i*a_rs + p*a_cs], B(p, j) = b[b_off + p*b_rs + j*b_cs], batch
// offsets from the batch strides (0 = broadcast), c contiguous
// [batch..., m, n]. When `b_packed`, b is one whole-K packed B (pack_b, done
// at compile time for constant weights) shared by every batch, and b_rs,
// b_cs and the B batch strides are unused.
#pragma once

#include "tract/rt/linalg/gemm.h"
#include "tract/rt/linalg/matmul_ref.h"

namespace tract {
namespace rt {
namespace gemm {

inline int64_t matmul_scratch_floats(int64_t m, int64_t n, int64_t k,
                                     bool b_packed) {
  if (m == 1 && b_packed) // RowA x PackedB: nothing to pack
    return 0;
  return scratch_floats(m, n, k, true, !b_packed);
}

template <class Epi>
void matmul_f32(const float *a, const float *b, bool b_packed, float *c,
                int batch_rank, const int64_t *batch_shape,
                const int64_t *a_batch_strides, const int64_t *b_batch_strides,
                int64_t m, int64_t n, int64_t k, int64_t a_rs, int64_t a_cs,
                int64_t b_rs, int64_t b_cs, const Epi &epi, float *scratch,
                const Parallel &par = Parallel{}) {
  if (m <= 0 || n <= 0)
    return;
  detail::for_each_matrix(
      batch_rank, batch_shape, a_batch_strides, b_batch_strides,
      [&](int64_t batch, int64_t a_off, int64_t b_off) {
        const StridedA as{a + a_off, a_rs, a_cs};
        const int64_t c0 = batch * m * n;
        if (b_packed && m == 1)
          gemm_parallel(par, m, n, k, RowA{a + a_off, a_cs}, PackedB{b, k}, c + c0, n, c0,
                        nullptr, epi, scratch);
        else if (b_packed)
          gemm_parallel(par, m, n, k, as, PackedB{b, k}, c + c0, n, c0, nullptr, epi, scratch);
        else
          gemm_parallel(par, m, n, k, as, StridedB{b + b_off, b_rs, b_cs}, c + c0, n, c0,
                        nullptr, epi, scratch);
      });
}

} // namespace gemm
} // namespace rt
} // namespace tract
