// Bare-metal entry point: runs tiny_cnn once on a synthetic image and returns
// the top class (a real firmware would read a sensor and act on the result).
#include "tiny_cnn.h"

namespace {
alignas(64) unsigned char arena[TINY_CNN_ARENA_BYTES > 0 ? TINY_CNN_ARENA_BYTES : 1];
float image[1 * 3 * 32 * 32];
float probabilities[10];
} // namespace

int main() {
  for (int i = 0; i < 3 * 32 * 32; ++i)
    image[i] = static_cast<float>(i % 17) / 17.0f - 0.5f;
  const void *inputs[] = {image};
  void *outputs[] = {probabilities};
  if (tiny_cnn_run(inputs, outputs, arena) != 0)
    return -1;
  int best = 0;
  for (int k = 1; k < 10; ++k)
    if (probabilities[k] > probabilities[best])
      best = k;
  return best;
}
