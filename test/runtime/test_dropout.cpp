// Dropout in training mode draws numpy's legacy MT19937 sequence, so a seed
// drops what ONNX's reference (np.random.seed + uniform) drops.
#include "tract/rt/nn/dropout_ref.h"

#include <gtest/gtest.h>

namespace {

TEST(Dropout, GeneratorMatchesNumpyRandomSample) {
  // np.random.seed(0); np.random.uniform(0, 1, 5)
  tract::rt::detail::Mt19937 rng(0);
  const double expected[] = {0.5488135, 0.71518937, 0.60276338, 0.54488318, 0.4236548};
  for (double e : expected)
    EXPECT_NEAR(rng.next_double(), e, 5e-9);
  // np.random.seed(12345); np.random.uniform(0, 1, 1000)[997:] (crosses a twist)
  tract::rt::detail::Mt19937 later(12345);
  for (int i = 0; i < 997; ++i)
    later.next_double();
  EXPECT_NEAR(later.next_double(), 0.75177981, 5e-9);
  EXPECT_NEAR(later.next_double(), 0.39004481, 5e-9);
  EXPECT_NEAR(later.next_double(), 0.3086052, 5e-9);
}

TEST(Dropout, KeepsWhereDrawIsAtLeastRatioAndScales) {
  const float x[5] = {1, -2, 3, -4, 5};
  float y[5];
  bool mask[5];
  // Draws for seed 0: 0.549 0.715 0.603 0.545 0.424; ratio 0.6 keeps 1 and 2.
  tract::rt::dropout(x, y, mask, 5, 0.6, true, 0);
  const bool keep[5] = {false, true, true, false, false};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(mask[i], keep[i]) << i;
    EXPECT_FLOAT_EQ(y[i], keep[i] ? x[i] / 0.4f : 0.0f) << i;
  }
}

TEST(Dropout, IdentityWhenNotTrainingOrRatioZero) {
  const double x[3] = {1.5, -2, 0.25};
  double y[3];
  bool mask[3] = {false, false, false};
  tract::rt::dropout(x, y, mask, 3, 0.9, false, 7);
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(y[i] == x[i] && mask[i]);
  tract::rt::dropout(x, y, static_cast<bool *>(nullptr), 3, 0.0, true, 7);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(y[i], x[i]);
}

} // namespace
