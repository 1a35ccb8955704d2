// tract runtime: IEEE binary16 (ONNX float16) and bfloat16 as storage types.
//
// Kernels never compute in half: the compiler widens half arithmetic to
// float (tract-widen-f16) and only casts and data movement see this type.
// Conversions round to nearest even and keep NaN, infinities and subnormals.
#pragma once

#include <cstdint>
#include <cstring>

namespace tract {
namespace rt {

struct half {
  uint16_t bits;
};

inline float half_to_float(half h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  uint32_t exp = (h.bits >> 10) & 0x1fu;
  uint32_t mant = h.bits & 0x3ffu;
  uint32_t out;
  if (exp == 0x1fu) {
    out = sign | 0x7f800000u | (mant << 13); // inf / NaN
  } else if (exp != 0) {
    out = sign | ((exp + 112u) << 23) | (mant << 13);
  } else if (mant == 0) {
    out = sign; // +-0
  } else {      // subnormal: normalise
    exp = 113u;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --exp;
    }
    out = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &out, sizeof f);
  return f;
}

inline half float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) // inf or NaN (keep a quiet NaN)
    return {static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u))};
  if (absx >= 0x477ff000u) // rounds to >= 65520: overflow to inf
    return {static_cast<uint16_t>(sign | 0x7c00u)};
  if (absx < 0x38800000u) { // below the smallest normal half: subnormal or 0
    if (absx < 0x33000000u) // below half the smallest subnormal: +-0
      return {sign};
    const uint32_t exp = absx >> 23;
    const uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - exp; // 14..24
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (h & 1u)))
      ++h;
    return {static_cast<uint16_t>(sign | h)};
  }
  uint32_t h = ((absx - 0x38000000u) >> 13); // rebias exponent, drop 13 bits
  const uint32_t rem = absx & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
    ++h;
  return {static_cast<uint16_t>(sign | h)};
}

// bfloat16: the top half of a float.
struct bfloat16 {
  uint16_t bits;
};

inline float bfloat16_to_float(bfloat16 h) {
  const uint32_t x = static_cast<uint32_t>(h.bits) << 16;
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

inline bfloat16 float_to_bfloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) // NaN: keep it quiet
    return {static_cast<uint16_t>((x >> 16) | 0x40u)};
  x += 0x7fffu + ((x >> 16) & 1u); // round to nearest even
  return {static_cast<uint16_t>(x >> 16)};
}

} // namespace rt
} // namespace tract
