// Runs the compiled tiny_cnn once on a synthetic image and checks it against
// torch's output for the same input (tiny_cnn_expected.h). The model needs no
// heap: its scratch arena is a static buffer sized by the generated header.
#include "tiny_cnn.h"
#include "tiny_cnn_expected.h"

#include <cmath>
#include <cstdio>

namespace {
alignas(64) unsigned char arena[TINY_CNN_ARENA_BYTES > 0 ? TINY_CNN_ARENA_BYTES : 1];
float image[1 * 3 * 32 * 32];
float probabilities[10];
} // namespace

int main() {
  for (int i = 0; i < 3 * 32 * 32; ++i)
    image[i] = static_cast<float>(std::sin(0.01 * i));
  const void *inputs[] = {image};
  void *outputs[] = {probabilities};
  if (tiny_cnn_run(inputs, outputs, arena) != 0)
    return 1;

  std::printf("tiny_cnn: arena %zu bytes, weights %zu bytes\n", (size_t)TINY_CNN_ARENA_BYTES,
              (size_t)TINY_CNN_WEIGHTS_BYTES);
  int best = 0;
  float maxDiff = 0;
  for (int k = 0; k < 10; ++k) {
    std::printf("  class %d: %.6f (torch %.6f)\n", k, probabilities[k], kTinyCnnExpected[k]);
    if (probabilities[k] > probabilities[best])
      best = k;
    maxDiff = std::fmax(maxDiff, std::fabs(probabilities[k] - kTinyCnnExpected[k]));
  }
  std::printf("top class: %d; max |tractc - torch| = %.3g\n", best, maxDiff);
  if (!(maxDiff <= 1e-5f)) {
    std::printf("MISMATCH with torch\n");
    return 1;
  }
  std::printf("matches torch\n");
  return 0;
}
