#version 450
// First of a chain: t[i] = x[i] * 2 + 3, N = 1000 (not a multiple of the
// 64-wide groups: the last group is partly out of range). x at arena float 0,
// t at arena float 1024.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Arena { float arena[]; };

const uint N = 1000u;
const uint X = 0u;
const uint T = 1024u;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < N)
    arena[T + i] = arena[X + i] * 2.0 + 3.0;
}
