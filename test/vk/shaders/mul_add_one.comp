#version 450
// y[i] = x[i] * w[i] + 1 over N = 1000 floats: x at arena float 0, y at arena
// float 1024 (byte 4096), w = weight chunk 0 (binding 1). 125 groups of 8.
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) buffer Arena { float arena[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { float w[]; };

const uint N = 1000u;
const uint X = 0u;
const uint Y = 1024u;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < N)
    arena[Y + i] = arena[X + i] * w[i] + 1.0;
}
