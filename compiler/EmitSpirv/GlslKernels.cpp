//===- GlslKernels.cpp - one planned kernel -> one GLSL compute shader ------===//
//
// One invocation computes one element of the kernel's output (flat index i):
// an element-wise chain reads its operands at i's broadcast indices; a conv
// or matmul anchor accumulates its element first, then the chain runs on
// it. This is the correctness baseline of the SPIR-V target (issue #7);
// tiled GEMM / conv shaders with shared memory replace the anchors' loops
// where they measure faster.
//
//===----------------------------------------------------------------------===//
#include "compiler/EmitSpirv/GlslKernels.h"
#include "compiler/EmitSpirv/CoopMatrixGemm.h"
#include "compiler/EmitSpirv/PermutedStores.h"

#include "compiler/Emit/KernelCalls.h"
#include "compiler/Support/ElementsData.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include "tract/rt/data/resize_ref.h"

#include <fmt/format.h>

#include <cassert>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>

namespace mlir::tract {

/// codegen_templates/spirv/prelude.glsl, embedded at build time.
extern const char *const kGlslPrelude;

namespace {

constexpr int64_t kLocalSize = 256;
constexpr int64_t kMaxGroupsX = 65535; // Vulkan's guaranteed maxComputeWorkGroupCount[0]

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

int64_t product(ArrayRef<int64_t> v) {
  int64_t p = 1;
  for (int64_t d : v)
    p *= d;
  return p;
}

// A GLSL float literal that reads back as exactly `value` rounded to float.
std::string glslFloat(double value) {
  float f = static_cast<float>(value);
  if (std::isnan(f) || std::isinf(f)) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return fmt::format("uintBitsToFloat(0x{:08x}u)", bits);
  }
  std::string s = fmt::format("{:.9g}", f);
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

// The GLSL expression of an element-wise op applied to `x` (and `y`), or
// nullopt when the op has no GLSL form here.
std::optional<std::string> glslElementwise(Operation *op, const std::string &x,
                                           const std::string &y) {
  auto lit = [](APFloat v) { return glslFloat(v.convertToDouble()); };
  return llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
      .Case([&](AddOp) { return fmt::format("({} + {})", x, y); })
      .Case([&](SubOp) { return fmt::format("({} - {})", x, y); })
      .Case([&](MulOp) { return fmt::format("({} * {})", x, y); })
      .Case([&](DivOp) { return fmt::format("({} / {})", x, y); })
      .Case([&](PowOp) { return fmt::format("t_pow({}, {})", x, y); })
      .Case([&](MaxOp) { return fmt::format("t_max({}, {})", x, y); })
      .Case([&](MinOp) { return fmt::format("t_min({}, {})", x, y); })
      .Case([&](FModOp) { return fmt::format("t_fmod({}, {})", x, y); })
      .Case([&](PReluOp) { return fmt::format("t_prelu({}, {})", x, y); })
      .Case([&](NegOp) { return fmt::format("(-{})", x); })
      .Case([&](AbsOp) { return fmt::format("abs({})", x); })
      .Case([&](SqrtOp) { return fmt::format("sqrt({})", x); })
      .Case([&](ExpOp) { return fmt::format("exp({})", x); })
      .Case([&](LogOp) { return fmt::format("log({})", x); })
      .Case([&](ErfOp) { return fmt::format("t_erf({})", x); })
      .Case([&](ReluOp) { return fmt::format("t_relu({})", x); })
      .Case([&](SigmoidOp) { return fmt::format("t_sigmoid({})", x); })
      .Case([&](TanhOp) { return fmt::format("t_tanh({})", x); })
      .Case([&](FloorOp) { return fmt::format("floor({})", x); })
      .Case([&](CeilOp) { return fmt::format("ceil({})", x); })
      .Case([&](RoundOp) { return fmt::format("roundEven({})", x); })
      .Case([&](SinOp) { return fmt::format("sin({})", x); })
      .Case([&](CosOp) { return fmt::format("cos({})", x); })
      .Case([&](TanOp) { return fmt::format("tan({})", x); })
      .Case([&](AsinOp) { return fmt::format("asin({})", x); })
      .Case([&](AcosOp) { return fmt::format("acos({})", x); })
      .Case([&](AtanOp) { return fmt::format("atan({})", x); })
      .Case([&](SinhOp) { return fmt::format("sinh({})", x); })
      .Case([&](CoshOp) { return fmt::format("cosh({})", x); })
      .Case([&](AsinhOp) { return fmt::format("asinh({})", x); })
      .Case([&](AcoshOp) { return fmt::format("acosh({})", x); })
      .Case([&](AtanhOp) { return fmt::format("atanh({})", x); })
      .Case([&](ReciprocalOp) { return fmt::format("(1.0 / {})", x); })
      .Case([&](SignOp) { return fmt::format("sign({})", x); })
      .Case([&](SoftplusOp) { return fmt::format("t_softplus({})", x); })
      .Case([&](SoftsignOp) { return fmt::format("({0} / (1.0 + abs({0})))", x); })
      .Case([&](HardSwishOp) { return fmt::format("({0} * clamp({0} / 6.0 + 0.5, 0.0, 1.0))", x); })
      .Case([&](MishOp) { return fmt::format("({0} * t_tanh(t_softplus({0})))", x); })
      .Case([&](SiluOp) { return fmt::format("({0} * t_sigmoid({0}))", x); })
      .Case([&](GeluOp) { return fmt::format("t_gelu({})", x); })
      .Case([&](GeluTanhOp) { return fmt::format("t_gelu_tanh({})", x); })
      .Case([&](LeakyReluOp o) {
        return fmt::format("t_leaky_relu({}, {})", x, lit(o.getAlphaAttr().getValue()));
      })
      .Case([&](HardSigmoidOp o) {
        return fmt::format("clamp({} * {} + {}, 0.0, 1.0)", lit(o.getAlphaAttr().getValue()), x,
                           lit(o.getBetaAttr().getValue()));
      })
      .Case([&](ClipOp o) {
        return fmt::format("t_clip({}, {}, {})", x, glslFloat(o.getMinAttr().getValueAsDouble()),
                           glslFloat(o.getMaxAttr().getValueAsDouble()));
      })
      .Case([&](EluOp o) {
        return fmt::format("t_elu({}, {})", x, lit(o.getAlphaAttr().getValue()));
      })
      .Case([&](SeluOp o) {
        return fmt::format("(t_elu({}, {}) * {})", x, lit(o.getAlphaAttr().getValue()),
                           lit(o.getGammaAttr().getValue()));
      })
      .Case([&](CeluOp o) {
        return fmt::format("t_celu({}, {})", x, lit(o.getAlphaAttr().getValue()));
      })
      .Case([&](ThresholdedReluOp o) {
        return fmt::format("({0} > {1} ? {0} : 0.0)", x, lit(o.getAlphaAttr().getValue()));
      })
      .Case([&](ShrinkOp o) {
        return fmt::format("t_shrink({}, {}, {})", x, lit(o.getBiasAttr().getValue()),
                           lit(o.getLambdAttr().getValue()));
      })
      .Default([](Operation *) { return std::nullopt; });
}

// A reduction's accumulator `acc`: its initial value, the step folding in
// element x, the result (COUNT: the number of elements); `sum` when the
// partial accumulators of a split run add up (not max, min or prod).
struct ReduceKind {
  const char *init, *step, *result;
  bool sum;
  std::string resultOf(int64_t count) const {
    std::string r = result;
    if (size_t at = r.find("COUNT"); at != std::string::npos)
      r.replace(at, 5, glslFloat((double)count));
    return r;
  }
};

std::optional<ReduceKind> reduceKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<ReduceKind>>(op)
      .Case([](ReduceSumOp) { return ReduceKind{"0.0", "acc += x;", "acc", true}; })
      .Case([](ReduceMeanOp) { return ReduceKind{"0.0", "acc += x;", "acc / COUNT", true}; })
      .Case([](ReduceMaxOp) {
        return ReduceKind{"-uintBitsToFloat(0x7f800000u)", "acc = t_max(acc, x);", "acc", false};
      })
      .Case([](ReduceMinOp) {
        return ReduceKind{"uintBitsToFloat(0x7f800000u)", "acc = t_min(acc, x);", "acc", false};
      })
      .Case([](ReduceProdOp) { return ReduceKind{"1.0", "acc *= x;", "acc", false}; })
      .Case([](ReduceSumSquareOp) { return ReduceKind{"0.0", "acc += x * x;", "acc", true}; })
      .Case([](ReduceL1Op) { return ReduceKind{"0.0", "acc += abs(x);", "acc", true}; })
      .Case([](ReduceL2Op) { return ReduceKind{"0.0", "acc += x * x;", "sqrt(acc)", true}; })
      .Case([](ReduceLogSumOp) { return ReduceKind{"0.0", "acc += x;", "log(acc)", true}; })
      .Default([](Operation *) { return std::nullopt; });
}

// A workgroup-wide reduction `name(v)` of its invocations' values: each
// subgroup's through subgroup arithmetic (`subgroupOp`), then the subgroups'
// (4 of 32 lanes on NVIDIA, 16 of 8 on lavapipe) through the shared `red`
// (`combine` folds red[s] into r). Every invocation gets the result.
std::string workgroupReduction(const char *name, const char *subgroupOp, const char *combine) {
  return fmt::format(R"(float {}(float v) {{
  float r = {}(v);
  if (subgroupElect())
    red[gl_SubgroupID] = r;
  barrier();
  r = red[0];
  for (uint s = 1u; s < gl_NumSubgroups; ++s)
    r = {};
  barrier();
  return r;
}}
)",
                     name, subgroupOp, combine);
}

// The shader of one kernel, built up line by line.
class ShaderBuilder {
public:
  ShaderBuilder(const Kernel &k, const GpuLayout &layout, const GlslOptions &options,
                int64_t scratchOffset)
      : k(k), layout(layout), options(options), scratchOffset(scratchOffset) {}

  FailureOr<std::vector<GlslKernel>> build();

private:
  // Operand `v` of the kernel at element index `index` (a GLSL uint expression).
  std::string load(Value v, const std::string &index) const {
    if (auto p = layout.permutedStores.find(v); p != layout.permutedStores.end()) {
      // Only the producer touches v: its stores go to the transpose's output.
      GpuLocation to = layout.where.lookup(p->second.to);
      return fmt::format("{}[{}u + ({})]", bufferOf(to), to.offset,
                         permutedIndex(typeOf(v).getShape(), p->second.perm, index));
    }
    GpuLocation at = layout.where.lookup(v);
    return fmt::format("{}[{}u + ({})]", bufferOf(at), at.offset, index);
  }
  // Four floats of `v` from element `index` on (a multiple of 4 when v's
  // offset is: vec4Aligned), through the buffer's vec4 view.
  std::string load4(Value v, const std::string &index) {
    GpuLocation at = layout.where.lookup(v);
    vec4Views = true;
    return fmt::format("{}v[({}u + ({})) / 4u]", bufferOf(at), at.offset, index);
  }
  bool vec4Aligned(Value v) const { return layout.where.lookup(v).offset % 4 == 0; }
  std::string bufferOf(GpuLocation at) const {
    return at.chunk < 0 ? std::string("arena")
                        : fmt::format("w{}", at.chunk - (int)firstChunk + 1);
  }
  // The element-wise ops of `ops` on element i of `out`, with `acc` (when
  // set) already computed in `accName`; returns the name of `last`'s value.
  FailureOr<std::string> elementChain(llvm::iterator_range<Block::iterator> ops, Value acc,
                                      const std::string &accName, RankedTensorType out,
                                      Value last, KernelOp kernel);
  // One loop per spatial dim d over the window taps k<d> of output
  // coordinate o<d>, skipping taps outside x (N, C, spatial...); returns
  // x's index of the tap from `plane` (the index of its (n, c) plane) and
  // leaves `indent` inside the loops.
  std::string openWindow(ArrayRef<int64_t> x, ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                         ArrayRef<int64_t> dilations, ArrayRef<int64_t> pads, std::string plane,
                         std::string &indent);
  FailureOr<std::string> convElement(ConvOp conv, KernelOp kernel);
  FailureOr<std::string> matmulElement(MatMulOp matmul, KernelOp kernel);
  FailureOr<std::string> convTransposeElement(ConvTransposeOp ct, KernelOp kernel);
  // A conv or matmul as a GEMM for the tiled shader, per batch (z) index:
  // C[m][n] = sum_k A[m][k] * B[k][n] (+ bias[m]), written at out_index.
  // The functions load_a, load_b, out_index, bias_of go into `functions`.
  // vecA / vecB: load_a4(bz, m, k) reads A[m][k..k+3] (k a multiple of
  // 4), load_b4(bz, k, n) B[k][n..n+3]: one 16-byte load where the operand
  // is contiguous and aligned along that dim (4096^3 on the H200: 33.8 ->
  // 41.1 TFLOP/s with B's).
  // bAlongK: B is contiguous along k (a matmul's transposed B).
  // bColumns: a conv's B, whose column n is an output pixel: b_column(bz,
  // n, base, origin) gives its window's origin once, load_b_at(base,
  // origin, k) tap k of it (load_b recomputes the pixel's coordinates at
  // every k: ResNet-18's kernels 0.474 -> 0.461 ms on the H200).
  struct TiledGemm {
    int64_t m, n, k, batches;
    // vecA / vecB: the operand can be read as vec4s (load_a4 / load_b4
    // exist); the tile shape decides whether A is.
    bool vecA = false, vecB = false, bAlongK = false, bColumns = false, matmul = false;
  };
  std::optional<TiledGemm> tiledGemm(Operation *anchor, KernelOp kernel);
  // How the tiled shader cuts the GEMM: 16r x 16r tiles on 16 x ty
  // invocations (each r columns by 16r / ty rows), kb of K per step, K in
  // `splits` ranges of splitLength; vecA: A read as vec4s. The
  // cooperative-matrix shader takes the same tiles (r = 8: 128 x 128, else
  // 64 x 64) and its own kb.
  struct TileShape {
    int64_t r = 4, ty = 16, kb = 16, splits = 1, splitLength = 0;
    bool vecA = false;
  };
  static TileShape tileShape(const TiledGemm &g, bool coopMatrix);
  // A GEMM's first dispatch: its tiles along x and y, batches and K's
  // ranges along z; and the statement storing `value` at (bz, m, n): raw
  // into the scratch with K split, else with the bias and the epilogue.
  GlslKernel gemmDispatch(const TiledGemm &g, const TileShape &shape) const;
  std::string gemmStore(const TileShape &shape, const std::string &value) const;
  // The tiled shader's source: 16 x 16 invocations through shared memory;
  // the fused chain (`functions`' epilogue(acc, i)) applied at the store,
  // or, with K split, the partial sums written to the scratch.
  GlslKernel tiledShader(const TiledGemm &g, const TileShape &shape);
  // The same on cooperative-matrix units, fp16 operands (--fp16-gemm).
  GlslKernel coopMatrixShader(const TiledGemm &g, const TileShape &shape);
  // The second dispatch of a split K: adds the partial sums, the bias and
  // the epilogue, an invocation per output.
  GlslKernel splitSumShader(const TiledGemm &g, const TileShape &shape);
  // The same GEMM with each workgroup computing 8 outputs, 32 invocations
  // each summing every 32nd term of one, then a shared-memory tree (a
  // batch-1 fully connected layer's one row).
  GlslKernel dotProductShader(const TiledGemm &g);
  // A dispatch binding this kernel's weight chunks, its `groups`
  // workgroups along x (Vulkan guarantees 65535 there), then y.
  GlslKernel dispatch(int64_t groups) const {
    GlslKernel g;
    g.firstChunk = firstChunk;
    g.weightChunks = chunks;
    g.groups[0] = (uint32_t)std::min(groups, kMaxGroupsX);
    g.groups[1] = (uint32_t)((groups + kMaxGroupsX - 1) / kMaxGroupsX);
    return g;
  }
  // Records that `g` writes or reads `partials` partial sums from the
  // kernel's scratch slot.
  void usesScratch(GlslKernel &g, int64_t partials) const {
    g.scratchOffset = scratchOffset;
    g.scratchFloats = partials;
  }
  // The parts every shader starts with: version, name, bindings, prelude,
  // the kernel's functions.
  std::string header(StringRef what, StringRef layout) const;
  // Kernels whose invocation computes one element of their output through a
  // loop of their own (a reduction, a pooling window): the value's name.
  std::optional<std::string> reduceElement(Operation *op);
  // ArgMax / ArgMin of f32: an invocation per output, the int64 index
  // stored as two 32-bit words (low, then 0: GLSL has no 64-bit integers
  // without an extension; an index is never negative).
  FailureOr<GlslKernel> argReduceShader(Operation *op);
  // A sum-like reduction over trailing dims with long runs: a workgroup of
  // 128 per output, reduced through subgroup arithmetic.
  std::optional<GlslKernel> reduceRowShader(Operation *op);
  std::optional<std::string> poolElement(Operation *op);
  // Data movement: element i of the output read from one place of an
  // operand (slice, broadcast, concat).
  std::optional<std::string> movedElement(Operation *op);
  // Resize with static scales: each axis's taps (positions and weights,
  // from the runtime's reference code: the CPU target's numbers) computed
  // here, per output coordinate, and baked into the shader as tables.
  FailureOr<std::string> resizeElement(ResizeOp resize);
  // Kernels whose invocation writes a whole row (softmax along an axis,
  // layer norm): the invocation count; the body stores the row itself.
  std::optional<int64_t> axisRows(Operation *op);
  // Softmax, log-softmax and layer norm on rows of 32 or more: one
  // workgroup of 128 per row, its reductions through shared memory (an
  // invocation per row left an encoder's 128 layer-norm rows to one
  // workgroup: 97 us each on the H200).
  std::optional<GlslKernel> rowShader(Operation *op);
  // Loops over the dims of `shape` selected by `dims`, indexing x at
  // `base` + sum of their positions times their strides; `visit` gets the
  // index expression and the indentation.
  void loopOver(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims, const std::string &base,
                const std::string &indent,
                const std::function<void(const std::string &, const std::string &)> &visit);
  // The kernel operand a body value reads (a block argument), or `v` itself
  // for a standalone op.
  Value outer(Value v, KernelOp kernel) const {
    if (auto arg = dyn_cast<BlockArgument>(v); arg && kernel)
      return kernel.getInputs()[arg.getArgNumber()];
    return v;
  }
  std::string fresh(StringRef stem) { return fmt::format("{}{}", stem.str(), counter++); }

  const Kernel &k;
  const GpuLayout &layout;
  const GlslOptions &options;
  int64_t scratchOffset; // floats: where a split K's partial sums go
  uint32_t firstChunk = 0, chunks = 0;
  std::string functions, body;
  int counter = 0;
  bool vec4Views = false; // the shader reads through load4
};

FailureOr<std::string> ShaderBuilder::elementChain(llvm::iterator_range<Block::iterator> ops,
                                                   Value acc, const std::string &accName,
                                                   RankedTensorType out, Value last,
                                                   KernelOp kernel) {
  llvm::DenseMap<Value, std::string> names;
  if (acc)
    names[acc] = accName;
  auto nameOf = [&](Value v) -> std::string {
    if (auto it = names.find(v); it != names.end())
      return it->second;
    std::string name = fresh("a");
    body += fmt::format("  const float {} = {};\n", name,
                        load(outer(v, kernel), broadcastIndex(typeOf(v).getShape(), out.getShape())));
    return names[v] = name;
  };
  for (Operation &op : ops) {
    if (auto t = dyn_cast<TransposeOp>(op)) {
      std::string name = fresh("t");
      body += fmt::format("  const float {} = {};\n", name,
                          load(outer(t.getInput(), kernel),
                               transposedIndex(typeOf(t.getInput()).getShape(), t.getPerm(),
                                               out.getShape())));
      names[t.getResult()] = name;
      continue;
    }
    if (auto c = dyn_cast<ConstOp>(op)) {
      std::string bytes = elementsBytes(c.getValue());
      float f = 0;
      if (bytes.size() != sizeof f)
        return op.emitError("a fused constant that is not one f32 is not supported by "
                            "--target=spirv yet");
      std::memcpy(&f, bytes.data(), sizeof f);
      names[c.getResult()] = glslFloat(f);
      continue;
    }
    std::string x = nameOf(op.getOperand(0));
    std::string y = op.getNumOperands() > 1 ? nameOf(op.getOperand(1)) : std::string();
    std::optional<std::string> expr = glslElementwise(&op, x, y);
    if (!expr)
      return op.emitError("not supported by --target=spirv yet: ") << op.getName();
    std::string name = fresh("v");
    body += fmt::format("  const float {} = {};\n", name, *expr);
    names[op.getResult(0)] = name;
  }
  return nameOf(last);
}

std::string ShaderBuilder::openWindow(ArrayRef<int64_t> x, ArrayRef<int64_t> kernel,
                                      ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                                      ArrayRef<int64_t> pads, std::string plane,
                                      std::string &indent) {
  for (size_t d = 0; d < kernel.size(); ++d) {
    body += fmt::format("{0}for (uint k{1} = 0u; k{1} < {2}u; ++k{1}) {{\n", indent, d, kernel[d]);
    indent += "  ";
    body += fmt::format("{0}const int p{1} = int(o{1} * {2}u + k{1} * {3}u) - {4};\n", indent, d,
                        strides[d], dilations[d], pads[d]);
    body += fmt::format("{0}if (p{1} < 0 || p{1} >= {2}) continue;\n", indent, d, x[2 + d]);
    plane = fmt::format("({} * {}u + uint(p{}))", plane, x[2 + d], d);
  }
  return plane;
}

// acc = bias[oc] + sum over the group's input channels and the window taps
// in bounds of x * w, for output element i = (n, oc, spatial...).
FailureOr<std::string> ShaderBuilder::convElement(ConvOp conv, KernelOp kernel) {
  auto x = typeOf(conv.getInput()), w = typeOf(conv.getWeight()), y = typeOf(conv.getResult());
  int64_t rank = y.getRank() - 2, group = conv.getGroup();
  int64_t oc = y.getDimSize(1), cg = x.getDimSize(1) / group, ocg = oc / group;
  auto strides = conv.getStrides(), dilations = conv.getDilations(), pads = conv.getPads();
  body += "  uint r = i;\n";
  for (int64_t d = rank - 1; d >= 0; --d)
    body += fmt::format("  const uint o{0} = r % {1}u; r /= {1}u;\n", d, y.getDimSize(2 + d));
  body += fmt::format("  const uint oc = r % {0}u; const uint n = r / {0}u;\n", oc);
  std::string acc = conv.getBias() ? load(outer(conv.getBias(), kernel), "oc") : "0.0";
  body += fmt::format("  float acc = {};\n", acc);
  body += fmt::format("  for (uint c = 0u; c < {}u; ++c) {{\n", cg);
  body += fmt::format("    const uint ic = oc / {}u * {}u + c;\n", ocg, cg);
  std::string indent = "    ", xIndex = fmt::format("(n * {}u + ic)", x.getDimSize(1)),
              wIndex = fmt::format("(oc * {}u + c)", cg);
  xIndex = openWindow(x.getShape(), w.getShape().drop_front(2), strides, dilations, pads, xIndex,
                      indent);
  for (int64_t d = 0; d < rank; ++d)
    wIndex = fmt::format("({} * {}u + k{})", wIndex, w.getDimSize(2 + d), d);
  body += fmt::format("{}acc += {} * {};\n", indent, load(outer(conv.getInput(), kernel), xIndex),
                      load(outer(conv.getWeight(), kernel), wIndex));
  for (int64_t d = rank; d >= 0; --d) {
    indent.resize(indent.size() - 2);
    body += indent + "}\n";
  }
  return std::string("acc");
}

FailureOr<std::string> ShaderBuilder::resizeElement(ResizeOp resize) {
  // Tables of up to 4 taps per output coordinate: at most this many
  // coordinates over the interpolated axes.
  constexpr int64_t kMaxTableCoords = 1 << 14;
  auto x = typeOf(resize.getInput()), y = typeOf(resize.getResult());
  int64_t rank = x.getRank();
  if (resize.getRuntimeScales() || resize.getRuntimeRoi())
    return resize.emitError("not supported by --target=spirv yet: ")
           << "Resize with scales or roi computed at run time";
  if (rank > ::tract::rt::kMaxRank || x.getNumElements() == 0)
    return resize.emitError("not supported by --target=spirv yet: ")
           << "Resize of rank " << rank << " or of an empty input";
  const ::tract::rt::ResizeParams p = resizeParamsOf(resize);

  // Output coordinate o<d>; an axis whose every coordinate reads its own
  // position with weight 1 adds o<d> * stride, the others loop over their
  // taps (none: tf_crop_and_resize outside the roi).
  int64_t coords = 0;
  std::string base = "0u", tables, loops, weight = "1.0", offset = "base", closes;
  SmallVector<int64_t> strides(rank);
  for (int64_t d = rank - 1, st = 1; d >= 0; st *= x.getDimSize(d), --d)
    strides[d] = st;
  body += "  bool outside = false;\n  uint r = i;\n";
  for (int64_t d = rank - 1; d >= 0; --d)
    body += fmt::format("  const uint o{0} = r % {1}u; r /= {1}u;\n", d, y.getDimSize(d));
  std::string indent = "  ";
  for (int64_t d = 0; d < rank; ++d) {
    ::tract::rt::detail::ResizeAxis axis;
    ::tract::rt::detail::resize_axis_setup(p, (int)d, strides[d], &axis);
    SmallVector<std::string> counts, offsets, weights;
    bool identity = y.getDimSize(d) == x.getDimSize(d);
    for (int64_t o = 0; o < y.getDimSize(d); ++o) {
      ::tract::rt::detail::ResizeTaps taps;
      ::tract::rt::detail::resize_taps(p, axis, o, &taps);
      int n = taps.outside ? 0 : taps.n;
      identity &= n == 1 && taps.off[0] == o * strides[d] && taps.c[0] == 1.0;
      counts.push_back(fmt::format("{}u", n));
      for (int t = 0; t < 4; ++t) {
        offsets.push_back(fmt::format("{}u", t < n ? taps.off[t] : 0));
        weights.push_back(glslFloat(t < n ? taps.c[t] : 0.0));
      }
    }
    if (identity) {
      base = fmt::format("{} + o{} * {}u", base, d, strides[d]);
      continue;
    }
    coords += y.getDimSize(d);
    if (coords > kMaxTableCoords)
      return resize.emitError("not supported by --target=spirv yet: ")
             << "Resize to more than " << kMaxTableCoords << " coordinates";
    tables += fmt::format("const uint N{0}[] = uint[]({1});\nconst uint A{0}[] = uint[]({2});\n"
                          "const float W{0}[] = float[]({3});\n",
                          d, llvm::join(counts, ", "), llvm::join(offsets, ", "),
                          llvm::join(weights, ", "));
    loops += fmt::format("{0}for (uint t{1} = 0u; t{1} < N{1}[o{1}]; ++t{1}) {{\n", indent, d);
    indent += "  ";
    weight += fmt::format(" * W{0}[o{0} * 4u + t{0}]", d);
    offset += fmt::format(" + A{0}[o{0} * 4u + t{0}]", d);
    closes = indent.substr(2) + "}\n" + closes;
    body += fmt::format("  if (N{0}[o{0}] == 0u) outside = true;\n", d);
  }
  functions += tables;
  body += fmt::format("  const uint base = {};\n  float acc = 0.0;\n{}{}acc += {} * {};\n{}",
                      base, loops, indent, weight, load(resize.getInput(), offset), closes);
  body += fmt::format("  const float res = outside ? {} : acc;\n",
                      glslFloat(p.extrapolation_value));
  return std::string("res");
}

// acc = bias[oc] + sum over the group's input channels ic and the kernel
// taps k of x[n, ic, p] * w[ic, oc in its group, k], for output element
// i = (n, oc, o...) and each input position p with p * stride + k *
// dilation - pad_begin = o (per spatial dim).
FailureOr<std::string> ShaderBuilder::convTransposeElement(ConvTransposeOp ct, KernelOp kernel) {
  auto x = typeOf(ct.getInput()), w = typeOf(ct.getWeight()), y = typeOf(ct.getResult());
  int64_t rank = y.getRank() - 2, group = ct.getGroup();
  int64_t oc = y.getDimSize(1), cg = x.getDimSize(1) / group, ocg = oc / group;
  auto strides = ct.getStrides(), dilations = ct.getDilations(), pads = ct.getPads();
  body += "  uint r = i;\n";
  for (int64_t d = rank - 1; d >= 0; --d)
    body += fmt::format("  const uint o{0} = r % {1}u; r /= {1}u;\n", d, y.getDimSize(2 + d));
  body += fmt::format("  const uint oc = r % {0}u; const uint n = r / {0}u;\n", oc);
  body += fmt::format("  const uint g = oc / {0}u, j = oc % {0}u;\n", ocg);
  std::string acc = ct.getBias() ? load(outer(ct.getBias(), kernel), "oc") : "0.0";
  body += fmt::format("  float acc = {};\n", acc);
  body += fmt::format("  for (uint c = 0u; c < {}u; ++c) {{\n", cg);
  body += fmt::format("    const uint ic = g * {}u + c;\n", cg);
  std::string indent = "    ", xIndex = fmt::format("(n * {}u + ic)", x.getDimSize(1)),
              wIndex = fmt::format("(ic * {}u + j)", ocg);
  for (int64_t d = 0; d < rank; ++d) {
    body += fmt::format("{0}for (uint k{1} = 0u; k{1} < {2}u; ++k{1}) {{\n", indent, d,
                        w.getDimSize(2 + d));
    indent += "  ";
    // q = p * stride: a tap reaches o only from a whole input position.
    body += fmt::format("{0}const int q{1} = int(o{1}) + {2} - int(k{1} * {3}u);\n"
                        "{0}if (q{1} < 0 || q{1} % {4} != 0 || q{1} / {4} >= {5}) continue;\n",
                        indent, d, pads[d], dilations[d], strides[d], x.getDimSize(2 + d));
    xIndex = fmt::format("({} * {}u + uint(q{} / {}))", xIndex, x.getDimSize(2 + d), d, strides[d]);
    wIndex = fmt::format("({} * {}u + k{})", wIndex, w.getDimSize(2 + d), d);
  }
  body += fmt::format("{}acc += {} * {};\n", indent, load(outer(ct.getInput(), kernel), xIndex),
                      load(outer(ct.getWeight(), kernel), wIndex));
  for (int64_t d = rank; d >= 0; --d) {
    indent.resize(indent.size() - 2);
    body += indent + "}\n";
  }
  return std::string("acc");
}

// acc = sum over k of A[batch, m, k] * B[batch, k, n] (either transposed),
// the batch dims broadcast, for output element i = (batch..., m, n).
FailureOr<std::string> ShaderBuilder::matmulElement(MatMulOp mm, KernelOp kernel) {
  auto a = typeOf(mm.getLhs()), b = typeOf(mm.getRhs()), y = typeOf(mm.getResult());
  int64_t m = y.getDimSize(y.getRank() - 2), n = y.getDimSize(y.getRank() - 1);
  int64_t kk = mm.getTransposeA() ? a.getDimSize(a.getRank() - 2) : a.getDimSize(a.getRank() - 1);
  ArrayRef<int64_t> batch = y.getShape().drop_back(2);
  // The batch index of each operand: a function of the output's batch index.
  auto batchOf = [&](RankedTensorType t, StringRef fn) {
    functions += fmt::format("uint {}(uint i) {{ return {}; }}\n", fn.str(),
                             broadcastIndex(t.getShape().drop_back(2), batch));
  };
  batchOf(a, "batch_a");
  batchOf(b, "batch_b");
  body += fmt::format("  const uint col = i % {0}u, row = i / {0}u % {1}u, bt = i / {2}u;\n", n,
                      m, m * n);
  std::string aIndex = mm.getTransposeA() ? fmt::format("k * {}u + row", m)
                                          : fmt::format("row * {}u + k", kk);
  std::string bIndex = mm.getTransposeB() ? fmt::format("col * {}u + k", kk)
                                          : fmt::format("k * {}u + col", n);
  body += fmt::format("  const uint abase = batch_a(bt) * {}u, bbase = batch_b(bt) * {}u;\n",
                      m * kk, kk * n);
  body += "  float acc = 0.0;\n";
  body += fmt::format("  for (uint k = 0u; k < {}u; ++k)\n", kk);
  body += fmt::format("    acc += {} * {};\n",
                      load(outer(mm.getLhs(), kernel), "abase + " + aIndex),
                      load(outer(mm.getRhs(), kernel), "bbase + " + bIndex));
  return std::string("acc");
}

void ShaderBuilder::loopOver(
    ArrayRef<int64_t> shape, ArrayRef<int64_t> dims, const std::string &base,
    const std::string &indent,
    const std::function<void(const std::string &, const std::string &)> &visit) {
  std::string index = base, in = indent;
  for (int64_t d : dims) {
    int64_t stride = 1;
    for (size_t e = d + 1; e < shape.size(); ++e)
      stride *= shape[e];
    std::string r = fmt::format("r{}", d);
    body += fmt::format("{0}for (uint {1} = 0u; {1} < {2}u; ++{1}) {{\n", in, r, shape[d]);
    in += "  ";
    index += fmt::format(" + {} * {}u", r, stride);
  }
  visit(index, in);
  for (size_t d = 0; d < dims.size(); ++d) {
    in.resize(in.size() - 2);
    body += in + "}\n";
  }
}

// acc over the reduced axes of the input for output element i (the output's
// flat order is the input's with the reduced dims taken out, keep_dims or
// not).
std::optional<std::string> ShaderBuilder::reduceElement(Operation *op) {
  Value x = op->getOperand(0);
  ArrayRef<int64_t> shape = typeOf(x).getShape();
  auto axesAttr = op->getAttrOfType<DenseI64ArrayAttr>("axes");
  if (!axesAttr)
    return std::nullopt;
  SmallVector<int64_t> axes;
  for (int64_t a : axesAttr.asArrayRef())
    axes.push_back(a < 0 ? a + (int64_t)shape.size() : a);
  llvm::sort(axes);
  std::optional<ReduceKind> kind = reduceKind(op);
  if (!kind)
    return std::nullopt;
  int64_t count = 1;
  for (int64_t a : axes)
    count *= shape[a];
  // The kept dims' coordinates of element i, then their offset in x.
  body += "  uint r = i;\n  uint base = 0u;\n";
  for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
    if (llvm::is_contained(axes, d))
      continue;
    int64_t stride = 1;
    for (size_t e = d + 1; e < shape.size(); ++e)
      stride *= shape[e];
    body += fmt::format("  base += r % {0}u * {1}u; r /= {0}u;\n", shape[d], stride);
  }
  body += fmt::format("  float acc = {};\n", kind->init);
  loopOver(shape, axes, "base", "  ", [&](const std::string &index, const std::string &in) {
    body += fmt::format("{}const float x = {};\n{}{}\n", in, load(x, index), in, kind->step);
  });
  body += fmt::format("  const float red = {};\n", kind->resultOf(count));
  return std::string("red");
}

std::optional<GlslKernel> ShaderBuilder::reduceRowShader(Operation *op) {
  // Per output, a run of at least this many contiguous elements: a loop of
  // one invocation took EfficientNet-B0's squeeze-and-excitation means (32
  // outputs of 112 x 112) ~0.1 ms each on the H200.
  constexpr int64_t kMinCount = 512;
  std::optional<ReduceKind> kind = reduceKind(op);
  auto axesAttr = op->getAttrOfType<DenseI64ArrayAttr>("axes");
  if (!kind || !kind->sum || !axesAttr)
    return std::nullopt;
  Value x = op->getOperand(0);
  ArrayRef<int64_t> shape = typeOf(x).getShape();
  int64_t rank = (int64_t)shape.size();
  SmallVector<int64_t> axes;
  for (int64_t a : axesAttr.asArrayRef())
    axes.push_back(a < 0 ? a + rank : a);
  llvm::sort(axes);
  // The trailing dims, each once: output i reads x[i * count, (i+1) * count).
  for (auto [n, a] : llvm::enumerate(axes))
    if (a != rank - (int64_t)axes.size() + (int64_t)n)
      return std::nullopt;
  int64_t count = product(shape.take_back(axes.size()));
  if (axes.empty() || count < kMinCount)
    return std::nullopt;
  int64_t outputs = typeOf(x).getNumElements() / count;
  GlslKernel g = dispatch(outputs);
  std::string step = kind->step;
  g.source = header(" (a workgroup per output)",
                    "#extension GL_KHR_shader_subgroup_arithmetic : require\n"
                    "layout(local_size_x = 128) in;") +
             "shared float red[128];\n" +
             workgroupReduction("reduce_sum", "subgroupAdd", "r + red[s]") +
             fmt::format(R"(void main() {{
  const uint o = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (o >= {0}u)
    return; // the whole workgroup: barriers stay uniform
  float acc = 0.0;
  for (uint j = gl_LocalInvocationID.x; j < {1}u; j += 128u) {{
    const float x = {2};
    {3}
  }}
  acc = reduce_sum(acc);
  if (gl_LocalInvocationID.x == 0u)
    {4} = {5};
}}
)",
                         outputs, count, load(x, fmt::format("o * {}u + j", count)), step,
                         load(op->getResult(0), "o"), kind->resultOf(count));
  g.subgroupArithmetic = true;
  return g;
}

// Max or average over the window of output element i = (n, c, spatial...),
// taps outside the input skipped (average: counted too with
// count_include_pad).
std::optional<std::string> ShaderBuilder::poolElement(Operation *op) {
  if (!isa<MaxPoolOp, AvgPoolOp>(op))
    return std::nullopt;
  bool isMax = isa<MaxPoolOp>(op);
  auto x = typeOf(op->getOperand(0)), y = typeOf(op->getResult(0));
  ArrayRef<int64_t> kernel = op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape").asArrayRef(),
                    strides = op->getAttrOfType<DenseI64ArrayAttr>("strides").asArrayRef(),
                    dilations = op->getAttrOfType<DenseI64ArrayAttr>("dilations").asArrayRef(),
                    pads = op->getAttrOfType<DenseI64ArrayAttr>("pads").asArrayRef();
  bool includePad = !isMax && cast<AvgPoolOp>(op).getCountIncludePad();
  int64_t rank = y.getRank() - 2;
  body += "  uint r = i;\n";
  for (int64_t d = rank - 1; d >= 0; --d)
    body += fmt::format("  const uint o{0} = r % {1}u; r /= {1}u;\n", d, y.getDimSize(2 + d));
  body += fmt::format("  float acc = {};\n  float count = 0.0;\n",
                      isMax ? "-uintBitsToFloat(0x7f800000u)" : "0.0");
  std::string indent = "  ", index = "r";
  index = openWindow(x.getShape(), kernel, strides, dilations, pads, index, indent);
  body += fmt::format("{}const float x = {};\n", indent, load(op->getOperand(0), index));
  body += indent + (isMax ? "acc = t_max(acc, x);\n" : "acc += x;\n") + indent + "count += 1.0;\n";
  for (int64_t d = rank - 1; d >= 0; --d) {
    indent.resize(indent.size() - 2);
    body += indent + "}\n";
  }
  if (includePad) { // every tap inside the padded input counts (past it, ceil mode, not)
    body += "  count = 1.0;\n";
    for (int64_t d = 0; d < rank; ++d)
      body += fmt::format("  {{\n    uint c = 0u;\n    for (uint k = 0u; k < {}u; ++k)\n"
                          "      c += o{} * {}u + k * {}u < {}u ? 1u : 0u;\n"
                          "    count *= float(c);\n  }}\n",
                          kernel[d], d, strides[d], dilations[d],
                          x.getDimSize(2 + d) + pads[d] + pads[rank + d]);
  }
  return std::string(isMax ? "acc" : "(count > 0.0 ? acc / count : 0.0)");
}

std::optional<std::string> ShaderBuilder::movedElement(Operation *op) {
  RankedTensorType y = typeOf(op->getResult(0));
  ArrayRef<int64_t> out = y.getShape();
  if (auto b = dyn_cast<BroadcastOp>(op))
    return load(b.getInput(), broadcastIndex(typeOf(b.getInput()).getShape(), out));
  if (auto slice = dyn_cast<SliceOp>(op)) {
    ArrayRef<int64_t> in = typeOf(slice.getInput()).getShape();
    body += "  uint r = i;\n  int at = 0;\n";
    for (int64_t d = (int64_t)out.size() - 1; d >= 0; --d) {
      int64_t stride = 1;
      for (size_t e = d + 1; e < in.size(); ++e)
        stride *= in[e];
      body += fmt::format("  at += ({} + int(r % {}u) * {}) * {}; r /= {}u;\n",
                          slice.getStarts()[d], out[d], slice.getSteps()[d], stride, out[d]);
    }
    return load(slice.getInput(), "uint(at)");
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    int64_t axis = concat.getAxis() < 0 ? concat.getAxis() + y.getRank() : concat.getAxis();
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < y.getRank(); ++d)
      inner *= out[d];
    body += fmt::format("  const uint outer = i / {0}u, a = i / {1}u % {2}u, inner = i % {1}u;\n"
                        "  float x;\n",
                        inner * out[axis], inner, out[axis]);
    int64_t first = 0;
    for (Value v : concat.getInputs()) {
      int64_t len = typeOf(v).getDimSize(axis);
      if (len == 0)
        continue;
      body += fmt::format("  {}if (a < {}u)\n    x = {};\n", first ? "else " : "", first + len,
                          load(v, fmt::format("(outer * {}u + a - {}u) * {}u + inner", len, first,
                                              inner)));
      first += len;
    }
    return std::string("x");
  }
  return std::nullopt;
}

std::optional<GlslKernel> ShaderBuilder::rowShader(Operation *op) {
  Value x = op->getOperand(0), y = op->getResult(0);
  ArrayRef<int64_t> shape = typeOf(x).getShape();
  int64_t rank = (int64_t)shape.size(), len = 0, inner = 1;
  auto ln = dyn_cast<LayerNormOp>(op);
  if (isa<SoftmaxOp, LogSoftmaxOp>(op)) {
    int64_t axis = op->getAttrOfType<IntegerAttr>("axis").getInt();
    axis = axis < 0 ? axis + rank : axis;
    len = shape[axis];
    for (int64_t d = axis + 1; d < rank; ++d)
      inner *= shape[d];
  } else if (ln) {
    int64_t axis = ln.getAxis() < 0 ? ln.getAxis() + rank : ln.getAxis();
    len = product(shape.drop_front(axis));
  } else {
    return std::nullopt;
  }
  if (len < 32)
    return std::nullopt;
  int64_t rows = typeOf(x).getNumElements() / len;
  // The row's sum or max over the workgroup. subgroupMax may skip a NaN;
  // the row's sum, which every output reads, still carries it.
  std::string main = "shared float red[128];\n" +
                     workgroupReduction("reduce_sum", "subgroupAdd", "r + red[s]") +
                     workgroupReduction("reduce_max", "subgroupMax", "t_max(r, red[s])");
  main += fmt::format(R"(void main() {{
  const uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (row >= {0}u)
    return; // the whole workgroup: barriers stay uniform
  const uint t = gl_LocalInvocationID.x;
  const uint base = row / {1}u * {2}u + row % {1}u;
)",
                                 rows, inner, len * inner);
  auto at = [&](Value v) { return load(v, fmt::format("base + j * {}u", inner)); };
  std::string loop = fmt::format("for (uint j = t; j < {}u; j += 128u)", len);
  if (!ln) {
    main += fmt::format("  float m = -uintBitsToFloat(0x7f800000u);\n  {} m = t_max(m, {});\n"
                        "  m = reduce_max(m);\n  float sum = 0.0;\n  {} sum += exp({} - m);\n"
                        "  sum = reduce_sum(sum);\n  {} {} = {};\n}}\n",
                        loop, at(x), loop, at(x), loop, at(y),
                        isa<SoftmaxOp>(op) ? fmt::format("exp({} - m) / sum", at(x))
                                           : fmt::format("({} - m) - log(sum)", at(x)));
  } else {
    int64_t axis = ln.getAxis() < 0 ? ln.getAxis() + rank : ln.getAxis();
    ArrayRef<int64_t> normShape = shape.drop_front(axis);
    auto param = [&](Value v) {
      std::string e = broadcastIndex(typeOf(v).getShape(), normShape);
      for (size_t p; (p = e.find("i")) != std::string::npos;)
        e.replace(p, 1, "j");
      return load(v, e);
    };
    main += fmt::format("  float mean = 0.0;\n  {} mean += {};\n  mean = reduce_sum(mean) / {};\n"
                        "  float var = 0.0;\n  {} {{\n    const float d = {} - mean;\n"
                        "    var += d * d;\n  }}\n  var = reduce_sum(var) / {};\n"
                        "  const float rstd = 1.0 / sqrt(var + {});\n"
                        "  {} {} = ({} - mean) * rstd * {} + {};\n}}\n",
                        loop, at(x), glslFloat((double)len), loop, at(x), glslFloat((double)len),
                        glslFloat(ln.getEpsilon().convertToDouble()), loop, at(y), at(x),
                        param(ln.getScale()), ln.getBias() ? param(ln.getBias()) : "0.0");
  }
  GlslKernel g = dispatch(rows);
  g.source = header(" (a workgroup per row)",
                    "#extension GL_KHR_shader_subgroup_arithmetic : require\n"
                    "layout(local_size_x = 128) in;") +
             main;
  g.subgroupArithmetic = true;
  return g;
}

std::optional<int64_t> ShaderBuilder::axisRows(Operation *op) {
  Value x = op->getOperand(0);
  ArrayRef<int64_t> shape = typeOf(x).getShape();
  int64_t rank = (int64_t)shape.size();
  if (isa<SoftmaxOp, LogSoftmaxOp, HardmaxOp>(op)) {
    int64_t axis = op->getAttrOfType<IntegerAttr>("axis").getInt();
    axis = axis < 0 ? axis + rank : axis;
    int64_t len = shape[axis], inner = 1;
    for (int64_t d = axis + 1; d < rank; ++d)
      inner *= shape[d];
    int64_t rows = typeOf(x).getNumElements() / std::max<int64_t>(len, 1);
    body += fmt::format("  const uint base = i / {0}u * {1}u + i % {0}u;\n", inner, len * inner);
    auto at = [&](Value v, StringRef j) {
      return load(v, fmt::format("base + {} * {}u", j.str(), inner));
    };
    Value y = op->getResult(0);
    body += "  float m = -uintBitsToFloat(0x7f800000u);\n  uint arg = 0u;\n";
    body += fmt::format("  for (uint j = 0u; j < {}u; ++j) {{\n    const float x = {};\n"
                        "    if (x > m) {{ m = x; arg = j; }}\n  }}\n",
                        len, at(x, "j"));
    if (isa<HardmaxOp>(op)) {
      body += fmt::format("  for (uint j = 0u; j < {}u; ++j)\n    {} = j == arg ? 1.0 : 0.0;\n",
                          len, at(y, "j"));
      return rows;
    }
    body += fmt::format("  float sum = 0.0;\n  for (uint j = 0u; j < {}u; ++j)\n"
                        "    sum += exp({} - m);\n",
                        len, at(x, "j"));
    body += fmt::format("  for (uint j = 0u; j < {}u; ++j)\n    {} = {};\n", len, at(y, "j"),
                        isa<SoftmaxOp>(op) ? fmt::format("exp({} - m) / sum", at(x, "j"))
                                           : fmt::format("({} - m) - log(sum)", at(x, "j")));
    return rows;
  }
  if (auto ln = dyn_cast<LayerNormOp>(op)) {
    int64_t axis = ln.getAxis() < 0 ? ln.getAxis() + rank : ln.getAxis();
    int64_t inner = 1;
    for (int64_t d = axis; d < rank; ++d)
      inner *= shape[d];
    ArrayRef<int64_t> normShape = shape.drop_front(axis);
    // Scale and bias broadcast over the normalised dims (their index: j's).
    auto param = [&](Value v) {
      return load(v, broadcastIndex(typeOf(v).getShape(), normShape).empty()
                         ? std::string("j")
                         : broadcastIndex(typeOf(v).getShape(), normShape));
    };
    body += fmt::format("  const uint base = i * {}u;\n", inner);
    body += fmt::format("  float mean = 0.0;\n  for (uint j = 0u; j < {}u; ++j)\n"
                        "    mean += {};\n  mean /= {};\n",
                        inner, load(x, "base + j"), glslFloat((double)inner));
    body += fmt::format("  float var = 0.0;\n  for (uint j = 0u; j < {}u; ++j) {{\n"
                        "    const float d = {} - mean;\n    var += d * d;\n  }}\n"
                        "  var /= {};\n",
                        inner, load(x, "base + j"), glslFloat((double)inner));
    body += fmt::format("  const float rstd = 1.0 / sqrt(var + {});\n",
                        glslFloat(ln.getEpsilon().convertToDouble()));
    // broadcastIndex names the element `i`: the row's j, in its own block.
    body += fmt::format("  for (uint j = 0u; j < {}u; ++j) {{\n", inner);
    std::string scale = param(ln.getScale()), bias = ln.getBias() ? param(ln.getBias()) : "0.0";
    for (std::string *e : {&scale, &bias})
      for (size_t p; (p = e->find("(i")) != std::string::npos;)
        e->replace(p, 2, "(j");
    body += fmt::format("    {} = ({} - mean) * rstd * {} + {};\n  }}\n",
                        load(op->getResult(0), "base + j"), load(x, "base + j"), scale, bias);
    return typeOf(x).getNumElements() / std::max<int64_t>(inner, 1);
  }
  return std::nullopt;
}

// Whether a GEMM takes the tiled or the dot-product shader (else a loop
// per output): enough work for tiles of 16 rows or more, or a few long dot
// products (fewer than 16 rows or columns, K of 128 or more: a batch-1
// fully connected layer, or a squeeze-and-excitation 1x1 conv on one pixel,
// whose loops took ~10 us each on the H200).
bool gemmShaped(int64_t m, int64_t n, int64_t k, int64_t batches) {
  constexpr int64_t kMinRows = 16, kMinWork = int64_t(1) << 18, kMinDotK = 128;
  if (batches > kMaxGroupsX)
    return false;
  if (k >= kMinDotK && (m < kMinRows || n < kMinRows))
    return true;
  return m >= kMinRows && m * n * k >= kMinWork;
}

std::optional<ShaderBuilder::TiledGemm> ShaderBuilder::tiledGemm(Operation *anchor,
                                                                 KernelOp kernel) {
  if (auto mm = dyn_cast<MatMulOp>(anchor)) {
    auto a = typeOf(mm.getLhs()), b = typeOf(mm.getRhs()), y = typeOf(mm.getResult());
    int64_t m = y.getDimSize(y.getRank() - 2), n = y.getDimSize(y.getRank() - 1);
    int64_t kk = mm.getTransposeA() ? a.getDimSize(a.getRank() - 2) : a.getDimSize(a.getRank() - 1);
    int64_t batches = product(y.getShape().drop_back(2));
    if (!gemmShaped(m, n, kk, batches))
      return std::nullopt;
    ArrayRef<int64_t> batch = y.getShape().drop_back(2);
    functions += fmt::format("uint batch_a(uint i) {{ return {}; }}\n",
                             broadcastIndex(a.getShape().drop_back(2), batch));
    functions += fmt::format("uint batch_b(uint i) {{ return {}; }}\n",
                             broadcastIndex(b.getShape().drop_back(2), batch));
    std::string ai = mm.getTransposeA() ? fmt::format("k * {}u + m", m)
                                        : fmt::format("m * {}u + k", kk);
    std::string bi = mm.getTransposeB() ? fmt::format("n * {}u + k", kk)
                                        : fmt::format("k * {}u + n", n);
    functions += fmt::format(
        "float load_a(uint bz, uint m, uint k) {{ return {}; }}\n"
        "float load_b(uint bz, uint k, uint n) {{ return {}; }}\n"
        "uint out_index(uint bz, uint m, uint n) {{ return bz * {}u + m * {}u + n; }}\n"
        "float bias_of(uint bz, uint m) {{ return 0.0; }}\n",
        load(outer(mm.getLhs(), kernel), fmt::format("batch_a(bz) * {}u + {}", m * kk, ai)),
        load(outer(mm.getRhs(), kernel), fmt::format("batch_b(bz) * {}u + {}", kk * n, bi)),
        m * n, n);
    TiledGemm t{m, n, kk, batches};
    t.bAlongK = mm.getTransposeB();
    t.matmul = true;
    // (Whether the shader reads A as vec4s is tileShape's choice.)
    if (!mm.getTransposeA() && kk % 4 == 0 &&
        vec4Aligned(outer(mm.getLhs(), kernel))) {
      t.vecA = true;
      functions += fmt::format(
          "vec4 load_a4(uint bz, uint m, uint k) {{ return {}; }}\n",
          load4(outer(mm.getLhs(), kernel),
                fmt::format("batch_a(bz) * {}u + m * {}u + k", m * kk, kk)));
    }
    if (!mm.getTransposeB() && n % 4 == 0 && vec4Aligned(outer(mm.getRhs(), kernel))) {
      t.vecB = true;
      functions += fmt::format(
          "vec4 load_b4(uint bz, uint k, uint n) {{ return {}; }}\n",
          load4(outer(mm.getRhs(), kernel), fmt::format("batch_b(bz) * {}u + k * {}u + n", kk * n, n)));
    }
    return t;
  }
  auto conv = dyn_cast<ConvOp>(anchor);
  if (!conv)
    return std::nullopt;
  auto x = typeOf(conv.getInput()), w = typeOf(conv.getWeight()), y = typeOf(conv.getResult());
  int64_t rank = y.getRank() - 2, groups = conv.getGroup();
  int64_t oc = y.getDimSize(1), ocg = oc / groups, cg = x.getDimSize(1) / groups;
  int64_t taps = product(w.getShape().drop_front(2)), plane = product(y.getShape().drop_front(2));
  // The images side by side along N (n = image * plane + pixel), the
  // groups along z: at batch 32 ResNet-50's 7x7 convs make 8 x 25 tiles,
  // not 32 batches of 8 tiles with N = 49 in 64.
  int64_t images = y.getDimSize(0), batches = groups, columns = images * plane;
  if (!gemmShaped(ocg, columns, cg * taps, batches))
    return std::nullopt;
  std::string image = images == 1 ? "0u" : fmt::format("n / {}u", plane);
  std::string pixel = images == 1 ? "n" : fmt::format("n % {}u", plane);
  auto strides = conv.getStrides(), dilations = conv.getDilations(), pads = conv.getPads();
  // B[k][n]: tap k = (c, kernel position), output pixel n; zero in the padding.
  std::string lb = fmt::format("float load_b(uint g, uint k, uint n) {{\n"
                               "  const uint b = {}, p = {};\n  uint kr = k, nr = p;\n",
                               image, pixel);
  std::string xIndex = fmt::format("(b * {}u + g * {}u + kr)", x.getDimSize(1), cg);
  for (int64_t d = rank - 1; d >= 0; --d)
    lb += fmt::format("  const uint k{0} = kr % {1}u; kr /= {1}u;\n"
                      "  const uint o{0} = nr % {2}u; nr /= {2}u;\n",
                      d, w.getDimSize(2 + d), y.getDimSize(2 + d));
  for (int64_t d = 0; d < rank; ++d) {
    lb += fmt::format("  const int p{0} = int(o{0} * {1}u + k{0} * {2}u) - {3};\n"
                      "  if (p{0} < 0 || p{0} >= {4}) return 0.0;\n",
                      d, strides[d], dilations[d], pads[d], x.getDimSize(2 + d));
    xIndex = fmt::format("({} * {}u + uint(p{}))", xIndex, x.getDimSize(2 + d), d);
  }
  lb += fmt::format("  return {};\n}}\n", load(outer(conv.getInput(), kernel), xIndex));
  functions += fmt::format(
      "float load_a(uint g, uint m, uint k) {{ return {}; }}\n",
      load(outer(conv.getWeight(), kernel),
           fmt::format("(g * {}u + m) * {}u + k", ocg, cg * taps)));
  functions += lb;
  functions += fmt::format(
      "uint out_index(uint g, uint m, uint n) {{ return (({}) * {}u + g * {}u + m) * {}u + {}; }}\n",
      image, oc, ocg, plane, pixel);
  functions += fmt::format(
      "float bias_of(uint g, uint m) {{ return {}; }}\n",
      conv.getBias() ? load(outer(conv.getBias(), kernel), fmt::format("g * {}u + m", ocg))
                     : std::string("0.0"));
  TiledGemm t{ocg, columns, cg * taps, batches};
  // 16-byte loads of the weights: ResNet-18's kernels 0.634 -> 0.559 ms on
  // the H200.
  if (t.k % 4 == 0 && vec4Aligned(outer(conv.getWeight(), kernel))) {
    t.vecA = true;
    functions += fmt::format(
        "vec4 load_a4(uint g, uint m, uint k) {{ return {}; }}\n",
        load4(outer(conv.getWeight(), kernel),
              fmt::format("(g * {}u + m) * {}u + k", ocg, cg * taps)));
  }
  // A 1x1 conv at stride 1 without padding reads B straight from x's
  // planes (4 columns never straddle two images: plane % 4 == 0).
  bool pointwise = taps == 1 && llvm::all_of(strides, [](int64_t s) { return s == 1; }) &&
                   llvm::all_of(pads, [](int64_t p) { return p == 0; });
  if (rank <= 3) {
    t.bColumns = true;
    int64_t inPlane = product(x.getShape().drop_front(2));
    std::string bc = fmt::format("void b_column(uint g, uint n, out uint base, out ivec3 origin) {{\n"
                                 "  const uint b = {}, p = {};\n  uint nr = p;\n",
                                 image, pixel);
    for (int64_t d = rank - 1; d >= 0; --d)
      bc += fmt::format("  const uint o{0} = nr % {1}u; nr /= {1}u;\n", d, y.getDimSize(2 + d));
    std::string origin = "ivec3(";
    for (int64_t d = 0; d < 3; ++d)
      origin += (d ? ", " : "") + (d < rank ? fmt::format("int(o{} * {}u) - {}", d, strides[d],
                                                          pads[d])
                                            : std::string("0"));
    bc += fmt::format("  origin = {});\n  base = (b * {}u + g * {}u) * {}u;\n}}\n", origin,
                      x.getDimSize(1), cg, inPlane);
    std::string at = "float load_b_at(uint base, ivec3 origin, uint k) {\n  uint kr = k;\n";
    std::string index = "kr";
    for (int64_t d = rank - 1; d >= 0; --d)
      at += fmt::format("  const uint k{0} = kr % {1}u; kr /= {1}u;\n", d, w.getDimSize(2 + d));
    for (int64_t d = 0; d < rank; ++d) {
      at += fmt::format("  const int p{0} = origin[{0}] + int(k{0} * {1}u);\n"
                        "  if (p{0} < 0 || p{0} >= {2}) return 0.0;\n",
                        d, dilations[d], x.getDimSize(2 + d));
      index = fmt::format("({} * {}u + uint(p{}))", index, x.getDimSize(2 + d), d);
    }
    at += fmt::format("  return {};\n}}\n", load(outer(conv.getInput(), kernel), "base + " + index));
    functions += bc + at;
  }
  if (pointwise && plane % 4 == 0 && vec4Aligned(outer(conv.getInput(), kernel))) {
    t.vecB = true;
    functions += fmt::format(
        "vec4 load_b4(uint g, uint k, uint n) {{ return {}; }}\n",
        load4(outer(conv.getInput(), kernel),
              fmt::format("(({}) * {}u + g * {}u + k) * {}u + {}", image, x.getDimSize(1), cg,
                          plane, pixel)));
  }
  return t;
}

ShaderBuilder::TileShape ShaderBuilder::tileShape(const TiledGemm &t, bool coopMatrix) {
  // 128 x 128 tiles where there are enough of them to fill a large GPU
  // (an H200 has 132 multiprocessors: 4096^3 at 28 TFLOP/s against 14 with
  // 64 x 64), else 64 x 64: the encoder's 128-row matmuls made 2 workgroups
  // of 128 x 128 (3.0 ms against 2.3).
  auto tiles = [&](int64_t side) {
    return (t.m + side - 1) / side * ((t.n + side - 1) / side) * t.batches;
  };
  TileShape s;
  // (Not for fewer than 96 rows: half of each tile would be padding.)
  s.r = tiles(128) >= 128 && t.m >= 96 ? 8 : 4;
  s.kb = coopMatrix ? CoopMatrixGemm::kStepK : 1024 / (16 * s.r);
  // A conv reads its weights (A) as vec4s whenever it can, and so does the
  // cooperative-matrix shader, which stages A as rows. An fp32 matmul's
  // row-major A only pays in 128 x 128 tiles on 16 x 8 invocations (16 x 8
  // outputs each, 226 registers on the H200): 4096^3 at 40.7 TFLOP/s
  // against 37.0 with scalar A on 16 x 16 (and 33.4 with vec4 A there: its
  // components are stored into the shared tile's columns one by one).
  // Measured on the H200 (kernels' device time): 16 x 8 with scalar A 37.2,
  // with kb = 4 34.0, 16 (32 KiB of shared memory, 255 registers) 19.4.
  s.vecA = t.vecA && (coopMatrix || !t.matmul || s.r == 8);
  if (!coopMatrix && t.matmul && s.vecA && s.r == 8)
    s.ty = 8;
  // Fewer tiles than a large GPU has multiprocessors leave most of it idle
  // (ResNet-18's 14x14 convs: 16 tiles of K = 2304): K is cut into up to
  // kTargetGroups / tiles ranges of at least kMinSplitLength, each a
  // workgroup writing its partial sums to the scratch, and a second
  // dispatch adds them up and applies the epilogue. Measured on the H200
  // (kernels' device time, ResNet-18 / the encoder, ms): 128 groups with
  // ranges of 128 or more 0.559 / 0.545, of 256 0.604 / 0.598; of 64 0.552
  // / 0.478; 256 groups of 64 0.531 / 0.477, of 32 0.530 / 0.470; 512 of 32
  // 0.573 / 0.470.
  constexpr int64_t kTargetGroups = 256, kMinSplitLength = 64;
  int64_t have = tiles(16 * s.r);
  int64_t splits = std::min((kTargetGroups + have - 1) / have, t.k / kMinSplitLength);
  if (splits >= 2) {
    s.splitLength = ((t.k + splits - 1) / splits + s.kb - 1) / s.kb * s.kb;
    s.splits = (t.k + s.splitLength - 1) / s.splitLength;
  } else {
    s.splitLength = t.k;
  }
  return s;
}

GlslKernel ShaderBuilder::gemmDispatch(const TiledGemm &t, const TileShape &shape) const {
  GlslKernel g = dispatch(1);
  const int64_t tile = 16 * shape.r;
  g.groups[0] = (uint32_t)((t.n + tile - 1) / tile);
  g.groups[1] = (uint32_t)((t.m + tile - 1) / tile);
  g.groups[2] = (uint32_t)(t.batches * shape.splits);
  if (t.m * t.n * t.batches == 0)
    g.groups[0] = g.groups[1] = g.groups[2] = 0;
  if (shape.splits > 1)
    usesScratch(g, shape.splits * t.batches * t.m * t.n);
  return g;
}

std::string ShaderBuilder::gemmStore(const TileShape &shape, const std::string &value) const {
  // A split writes its raw partial sums (split-major, then batch, m, n) to
  // the scratch; the reduction adds the bias and runs the epilogue.
  if (shape.splits > 1)
    return fmt::format("arena[{}u + (gl_WorkGroupID.z * M + m) * N + n] = {};",
                       scratchOffset, value);
  return fmt::format("const uint o = out_index(bz, m, n);\n        {} = "
                     "epilogue({} + bias_of(bz, m), o);",
                     load(k.op->getResult(0), "o"), value);
}

GlslKernel ShaderBuilder::coopMatrixShader(const TiledGemm &t, const TileShape &shape) {
  CoopMatrixGemm c;
  c.m = t.m;
  c.n = t.n;
  c.k = t.k;
  c.batches = t.batches;
  c.splits = shape.splits;
  c.splitLength = shape.splitLength;
  c.vecA = shape.vecA;
  c.vecB = t.vecB;
  c.bAlongK = t.bAlongK;
  c.bigTile = shape.r == 8;
  c.store = gemmStore(shape, "v");
  assert(c.sharedBytes() <= kCoopMatrixMaxSharedBytes && "the runtime checks for no more");
  GlslKernel g = gemmDispatch(t, shape);
  g.coopMatrix = true;
  g.source = header(shape.splits > 1 ? " (cooperative-matrix GEMM, fp16 operands, split K)"
                                      : " (cooperative-matrix GEMM, fp16 operands)",
                    c.layoutLines()) +
             c.mainSource();
  return g;
}

GlslKernel ShaderBuilder::tiledShader(const TiledGemm &t, const TileShape &shape) {
  GlslKernel g = gemmDispatch(t, shape);
  std::string store = gemmStore(shape, "acc[i][j / 4u][j % 4u]");
  std::string &s = g.source;
  s = header(shape.splits > 1 ? " (tiled GEMM, split K)" : " (tiled GEMM)",
             fmt::format("layout(local_size_x = 16, local_size_y = {}) in;", shape.ty));
  // A tile of TM x TM outputs (TM = 16r) on 16 x TY invocations: each
  // computes RM = TM / TY rows (groups of 4: ty*4 + {0..3}, + 4*TY for the
  // next group) by r columns (tx*4 + {0..3}, + 64 for the next group). K
  // is taken KB at a time; each step's operands are loaded into registers
  // (LOADS vec4s of each per invocation) while the previous step's are
  // multiplied from the other half of the double-buffered shared memory,
  // one barrier a step. Shared rows are read as vec4s.
  //
  // Load p of an invocation is element l = t + p * THREADS of the step's
  // tiles: of A, 4 rows at one k (neighbours read neighbouring k) or, vecA,
  // 4 k of one row (its components stored one by one); of B, 4 columns at
  // one k.
  auto fetch = [&](const char *kx, const char *indent) {
    std::string f = fmt::format("{}[[unroll]] for (uint p = 0u; p < LOADS; ++p) {{\n", indent);
    std::string in = std::string(indent) + "  ";
    if (shape.vecA)
      f += fmt::format("{0}av[p] = m0 + am[p] < M && {1} + ak[p] < kEnd ? "
                       "load_a4(bz, m0 + am[p], {1} + ak[p]) : vec4(0.0);\n",
                       in, kx);
    if (t.vecB)
      f += fmt::format("{0}bv[p] = n0 + bn[p] < N && {1} + bk[p] < kEnd ? "
                       "load_b4(bz, {1} + bk[p], n0 + bn[p]) : vec4(0.0);\n",
                       in, kx);
    if (!(shape.vecA && t.vecB)) {
      f += fmt::format("{}[[unroll]] for (uint q = 0u; q < 4u; ++q) {{\n", in);
      if (!shape.vecA)
        f += fmt::format("{0}  av[p][q] = m0 + am[p] + q < M && {1} + ak[p] < kEnd ? "
                         "load_a(bz, m0 + am[p] + q, {1} + ak[p]) : 0.0;\n",
                         in, kx);
      if (!t.vecB && t.bColumns)
        f += fmt::format("{0}  bv[p][q] = n0 + bn[p] + q < N && {1} + bk[p] < kEnd ? "
                         "load_b_at(bBase[p * 4u + q], bOrigin[p * 4u + q], {1} + bk[p]) : 0.0;\n",
                         in, kx);
      else if (!t.vecB)
        f += fmt::format("{0}  bv[p][q] = n0 + bn[p] + q < N && {1} + bk[p] < kEnd ? "
                         "load_b(bz, {1} + bk[p], n0 + bn[p] + q) : 0.0;\n",
                         in, kx);
      f += in + "}\n";
    }
    return f + indent + "}\n";
  };
  auto stash = [&](const char *b, const char *indent) {
    std::string f = fmt::format("{}[[unroll]] for (uint p = 0u; p < LOADS; ++p) {{\n", indent);
    if (shape.vecA)
      f += fmt::format("{0}  [[unroll]] for (uint q = 0u; q < 4u; ++q)\n"
                       "{0}    As[{1}][ak[p] + q][am[p] / 4u][am[p] % 4u] = av[p][q];\n",
                       indent, b);
    else
      f += fmt::format("{}  As[{}][ak[p]][am[p] / 4u] = av[p];\n", indent, b);
    return f + fmt::format("{0}  Bs[{1}][bk[p]][bn[p] / 4u] = bv[p];\n{0}}}\n", indent, b);
  };
  // Which elements of the step's tiles load p of an invocation reads: A at
  // row am, k ak (vecA: 4 k from ak; else 4 rows from am), B at k bk,
  // columns bn.. bn + 3.
  std::string aMap = shape.vecA ? "am[p] = l / (KB / 4u); ak[p] = l % (KB / 4u) * 4u;"
                            : "ak[p] = l % KB; am[p] = l / KB * 4u;";
  s += fmt::format(R"(const uint R = {0}u, TM = 16u * R, TY = {14}u, RM = TM / TY, KB = {1}u;
const uint THREADS = 16u * TY, LOADS = KB * TM / (4u * THREADS);
const uint M = {2}u, N = {3}u, K = {4}u, BATCHES = {5}u, SPLIT = {6}u;
shared vec4 As[2][KB][TM / 4u];
shared vec4 Bs[2][KB][TM / 4u];
void main() {{
  const uint bz = gl_WorkGroupID.z % BATCHES, kBegin = gl_WorkGroupID.z / BATCHES * SPLIT;
  const uint kEnd = min(kBegin + SPLIT, K);
  const uint m0 = gl_WorkGroupID.y * TM, n0 = gl_WorkGroupID.x * TM;
  const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, t = ty * 16u + tx;
  uint am[LOADS], ak[LOADS], bn[LOADS], bk[LOADS];
  [[unroll]] for (uint p = 0u; p < LOADS; ++p) {{
    const uint l = t + p * THREADS;
    {8}
    bn[p] = l % (TM / 4u) * 4u; bk[p] = l / (TM / 4u);
  }}
{13}  vec4 acc[RM][R / 4u];
  [[unroll]] for (uint i = 0u; i < RM; ++i)
    [[unroll]] for (uint j = 0u; j < R / 4u; ++j)
      acc[i][j] = vec4(0.0);
  vec4 av[LOADS], bv[LOADS];
{9}{10}  barrier();
  uint buf = 0u;
  for (uint k0 = kBegin; k0 < kEnd; k0 += KB) {{
    const uint k1 = k0 + KB;
    const bool more = k1 < kEnd;
    if (more) {{
{11}    }}
    [[unroll]] for (uint kk = 0u; kk < KB; ++kk) {{
      vec4 a[RM / 4u], b[R / 4u];
      [[unroll]] for (uint h = 0u; h < RM / 4u; ++h)
        a[h] = As[buf][kk][ty + TY * h];
      [[unroll]] for (uint j = 0u; j < R / 4u; ++j)
        b[j] = Bs[buf][kk][tx + 16u * j];
      [[unroll]] for (uint h = 0u; h < RM / 4u; ++h)
        [[unroll]] for (uint q = 0u; q < 4u; ++q)
          [[unroll]] for (uint j = 0u; j < R / 4u; ++j)
            acc[h * 4u + q][j] += a[h][q] * b[j];
    }}
    if (more) {{
{12}    }}
    barrier();
    buf ^= 1u;
  }}
  [[unroll]] for (uint i = 0u; i < RM; ++i) {{
    const uint m = m0 + (i / 4u) * (4u * TY) + ty * 4u + i % 4u;
    if (m >= M)
      continue;
    [[unroll]] for (uint j = 0u; j < R; ++j) {{
      const uint n = n0 + (j / 4u) * 64u + tx * 4u + j % 4u;
      if (n < N) {{
        {7}
      }}
    }}
  }}
}}
)",
                   shape.r, shape.kb, t.m, t.n, t.k, t.batches, shape.splitLength, store, aMap,
                   fetch("kBegin", "  "), stash("0", "  "), fetch("k1", "      "),
                   stash("buf ^ 1u", "      "),
                   t.bColumns && !t.vecB
                       ? "  uint bBase[LOADS * 4u];\n  ivec3 bOrigin[LOADS * 4u];\n"
                         "  [[unroll]] for (uint p = 0u; p < LOADS; ++p)\n"
                         "    [[unroll]] for (uint q = 0u; q < 4u; ++q)\n"
                         "      b_column(bz, min(n0 + bn[p] + q, N - 1u), bBase[p * 4u + q], "
                         "bOrigin[p * 4u + q]);\n"
                       : "",
                   shape.ty);
  return g;
}

GlslKernel ShaderBuilder::splitSumShader(const TiledGemm &t, const TileShape &shape) {
  int64_t outputs = t.batches * t.m * t.n;
  GlslKernel g = dispatch((outputs + kLocalSize - 1) / kLocalSize);
  usesScratch(g, shape.splits * outputs); // reads what the first dispatch wrote
  g.source = header(" (split-K sum)", fmt::format("layout(local_size_x = {}) in;", kLocalSize));
  g.source += fmt::format(R"(void main() {{
  const uint i = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * {0}u) + gl_GlobalInvocationID.x;
  if (i >= {1}u) return;
  const uint n = i % {2}u, m = i / {2}u % {3}u, bz = i / {4}u;
  float acc = bias_of(bz, m);
  [[unroll]] for (uint s = 0u; s < {5}u; ++s)
    acc += arena[{6}u + s * {1}u + i];
  const uint o = out_index(bz, m, n);
  {7} = epilogue(acc, o);
}}
)",
                          kLocalSize, outputs, t.n, t.m, t.m * t.n, shape.splits,
                          scratchOffset, load(k.op->getResult(0), "o"));
  return g;
}

std::string ShaderBuilder::header(StringRef what, StringRef layoutLine) const {
  std::string s = fmt::format("#version 450\n// {}: {}{}\n"
                              "#extension GL_EXT_control_flow_attributes : require\n{}\n",
                              k.name, k.op->getName().getStringRef().str(), what.str(),
                              layoutLine.str());
  s += "layout(std430, set = 0, binding = 0) buffer Arena { float arena[]; };\n";
  for (uint32_t c = 0; c < chunks; ++c)
    s += fmt::format("layout(std430, set = 0, binding = {0}) readonly buffer Weights{0} {{ float "
                     "w{0}[]; }};\n",
                     c + 1);
  // The same buffers seen as vec4s, for 16-byte loads (aliasing bindings
  // is allowed in Vulkan).
  if (vec4Views) {
    s += "layout(std430, set = 0, binding = 0) restrict readonly buffer Arena4 { vec4 arenav[]; "
         "};\n";
    for (uint32_t c = 0; c < chunks; ++c)
      s += fmt::format("layout(std430, set = 0, binding = {0}) restrict readonly buffer Weights{0}v {{ vec4 "
                       "w{0}v[]; }};\n",
                       c + 1);
  }
  return s + kGlslPrelude + functions;
}

GlslKernel ShaderBuilder::dotProductShader(const TiledGemm &t) {
  int64_t outputs = t.m * t.n * t.batches;
  GlslKernel g = dispatch((outputs + 7) / 8);
  g.source = header(" (GEMM as dot products)", "layout(local_size_x = 256) in;");
  g.source += fmt::format(R"(shared float part[256];
void main() {{
  const uint t = gl_LocalInvocationID.x, lane = t % 32u;
  const uint o = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 8u + t / 32u;
  const uint n = o % {2}u, m = o / {2}u % {1}u, bz = o / {4}u;
  float acc = 0.0;
  if (o < {3}u)
    for (uint k = lane; k < {0}u; k += 32u)
      acc += load_a(bz, m, k) * load_b(bz, k, n);
  part[t] = acc;
  [[unroll]] for (uint s = 16u; s > 0u; s >>= 1u) {{
    barrier();
    if (lane < s)
      part[t] += part[t + s];
  }}
  if (lane == 0u && o < {3}u) {{
    const uint i = out_index(bz, m, n);
    {5} = epilogue(part[t] + bias_of(bz, m), i);
  }}
}}
)",
                          t.k, t.m, t.n, outputs, t.m * t.n, load(k.op->getResult(0), "i"));
  return g;
}

FailureOr<GlslKernel> ShaderBuilder::argReduceShader(Operation *op) {
  Value x = op->getOperand(0), y = op->getResult(0);
  if (!typeOf(x).getElementType().isF32())
    return op->emitError("element type ")
           << typeOf(x).getElementType() << " is not supported by --target=spirv yet ("
           << op->getName() << ")";
  if (!layout.where.count(x) || !layout.where.count(y) || layout.where.lookup(y).chunk >= 0)
    return op->emitError("a tensor of this kernel has no place in device memory (")
           << op->getName() << ")";
  if (int c = layout.where.lookup(x).chunk; c >= 0) { // a constant input
    firstChunk = (uint32_t)c;
    chunks = 1;
  }
  ArrayRef<int64_t> shape = typeOf(x).getShape();
  int64_t axis = op->getAttrOfType<IntegerAttr>("axis").getInt();
  int64_t len = shape[axis], inner = product(shape.drop_front(axis + 1));
  int64_t outputs = product(shape.take_front(axis)) * inner;
  auto lastAttr = op->getAttrOfType<BoolAttr>("select_last_index");
  bool isMax = isa<ArgMaxOp>(op), last = lastAttr && lastAttr.getValue();
  // The reference's comparisons (tract/rt/reduce/reduce_ref.h): ties and
  // NaNs decided the same way.
  const char *better = isMax ? (last ? "!(v < best)" : "best < v")
                             : (last ? "!(best < v)" : "v < best");
  GlslKernel g = dispatch((outputs + kLocalSize - 1) / kLocalSize);
  std::string &s = g.source;
  s = header(" (an invocation per output)",
             fmt::format("layout(local_size_x = {}) in;", kLocalSize));
  s += "layout(std430, set = 0, binding = 0) buffer ArenaWords { uint words[]; };\n";
  s += fmt::format("void main() {{\n  const uint i = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x "
                   "* {}u) + gl_GlobalInvocationID.x;\n  if (i >= {}u) return;\n",
                   kLocalSize, outputs);
  s += "  uint bestIndex = 0u;\n";
  if (len > 0 && outputs > 0) // (no output: nothing is dispatched)
    s += fmt::format("  const uint base = i / {0}u * {1}u + i % {0}u;\n"
                     "  float best = {2};\n"
                     "  for (uint j = 1u; j < {3}u; ++j) {{\n"
                     "    const float v = {4};\n"
                     "    if ({5}) {{\n      best = v;\n      bestIndex = j;\n    }}\n  }}\n",
                     inner, len * inner, load(x, "base"), len,
                     load(x, fmt::format("base + j * {}u", inner)), better);
  s += fmt::format("  words[{0}u + 2u * i] = bestIndex;\n  words[{0}u + 2u * i + 1u] = 0u;\n}}\n",
                   layout.where.lookup(y).offset);
  return g;
}

FailureOr<std::vector<GlslKernel>> ShaderBuilder::build() {
  Operation *op = k.op;
  if (layout.absorbed.count(op))
    return std::vector<GlslKernel>{}; // its producer stored its output
  if (isa<ArgMaxOp, ArgMinOp>(op)) {
    FailureOr<GlslKernel> g = argReduceShader(op);
    if (failed(g))
      return failure();
    return std::vector<GlslKernel>{*g};
  }
  if (op->getNumResults() != 1)
    return op->emitError("not supported by --target=spirv yet: ") << op->getName();
  // Every tensor the kernel touches is f32 (the other element types come in
  // later increments of the SPIR-V target).
  SmallVector<Value> tensors(op->getOperands());
  llvm::append_range(tensors, op->getResults());
  for (Value v : tensors)
    if (!typeOf(v).getElementType().isF32())
      return op->emitError("element type ")
             << typeOf(v).getElementType() << " is not supported by --target=spirv yet ("
             << op->getName() << ")";
  for (Value v : tensors)
    if (!layout.where.count(v))
      return op->emitError("a tensor of this kernel has no place in device memory (")
             << op->getName() << ")";
  // The weight chunks it reads, bound as one contiguous range.
  int lo = INT32_MAX, hi = -1;
  for (Value v : op->getOperands())
    if (int c = layout.where.lookup(v).chunk; c >= 0) {
      lo = std::min(lo, c);
      hi = std::max(hi, c);
    }
  if (hi >= 0) {
    firstChunk = (uint32_t)lo;
    chunks = (uint32_t)(hi - lo + 1);
  }

  auto kernel = dyn_cast<KernelOp>(op);
  RankedTensorType out = typeOf(op->getResult(0));
  std::string result; // empty: the body stores its output itself
  int64_t elements = -1; // invocations: one per output element unless set

  // Convs and matmuls with enough rows run as a tiled GEMM; the fused chain
  // becomes its epilogue(acc, i).
  Operation *gemmTop = kernel ? kernel.getAnchor() : isa<ConvOp, MatMulOp>(op) ? op : nullptr;
  if (gemmTop && !(kernel && kernel.getTail())) {
    if (std::optional<TiledGemm> t = tiledGemm(gemmTop, kernel)) {
      std::string saved = std::move(body);
      body.clear();
      std::string ret = "acc";
      if (kernel) {
        Block &block = kernel.getBody().front();
        Value yielded = block.getTerminator()->getOperand(0);
        FailureOr<std::string> r =
            elementChain(llvm::make_range(std::next(gemmTop->getIterator()),
                                          block.getTerminator()->getIterator()),
                         gemmTop->getResult(0), "acc", typeOf(yielded), yielded, kernel);
        if (failed(r))
          return failure();
        ret = *r;
      }
      functions += "float epilogue(float acc, uint i) {\n" + body + "  return " + ret + ";\n}\n";
      body = std::move(saved);
      // A batch-1 fully connected layer's one row, or a single column:
      // dot products (the tiled shader would compute 15 rows of zeros in
      // each tile).
      if ((t->m < 16 || t->n < 16) && t->k >= 128)
        return std::vector<GlslKernel>{dotProductShader(*t)};
      TileShape shape = tileShape(*t, options.fp16Gemm);
      std::vector<GlslKernel> dispatches{options.fp16Gemm ? coopMatrixShader(*t, shape)
                                                          : tiledShader(*t, shape)};
      if (shape.splits > 1)
        dispatches.push_back(splitSumShader(*t, shape));
      return dispatches;
    }
  }
  if (kernel) {
    Block &block = kernel.getBody().front();
    Value yielded = block.getTerminator()->getOperand(0);
    out = typeOf(yielded); // the result may be a reshape of it: same elements
    if (kernel.getTail())
      return op->emitError("a chained kernel is not supported by --target=spirv");
    Operation *anchor = kernel.getAnchor();
    Value acc;
    std::string accName;
    if (anchor) {
      FailureOr<std::string> a =
          isa<ConvOp>(anchor)   ? convElement(cast<ConvOp>(anchor), kernel)
          : isa<MatMulOp>(anchor) ? matmulElement(cast<MatMulOp>(anchor), kernel)
          : isa<ConvTransposeOp>(anchor)
              ? convTransposeElement(cast<ConvTransposeOp>(anchor), kernel)
              : FailureOr<std::string>(anchor->emitError("not supported by --target=spirv yet: ")
                                       << anchor->getName());
      if (failed(a))
        return failure();
      acc = anchor->getResult(0);
      accName = *a;
    }
    auto from = anchor ? std::next(anchor->getIterator()) : block.begin();
    FailureOr<std::string> r = elementChain(
        llvm::make_range(from, block.getTerminator()->getIterator()), acc, accName, out, yielded,
        kernel);
    if (failed(r))
      return failure();
    result = *r;
  } else if (auto conv = dyn_cast<ConvOp>(op)) {
    FailureOr<std::string> r = convElement(conv, nullptr);
    if (failed(r))
      return failure();
    result = *r;
  } else if (auto mm = dyn_cast<MatMulOp>(op)) {
    FailureOr<std::string> r = matmulElement(mm, nullptr);
    if (failed(r))
      return failure();
    result = *r;
  } else if (auto rs = dyn_cast<ResizeOp>(op)) {
    FailureOr<std::string> r = resizeElement(rs);
    if (failed(r))
      return failure();
    result = *r;
  } else if (auto ct = dyn_cast<ConvTransposeOp>(op)) {
    FailureOr<std::string> r = convTransposeElement(ct, nullptr);
    if (failed(r))
      return failure();
    result = *r;
  } else if (std::optional<GlslKernel> g = rowShader(op)) {
    return std::vector<GlslKernel>{*g};
  } else if (std::optional<int64_t> rows = axisRows(op)) {
    elements = *rows;
  } else if (std::optional<GlslKernel> g = reduceRowShader(op)) {
    return std::vector<GlslKernel>{*g};
  } else if (std::optional<std::string> r = reduceElement(op)) {
    result = *r;
  } else if (std::optional<std::string> r = poolElement(op)) {
    result = *r;
  } else if (std::optional<std::string> r = movedElement(op)) {
    result = *r;
  } else if (isElementwise(op) || isa<ReshapeOp, TransposeOp>(op)) {
    // A standalone element-wise op, a reshape that copies (not a view of
    // its input) or a transpose: a chain of one op.
    Block::iterator it = op->getIterator();
    FailureOr<std::string> r =
        isa<ReshapeOp>(op)
            ? FailureOr<std::string>(fresh("a"))
            : elementChain(llvm::make_range(it, std::next(it)), Value(), "", out,
                           op->getResult(0), nullptr);
    if (failed(r))
      return failure();
    if (isa<ReshapeOp>(op))
      body += fmt::format("  const float {} = {};\n", *r, load(op->getOperand(0), "i"));
    result = *r;
  } else {
    return op->emitError("not supported by --target=spirv yet: ") << op->getName();
  }

  if (elements < 0)
    elements = out.getNumElements();
  GlslKernel g = dispatch((elements + kLocalSize - 1) / kLocalSize);
  std::string &s = g.source;
  s = header("", fmt::format("layout(local_size_x = {}) in;", kLocalSize));
  s += fmt::format("void main() {{\n  const uint i = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x "
                   "* {}u) + gl_GlobalInvocationID.x;\n  if (i >= {}u) return;\n",
                   kLocalSize, elements);
  s += body;
  if (!result.empty())
    s += fmt::format("  {} = {};\n", load(op->getResult(0), "i"), result);
  s += "}\n";
  return std::vector<GlslKernel>{g};
}

} // namespace

FailureOr<GpuLayout> GpuLayout::build(const PlannedModel &pm, func::FuncOp func) {
  GpuLayout l;
  auto align = [](int64_t v) { return (v + 63) / 64 * 64; };
  for (const auto &[v, offset] : pm.arenaOffsets)
    l.where[v] = {-1, offset / 4};
  int64_t at = align(pm.arenaBytes);
  Block &block = func.getBody().front();
  for (BlockArgument arg : block.getArguments()) {
    l.inputOffsets.push_back(at);
    l.where[arg] = {-1, at / 4};
    at = align(at + tensorBytes(arg.getType()));
  }
  // Weights: each distinct constant once, a new chunk when the next one
  // would straddle a chunk's end.
  std::map<int64_t, std::vector<Value>> byOffset;
  for (const auto &[v, offset] : pm.weightOffsets)
    byOffset[offset].push_back(v);
  for (const auto &[offset, values] : byOffset) {
    int64_t bytes = tensorBytes(values.front().getType());
    if (bytes > kChunkBytes)
      return values.front().getDefiningOp()->emitError(
          "a constant over 128 MiB is not supported by --target=spirv yet");
    int64_t start = align((int64_t)l.weights.size());
    if (start / kChunkBytes != (start + bytes - 1) / kChunkBytes)
      start = (start / kChunkBytes + 1) * kChunkBytes;
    l.weights.resize(start, '\0');
    l.weights.append(pm.weights, offset, bytes);
    for (Value v : values)
      l.where[v] = {(int)(start / kChunkBytes), start % kChunkBytes / 4};
  }
  // Outputs a kernel produces get their own place; the others (an input or
  // an intermediate returned as is) are read back from where they are.
  auto ret = block.getTerminator();
  l.outputOffsets.assign(ret->getNumOperands(), -1);
  for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
    auto it = pm.outputIndex.find(v);
    if (it == pm.outputIndex.end() || it->second != (int)i)
      continue;
    l.outputOffsets[i] = at;
    l.where[v] = {-1, at / 4};
    at = align(at + tensorBytes(v.getType()));
  }
  for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
    if (l.outputOffsets[i] >= 0)
      continue;
    if (tensorBytes(v.getType()) == 0) { // (an empty output: nothing to read)
      l.outputOffsets[i] = 0;
      continue;
    }
    auto it = l.where.find(v);
    if (it == l.where.end() || it->second.chunk >= 0)
      return ret->emitError("output ") << i << " is a constant: not supported by --target=spirv yet";
    l.outputOffsets[i] = it->second.offset * 4;
  }
  l.scratchOffset = at / 4;
  l.arenaBytes = std::max<int64_t>(at, 64);
  return l;
}

std::optional<std::pair<int64_t, int64_t>> GpuLayout::arenaRange(Value v) const {
  GpuLocation at = where.lookup(v);
  if (at.chunk >= 0)
    return std::nullopt;
  return std::make_pair(at.offset * 4, at.offset * 4 + tensorBytes(v.getType()));
}

FailureOr<std::vector<GlslKernel>> buildGlslKernels(const Kernel &k, const GpuLayout &layout,
                                                    const GlslOptions &options,
                                                    int64_t scratchOffset) {
  return ShaderBuilder(k, layout, options, scratchOffset).build();
}

} // namespace mlir::tract
