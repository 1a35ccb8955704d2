// tract runtime: sixteen floats held as the target's own vectors.
//
// The lane-layout kernels work on 16 floats at a time (one 16-channel block
// of a pixel). Written as one GCC vector of 64 bytes, that is one register
// on AVX-512, but on AVX2 and NEON GCC 12 keeps arrays of such vectors (a
// register tile's accumulators) in memory and moves them through the stack
// at every step: the kernels ran 5-10x slower there than the width alone
// explains. F16 is the same 16 floats as kParts vectors of the target's
// width (1 zmm, 2 ymm, 4 q registers), loaded and stored a part at a time,
// every loop over the parts unrolled, so a tile's accumulators stay in
// registers on each target. Kernels load and store F16 through load/store
// (a memcpy of the whole struct goes through the stack again).
#pragma once

#include <cstdint>
#include <cstring>

namespace tract {
namespace rt {

#if defined(__GNUC__)

#if defined(__AVX512F__)
constexpr int kF16PartFloats = 16;
#elif defined(__AVX__)
constexpr int kF16PartFloats = 8;
#else // SSE, NEON (aarch64 and armv7), and targets GCC lowers to scalars
constexpr int kF16PartFloats = 4;
#endif

// Every operation inlined whatever the inliner's budget: a call per
// operation (seen with AVX-512's target options) costs more than the work.
#define TRACT_F16_FN inline __attribute__((always_inline))

struct F16 {
  typedef float Part __attribute__((vector_size(kF16PartFloats * sizeof(float))));
  static constexpr int kParts = 16 / kF16PartFloats;
  Part part[kParts];

  static TRACT_F16_FN F16 load(const float *p) {
    F16 r;
#pragma GCC unroll 4
    for (int i = 0; i < kParts; ++i)
      std::memcpy(&r.part[i], p + i * kF16PartFloats, sizeof(Part));
    return r;
  }
  TRACT_F16_FN void store(float *p) const {
#pragma GCC unroll 4
    for (int i = 0; i < kParts; ++i)
      std::memcpy(p + i * kF16PartFloats, &part[i], sizeof(Part));
  }
  static TRACT_F16_FN F16 splat(float s) {
    F16 r;
#pragma GCC unroll 4
    for (int i = 0; i < kParts; ++i)
      r.part[i] = Part{} + s;
    return r;
  }

  TRACT_F16_FN F16 &operator+=(const F16 &b) {
#pragma GCC unroll 4
    for (int i = 0; i < kParts; ++i)
      part[i] += b.part[i];
    return *this;
  }
  TRACT_F16_FN F16 &operator*=(const F16 &b) {
#pragma GCC unroll 4
    for (int i = 0; i < kParts; ++i)
      part[i] *= b.part[i];
    return *this;
  }
  TRACT_F16_FN F16 &operator*=(float s) {
#pragma GCC unroll 4
    for (int i = 0; i < kParts; ++i)
      part[i] *= s;
    return *this;
  }
  friend TRACT_F16_FN F16 operator*(F16 a, const F16 &b) { return a *= b; }
  friend TRACT_F16_FN F16 operator*(float s, F16 a) { return a *= s; }
};

static_assert(sizeof(F16) == 16 * sizeof(float), "16 floats, no padding");

#undef TRACT_F16_FN

#endif // __GNUC__

} // namespace rt
} // namespace tract
