// Links two compiled models into one program: distinct --name prefixes, no
// symbol clashes, each with its own arena.
#include "first.h"
#include "second.h"

#include <cstdio>

int main() {
  alignas(64) static unsigned char arenaA[FIRST_ARENA_BYTES + 1];
  alignas(64) static unsigned char arenaB[SECOND_ARENA_BYTES + 1];
  const float x[4] = {1.0f, 2.0f, 3.0f, -4.0f};
  float y1[4] = {0, 0, 0, 0}, y2[4] = {0, 0, 0, 0};
  const void *in[1] = {x};
  void *out1[1] = {y1}, *out2[1] = {y2};
  if (first_run(in, out1, arenaA) != 0 || second_run(in, out2, arenaB) != 0)
    return 1;
  std::printf("first %g %g %g %g second %g %g %g %g\n", y1[0], y1[1], y1[2], y1[3], y2[0],
              y2[1], y2[2], y2[3]);
  return 0;
}
