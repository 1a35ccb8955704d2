// tract runtime: Clip over a run of floats in place, as the last step of a
// kernel's epilogue (a conv's ReLU6, MobileNet's and EfficientNet-Lite's).
//
// op::Clip (unary_ref.h) is two selects, x < lo ? lo : x then hi < y ? hi :
// y, NaN kept. In an epilogue's loop GCC 12 vectorises them into one merged
// select on masks, two compares and about nine mask and blend operations per
// vector with AVX-512 (or AVX2): a ReLU6 epilogue took 15-25% of MobileNetV2's
// expand + depthwise kernels. The same two selects are x86's max and min
// with the bound as first operand (max(a, b) = a > b ? a : b, NaN in b kept,
// and so are signed zeros: the exact results of op::Clip), two operations a
// vector; aarch64's compare and bit-select are the selects themselves
// (armv7's NEON flushes subnormals, where op::Clip's VFP code does not).
// Other targets, and the last floats of a run, take op::Clip.
#pragma once

#include "tract/rt/elementwise/unary_ref.h"
#include "tract/rt/simd16.h"

#include <cstdint>
#include <type_traits>

#if defined(__AVX512F__) || defined(__AVX__) || defined(__SSE__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace tract {
namespace rt {

// GCC 12's avx512fintrin.h starts max and min from _mm512_undefined_ps()
// (`__m512 __Y = __Y;`), which -Wmaybe-uninitialized flags once inlined
// (GCC bug 105593, as in lane_transpose.h): silenced here, so the generated
// code builds warning-free with -Wall -Wextra.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#if defined(__GNUC__) &&                                                                      \
    (defined(__AVX512F__) || defined(__AVX__) || defined(__SSE__) || defined(__aarch64__))
#define TRACT_RT_CLIP16_VECTOR 1
#endif

#if defined(TRACT_RT_CLIP16_VECTOR) && defined(__AVX512F__)
// op::Clip on one AVX-512 register: clip16's step, for kernels that hold
// their tiles as __m512.
inline __attribute__((always_inline)) __m512 clip512(__m512 x, float lo, float hi) {
  return _mm512_min_ps(_mm512_set1_ps(hi), _mm512_max_ps(_mm512_set1_ps(lo), x));
}
#endif

#if defined(__GNUC__)
// op::Clip on 16 floats in registers (F16: the target's own vectors), one
// max and one min (x86) or two compare-and-selects (aarch64) per part.
inline __attribute__((always_inline)) F16 clip16(F16 x, float lo, float hi) {
#if defined(TRACT_RT_CLIP16_VECTOR)
#pragma GCC unroll 4
  for (int i = 0; i < F16::kParts; ++i) {
#if defined(__AVX512F__)
    x.part[i] = F16::Part(clip512(__m512(x.part[i]), lo, hi));
#elif defined(__AVX__)
    x.part[i] = F16::Part(
        _mm256_min_ps(_mm256_set1_ps(hi), _mm256_max_ps(_mm256_set1_ps(lo), __m256(x.part[i]))));
#elif defined(__SSE__)
    x.part[i] =
        F16::Part(_mm_min_ps(_mm_set1_ps(hi), _mm_max_ps(_mm_set1_ps(lo), __m128(x.part[i]))));
#else
    const float32x4_t l = vdupq_n_f32(lo), h = vdupq_n_f32(hi), v = float32x4_t(x.part[i]);
    const float32x4_t y = vbslq_f32(vcltq_f32(v, l), l, v);
    x.part[i] = F16::Part(vbslq_f32(vcltq_f32(h, y), h, y));
#endif
  }
#else
  float f[16];
  x.store(f);
  const op::Clip<float> clip{lo, hi};
  for (float &e : f)
    e = clip(e);
  x = F16::load(f);
#endif
  return x;
}
#endif

// clip_in_place on the 16 floats at v, as it clips each whole 16 of a run:
// for a kernel's tile in a buffer of its own (clip_in_place over a small
// local array let GCC 12 at -O3 warn of undefined behaviour in its scalar
// tail, -Waggressive-loop-optimizations, which -Werror builds fail on).
inline void clip16_in_place(float *v, float lo, float hi) {
#if defined(__GNUC__)
  clip16(F16::load(v), lo, hi).store(v);
#else
  const op::Clip<float> clip{lo, hi};
  for (int j = 0; j < 16; ++j)
    v[j] = clip(v[j]);
#endif
}

// v[j] = op::Clip<float>{lo, hi}(v[j]) for j < n: 16 floats at a time with
// clip16 where it has vectors, the rest with op::Clip.
inline void clip_in_place(float *v, int64_t n, float lo, float hi) {
  int64_t j = 0;
#if defined(TRACT_RT_CLIP16_VECTOR)
  for (; j + 16 <= n; j += 16)
    clip16(F16::load(v + j), lo, hi).store(v + j);
#endif
  const op::Clip<float> clip{lo, hi};
  for (; j < n; ++j)
    v[j] = clip(v[j]);
}

// A kernel's epilogue that is one Clip (what the compiler emits for a conv
// followed by ReLU6 and nothing else, and for a conv followed by ReLU as
// {0, +inf}: op::Relu bit for bit): called like any epilogue it is one
// clip_in_place pass; the lane kernels (conv_lanes.h, conv_depthwise.h,
// conv_expand_depthwise.h) recognise it and clip their register tiles before
// the store instead (LaneClip), with no pass over the output at all.
struct ClipEpilogue {
  float lo, hi;
  void operator()(float *v, int64_t, int64_t n) const { clip_in_place(v, n, lo, hi); }
};

// What a lane kernel's tiles do before their store: clip (an epilogue that
// is a ClipEpilogue, whose pass the kernel then skips) or nothing.
struct LaneClip {
  float lo = 0.0f, hi = 0.0f;
  bool on = false;
#if defined(__GNUC__)
  F16 operator()(F16 x) const { return on ? clip16(x, lo, hi) : x; }
#endif
};

template <class Epi> constexpr bool kClipsInTiles = std::is_same<Epi, ClipEpilogue>::value;
template <class Epi> inline LaneClip lane_clip_of(const Epi &epi) {
  if constexpr (kClipsInTiles<Epi>)
    return {epi.lo, epi.hi, true};
  else
    return {};
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#undef TRACT_RT_CLIP16_VECTOR

} // namespace rt
} // namespace tract
