//===- CoopMatrixGemm.cpp - a tiled GEMM on cooperative-matrix units ------===//
//
// The workgroup computes a BM x BN tile of C, its subgroups (32 wide) laid
// out WM x WN, each holding FM x FN accumulators of 16 x 16 (fp32). Per
// step of 32 along K, every invocation loads runs of 4 consecutive elements
// of each operand along its contiguous dim into registers (the next step's,
// while the matrix units work on this one), packs them as fp16 into a
// uvec2, and stores them into the other half of the double-buffered shared
// memory: A as rows of k, B as rows of n (or, contiguous along k, as
// columns: its fragments are then loaded column-major). Shared memory is
// declared as uvec2 and the fragments are loaded from it in units of 4
// halves, rows padded by 16 bytes so that a fragment's 8-row reads spread
// over the banks (NVIDIA's sample kernels for this extension use vectors
// the same way: float16_t arrays with per-element stores ran 4096^3 at 34
// TFLOP/s on the H200; this layout at 93). At the end each accumulator
// goes through a per-subgroup block of the (then free) A buffer, from which
// the invocations apply the bias and the epilogue in fp32 and store.
//
//===----------------------------------------------------------------------===//
#include "compiler/EmitSpirv/CoopMatrixGemm.h"

#include <fmt/format.h>

namespace mlir::tract {

namespace {

struct Layout {
  int64_t wm, wn, fm, fn; // subgroups along M and N, fragments per subgroup
};

Layout layoutOf(const CoopMatrixGemm &g) {
  return g.bigTile ? Layout{2, 4, 4, 2} : Layout{2, 2, 2, 2};
}

// Four floats packed as fp16.
const char *kPack = "uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw))";

// Loading one step's operands from k `kx` into registers ra / rb: run q of
// an invocation is run e = t + NT * q of the tile, 4 elements along the
// operand's contiguous dim (one 16-byte load where vecA / vecB: a
// subgroup's loads are then 512 contiguous bytes, where runs of 8 per
// invocation left every load instruction half of each 32-byte sector and
// the GEMM at 2 TB/s from L2), zero outside the GEMM and the step's K
// range.
std::string fetch(const CoopMatrixGemm &g, const char *kx, const char *indent) {
  std::string f = fmt::format("{0}[[unroll]] for (uint q = 0u; q < RA; ++q) {{\n"
                              "{0}  const uint e = t + NT * q, am = m0 + e / (BK / 4u), "
                              "ak = {1} + e % (BK / 4u) * 4u;\n"
                              "{0}  vec4 v = vec4(0.0);\n",
                              indent, kx);
  if (g.vecA)
    f += fmt::format("{0}  if (am < M && ak < kEnd) v = load_a4(bz, am, ak);\n", indent);
  else
    f += fmt::format("{0}  if (am < M)\n"
                     "{0}    [[unroll]] for (uint c = 0u; c < 4u; ++c)\n"
                     "{0}      if (ak + c < kEnd) v[c] = load_a(bz, am, ak + c);\n",
                     indent);
  f += fmt::format("{0}  ra[q] = {1};\n{0}}}\n", indent, kPack);
  if (g.bAlongK)
    f += fmt::format("{0}[[unroll]] for (uint q = 0u; q < RB; ++q) {{\n"
                     "{0}  const uint e = t + NT * q, bn = n0 + e / (BK / 4u), "
                     "bk = {1} + e % (BK / 4u) * 4u;\n"
                     "{0}  vec4 v = vec4(0.0);\n"
                     "{0}  if (bn < N)\n"
                     "{0}    [[unroll]] for (uint c = 0u; c < 4u; ++c)\n"
                     "{0}      if (bk + c < kEnd) v[c] = load_b(bz, bk + c, bn);\n",
                     indent, kx);
  else if (g.vecB)
    f += fmt::format("{0}[[unroll]] for (uint q = 0u; q < RB; ++q) {{\n"
                     "{0}  const uint e = t + NT * q, bk = {1} + e / (BN / 4u), "
                     "bn = n0 + e % (BN / 4u) * 4u;\n"
                     "{0}  vec4 v = vec4(0.0);\n"
                     "{0}  if (bk < kEnd && bn < N) v = load_b4(bz, bk, bn);\n",
                     indent, kx);
  else
    f += fmt::format("{0}[[unroll]] for (uint q = 0u; q < RB; ++q) {{\n"
                     "{0}  const uint e = t + NT * q, bk = {1} + e / (BN / 4u), "
                     "bn = n0 + e % (BN / 4u) * 4u;\n"
                     "{0}  vec4 v = vec4(0.0);\n"
                     "{0}  if (bk < kEnd)\n"
                     "{0}    [[unroll]] for (uint c = 0u; c < 4u; ++c)\n"
                     "{0}      if (bn + c < N) v[c] = load_b(bz, bk, bn + c);\n",
                     indent, kx);
  return f + fmt::format("{0}  rb[q] = {1};\n{0}}}\n", indent, kPack);
}

// Storing the registers into shared half `buf`, where fetch took them.
std::string stash(const CoopMatrixGemm &g, const char *buf, const char *indent) {
  return fmt::format("{0}[[unroll]] for (uint q = 0u; q < RA; ++q) {{\n"
                     "{0}  const uint e = t + NT * q;\n"
                     "{0}  As[{1} * A_HALF + e / (BK / 4u) * SA + e % (BK / 4u)] = ra[q];\n"
                     "{0}}}\n"
                     "{0}[[unroll]] for (uint q = 0u; q < RB; ++q) {{\n"
                     "{0}  const uint e = t + NT * q;\n"
                     "{0}  Bs[{1} * B_HALF + e / {2} * SB + e % {2}] = rb[q];\n"
                     "{0}}}\n",
                     indent, buf, g.bAlongK ? "(BK / 4u)" : "(BN / 4u)");
}

} // namespace

std::string CoopMatrixGemm::layoutLines() const {
  return fmt::format("#extension GL_NV_cooperative_matrix : require\n"
                     "#extension GL_KHR_memory_scope_semantics : require\n"
                     "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
                     "#extension GL_KHR_shader_subgroup_basic : require\n"
                     "layout(local_size_x = {}) in;",
                     invocations());
}

int64_t CoopMatrixGemm::sharedBytes() const {
  Layout l = layoutOf(*this);
  int64_t bm = l.wm * l.fm * 16, bn = l.wn * l.fn * 16;
  int64_t a = bm * (kStepK / 4 + 2), b = bAlongK ? bn * (kStepK / 4 + 2) : kStepK * (bn / 4 + 2);
  return 2 * (a + b) * 8; // two halves of uvec2s
}

std::string CoopMatrixGemm::mainSource() const {
  Layout l = layoutOf(*this);
  // The matrix units' work on the staged step, 16 of K at a time; offsets
  // and strides in uvec2s (4 halves). Unrolled here, not by [[unroll]]:
  // with the accumulators in arrays indexed by loop counters, 4096^3 took
  // 4 ms, with named ones 2.5.
  std::string multiply = "    [[unroll]] for (uint kk = 0u; kk < BK; kk += 16u) {\n";
  for (int64_t i = 0; i < l.fm; ++i)
    multiply += fmt::format("      F16 a{0};\n      coopMatLoadNV(a{0}, As, buf * A_HALF + (wm + "
                            "{1}u) * SA + kk / 4u, SA, false);\n",
                            i, i * 16);
  for (int64_t j = 0; j < l.fn; ++j)
    multiply += fmt::format(
        "      F16 b{0};\n      coopMatLoadNV(b{0}, Bs, buf * B_HALF + {1});\n", j,
        bAlongK ? fmt::format("(wn + {}u) * SB + kk / 4u, SB, true", j * 16)
                : fmt::format("kk * SB + (wn + {}u) / 4u, SB, false", j * 16));
  for (int64_t i = 0; i < l.fm; ++i)
    for (int64_t j = 0; j < l.fn; ++j)
      multiply += fmt::format("      acc{0}{1} = coopMatMulAddNV(a{0}, b{1}, acc{0}{1});\n", i, j);
  multiply += "    }\n";
  std::string declare, drain;
  for (int64_t i = 0; i < l.fm; ++i)
    for (int64_t j = 0; j < l.fn; ++j) {
      declare += fmt::format("  F32 acc{}{} = F32(0.0);\n", i, j);
      drain += fmt::format("  drain(acc{0}{1}, {0}u, {1}u);\n", i, j);
    }
  // Double-buffered: the next step's operands are loaded into registers
  // while the matrix units work on this one, then stored into the other
  // half; one barrier a step (4096^3 on the H200: 1.47 ms, against 1.55
  // single-buffered with two; a step of 64 along K, 4.5 ms: the registers
  // of 16 loads in flight).
  std::string loop = fmt::format(
      "{}  barrier();\n  uint buf = 0u;\n"
      "  for (uint k0 = kBegin; k0 < kEnd; k0 += BK) {{\n"
      "    const bool more = k0 + BK < kEnd;\n    if (more) {{\n{}    }}\n"
      "{}    if (more) {{\n{}    }}\n    barrier();\n    buf ^= 1u;\n  }}\n",
      stash(*this, "0u", "  "), fetch(*this, "k0 + BK", "      "), multiply,
      stash(*this, "(buf ^ 1u)", "      "));
  return fmt::format(
      R"(const uint M = {0}u, N = {1}u, K = {2}u, BATCHES = {3}u, SPLIT = {4}u;
const uint FM = {5}u, FN = {6}u, WN = {7}u, NT = {8}u;
const uint BM = {9}u * FM * 16u, BN = WN * FN * 16u, BK = {10}u;
const uint SA = BK / 4u + 2u, SB = {14}, A_HALF = BM * SA, B_HALF = {15};
const uint RA = BM * BK / 4u / NT, RB = BK * BN / 4u / NT;
#define F16 fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define F32 fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
shared uvec2 As[2u * A_HALF];
shared uvec2 Bs[2u * B_HALF];
uint bz, m0, n0, kBegin, kEnd, warp, lane, wm, wn;
// Bias, epilogue and store of the 16 x 16 accumulator (i, j) of this
// subgroup, staged in its 128 uvec2s of A's buffer.
void drain(F32 acc, uint i, uint j) {{
  const uint stage = warp * 128u;
  coopMatStoreNV(acc, As, stage, 8u, false);
  subgroupMemoryBarrierShared();
  subgroupBarrier();
  [[unroll]] for (uint e = lane; e < 256u; e += 32u) {{
    const uint m = m0 + wm + i * 16u + e / 16u, n = n0 + wn + j * 16u + e % 16u;
    if (m < M && n < N) {{
      const float v = uintBitsToFloat(As[stage + e / 2u][e % 2u]);
      {13}
    }}
  }}
  subgroupBarrier();
}}
void main() {{
  bz = gl_WorkGroupID.z % BATCHES;
  kBegin = gl_WorkGroupID.z / BATCHES * SPLIT;
  kEnd = min(kBegin + SPLIT, K);
  m0 = gl_WorkGroupID.y * BM;
  n0 = gl_WorkGroupID.x * BN;
  const uint t = gl_LocalInvocationID.x;
  warp = gl_SubgroupID;
  lane = gl_SubgroupInvocationID;
  wm = warp / WN * FM * 16u;
  wn = warp % WN * FN * 16u;
{16}  uvec2 ra[RA], rb[RB];
{11}{12}  // The loop's last barrier freed A's buffers for drain(): a subgroup's
  // 128 uvec2s each fit in one (8 x 128 in 128 rows of 10, 4 x 128 in 64).
{17}}}
)",
      m, n, k, batches, splitLength, l.fm, l.fn, l.wn, invocations(), l.wm, kStepK,
      fetch(*this, "kBegin", "  "), loop, store, bAlongK ? "BK / 4u + 2u" : "BN / 4u + 2u",
      bAlongK ? "BN * SB" : "BK * SB", declare, drain);
}

} // namespace mlir::tract
