// tract runtime: the array npy.h reads into (its own header so that
// prebuilt_io.h declares the .npy functions without their definitions).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tract {
namespace rt {

struct NpyArray {
  char dtype[8]; // numpy descr without byte order, e.g. "f4", "i8", "b1", "u1"
  int rank;
  int64_t shape[8];
  void *data;
  size_t bytes;
};

} // namespace rt
} // namespace tract
