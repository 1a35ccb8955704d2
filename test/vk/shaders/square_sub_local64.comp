#version 450
// Second of a chain: y[i] = t[i] * t[i] - x[i], reading what
// scale_shift_local64 wrote. x at arena float 0, t at 1024, y at 2048.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Arena { float arena[]; };

const uint N = 1000u;
const uint X = 0u;
const uint T = 1024u;
const uint Y = 2048u;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < N)
    arena[Y + i] = arena[T + i] * arena[T + i] - arena[X + i];
}
