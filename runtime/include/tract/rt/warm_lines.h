// tract runtime: reading a task's input in address order before a kernel's
// tiles read it in their own order.
//
// A kernel split over threads often reads data the other core wrote a
// kernel before (a map split by channels, read split by pixels). Its tiles
// read that data in short runs far apart (eight pixels of one 16-channel
// block, then the next block a plane further on; a few rows of every
// channel), and on a machine whose cores share no cache each run's lines
// came at the latency of a transfer between the cores: the projections out
// of lane layout took 1.4-1.9x as long on two cores as run in turn on one
// (bench/task_times.py, MobileNetV2 and EfficientNet-B0 on Zen 5). Loaded
// once in address order first, the lines stream in, and the tiles find
// them in L2.
#pragma once

#include <cstdint>
#include <cstring>

namespace tract {
namespace rt {

// Loads every cache line of `runs` runs of `count` floats, run r at
// x + r * stride, and keeps nothing. (Their bits, xor-ed four lines side by
// side: no float add, which a denormal would slow, and no load waiting on
// the one before.)
inline void warm_lines(const float *x, int64_t runs, int64_t stride, int64_t count) {
  if (count <= 0)
    return;
  constexpr int64_t F = 16; // floats per 64-byte line
  auto bits = [](const float *q) {
    uint32_t b;
    std::memcpy(&b, q, sizeof b);
    return b;
  };
  uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int64_t r = 0; r < runs; ++r) {
    const float *p = x + r * stride;
    int64_t i = 0;
    for (; i + 4 * F <= count; i += 4 * F) {
      s0 ^= bits(p + i);
      s1 ^= bits(p + i + F);
      s2 ^= bits(p + i + 2 * F);
      s3 ^= bits(p + i + 3 * F);
    }
    for (; i < count; i += F)
      s0 ^= bits(p + i);
    s1 ^= bits(p + count - 1); // (the last line, where the run ends past a line's start)
  }
  volatile uint32_t keep = s0 ^ s1 ^ s2 ^ s3; // (so the loads stay)
  (void)keep;
}

} // namespace rt
} // namespace tract
