// tract runtime: ONNX Dropout in training mode (opset 12+).
//
// dropout: when `training` is false or `ratio` is 0, y = x and the mask is all
// true. Otherwise element i is kept when u_i >= ratio, with u_i the i-th draw
// of numpy's legacy generator (MT19937 seeded by init_genrand(seed), doubles
// of 53 random bits) -- the generator ONNX's reference implementation uses
// (`np.random.seed(seed); np.random.uniform(0, 1, shape) >= ratio`), so a
// given seed drops exactly the elements the reference drops. Kept elements
// are scaled by 1 / (1 - ratio). The generator is re-seeded on every call:
// the generated code keeps no state between runs, so the same inputs always
// give the same outputs. `mask` may be null.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

namespace detail {

// MT19937 as numpy's legacy RandomState uses it.
class Mt19937 {
public:
  explicit Mt19937(uint32_t seed) {
    state_[0] = seed;
    for (int i = 1; i < kN; ++i)
      state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + static_cast<uint32_t>(i);
    index_ = kN;
  }

  uint32_t next32() {
    if (index_ >= kN)
      twist();
    uint32_t y = state_[index_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
  }

  // numpy's random_sample: 27 + 26 random bits over 2^53.
  double next_double() {
    uint32_t a = next32() >> 5, b = next32() >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
  }

private:
  static constexpr int kN = 624, kM = 397;

  void twist() {
    for (int i = 0; i < kN; ++i) {
      uint32_t y = (state_[i] & 0x80000000u) | (state_[(i + 1) % kN] & 0x7fffffffu);
      state_[i] = state_[(i + kM) % kN] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    index_ = 0;
  }

  uint32_t state_[kN];
  int index_;
};

} // namespace detail

template <class T>
void dropout(const T *x, T *y, bool *mask, int64_t n, double ratio, bool training,
             uint32_t seed) {
  if (!training || ratio == 0) {
    for (int64_t i = 0; i < n; ++i) {
      y[i] = x[i];
      if (mask)
        mask[i] = true;
    }
    return;
  }
  detail::Mt19937 rng(seed);
  const double scale = 1.0 / (1.0 - ratio);
  for (int64_t i = 0; i < n; ++i) {
    bool keep = rng.next_double() >= ratio;
    y[i] = keep ? static_cast<T>(static_cast<double>(x[i]) * scale) : static_cast<T>(0);
    if (mask)
      mask[i] = keep;
  }
}

} // namespace rt
} // namespace tract
