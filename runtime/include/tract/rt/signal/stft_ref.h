// tract runtime: ONNX STFT (opset 17).
//
// signal [batch, length, components] (1: real, 2: complex as [re, im]);
// frame f is samples [f * frame_step, f * frame_step + frame_length), each
// multiplied by window[j] (nullptr: rectangular); samples outside
// [0, length) read as 0. y [batch, frames, bins, 2] is the forward DFT of
// each frame with dft_length = frame_length, bins = onesided ?
// frame_length/2 + 1 : frame_length (the first bins of the full transform).
// Accumulates in double. signal and y must not overlap.
#pragma once

#include "tract/rt/common.h"
#include "tract/rt/signal/dft_ref.h"

namespace tract {
namespace rt {

template <class T>
void stft(const T *signal, const T *window /*nullable: rectangular*/, T *y,
          int64_t batch, int64_t length, int64_t components, int64_t frame_step,
          int64_t frame_length, int64_t frames, bool onesided) {
  if (batch <= 0 || frames <= 0 || frame_length <= 0 || components <= 0)
    return;
  const int64_t bins = onesided ? frame_length / 2 + 1 : frame_length;
  const detail::DftTwiddles tw(frame_length);
  for (int64_t b = 0; b < batch; ++b) {
    const T *sb = signal + b * length * components;
    for (int64_t f = 0; f < frames; ++f) {
      const int64_t start = f * frame_step;
      auto get = [&](int64_t j, double *re, double *im) {
        const int64_t t = start + j;
        if (t < 0 || t >= length) {
          *re = *im = 0.0;
          return;
        }
        const T *v = sb + t * components;
        const double w = window ? static_cast<double>(window[j]) : 1.0;
        *re = static_cast<double>(v[0]) * w;
        *im = components >= 2 ? static_cast<double>(v[1]) * w : 0.0;
      };
      detail::dft_line(tw, get, frame_length, y + (b * frames + f) * bins * 2,
                       bins, 2, false);
    }
  }
}

} // namespace rt
} // namespace tract
