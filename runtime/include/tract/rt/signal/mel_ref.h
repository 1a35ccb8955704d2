// tract runtime: ONNX MelWeightMatrix, computed from run-time scalars.
//
// Follows ONNX's reference: num_mel_bins + 2 points evenly spaced on the mel
// scale (the step divides by the point count), mapped back to Hz and to
// spectrogram bins with floor((dft_length + 1) * hz / sample_rate); then a
// triangle per mel bin. Bins outside y's static [rows, cols] are dropped.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

template <class TO>
void mel_weight_matrix(int64_t num_mel_bins, int64_t dft_length, int64_t sample_rate, double lower_hz,
                       double upper_hz, TO *y, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows * cols; ++i)
    y[i] = TO(0);
  if (num_mel_bins < 1 || sample_rate == 0)
    return;
  const double low_mel = 2595.0 * std::log10(1.0 + lower_hz / 700.0);
  const double high_mel = 2595.0 * std::log10(1.0 + upper_hz / 700.0);
  const double step = (high_mel - low_mel) / static_cast<double>(num_mel_bins + 2);
  auto bin = [&](int64_t k) {
    const double mel = static_cast<double>(k) * step + low_mel;
    const double hz = 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0);
    return static_cast<int64_t>(std::floor(static_cast<double>(dft_length + 1) * hz /
                                           static_cast<double>(sample_rate)));
  };
  auto put = [&](int64_t r, int64_t c, double v) {
    if (r >= 0 && r < rows && c >= 0 && c < cols)
      y[r * cols + c] = static_cast<TO>(v);
  };
  for (int64_t i = 0; i < num_mel_bins; ++i) {
    const int64_t lo = bin(i), center = bin(i + 1), hi = bin(i + 2);
    const int64_t up = center - lo;
    if (up == 0)
      put(center, i, 1.0);
    else
      for (int64_t j = lo; j <= center; ++j)
        put(j, i, static_cast<double>(j - lo) / static_cast<double>(up));
    const int64_t down = hi - center;
    if (down > 0)
      for (int64_t j = center; j < hi; ++j)
        put(j, i, static_cast<double>(hi - j) / static_cast<double>(down));
  }
}

} // namespace rt
} // namespace tract
