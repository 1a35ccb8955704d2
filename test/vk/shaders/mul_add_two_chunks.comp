#version 450
// y[i] = x[i] * w0[i % len0] + w1[i % len1], N = 300, with w0 and w1 two
// weight chunks (bindings 1 and 2). Invocation 0 also stores len0 and len1 at
// arena floats 1024 and 1025: the runtime-sized arrays' lengths are the
// descriptor ranges, so they show how each chunk was bound.
// x at arena float 0, y at 512.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Arena { float arena[]; };
layout(std430, set = 0, binding = 1) readonly buffer W0 { float w0[]; };
layout(std430, set = 0, binding = 2) readonly buffer W1 { float w1[]; };

const uint N = 300u;
const uint X = 0u;
const uint Y = 512u;
const uint LEN = 1024u;

void main() {
  uint i = gl_GlobalInvocationID.x;
  uint len0 = uint(w0.length());
  uint len1 = uint(w1.length());
  if (i == 0u) {
    arena[LEN] = float(len0);
    arena[LEN + 1u] = float(len1);
  }
  if (i < N)
    arena[Y + i] = arena[X + i] * w0[i % len0] + w1[i % len1];
}
