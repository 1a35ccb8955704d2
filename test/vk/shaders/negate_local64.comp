#version 450
// y[i] = -y[i] at arena float 2048, N = 1000: dispatched with a zero group
// count, it must be skipped (had it run, y would come back negated).
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Arena { float arena[]; };

const uint N = 1000u;
const uint Y = 2048u;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < N)
    arena[Y + i] = -arena[Y + i];
}
