// tract runtime: transposes between 16 separate rows of floats and "lane"
// layout, where position i holds the 16 rows' i-th floats side by side
// (dst[i * 16 + c] = row_c[i]). The channel-blocked depthwise conv works in
// lane layout: one vector register then holds 16 channels of one pixel, and
// a tap is one FMA for all of them.
//
// Rows are given as 16 pointers, so the caller can map lanes to channels
// freely (a depthwise multiplier, a partial last block): a null row reads as
// zeros (gather) or is not written (scatter). AVX-512 transposes 16 x 16
// blocks in registers; SSE and NEON 4 x 4 blocks; anything else scalar loops.
// gather4 / scatter4 move four floats per row (a Winograd tile's row, one
// tile per lane) at offsets from one base, lanes chosen by a bit mask.
#pragma once

#include <cstdint>

#if defined(__AVX512F__)
#include <immintrin.h>
#elif defined(__SSE__)
#include <xmmintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

namespace tract {
namespace rt {
namespace lanes {

constexpr int64_t kLanes = 16;

#if defined(__AVX512F__)

// GCC 12's avx512fintrin.h starts the unpack and shuffle intrinsics from
// _mm512_undefined_ps() (`__m512 __Y = __Y;`), which -Wuninitialized and
// -Wmaybe-uninitialized flag once inlined into an -O3 build (GCC bug
// 105593): silenced for these functions, so the generated code builds
// warning-free with -Wall -Wextra.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// r[i][j] <- r[j][i], in place (16 registers plus a few temporaries, so
// nothing spills): unpack pairs of rows, then pairs of pairs, then exchange
// 128-bit quarters twice.
inline void transpose16x16(__m512 r[16]) {
  for (int i = 0; i < 16; i += 2) {
    const __m512 lo = _mm512_unpacklo_ps(r[i], r[i + 1]), hi = _mm512_unpackhi_ps(r[i], r[i + 1]);
    r[i] = lo;
    r[i + 1] = hi;
  }
  for (int i = 0; i < 16; i += 4) {
    const __m512d a = _mm512_castps_pd(r[i]), b = _mm512_castps_pd(r[i + 1]);
    const __m512d c = _mm512_castps_pd(r[i + 2]), d = _mm512_castps_pd(r[i + 3]);
    r[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    r[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    r[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
    r[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
  }
  // r[4g + k] now holds columns k, k + 4, k + 8, k + 12 of rows 4g..4g+3.
  for (int k = 0; k < 4; ++k) {
    const __m512 lo0 = _mm512_shuffle_f32x4(r[k], r[4 + k], 0x88);
    const __m512 hi0 = _mm512_shuffle_f32x4(r[k], r[4 + k], 0xdd);
    const __m512 lo1 = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0x88);
    const __m512 hi1 = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0xdd);
    r[k] = _mm512_shuffle_f32x4(lo0, lo1, 0x88);
    r[k + 8] = _mm512_shuffle_f32x4(lo0, lo1, 0xdd);
    r[k + 4] = _mm512_shuffle_f32x4(hi0, hi1, 0x88);
    r[k + 12] = _mm512_shuffle_f32x4(hi0, hi1, 0xdd);
  }
}

inline __mmask16 first_lanes(int64_t m) { return static_cast<__mmask16>((1u << m) - 1u); }

// dst[i * 16 + c] = rows[c][at + i] for i < n (zeros for a null row).
inline void gather(const float *const *rows, int64_t at, int64_t n, float *dst) {
  for (int64_t i0 = 0; i0 < n; i0 += 16) {
    const int64_t m = n - i0 < 16 ? n - i0 : 16;
    const __mmask16 k = first_lanes(m);
    __m512 r[16];
#pragma GCC unroll 16
    for (int c = 0; c < 16; ++c)
      r[c] = rows[c] ? _mm512_maskz_loadu_ps(k, rows[c] + at + i0) : _mm512_setzero_ps();
    transpose16x16(r);
    // (A loop to m would be turned into a memcpy from a spilled r.)
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j)
      if (j < m)
        _mm512_storeu_ps(dst + (i0 + j) * 16, r[j]);
  }
}

// rows[c][at + i] = src[i * 16 + c] for i < n (null rows skipped).
inline void scatter(const float *src, int64_t n, float *const *rows, int64_t at) {
  for (int64_t i0 = 0; i0 < n; i0 += 16) {
    const int64_t m = n - i0 < 16 ? n - i0 : 16;
    const __mmask16 k = first_lanes(m);
    __m512 r[16];
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j)
      r[j] = j < m ? _mm512_loadu_ps(src + (i0 + j) * 16) : _mm512_setzero_ps();
    transpose16x16(r);
#pragma GCC unroll 16
    for (int c = 0; c < 16; ++c)
      if (rows[c])
        _mm512_mask_storeu_ps(rows[c] + at + i0, k, r[c]);
  }
}

// The 4 x 4 transposes within each 128-bit quarter of four registers:
// quarter q of r[k], element j  <->  quarter q of r[j], element k.
inline void transpose_quarters(__m512 r[4]) {
  const __m512 t0 = _mm512_unpacklo_ps(r[0], r[1]), t1 = _mm512_unpackhi_ps(r[0], r[1]);
  const __m512 t2 = _mm512_unpacklo_ps(r[2], r[3]), t3 = _mm512_unpackhi_ps(r[2], r[3]);
  r[0] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t0), _mm512_castps_pd(t2)));
  r[1] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t0), _mm512_castps_pd(t2)));
  r[2] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t1), _mm512_castps_pd(t3)));
  r[3] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t1), _mm512_castps_pd(t3)));
}

#if defined(__AVX512VL__)
#define TRACT_RT_LANES_AVX512_QUARTERS 1

// Four floats at p where `on`, else zeros / nothing written.
inline __m128 load4_if(bool on, const float *p) {
  return _mm_maskz_loadu_ps(static_cast<__mmask8>(-static_cast<int>(on) & 0xf), p);
}
inline void store4_if(bool on, float *p, __m128 v) {
  _mm_mask_storeu_ps(p, static_cast<__mmask8>(-static_cast<int>(on) & 0xf), v);
}

// dst[j * 16 + c] = element j of row(c) (four floats in a __m128), for
// the 16 lanes c. Row c goes to quarter c / 4 of register c % 4, then one
// quarter transpose: 8 shuffles where the 16 x 16 transpose takes 48.
template <class Row> inline void gather4_rows(const Row &row, float *dst) {
  __m512 r[4];
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    r[k] = _mm512_castps128_ps512(row(k));
    r[k] = _mm512_insertf32x4(r[k], row(4 + k), 1);
    r[k] = _mm512_insertf32x4(r[k], row(8 + k), 2);
    r[k] = _mm512_insertf32x4(r[k], row(12 + k), 3);
  }
  transpose_quarters(r);
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j)
    _mm512_storeu_ps(dst + j * 16, r[j]);
}

// Lane c of `live` set: dst[j * 16 + c] = base[at[c] + j] for j < 4, else
// zeros (a dead lane's address is formed but never read: any at[c] will do).
inline void gather4(const float *base, const int64_t *at, uint32_t live, float *dst) {
  gather4_rows([&](int c) { return load4_if(live >> c & 1u, base + at[c]); }, dst);
}

// A tile row at the image's borders: lane c's four floats from base +
// at[c], those of `cols[c]`'s set bits (bit j: element j is in the image)
// read, zeros at the clear ones. at[c] may point before or past the image
// by as many floats as the clear bits (a tile's column -1 at the left
// border): masked-off elements are never read (AVX-512 masked loads do not
// fault on them). cols[c] = 0xf is gather4's load, 0 reads nothing.
inline void gather4_masked(const float *base, const int64_t *at, const uint8_t *cols,
                           float *dst) {
  // (The address through an integer: at[c] may leave the array.)
  const auto from = reinterpret_cast<uintptr_t>(base);
  gather4_rows(
      [&](int c) {
        return _mm_maskz_loadu_ps(static_cast<__mmask8>(cols[c]),
                                  reinterpret_cast<const float *>(
                                      from + static_cast<uintptr_t>(at[c] * 4)));
      },
      dst);
}

// Lane c of `live` set: base[at[c] + j] = src[j * 16 + c] for j < 4.
inline void scatter4(const float *src, float *base, const int64_t *at, uint32_t live) {
  __m512 r[4];
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j)
    r[j] = _mm512_loadu_ps(src + j * 16);
  transpose_quarters(r);
  const auto put = [&](int c, __m128 v) { store4_if(live >> c & 1u, base + at[c], v); };
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    put(k, _mm512_castps512_ps128(r[k]));
    put(4 + k, _mm512_extractf32x4_ps(r[k], 1));
    put(8 + k, _mm512_extractf32x4_ps(r[k], 2));
    put(12 + k, _mm512_extractf32x4_ps(r[k], 3));
  }
}

#endif // __AVX512VL__

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#else

namespace detail {

#if defined(__SSE__)
typedef __m128 Quad;
inline Quad load4(const float *p) { return _mm_loadu_ps(p); }
inline void store4(float *p, Quad v) { _mm_storeu_ps(p, v); }
inline Quad zero4() { return _mm_setzero_ps(); }
inline void transpose4x4(Quad &a, Quad &b, Quad &c, Quad &d) { _MM_TRANSPOSE4_PS(a, b, c, d); }
#elif defined(__ARM_NEON)
typedef float32x4_t Quad;
inline Quad load4(const float *p) { return vld1q_f32(p); }
inline void store4(float *p, Quad v) { vst1q_f32(p, v); }
inline Quad zero4() { return vdupq_n_f32(0.0f); }
inline void transpose4x4(Quad &a, Quad &b, Quad &c, Quad &d) {
  const float32x4x2_t ab = vtrnq_f32(a, b), cd = vtrnq_f32(c, d);
  a = vcombine_f32(vget_low_f32(ab.val[0]), vget_low_f32(cd.val[0]));
  b = vcombine_f32(vget_low_f32(ab.val[1]), vget_low_f32(cd.val[1]));
  c = vcombine_f32(vget_high_f32(ab.val[0]), vget_high_f32(cd.val[0]));
  d = vcombine_f32(vget_high_f32(ab.val[1]), vget_high_f32(cd.val[1]));
}
#define TRACT_RT_LANES_QUAD 1
#endif
#if defined(__SSE__)
#define TRACT_RT_LANES_QUAD 1
#endif

} // namespace detail

inline void gather(const float *const *rows, int64_t at, int64_t n, float *dst) {
  int64_t i0 = 0;
#if defined(TRACT_RT_LANES_QUAD)
  using namespace detail;
  for (; i0 + 4 <= n; i0 += 4)
    for (int c = 0; c < 16; c += 4) {
      Quad q[4];
      for (int k = 0; k < 4; ++k)
        q[k] = rows[c + k] ? load4(rows[c + k] + at + i0) : zero4();
      transpose4x4(q[0], q[1], q[2], q[3]);
      for (int k = 0; k < 4; ++k)
        store4(dst + (i0 + k) * 16 + c, q[k]);
    }
#endif
  // (Pointers stepped, not i0 * 16: with n a constant, GCC 12 warned that
  // the index overflows on an iteration it cannot reach.)
  for (float *d = dst + i0 * 16; i0 < n; ++i0, d += 16)
    for (int c = 0; c < 16; ++c)
      d[c] = rows[c] ? rows[c][at + i0] : 0.0f;
}

inline void scatter(const float *src, int64_t n, float *const *rows, int64_t at) {
  int64_t i0 = 0;
#if defined(TRACT_RT_LANES_QUAD)
  using namespace detail;
  for (; i0 + 4 <= n; i0 += 4)
    for (int c = 0; c < 16; c += 4) {
      Quad q[4];
      for (int k = 0; k < 4; ++k)
        q[k] = load4(src + (i0 + k) * 16 + c);
      transpose4x4(q[0], q[1], q[2], q[3]);
      for (int k = 0; k < 4; ++k)
        if (rows[c + k])
          store4(rows[c + k] + at + i0, q[k]);
    }
#endif
  for (; i0 < n; ++i0)
    for (int c = 0; c < 16; ++c)
      if (rows[c])
        rows[c][at + i0] = src[i0 * 16 + c];
}

#undef TRACT_RT_LANES_QUAD

#endif

#if defined(TRACT_RT_LANES_AVX512_QUARTERS)
// Whether gather4_masked is the vector version (a masked load per lane);
// elsewhere it is element by element, no faster than a caller's own loop.
constexpr bool kVectorGather4Masked = true;
#else
constexpr bool kVectorGather4Masked = false;
inline void gather4_masked(const float *base, const int64_t *at, const uint8_t *cols,
                           float *dst) {
  const auto from = reinterpret_cast<uintptr_t>(base);
  for (int c = 0; c < 16; ++c)
    for (int j = 0; j < 4; ++j)
      dst[j * 16 + c] =
          cols[c] >> j & 1u
              ? *reinterpret_cast<const float *>(from + static_cast<uintptr_t>((at[c] + j) * 4))
              : 0.0f;
}

// Four floats per row (AVX-512VL has its own, cheaper, versions above).
inline void gather4(const float *base, const int64_t *at, uint32_t live, float *dst) {
  const float *rows[16];
  for (int c = 0; c < 16; ++c)
    rows[c] = live >> c & 1u ? base + at[c] : nullptr;
  gather(rows, 0, 4, dst);
}
inline void scatter4(const float *src, float *base, const int64_t *at, uint32_t live) {
  float *rows[16];
  for (int c = 0; c < 16; ++c)
    rows[c] = live >> c & 1u ? base + at[c] : nullptr;
  scatter(src, 4, rows, 0);
}
#endif
#undef TRACT_RT_LANES_AVX512_QUARTERS

} // namespace lanes
} // namespace rt
} // namespace tract
