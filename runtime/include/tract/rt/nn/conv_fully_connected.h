// tract runtime: a 1x1 conv on a map of one pixel, as the fully connected
// layer it is (a squeeze-and-excitation block's two convs, a classifier
// written as a conv).
//
// On the conv GEMM (weights as A, the pixels as B's columns) such a conv has
// N = 1: every A panel is streamed through the micro-kernel for one column,
// 3 GFLOP/s. Its input [batch, C, 1, 1] is the matrix [batch x C], row-major,
// and its output [batch, O, 1, 1] the matrix [batch x O]: so it runs as
// x * W^T with the weights packed at compile time as the GEMM's B (K = C,
// N = O), and at batch 1 the row is read in place (RowA, as a fully
// connected matmul: no packing, no scratch). The bias is per column there,
// added in the epilogue.
#pragma once

#include "tract/rt/linalg/matmul_gemm.h"
#include "tract/rt/nn/conv_gemm.h"

namespace tract {
namespace rt {

// A plain 1x1 conv (ungrouped, stride 1, unpadded) whose output maps have
// one pixel.
constexpr bool conv_is_fully_connected(const ConvParams &p) {
  return conv_is_plain_pointwise(p) && detail::conv4(p).out_plane == 1;
}

// Weights [O, C] packed as B[C x O] (gemm::pack_b's layout).
constexpr int64_t fully_connected_weight_floats(const ConvParams &p) {
  return gemm::packed_b_floats(p.in_channels, p.out_channels);
}

template <class T>
inline void pack_fully_connected_weights(const T *w, const ConvParams &p, float *dst) {
  gemm::pack_b(w, 1, p.in_channels, p.in_channels, p.out_channels, dst);
}

// Scratch floats: none at batch 1 (the row is read in place), else A's
// packing.
inline int64_t fully_connected_scratch_floats(const ConvParams &p) {
  return gemm::matmul_scratch_floats(p.batch, p.out_channels, p.in_channels, true);
}

// y = conv1x1(x, w) + bias, then epi (gemm.h's contract: segments within
// one image's O outputs, indices those of y). `w` from
// pack_fully_connected_weights; `bias` may be null. kRow: p.batch == 1.
template <bool kRow, class Epi>
void conv_fully_connected(const float *x, const float *w, const float *bias, float *y,
                          const ConvParams &p, const Epi &epi, float *scratch,
                          const Parallel &par = Parallel{}) {
  const int64_t m = p.batch, n = p.out_channels, k = p.in_channels;
  auto biased = [&](float *v, int64_t i0, int64_t count) {
    if (bias) {
      const float *b = bias + i0 % n;
      for (int64_t j = 0; j < count; ++j)
        v[j] += b[j];
    }
    epi(v, i0, count);
  };
  if constexpr (kRow)
    gemm::gemm_parallel(par, 1, n, k, gemm::RowA{x, 1}, gemm::PackedB{w, k}, y, n, 0, nullptr,
                        biased, scratch);
  else
    gemm::gemm_parallel(par, m, n, k, gemm::StridedA{x, k, 1}, gemm::PackedB{w, k}, y, n, 0,
                        nullptr, biased, scratch);
}

} // namespace rt
} // namespace tract
