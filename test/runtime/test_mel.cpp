// MelWeightMatrix against the ONNX operator example (melweightmatrix.py).
#include "tract/rt/signal/mel_ref.h"

#include <gtest/gtest.h>

#include <vector>

namespace rt = tract::rt;

TEST(MelWeightMatrix, OnnxExample) {
  // num_mel_bins 8, dft_length 16, sample_rate 8192, 0 .. 4096 Hz -> [9, 8]
  std::vector<float> y(9 * 8, -1.0f);
  rt::mel_weight_matrix(8, 16, 8192, 0.0, 4096.0, y.data(), 9, 8);
  const float first_rows[4][8] = {{1, 1, 0, 0, 0, 0, 0, 0},
                                  {0, 0, 1, 1, 0, 0, 0, 0},
                                  {0, 0, 0, 0, 1, 0, 0, 0},
                                  {0, 0, 0, 0, 0, 1, 0, 0}};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c)
      EXPECT_FLOAT_EQ(y[r * 8 + c], first_rows[r][c]) << r << "," << c;
  for (float v : y)
    EXPECT_TRUE(v >= 0.0f && v <= 1.0f);
}

TEST(MelWeightMatrix, ClipsToTheStaticShape) {
  // A smaller output than the parameters ask for: no write out of bounds.
  std::vector<double> y(3 * 2 + 1, 7.0);
  rt::mel_weight_matrix(8, 16, 8192, 0.0, 4096.0, y.data(), 3, 2);
  EXPECT_EQ(y.back(), 7.0);
}
