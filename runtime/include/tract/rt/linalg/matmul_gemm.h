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

// Whether a matmul reads A as one row in place (RowA): m == 1 against a
// packed B (a fully connected layer at batch 1).
constexpr bool matmul_reads_row(int64_t m, bool b_packed) { return m == 1 && b_packed; }

inline int64_t matmul_scratch_floats(int64_t m, int64_t n, int64_t k,
                                     bool b_packed) {
  if (matmul_reads_row(m, b_packed)) // RowA x PackedB: nothing to pack
    return 0;
  return scratch_floats(m, n, k, true, !b_packed);
}

// matmul_f32 with B's form and A's source fixed at compile time (one GEMM
// instantiation per matmul in generated code): kPackedB as `b_packed`,
// kRowA = matmul_reads_row(m, kPackedB).
template <bool kPackedB, bool kRowA, class Epi>
void matmul_f32_as(const float *a, const float *b, float *c, int batch_rank,
                   const int64_t *batch_shape, const int64_t *a_batch_strides,
                   const int64_t *b_batch_strides, int64_t m, int64_t n, int64_t k,
                   int64_t a_rs, int64_t a_cs, int64_t b_rs, int64_t b_cs, const Epi &epi,
                   float *scratch, const Parallel &par = Parallel{}) {
  static_assert(kPackedB || !kRowA, "a row is read in place only against a packed B");
  if (m <= 0 || n <= 0)
    return;
  detail::for_each_matrix(
      batch_rank, batch_shape, a_batch_strides, b_batch_strides,
      [&](int64_t batch, int64_t a_off, int64_t b_off) {
        const int64_t c0 = batch * m * n;
        if constexpr (kRowA)
          gemm_parallel(par, m, n, k, RowA{a + a_off, a_cs}, PackedB{b, k}, c + c0, n, c0,
                        nullptr, epi, scratch);
        else if constexpr (kPackedB)
          gemm_parallel(par, m, n, k, StridedA{a + a_off, a_rs, a_cs}, PackedB{b, k}, c + c0, n,
                        c0, nullptr, epi, scratch);
        else
          gemm_parallel(par, m, n, k, StridedA{a + a_off, a_rs, a_cs},
                        StridedB{b + b_off, b_rs, b_cs}, c + c0, n, c0, nullptr, epi, scratch);
      });
}

// matmul_f32_as with both choices made at run time (tests, applications).
template <class Epi>
void matmul_f32(const float *a, const float *b, bool b_packed, float *c,
                int batch_rank, const int64_t *batch_shape,
                const int64_t *a_batch_strides, const int64_t *b_batch_strides,
                int64_t m, int64_t n, int64_t k, int64_t a_rs, int64_t a_cs,
                int64_t b_rs, int64_t b_cs, const Epi &epi, float *scratch,
                const Parallel &par = Parallel{}) {
  if (matmul_reads_row(m, b_packed))
    matmul_f32_as<true, true>(a, b, c, batch_rank, batch_shape, a_batch_strides,
                              b_batch_strides, m, n, k, a_rs, a_cs, b_rs, b_cs, epi, scratch,
                              par);
  else if (b_packed)
    matmul_f32_as<true, false>(a, b, c, batch_rank, batch_shape, a_batch_strides,
                               b_batch_strides, m, n, k, a_rs, a_cs, b_rs, b_cs, epi, scratch,
                               par);
  else
    matmul_f32_as<false, false>(a, b, c, batch_rank, batch_shape, a_batch_strides,
                                b_batch_strides, m, n, k, a_rs, a_cs, b_rs, b_cs, epi, scratch,
                                par);
}

} // namespace gemm
} // namespace rt
} // namespace tract
