//===- KernelCalls.cpp - one tract op -> one runtime kernel call -------------===//
#include "compiler/Emit/KernelCalls.h"

#include "compiler/Codegen/KernelChoice.h"
#include "compiler/Codegen/Passes.h"
#include "compiler/Emit/EmitCommon.h"
#include "compiler/Support/ElementsData.h"
#include "tract/rt/data/transpose_ref.h"
#include "dialects/tract/IR/TractOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <fmt/format.h>
#include <fmt/ranges.h>

using namespace mlir;
using namespace mlir::tract;

std::string mlir::tract::cppElementType(Type t) {
  if (t.isF32()) return "float";
  if (t.isF16()) return "tract::rt::half";
  if (t.isBF16()) return "tract::rt::bfloat16";
  if (auto s = dyn_cast<StringType>(t)) return fmt::format("tract::rt::fixed_string<{}>", s.getBytes());
  if (t.isF64()) return "double";
  if (t.isInteger(1)) return "bool";
  if (auto i = dyn_cast<IntegerType>(t))
    return fmt::format("{}int{}_t", i.isUnsigned() ? "u" : "", i.getWidth());
  return "void";
}

std::string mlir::tract::cppLiteral(double v, Type t) {
  std::string type = cppElementType(t);
  if (t.isF32() || t.isF64()) {
    bool f32 = t.isF32();
    if (std::isnan(v))
      return fmt::format("std::numeric_limits<{}>::quiet_NaN()", type);
    if (std::isinf(v) || (f32 && std::fabs(v) > (double)std::numeric_limits<float>::max()))
      return fmt::format("{}std::numeric_limits<{}>::infinity()", v < 0 ? "-" : "", type);
    std::string s = f32 ? fmt::format("{:.9g}", (float)v) : fmt::format("{:.17g}", v);
    if (s.find_first_of(".e") == std::string::npos)
      s += ".0";
    return f32 ? s + "f" : s;
  }
  if (t.isInteger(1))
    return v != 0 ? "true" : "false";
  auto it = cast<IntegerType>(t);
  unsigned w = it.getWidth();
  double lo = it.isUnsigned() ? 0.0 : -std::ldexp(1.0, w - 1);
  double hi = it.isUnsigned() ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
  if (std::isnan(v))
    v = 0;
  if (v <= lo)
    return fmt::format("std::numeric_limits<{}>::lowest()", type);
  if (v >= hi)
    return fmt::format("std::numeric_limits<{}>::max()", type);
  if (it.isUnsigned())
    return fmt::format("static_cast<{}>({}u)", type, (uint64_t)v);
  return fmt::format("static_cast<{}>({})", type, (int64_t)v);
}

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

std::string joined(ArrayRef<int64_t> values) { return fmt::format("{}", fmt::join(values, ", ")); }

/// Collects the body of one kernel function.
struct Body {
  KernelCall &call;
  int arrays = 0;

  /// Declares a constexpr array and returns the expression to pass for it
  /// (nullptr when empty: zero-length arrays are not C++).
  std::string array(StringRef name, ArrayRef<int64_t> values) {
    return declareArray(call, name, values);
  }
  void line(std::string s) { call.lines.push_back(std::move(s)); }
};

int64_t product(ArrayRef<int64_t> v) {
  int64_t n = 1;
  for (int64_t d : v)
    n *= d;
  return n;
}

// outer = prod(dims before axis), len = dims[axis], inner = prod(after)
std::tuple<int64_t, int64_t, int64_t> splitAt(ArrayRef<int64_t> shape, int64_t axis) {
  return {product(shape.take_front(axis)), shape[axis], product(shape.drop_front(axis + 1))};
}

const char *unaryFunctor(Operation *op) {
  return llvm::TypeSwitch<Operation *, const char *>(op)
      .Case([](NegOp) { return "Neg"; })
      .Case([](AbsOp) { return "Abs"; })
      .Case([](SqrtOp) { return "Sqrt"; })
      .Case([](ExpOp) { return "Exp"; })
      .Case([](LogOp) { return "Log"; })
      .Case([](ErfOp) { return "Erf"; })
      .Case([](ReluOp) { return "Relu"; })
      .Case([](SigmoidOp) { return "Sigmoid"; })
      .Case([](TanhOp) { return "Tanh"; })
      .Case([](FloorOp) { return "Floor"; })
      .Case([](CeilOp) { return "Ceil"; })
      .Case([](RoundOp) { return "Round"; })
      .Case([](SinOp) { return "Sin"; })
      .Case([](CosOp) { return "Cos"; })
      .Case([](TanOp) { return "Tan"; })
      .Case([](AsinOp) { return "Asin"; })
      .Case([](AcosOp) { return "Acos"; })
      .Case([](AtanOp) { return "Atan"; })
      .Case([](SinhOp) { return "Sinh"; })
      .Case([](CoshOp) { return "Cosh"; })
      .Case([](AsinhOp) { return "Asinh"; })
      .Case([](AcoshOp) { return "Acosh"; })
      .Case([](AtanhOp) { return "Atanh"; })
      .Case([](ReciprocalOp) { return "Reciprocal"; })
      .Case([](SignOp) { return "Sign"; })
      .Case([](SoftplusOp) { return "Softplus"; })
      .Case([](SoftsignOp) { return "Softsign"; })
      .Case([](NotOp) { return "Not"; })
      .Case([](HardSwishOp) { return "HardSwish"; })
      .Case([](MishOp) { return "Mish"; })
      .Case([](SiluOp) { return "Silu"; })
      .Case([](GeluOp) { return "Gelu"; })
      .Case([](GeluTanhOp) { return "GeluTanh"; })
      .Case([](IsNanOp) { return "IsNaN"; })
      .Default([](Operation *) { return nullptr; });
}

// Functor expressions of parameterised unary ops.
std::string paramFunctor(Operation *op) {
  auto lit = [&](APFloat v) {
    return cppLiteral(v.convertToFloat(), Float32Type::get(op->getContext()));
  };
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case([&](LeakyReluOp o) { return fmt::format("LeakyRelu{{{}}}", lit(o.getAlphaAttr().getValue())); })
      .Case([&](HardSigmoidOp o) {
        return fmt::format("HardSigmoid{{{}, {}}}", lit(o.getAlphaAttr().getValue()),
                           lit(o.getBetaAttr().getValue()));
      })
      .Case([&](EluOp o) { return fmt::format("Elu{{{}}}", lit(o.getAlphaAttr().getValue())); })
      .Case([&](SeluOp o) {
        return fmt::format("Selu{{{}, {}}}", lit(o.getAlphaAttr().getValue()),
                           lit(o.getGammaAttr().getValue()));
      })
      .Case([&](CeluOp o) { return fmt::format("Celu{{{}}}", lit(o.getAlphaAttr().getValue())); })
      .Case([&](ThresholdedReluOp o) {
        return fmt::format("ThresholdedRelu{{{}}}", lit(o.getAlphaAttr().getValue()));
      })
      .Case([&](ShrinkOp o) {
        return fmt::format("Shrink{{{}, {}}}", lit(o.getBiasAttr().getValue()),
                           lit(o.getLambdAttr().getValue()));
      })
      .Case([&](ClipOp o) {
        Type t = o.getType().getElementType();
        return fmt::format("Clip<{}>{{{}, {}}}", cppElementType(t),
                           cppLiteral(o.getMinAttr().getValueAsDouble(), t),
                           cppLiteral(o.getMaxAttr().getValueAsDouble(), t));
      })
      .Case([&](IsInfOp o) {
        return fmt::format("IsInf{{{}, {}}}", o.getDetectPositive() ? "true" : "false",
                           o.getDetectNegative() ? "true" : "false");
      })
      .Default([](Operation *) { return std::string(); });
}

const char *binaryFunctor(Operation *op) {
  return llvm::TypeSwitch<Operation *, const char *>(op)
      .Case([](AddOp) { return "Add"; })
      .Case([](SubOp) { return "Sub"; })
      .Case([](MulOp) { return "Mul"; })
      .Case([](DivOp) { return "Div"; })
      .Case([](PowOp) { return "Pow"; })
      .Case([](MaxOp) { return "Max"; })
      .Case([](MinOp) { return "Min"; })
      .Case([](ModOp) { return "Mod"; })
      .Case([](FModOp) { return "FMod"; })
      .Case([](PReluOp) { return "PRelu"; })
      .Case([](ShiftLeftOp) { return "BitShiftLeft"; })
      .Case([](ShiftRightOp) { return "BitShiftRight"; })
      .Case([](AndOp) { return "And"; })
      .Case([](OrOp) { return "Or"; })
      .Case([](XorOp) { return "Xor"; })
      .Case([](EqualOp) { return "Equal"; })
      .Case([](LessOp) { return "Less"; })
      .Case([](GreaterOp) { return "Greater"; })
      .Case([](LessEqualOp) { return "LessOrEqual"; })
      .Case([](GreaterEqualOp) { return "GreaterOrEqual"; })
      .Default([](Operation *) { return nullptr; });
}

const char *reducer(Operation *op) {
  return llvm::TypeSwitch<Operation *, const char *>(op)
      .Case([](ReduceSumOp) { return "ReduceSum"; })
      .Case([](ReduceMeanOp) { return "ReduceMean"; })
      .Case([](ReduceMaxOp) { return "ReduceMax"; })
      .Case([](ReduceMinOp) { return "ReduceMin"; })
      .Case([](ReduceProdOp) { return "ReduceProd"; })
      .Case([](ReduceSumSquareOp) { return "ReduceSumSquare"; })
      .Case([](ReduceL1Op) { return "ReduceL1"; })
      .Case([](ReduceL2Op) { return "ReduceL2"; })
      .Case([](ReduceLogSumOp) { return "ReduceLogSum"; })
      .Case([](ReduceLogSumExpOp) { return "ReduceLogSumExp"; })
      .Default([](Operation *) { return nullptr; });
}

// A slice with unit steps whose output is `rows` runs of `len` contiguous
// input elements, run r at first + r * rowStride.
struct SliceRows {
  int64_t first, rows, rowStride, len;
};

// The innermost dims the slice takes whole, plus the one it cuts, are one
// run; of the dims outside, at most one may keep more than one index (the
// runs' stride), the others are single indices (part of `first`).
std::optional<SliceRows> contiguousSliceRows(SliceOp s) {
  auto x = typeOf(s.getInput());
  auto y = typeOf(s.getResult());
  if (!x.getElementType().isIntOrFloat() || !x.hasStaticShape() || !y.hasStaticShape())
    return std::nullopt;
  ArrayRef<int64_t> in = x.getShape(), out = y.getShape(), starts = s.getStarts(),
                    steps = s.getSteps();
  const int64_t rank = x.getRank();
  if (int64_t(starts.size()) != rank || int64_t(steps.size()) != rank)
    return std::nullopt;
  SmallVector<int64_t> stride(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    stride[d] = stride[d + 1] * in[d + 1];
  SliceRows r{0, 1, 0, 1};
  int64_t d = rank - 1;
  for (; d >= 0 && out[d] == in[d]; --d)
    r.len *= in[d];
  if (d >= 0) {
    r.len *= out[d];
    --d;
  }
  for (int64_t e = 0; e < rank; ++e) {
    if (steps[e] != 1 && out[e] > 1)
      return std::nullopt;
    r.first += starts[e] * stride[e];
  }
  for (; d >= 0; --d) {
    if (out[d] == 1)
      continue;
    if (r.rows != 1)
      return std::nullopt; // two strides: the generic walk
    r.rows = out[d];
    r.rowStride = stride[d];
  }
  return r;
}

} // namespace

int64_t mlir::tract::trailingSumRows(Operation *op) {
  if (!isa<ReduceSumOp, ReduceMeanOp>(op) || op->getNumOperands() != 1)
    return 0;
  auto x = typeOf(op->getOperand(0));
  auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes");
  if (!x.getElementType().isF32() || !axes || axes.empty() || x.getNumElements() == 0)
    return 0;
  // The axes, sorted and distinct, must be the last axes.size() of x.
  SmallVector<int64_t> sorted(axes.asArrayRef());
  llvm::sort(sorted);
  const int64_t rank = x.getRank(), first = rank - int64_t(sorted.size());
  for (int64_t i = 0; i < int64_t(sorted.size()); ++i)
    if (sorted[i] != first + i)
      return 0;
  int64_t rows = 1;
  for (int64_t d = 0; d < first; ++d)
    rows *= x.getDimSize(d);
  return rows;
}

namespace {

// A ConvParams/PoolParams array member: 4 entries, zero padded.
std::string four(ArrayRef<int64_t> v) {
  SmallVector<int64_t, 4> p(v.begin(), v.end());
  p.resize(4, 0);
  return fmt::format("{{{}}}", joined(p));
}

std::string convParams(RankedTensorType x, RankedTensorType w, RankedTensorType y,
                       int64_t group, ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                       ArrayRef<int64_t> pads) {
  ::tract::rt::ConvParams p{};
  p.spatial_rank = static_cast<int>(x.getRank() - 2);
  p.batch = x.getDimSize(0);
  p.in_channels = x.getDimSize(1);
  p.out_channels = y.getDimSize(1);
  p.groups = group;
  for (int d = 0; d < p.spatial_rank && d < 4; ++d) {
    p.in_size[d] = x.getDimSize(2 + d);
    p.out_size[d] = y.getDimSize(2 + d);
    p.kernel[d] = w.getDimSize(2 + d);
    p.stride[d] = strides[d];
    p.dilation[d] = dilations[d];
    p.pad_begin[d] = pads[d];
  }
  return convParamsDecl(p);
}

// broadcastIndex inside a GEMM epilogue, whose segments [i0, i0 + count)
// never cross a multiple of `row` (the output row of the GEMM: a matmul's
// last dim, a conv's output plane): as `base + j * step` with base an
// expression in i0 alone, so the epilogue loop reads the operand
// contiguously and vectorises (`i % n` per element would not). Terms over
// dims whose inner size is a multiple of `row` are constant in a segment;
// the innermost dim's `i % n` is (i0 % n) + j when n is a multiple of
// `row`. Anything else: nullopt, the per-element form stays.
std::optional<std::pair<std::string, int64_t>>
segmentIndex(ArrayRef<int64_t> in, ArrayRef<int64_t> out, int64_t row) {
  SmallVector<int64_t> strides = broadcastStrides(in, out);
  std::string base;
  int64_t step = 0;
  for (size_t d = 0; d < out.size(); ++d) {
    if (strides[d] == 0)
      continue;
    int64_t inner = product(out.drop_front(d + 1));
    std::string term;
    if (inner % row == 0) {
      term = fmt::format("(i0 / {})", inner);
      if (d > 0)
        term = fmt::format("({} % {})", term, out[d]);
    } else if (inner == 1 && (d == 0 || out[d] % row == 0)) {
      term = d == 0 ? "i0" : fmt::format("(i0 % {})", out[d]);
      step = strides[d];
    } else {
      return std::nullopt;
    }
    if (strides[d] != 1)
      term = fmt::format("{} * {}", term, strides[d]);
    base += (base.empty() ? "" : " + ") + term;
  }
  return std::make_pair(base.empty() ? std::string("0") : base, step);
}

// The row an element-wise loop over `out` runs in (0: one flat loop): the
// longest trailing block of `out` over which every broadcast operand the
// chain reads is either constant or contiguous (segmentIndex), so the inner
// loop reads it hoisted or as `base + j` and vectorises; the flat loop's
// `(i / 256) % 128` per element with the operand re-read did not (DenseNet's
// BatchNorm + ReLU on a concat, 128 x 16 x 16: 40 us, scalar).
int64_t loopRow(llvm::iterator_range<Block::iterator> ops, RankedTensorType out) {
  SmallVector<ArrayRef<int64_t>> broadcast;
  for (Operation &op : ops) {
    if (isa<TransposeOp>(op)) // read by its own per-element index
      continue;
    for (Value v : op.getOperands())
      if (isa<BlockArgument>(v) && typeOf(v).getShape() != out.getShape())
        broadcast.push_back(typeOf(v).getShape());
  }
  if (broadcast.empty())
    return 0;
  ArrayRef<int64_t> shape = out.getShape();
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t row = product(shape.drop_front(d));
    if (row > 1 && llvm::all_of(broadcast, [&](ArrayRef<int64_t> in) {
          return segmentIndex(in, shape, row).has_value();
        }))
      return row;
  }
  return 0;
}

// The scalar code of a run of a kernel body's elementwise ops: `loop` computes
// one element i of `out` (`acc`, the value the run starts from, already
// named), `result` names the value `last` holds. Operand reads inside a
// GEMM epilogue (`row` > 0) index by segment (segmentIndex), hoisted. With
// `clipAfter`, an f32 Clip that computes `last` is left out of the loop and
// named in `clip` (its bounds) instead, for the epilogue to run as one pass
// of tract::rt::clip_in_place after the loop (clip_in_place.h: GCC turns
// the scalar Clip into a dozen vector operations where two do).
struct ElementCode {
  std::vector<std::string> hoisted, loop;
  std::string result;
  std::optional<std::pair<std::string, std::string>> clip;
  int ops = 0;
};

FailureOr<ElementCode> elementCode(llvm::iterator_range<Block::iterator> ops, Value acc,
                                   std::string accExpr, RankedTensorType out, int64_t row,
                                   Value last, bool clipAfter = false) {
  ElementCode code;
  Type element = out.getElementType();
  std::string T = cppElementType(element);
  llvm::DenseMap<Value, std::string> names;
  if (acc) {
    code.loop.push_back(fmt::format("const {} acc = {};", T, accExpr));
    names[acc] = "acc";
  }
  auto nameOf = [&](Value v) -> std::string {
    auto it = names.find(v);
    if (it != names.end())
      return it->second;
    auto arg = cast<BlockArgument>(v); // the verifier admits nothing else
    std::string name = fmt::format("a{}", arg.getArgNumber());
    std::string index = broadcastIndex(typeOf(arg).getShape(), out.getShape());
    bool same = typeOf(arg).getShape() == out.getShape(); // "i" is already contiguous
    if (auto segment = row > 0 && !same
                           ? segmentIndex(typeOf(arg).getShape(), out.getShape(), row)
                           : std::nullopt) {
      code.hoisted.push_back(fmt::format("const int64_t {}_base = {};", name, segment->first));
      if (segment->second == 0) { // one value per segment, read once
        code.hoisted.push_back(
            fmt::format("const {} {} = in{}[{}_base];", T, name, arg.getArgNumber(), name));
        return names[v] = name;
      }
      index = segment->second == 1 ? name + "_base + j"
                                   : fmt::format("{}_base + j * {}", name, segment->second);
    }
    code.loop.push_back(fmt::format("const {} {} = in{}[{}];", T, name, arg.getArgNumber(), index));
    return names[v] = name;
  };
  int loads = 0;
  for (Operation &op : ops) {
    if (auto t = dyn_cast<TransposeOp>(op)) {
      auto arg = cast<BlockArgument>(t.getInput());
      std::string name = fmt::format("t{}", loads++);
      code.loop.push_back(fmt::format("const {} {} = in{}[{}];", T, name, arg.getArgNumber(),
                                      transposedIndex(typeOf(arg).getShape(), t.getPerm(),
                                                      out.getShape())));
      names[t.getResult()] = name;
      continue;
    }
    if (auto c = dyn_cast<ConstOp>(op)) {
      std::string bytes = elementsBytes(c.getValue());
      double v = 0;
      if (element.isF32()) {
        float f;
        std::memcpy(&f, bytes.data(), sizeof f);
        v = f;
      } else {
        std::memcpy(&v, bytes.data(), sizeof v);
      }
      names[c.getResult()] = cppLiteral(v, element);
      continue;
    }
    if (auto c = dyn_cast<ClipOp>(op); c && clipAfter && c.getOutput() == last &&
                                        element.isF32()) {
      code.clip = {cppLiteral(c.getMinAttr().getValueAsDouble(), element),
                   cppLiteral(c.getMaxAttr().getValueAsDouble(), element)};
      names[c.getOutput()] = nameOf(c.getInput());
      ++code.ops;
      continue;
    }
    // A ReLU that is the whole run (a conv then ReLU): op::Relu, x < 0 ? 0
    // : x, is op::Clip{0, +inf} bit for bit (the upper select never fires,
    // NaN and -0 pass through both), so it takes the same path and the
    // lane kernels apply it in their tiles. After other ops it stays in the
    // loop: GCC vectorises its one select well, and a pass of its own
    // would cost more than it does there.
    if (auto r = dyn_cast<ReluOp>(op); r && clipAfter && acc && r.getOutput() == last &&
                                       r.getInput() == acc && element.isF32()) {
      code.clip = {cppLiteral(0.0, element),
                   cppLiteral(std::numeric_limits<double>::infinity(), element)};
      names[r.getOutput()] = "acc";
      ++code.ops;
      continue;
    }
    std::string expr;
    if (const char *f = unaryFunctor(&op))
      expr = fmt::format("tract::rt::op::{}{{}}({})", f, nameOf(op.getOperand(0)));
    else if (std::string pf = paramFunctor(&op); !pf.empty())
      expr = fmt::format("tract::rt::op::{}({})", pf, nameOf(op.getOperand(0)));
    else if (const char *bf = binaryFunctor(&op))
      expr = fmt::format("tract::rt::op::{}{{}}({}, {})", bf, nameOf(op.getOperand(0)),
                         nameOf(op.getOperand(1)));
    else
      return op.emitError("no scalar form for ") << op.getName() << " in a fused kernel";
    std::string name = fmt::format("v{}", code.ops++);
    code.loop.push_back(fmt::format("const {} {} = static_cast<{}>({});", T, name, T, expr));
    names[op.getResult(0)] = name;
  }
  code.result = nameOf(last);
  return code;
}

// `auto NAME = [&](T *v, int64_t i0, int64_t count) {...};`: gemm.h's
// epilogue contract, applying `code` to v[0, count), elements i0 + j.
void addEpilogue(KernelCall &call, StringRef name, StringRef T, const ElementCode &code) {
  // (Only `const T acc = v[j];` and v[j] = acc: nothing for the loop to do.)
  bool identity = code.hoisted.empty() && code.loop.size() == 1 && code.result == "acc";
  if (identity && code.clip) {
    // One Clip: the runtime's ClipEpilogue, which the lane kernels apply to
    // their tiles in registers (clip_in_place.h) and the others as a pass.
    call.lines.push_back(fmt::format("const tract::rt::ClipEpilogue {}{{{}, {}}};", name.str(),
                                     code.clip->first, code.clip->second));
    return;
  }
  // (known_count: the GEMM may pass a whole tile's count as a constant,
  // which the TRACT_UNROLL(1) loop takes as one vector operation.)
  call.lines.push_back(fmt::format(
      "auto {} = tract::rt::gemm::known_count([&]({} *v, int64_t i0, int64_t count) {{",
      name.str(), T.str()));
  for (const std::string &l : code.hoisted)
    call.lines.push_back("  " + l);
  if (identity) {
    call.lines.push_back("  (void)v, (void)i0, (void)count;");
  } else {
    call.lines.push_back("  TRACT_UNROLL(1)");
    call.lines.push_back("  for (int64_t j = 0; j < count; ++j) {");
    call.lines.push_back("    const int64_t i = i0 + j;");
    call.lines.push_back("    (void)i;");
    for (const std::string &l : code.loop)
      call.lines.push_back("    " + l);
    call.lines.push_back(fmt::format("    v[j] = {};", code.result));
    call.lines.push_back("  }");
  }
  if (code.clip)
    call.lines.push_back(fmt::format("  tract::rt::clip_in_place(v, count, {}, {});",
                                     code.clip->first, code.clip->second));
  call.lines.push_back("});");
}

// A tract.kernel: its anchor's call writes out0, then one loop applies the
// elementwise ops to each element with the runtime's scalar functors (the
// same ones the standalone kernels use), so results do not change. A
// chained kernel (a tail conv or max pool) takes two epilogues: the ops
// before the tail (`epilogue_expand` before a conv, `epilogue_conv` before a
// pool, on the anchor's result) and the ops after it.
LogicalResult buildFusedKernel(KernelOp kernel, KernelCall &call) {
  Block &body = kernel.getBody().front();
  Operation *anchor = kernel.getAnchor(), *tail = kernel.getTail();
  Value yielded = body.getTerminator()->getOperand(0);
  // The shape the body computes in (the result may be a reshape of it).
  auto out = cast<RankedTensorType>(yielded.getType());
  // A GEMM-run anchor takes the element-wise ops as its epilogue, applied to
  // each tile before it is stored; otherwise the anchor writes out0 and one
  // loop rewrites it.
  Operation *last = tail ? tail : anchor;
  bool epilogue = anchor && emitsGemm(kernel) &&
                  typeOf(last->getResult(0)).getShape() == out.getShape();
  if (tail && !epilogue)
    return kernel.emitError("a chained kernel runs only as its chosen algorithm");
  // The epilogue's segments stay within one GEMM output row (gemm.h): a
  // conv's output plane, a fully connected conv's image, a matmul's row.
  int64_t row = 0;
  if (epilogue) {
    auto algorithm = kernel->getAttrOfType<StringAttr>(kAlgorithmAttr).getValue();
    row = !isa<ConvOp>(last)                ? out.getShape().back()
          : algorithm == "fully_connected" ? product(out.getShape().drop_front(1))
                                            : product(out.getShape().drop_front(2));
  }
  if (anchor && !epilogue && failed(buildKernelCall(anchor, call)))
    return failure();
  std::string T = cppElementType(out.getElementType());
  auto after = [&](Operation *op) {
    return op ? std::next(op->getIterator()) : body.begin();
  };
  if (tail) {
    // The producer's epilogue reads no other tensor (ChainedKernels.cpp,
    // LaneChains.cpp): no rows. Named for the producer it follows.
    auto head = elementCode(llvm::make_range(after(anchor), tail->getIterator()),
                            anchor->getResult(0), "v[j]", typeOf(anchor->getResult(0)), 0,
                            tail->getOperand(0), /*clipAfter=*/true);
    if (failed(head))
      return failure();
    addEpilogue(call, isa<ConvOp>(tail) ? "epilogue_expand" : "epilogue_conv", T, *head);
    call.flops += typeOf(anchor->getResult(0)).getNumElements() * head->ops;
  }
  auto chain = llvm::make_range(after(last), body.getTerminator()->getIterator());
  // Without a GEMM the loop runs over rows too, when broadcast operands
  // allow it, so that their reads hoist out of the inner loop.
  if (!epilogue)
    row = loopRow(chain, out);
  auto code = elementCode(chain, last ? last->getResult(0) : Value(),
                          epilogue ? "v[j]" : "out0[i]", out, row, yielded, epilogue);
  if (failed(code))
    return failure();
  int64_t n = out.getNumElements();
  if (!anchor) // a generated element loop, by rows or flat
    call.path = "elementwise";
  if (epilogue) {
    addEpilogue(call, "epilogue", T, *code);
    if (failed(buildGemmCall(kernel, "epilogue", call)))
      return failure();
  } else if (row > 0) {
    call.lines.push_back(fmt::format("for (int64_t i0 = 0; i0 < {}; i0 += {}) {{", n, row));
    for (const std::string &l : code->hoisted)
      call.lines.push_back("  " + l);
    // (GCC unrolls a loop of 16 or fewer into scalar code before it
    // vectorises: DenseNet's 4 x 4 planes.)
    std::string count = std::to_string(row);
    if (row <= 16) {
      call.lines.push_back(fmt::format("  const int64_t row = tract::rt::detail::opaque({});", row));
      count = "row";
    }
    call.lines.push_back("  TRACT_IVDEP");
    call.lines.push_back(fmt::format("  for (int64_t j = 0; j < {}; ++j) {{", count));
    call.lines.push_back("    const int64_t i = i0 + j;");
    for (const std::string &l : code->loop)
      call.lines.push_back("    " + l);
    call.lines.push_back(fmt::format("    out0[i] = {};", code->result));
    call.lines.push_back("  }");
    call.lines.push_back("}");
  } else {
    call.lines.push_back("TRACT_IVDEP");
    call.lines.push_back(fmt::format("for (int64_t i = 0; i < {}; ++i) {{", n));
    for (const std::string &l : code->loop)
      call.lines.push_back("  " + l);
    call.lines.push_back(fmt::format("  out0[i] = {};", code->result));
    call.lines.push_back("}");
  }
  call.flops += n * code->ops;
  return success();
}

} // namespace

// Index into a kernel input of shape `in` for output element `i` of shape
// `out` (numpy broadcasting), as a C++ expression with constant divisors.
std::string mlir::tract::broadcastIndex(ArrayRef<int64_t> in, ArrayRef<int64_t> out) {
  if (in == out)
    return "i";
  SmallVector<int64_t> strides = broadcastStrides(in, out);
  std::string expr;
  for (size_t d = 0; d < out.size(); ++d) {
    if (strides[d] == 0)
      continue;
    int64_t inner = product(out.drop_front(d + 1));
    std::string term = inner == 1 ? "i" : fmt::format("(i / {})", inner);
    if (d > 0)
      term = fmt::format("({} % {})", term, out[d]);
    if (strides[d] != 1)
      term = fmt::format("{} * {}", term, strides[d]);
    expr += (expr.empty() ? "" : " + ") + term;
  }
  return expr.empty() ? "0" : expr;
}

// Index into `x` (contiguous, shape xShape) of element i of `out` when the
// value read is transpose(x, perm) broadcast to `out`.
std::string mlir::tract::transposedIndex(ArrayRef<int64_t> xShape, ArrayRef<int64_t> perm,
                            ArrayRef<int64_t> out) {
  int64_t rank = xShape.size(), offset = out.size() - rank;
  SmallVector<int64_t> xStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    xStrides[d] = xStrides[d + 1] * xShape[d + 1];
  std::string expr;
  for (int64_t d = 0; d < rank; ++d) { // d: a dim of the transposed value
    int64_t size = xShape[perm[d]], o = d + offset;
    if (size == 1)
      continue;
    int64_t inner = product(out.drop_front(o + 1));
    std::string term = inner == 1 ? "i" : fmt::format("(i / {})", inner);
    if (o > 0)
      term = fmt::format("({} % {})", term, out[o]);
    if (xStrides[perm[d]] != 1)
      term = fmt::format("{} * {}", term, xStrides[perm[d]]);
    expr += (expr.empty() ? "" : " + ") + term;
  }
  return expr.empty() ? "0" : expr;
}

std::string mlir::tract::declareArray(KernelCall &call, StringRef name, ArrayRef<int64_t> values) {
  if (values.empty())
    return "nullptr";
  call.lines.push_back(
      fmt::format("static constexpr int64_t {}[] = {{{}}};", name.str(), joined(values)));
  return name.str();
}

std::string mlir::tract::poolParamsDecl(const ::tract::rt::PoolParams &p, StringRef name) {
  return fmt::format(
      "static constexpr tract::rt::PoolParams {} = {{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, "
      "{}}};",
      name.str(), p.spatial_rank, p.batch_channels, four(p.in_size), four(p.out_size),
      four(p.kernel), four(p.stride), four(p.dilation), four(p.pad_begin), four(p.pad_end),
      p.count_include_pad ? "true" : "false", p.in_plane_stride, p.out_plane_stride);
}

std::string mlir::tract::convParamsDecl(const ::tract::rt::ConvParams &p, StringRef name) {
  return fmt::format(
      "static constexpr tract::rt::ConvParams {} = {{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, "
      "{}, {}}};",
      name.str(), p.spatial_rank, p.batch, p.in_channels, p.out_channels, p.groups, four(p.in_size),
      four(p.out_size), four(p.kernel), four(p.stride), four(p.dilation), four(p.pad_begin),
      p.in_plane_stride, p.out_plane_stride);
}

::tract::rt::ResizeParams mlir::tract::resizeParamsOf(ResizeOp resize) {
  ::tract::rt::ResizeParams p = {};
  auto x = cast<RankedTensorType>(resize.getInput().getType());
  auto y = cast<RankedTensorType>(resize.getResult().getType());
  // (Callers check the rank against kMaxRank first; the arrays hold no more.)
  int64_t rank = x.getRank();
  p.rank = (int)rank;
  for (int64_t d = 0; d < std::min<int64_t>(rank, ::tract::rt::kMaxRank); ++d) {
    p.in_shape[d] = x.getDimSize(d);
    p.out_shape[d] = y.getDimSize(d);
    p.scales[d] = resize.getScales()[d];
    p.roi_start[d] = resize.getRoi()[d];
    p.roi_end[d] = resize.getRoi()[rank + d];
  }
  StringRef mode = resize.getMode(), coord = resize.getCoordinateTransformationMode(),
            nearest = resize.getNearestMode();
  using ::tract::rt::ResizeCoord, ::tract::rt::ResizeMode, ::tract::rt::ResizeNearest;
  p.mode = mode == "linear" ? ResizeMode::Linear
           : mode == "cubic" ? ResizeMode::Cubic
                             : ResizeMode::Nearest;
  p.coord = coord == "pytorch_half_pixel"     ? ResizeCoord::PytorchHalfPixel
            : coord == "align_corners"        ? ResizeCoord::AlignCorners
            : coord == "asymmetric"           ? ResizeCoord::Asymmetric
            : coord == "tf_crop_and_resize"   ? ResizeCoord::TfCropAndResize
            : coord == "tf_half_pixel_for_nn" ? ResizeCoord::TfHalfPixelForNN
                                              : ResizeCoord::HalfPixel;
  p.nearest = nearest == "round_prefer_ceil" ? ResizeNearest::RoundPreferCeil
              : nearest == "floor"           ? ResizeNearest::Floor
              : nearest == "ceil"            ? ResizeNearest::Ceil
                                             : ResizeNearest::RoundPreferFloor;
  p.cubic_coeff_a = resize.getCubicCoeffA().convertToFloat();
  p.exclude_outside = resize.getExcludeOutside();
  p.extrapolation_value = resize.getExtrapolationValue().convertToFloat();
  return p;
}

LogicalResult mlir::tract::buildKernelCall(Operation *op, KernelCall &call) {
  if (auto kernel = dyn_cast<KernelOp>(op))
    return buildFusedKernel(kernel, call);
  if (emitsGemm(op))
    return buildGemmCall(op, "tract::rt::gemm::NoEpilogue{}", call);
  Body b{call};
  auto result = typeOf(op->getResult(0));
  int64_t n = result.getNumElements();
  std::string T = cppElementType(result.getElementType());

  if (const char *f = unaryFunctor(op)) {
    call.path = "elementwise";
    b.line(fmt::format("tract::rt::unary(in0, out0, {}, tract::rt::op::{}{{}});", n, f));
    call.flops = n;
    return success();
  }
  std::string pf = paramFunctor(op);
  if (!pf.empty()) {
    call.path = "elementwise";
    b.line(fmt::format("tract::rt::unary(in0, out0, {}, tract::rt::op::{});", n, pf));
    call.flops = n;
    return success();
  }
  if (isSqueezeExciteLanes(op)) {
    // x [N, C, H, W] in lane layout (LaneChains.cpp); the scale's other
    // operand (either side of the Mul) is [N, C, 1, 1].
    int xi = isa<MulOp>(op) && typeOf(op->getOperand(1)).getShape() == result.getShape();
    ArrayRef<int64_t> x = typeOf(op->getOperand(xi)).getShape();
    std::string dims = fmt::format("{}, {}, {}", x[0], x[1], x[2] * x[3]);
    call.flops = x[0] * x[1] * x[2] * x[3];
    // (A mean that splits its plane by pixels has scratch: LaneChains.cpp.)
    auto scratch = op->getAttrOfType<IntegerAttr>(kScratchBytesAttr);
    const char *meanScratch = scratch && scratch.getInt() > 0 ? "scratch" : "nullptr";
    b.line(isa<MulOp>(op) ? fmt::format("tract::rt::scale_lanes(in{}, in{}, out0, {}, par);", xi,
                                        1 - xi, dims)
                          : fmt::format("tract::rt::mean_from_lanes(in0, out0, {}, {}, par);",
                                        dims, meanScratch));
    return success();
  }
  if (const char *f = binaryFunctor(op)) {
    auto a = typeOf(op->getOperand(0)), c = typeOf(op->getOperand(1));
    call.flops = n;
    call.path = "elementwise"; // (binary_bcast: by rows, each vectorised)
    if (a.getShape() == result.getShape() && c.getShape() == result.getShape()) {
      b.line(fmt::format("tract::rt::binary_flat(in0, in1, out0, {}, tract::rt::op::{}{{}});", n, f));
      return success();
    }
    std::string shape = b.array("kShape", result.getShape());
    std::string sa = b.array("kStridesA", broadcastStrides(a.getShape(), result.getShape()));
    std::string sb = b.array("kStridesB", broadcastStrides(c.getShape(), result.getShape()));
    b.line(fmt::format("tract::rt::binary_bcast(in0, {}, in1, {}, out0, {}, {}, tract::rt::op::{}{{}});",
                       sa, sb, shape, result.getRank(), f));
    return success();
  }
  if (int64_t rows = trailingSumRows(op)) {
    // One contiguous row per output (a global average pool), split over
    // the threads (reduce/reduce_rows.h).
    // (Rows planeStrideOf apart where its input has padded planes.)
    auto x = typeOf(op->getOperand(0));
    b.line(fmt::format("tract::rt::sum_rows<{}>(in0, {}, {}, out0, par, {});",
                       isa<ReduceMeanOp>(op) ? "true" : "false", rows, x.getNumElements() / rows,
                       planeStrideOf(op->getOperand(0))));
    call.flops = x.getNumElements();
    call.path = "sum_rows";
    return success();
  }
  if (const char *r = reducer(op)) {
    auto x = typeOf(op->getOperand(0));
    uint32_t mask = 0;
    for (int64_t axis : op->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef())
      mask |= 1u << axis;
    std::string shape = b.array("kInShape", x.getShape());
    b.line(fmt::format("tract::rt::reduce<tract::rt::op::{}>(in0, {}, {}, {}u, out0);", r, shape,
                       x.getRank(), mask));
    call.flops = x.getNumElements();
    return success();
  }

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](SelectOp s) {
        std::string shape = b.array("kShape", result.getShape());
        std::string sc = b.array("kStridesC", broadcastStrides(typeOf(s.getCond()).getShape(), result.getShape()));
        std::string sa = b.array("kStridesA", broadcastStrides(typeOf(s.getLhs()).getShape(), result.getShape()));
        std::string sb = b.array("kStridesB", broadcastStrides(typeOf(s.getRhs()).getShape(), result.getShape()));
        b.line(fmt::format("tract::rt::select_bcast(in0, {}, in1, {}, in2, {}, out0, {}, {});", sc,
                           sa, sb, shape, result.getRank()));
        return success();
      })
      .Case([&](BroadcastOp o) {
        std::string shape = b.array("kShape", result.getShape());
        std::string sx = b.array("kStrides", broadcastStrides(typeOf(o.getInput()).getShape(), result.getShape()));
        b.line(fmt::format("tract::rt::broadcast(in0, {}, out0, {}, {});", sx, shape, result.getRank()));
        return success();
      })
      .Case([&](MatMulOp m) {
        MatMulGeometry g = matMulGeometry(m, /*bPacked=*/false);
        std::string bs = b.array("kBatch", g.batch);
        std::string sa = b.array("kBatchStridesA", g.aBatchStrides);
        std::string sb = b.array("kBatchStridesB", g.bBatchStrides);
        b.line(fmt::format("tract::rt::matmul(in0, in1, out0, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});",
                           g.batch.size(), bs, sa, sb, g.m, g.n, g.k, g.aRs, g.aCs, g.bRs, g.bCs));
        call.flops = 2 * product(g.batch) * g.m * g.n * g.k;
        return success();
      })
      .Case([&](ConvOp c) {
        auto x = typeOf(c.getInput()), w = typeOf(c.getWeight());
        b.line(convParams(x, w, result, c.getGroup(), c.getStrides(), c.getDilations(), c.getPads()));
        b.line(fmt::format("tract::rt::conv(in0, in1, {}, out0, p);", c.getBias() ? "in2" : "nullptr"));
        call.flops = 2 * n * product(w.getShape().drop_front(1));
        return success();
      })
      .Case([&](ConvTransposeOp c) {
        auto x = typeOf(c.getInput()), w = typeOf(c.getWeight());
        b.line(convParams(x, w, result, c.getGroup(), c.getStrides(), c.getDilations(), c.getPads()));
        b.line(fmt::format("tract::rt::conv_transpose(in0, in1, {}, out0, p);", c.getBias() ? "in2" : "nullptr"));
        call.flops = 2 * x.getNumElements() * product(w.getShape().drop_front(1));
        return success();
      })
      .Case<MaxPoolOp, AvgPoolOp>([&](auto p) {
        // (The verifier allows 1 to 4 spatial dims, as PoolParams holds.)
        int64_t spatial = typeOf(p.getInput()).getRank() - 2;
        ::tract::rt::PoolParams params = poolParamsOf(p);
        params.in_plane_stride = planeStrideOf(p.getInput()); // (tract-pad-planes)
        params.out_plane_stride = planeStrideOf(p.getResult());
        b.line(poolParamsDecl(params));
        b.line(std::is_same_v<decltype(p), AvgPoolOp> ? "tract::rt::avg_pool(in0, out0, p, par);"
                                                       : "tract::rt::max_pool(in0, out0, p, par);");
        call.flops = n * product(p.getKernelShape());
        if (spatial <= 2) // pool_ref.h is_rows_pool
          call.path = "pool_rows";
        return success();
      })
      .Case<ArgMaxOp, ArgMinOp>([&](auto a) {
        auto [outer, len, inner] = splitAt(typeOf(a.getInput()).getShape(), a.getAxis());
        b.line(fmt::format("tract::rt::arg_reduce(in0, out0, {}, {}, {}, {}, {});", outer, len,
                           inner, std::is_same_v<decltype(a), ArgMaxOp> ? "true" : "false",
                           a.getSelectLastIndex() ? "true" : "false"));
        call.flops = outer * len * inner;
        return success();
      })
      .Case([&](CumSumOp c) {
        auto [outer, len, inner] = splitAt(result.getShape(), c.getAxis());
        b.line(fmt::format("tract::rt::cumsum(in0, out0, {}, {}, {}, {}, {});", outer, len, inner,
                           c.getExclusive() ? "true" : "false", c.getReverse() ? "true" : "false"));
        call.flops = n;
        return success();
      })
      .Case<SoftmaxOp, LogSoftmaxOp, HardmaxOp>([&](auto s) {
        auto [outer, len, inner] = splitAt(result.getShape(), s.getAxis());
        const char *fn = std::is_same_v<decltype(s), SoftmaxOp>      ? "softmax"
                         : std::is_same_v<decltype(s), LogSoftmaxOp> ? "log_softmax"
                                                                     : "hardmax";
        // (Softmax splits its slices over threads; attention's are big.)
        b.line(fmt::format("tract::rt::{}(in0, out0, {}, {}, {}{});", fn, outer, len, inner,
                           std::is_same_v<decltype(s), SoftmaxOp> ? ", par" : ""));
        call.flops = 4 * n;
        // (softmax_ref.h softmax_row: contiguous rows, each pass on vectors.)
        if (std::is_same_v<decltype(s), SoftmaxOp> && inner == 1 && result.getElementType().isF32())
          call.path = "softmax_rows";
        return success();
      })
      .Case([&](LayerNormOp l) {
        int64_t outer = product(result.getShape().take_front(l.getAxis()));
        int64_t size = product(result.getShape().drop_front(l.getAxis()));
        b.line(fmt::format("tract::rt::layer_norm(in0, in1, {}, out0, {}, {}, {});",
                           l.getBias() ? "in2" : "nullptr", outer, size,
                           cppLiteral(l.getEpsilon().convertToFloat(), Float32Type::get(op->getContext()))));
        call.flops = 8 * n;
        call.path = "norm_rows"; // (norm_ref.h: vectorised sums, then one pass)
        return success();
      })
      .Case([&](InstanceNormOp i) {
        b.line(fmt::format("tract::rt::instance_norm(in0, in1, in2, out0, {}, {}, {}, {});",
                           result.getDimSize(0), result.getDimSize(1),
                           product(result.getShape().drop_front(2)),
                           cppLiteral(i.getEpsilon().convertToFloat(), Float32Type::get(op->getContext()))));
        call.flops = 8 * n;
        call.path = "norm_rows";
        return success();
      })
      .Case([&](LrnOp l) {
        Type f32 = Float32Type::get(op->getContext());
        b.line(fmt::format("tract::rt::lrn(in0, out0, {}, {}, {}, {}, {}, {}, {});",
                           result.getDimSize(0), result.getDimSize(1),
                           product(result.getShape().drop_front(2)), l.getSize(),
                           cppLiteral(l.getAlpha().convertToFloat(), f32),
                           cppLiteral(l.getBeta().convertToFloat(), f32),
                           cppLiteral(l.getBias().convertToFloat(), f32)));
        call.flops = n * (l.getSize() + 4);
        return success();
      })
      .Case([&](ReshapeOp) {
        b.line(fmt::format("tract::rt::copy(in0, out0, {});", n));
        call.path = "copy";
        return success();
      })
      .Case([&](CastOp) {
        b.line(fmt::format("tract::rt::cast(in0, out0, {});", n));
        return success();
      })
      .Case([&](TransposeOp t) {
        auto x = typeOf(t.getInput());
        std::string shape = b.array("kInShape", x.getShape());
        std::string perm = b.array("kPerm", t.getPerm());
        b.line(fmt::format("tract::rt::transpose(in0, out0, {}, {}, {});", shape, x.getRank(), perm));
        auto path = ::tract::rt::transpose_path(x.getShape().data(), (int)x.getRank(),
                                                t.getPerm().data());
        if (path == ::tract::rt::TransposePath::Rows)
          call.path = "copy";
        else if (path == ::tract::rt::TransposePath::Tiles)
          call.path = "tiles";
        return success();
      })
      .Case([&](ConcatOp c) {
        int64_t axis = c.getAxis();
        int64_t outer = product(result.getShape().take_front(axis));
        int64_t yInner = product(result.getShape().drop_front(axis));
        int64_t offset = 0;
        for (auto [k, v] : llvm::enumerate(c.getInputs())) {
          int64_t inner = product(typeOf(v).getShape().drop_front(axis));
          b.line(fmt::format("tract::rt::concat_part(in{}, out0, {}, {}, {}, {});", k, outer,
                             inner, yInner, offset));
          offset += inner;
        }
        call.path = "copy";
        return success();
      })
      .Case([&](SliceOp s) {
        auto x = typeOf(s.getInput());
        if (auto rows = contiguousSliceRows(s)) {
          b.line(fmt::format("tract::rt::slice_rows(in0, out0, {}, {}, {}, {});", rows->first,
                             rows->rows, rows->rowStride, rows->len));
          call.path = "copy";
          return success();
        }
        std::string in = b.array("kInShape", x.getShape());
        std::string starts = b.array("kStarts", s.getStarts());
        std::string steps = b.array("kSteps", s.getSteps());
        std::string out = b.array("kOutShape", result.getShape());
        b.line(fmt::format("tract::rt::slice(in0, out0, {}, {}, {}, {}, {});", in, x.getRank(),
                           starts, steps, out));
        return success();
      })
      .Case([&](GatherOp g) {
        auto x = typeOf(g.getInput());
        auto [outer, len, inner] = splitAt(x.getShape(), g.getAxis());
        b.line(fmt::format("tract::rt::gather(in0, in1, out0, {}, {}, {}, {});", outer, len, inner,
                           typeOf(g.getIndices()).getNumElements()));
        if (inner > 1) // (gather_ref.h: a row copy per index)
          call.path = "copy";
        return success();
      })
      .Case([&](GatherElementsOp g) {
        auto x = typeOf(g.getInput());
        std::string xs = b.array("kInShape", x.getShape());
        std::string is = b.array("kIndexShape", typeOf(g.getIndices()).getShape());
        b.line(fmt::format("tract::rt::gather_elements(in0, in1, out0, {}, {}, {}, {});", xs, is,
                           x.getRank(), g.getAxis()));
        return success();
      })
      .Case([&](PadOp p) {
        auto x = typeOf(p.getInput());
        std::string in = b.array("kInShape", x.getShape());
        std::string begin;
        if (!p.getRuntimePads()) {
          begin = b.array("kPadBegin", p.getPads().take_front(x.getRank()));
        } else {
          // Begin pads computed by the model: copied from the operand.
          b.line(fmt::format("int64_t padBegin[{0}];\n  for (int i = 0; i < {0}; ++i) "
                             "padBegin[i] = in1[i];", x.getRank()));
          begin = "padBegin";
        }
        std::string out = b.array("kOutShape", result.getShape());
        StringRef mode = p.getMode();
        const char *m = mode == "reflect" ? "Reflect" : mode == "edge" ? "Edge" : "Constant";
        std::string value = p.getRuntimeValue()
                                ? fmt::format("in{}[0]", p.getRuntimePads() ? 2 : 1)
                                : cppLiteral(p.getValue().convertToDouble(), result.getElementType());
        b.line(fmt::format("tract::rt::pad(in0, out0, {}, {}, {}, {}, tract::rt::PadMode::{}, {});",
                           in, x.getRank(), begin, out, m, value));
        return success();
      })
      .Case([&](TileOp t) {
        auto x = typeOf(t.getInput());
        std::string in = b.array("kInShape", x.getShape());
        std::string out = b.array("kOutShape", result.getShape());
        b.line(fmt::format("tract::rt::tile(in0, out0, {}, {}, {});", in, x.getRank(), out));
        return success();
      })
      .Case([&](TriluOp t) {
        int64_t rank = result.getRank();
        b.line(fmt::format("tract::rt::trilu(in0, out0, {}, {}, {}, {}, {});",
                           product(result.getShape().drop_back(2)), result.getDimSize(rank - 2),
                           result.getDimSize(rank - 1), t.getK(), t.getUpper() ? "true" : "false"));
        return success();
      })
      .Case([&](DepthToSpaceOp d) {
        auto x = typeOf(d.getInput());
        b.line(fmt::format("tract::rt::depth_to_space(in0, out0, {}, {}, {}, {}, {}, {});",
                           x.getDimSize(0), x.getDimSize(1), x.getDimSize(2), x.getDimSize(3),
                           d.getBlocksize(), d.getCrd() ? "true" : "false"));
        return success();
      })
      .Case([&](SpaceToDepthOp d) {
        auto x = typeOf(d.getInput());
        b.line(fmt::format("tract::rt::space_to_depth(in0, out0, {}, {}, {}, {}, {});",
                           x.getDimSize(0), x.getDimSize(1), x.getDimSize(2), x.getDimSize(3),
                           d.getBlocksize()));
        return success();
      })
      .Case([&](ResizeOp r) {
        auto x = typeOf(r.getInput());
        int64_t rank = x.getRank();
        Type f32 = Float32Type::get(op->getContext());
        auto floats = [&](ArrayRef<float> v) {
          SmallVector<std::string> parts;
          for (float f : v)
            parts.push_back(cppLiteral(f, f32));
          parts.resize(8, "0.0f");
          return fmt::format("{{{}}}", fmt::join(parts, ", "));
        };
        auto eight = [](ArrayRef<int64_t> v) {
          SmallVector<int64_t, 8> p(v.begin(), v.end());
          p.resize(8, 0);
          return fmt::format("{{{}}}", joined(p));
        };
        StringRef coordName = r.getCoordinateTransformationMode();
        const char *coord = coordName == "pytorch_half_pixel"     ? "PytorchHalfPixel"
                            : coordName == "align_corners"        ? "AlignCorners"
                            : coordName == "asymmetric"           ? "Asymmetric"
                            : coordName == "tf_crop_and_resize"   ? "TfCropAndResize"
                            : coordName == "tf_half_pixel_for_nn" ? "TfHalfPixelForNN"
                                                                  : "HalfPixel";
        StringRef nearestName = r.getNearestMode();
        const char *nearest = nearestName == "round_prefer_ceil" ? "RoundPreferCeil"
                              : nearestName == "floor"           ? "Floor"
                              : nearestName == "ceil"            ? "Ceil"
                                                                 : "RoundPreferFloor";
        StringRef modeName = r.getMode();
        const char *mode = modeName == "linear" ? "Linear" : modeName == "cubic" ? "Cubic" : "Nearest";
        b.line(fmt::format(
            "static constexpr tract::rt::ResizeParams p = {{{}, {}, {}, {}, {}, {}, "
            "tract::rt::ResizeMode::{}, tract::rt::ResizeCoord::{}, tract::rt::ResizeNearest::{}, "
            "{}, {}, {}}};",
            rank, eight(x.getShape()), eight(result.getShape()), floats(r.getScales()),
            floats(r.getRoi().take_front(rank)), floats(r.getRoi().drop_front(rank)), mode, coord,
            nearest, cppLiteral(r.getCubicCoeffA().convertToFloat(), f32),
            r.getExcludeOutside() ? "true" : "false",
            cppLiteral(r.getExtrapolationValue().convertToFloat(), f32)));
        if (!r.getRuntimeScales() && !r.getRuntimeRoi()) {
          b.line("tract::rt::resize(in0, out0, p);");
          if (result.getElementType().isF32() && rank <= ::tract::rt::kMaxRank &&
              x.getNumElements() > 0 && ::tract::rt::resize_planes_fit(resizeParamsOf(r)))
            call.path = "planes";
        } else {
          // Scales or roi computed by the model at run time override p's.
          b.line("tract::rt::ResizeParams q = p;");
          int next = 1;
          if (r.getRuntimeScales())
            b.line(fmt::format("for (int i = 0; i < {}; ++i) q.scales[i] = in{}[i];", rank, next++));
          if (r.getRuntimeRoi())
            b.line(fmt::format("for (int i = 0; i < {0}; ++i) {{ q.roi_start[i] = in{1}[i]; "
                               "q.roi_end[i] = in{1}[{0} + i]; }}", rank, next));
          b.line("tract::rt::resize(in0, out0, q);");
        }
        call.flops = n * 8;
        return success();
      })
      .Case([&](GatherNdOp g) {
        auto x = typeOf(g.getInput()), idx = typeOf(g.getIndices());
        std::string xs = b.array("kInShape", x.getShape());
        std::string is = b.array("kIndexShape", idx.getShape());
        b.line(fmt::format("tract::rt::gather_nd(in0, in1, out0, {}, {}, {}, {}, {});", xs,
                           x.getRank(), is, idx.getRank(), g.getBatchDims()));
        return success();
      })
      .Case<ScatterElementsOp, ScatterNdOp>([&](auto sc) {
        auto x = typeOf(sc.getInput()), idx = typeOf(sc.getIndices());
        StringRef red = sc.getReduction();
        const char *r = red == "add" ? "Add" : red == "mul" ? "Mul" : red == "max" ? "Max"
                        : red == "min" ? "Min" : "None";
        std::string xs = b.array("kInShape", x.getShape());
        std::string is = b.array("kIndexShape", idx.getShape());
        if constexpr (std::is_same_v<decltype(sc), ScatterElementsOp>)
          b.line(fmt::format("tract::rt::scatter_elements(in0, in1, in2, out0, {}, {}, {}, {}, "
                             "tract::rt::ScatterReduction::{});",
                             xs, is, x.getRank(), sc.getAxis(), r));
        else
          b.line(fmt::format("tract::rt::scatter_nd(in0, in1, in2, out0, {}, {}, {}, {}, "
                             "tract::rt::ScatterReduction::{});",
                             xs, x.getRank(), is, idx.getRank(), r));
        return success();
      })
      .Case([&](TopKOp t) {
        auto [outer, len, inner] = splitAt(typeOf(t.getInput()).getShape(), t.getAxis());
        b.line(fmt::format("tract::rt::top_k(in0, out0, out1, {}, {}, {}, {}, {}, {});", outer, len,
                           inner, t.getK(), t.getLargest() ? "true" : "false",
                           t.getSorted() ? "true" : "false"));
        call.flops = outer * len * inner;
        return success();
      })
      .Case([&](DetOp d) {
        auto x = typeOf(d.getInput());
        int64_t sz = x.getShape().back();
        b.line(fmt::format("tract::rt::det(in0, out0, {}, {});", product(x.getShape().drop_back(2)), sz));
        call.flops = n * sz * sz * sz;
        return success();
      })
      .Case([&](ReverseSequenceOp r) {
        auto x = typeOf(r.getInput());
        std::string xs = b.array("kShape", x.getShape());
        b.line(fmt::format("tract::rt::reverse_sequence(in0, in1, out0, {}, {}, {}, {});", xs,
                           x.getRank(), r.getBatchAxis(), r.getTimeAxis()));
        return success();
      })
      .Case([&](RangeOp) {
        b.line(fmt::format("tract::rt::range(in0, in1, out0, {});", n));
        return success();
      })
      .Case([&](OneHotOp o) {
        auto [outer, depth, inner] = splitAt(result.getShape(), o.getAxis());
        b.line(fmt::format("tract::rt::one_hot(in0, in1, out0, {}, {}, {});", outer, depth, inner));
        return success();
      })
      .Case([&](CumSumDynamicOp c) {
        std::string xs = b.array("kShape", result.getShape());
        b.line(fmt::format("tract::rt::cumsum_axis(in0, in1, out0, {}, {}, {}, {});", xs,
                           result.getRank(), c.getExclusive() ? "true" : "false",
                           c.getReverse() ? "true" : "false"));
        call.flops = n;
        return success();
      })
      .Case([&](GridSampleOp g) {
        auto x = typeOf(g.getInput());
        StringRef m = g.getMode(), pad = g.getPaddingMode();
        b.line(fmt::format(
            "static constexpr tract::rt::GridSampleParams p = {{{}, {}, {}, {}, {}, {}, "
            "tract::rt::GridSampleMode::{}, tract::rt::GridSamplePadding::{}, {}}};",
            x.getDimSize(0), x.getDimSize(1), x.getDimSize(2), x.getDimSize(3),
            result.getDimSize(2), result.getDimSize(3),
            m == "nearest" ? "Nearest" : m == "bicubic" ? "Bicubic" : "Bilinear",
            pad == "border" ? "Border" : pad == "reflection" ? "Reflection" : "Zeros",
            g.getAlignCorners() ? "true" : "false"));
        b.line("tract::rt::grid_sample(in0, in1, out0, p, par);");
        call.flops = n * 16;
        // (grid_sample.h grid_sample_blocks_fit, for floats.)
        int64_t plane = x.getDimSize(2) * x.getDimSize(3);
        if (x.getElementType().isF32() && m != "bicubic" && plane > 0 && plane < (int64_t(1) << 31))
          call.path = "sample_blocks";
        return success();
      })
      .Case([&](RoiAlignOp r) {
        auto x = typeOf(r.getInput());
        auto algorithm = r->getAttrOfType<StringAttr>(kAlgorithmAttr);
        bool channelsLast = algorithm && algorithm.getValue() == "channels_last";
        b.line(fmt::format("tract::rt::{}(in0, in1, in2, out0, {}, {}, {}, {}, {}, {}, {}, "
                           "{}, {}, {}, {}{});",
                           channelsLast ? "roi_align_channels_last" : "roi_align",
                           x.getDimSize(0), x.getDimSize(1), x.getDimSize(2), x.getDimSize(3),
                           result.getDimSize(0), result.getDimSize(2), result.getDimSize(3),
                           r.getSamplingRatio(),
                           cppLiteral(r.getSpatialScale().convertToFloat(), Float32Type::get(op->getContext())),
                           r.getMaxMode() ? "true" : "false", r.getHalfPixel() ? "true" : "false",
                           channelsLast ? ", scratch" : ""));
        call.flops = n * 16;
        return success();
      })
      .Case([&](NonMaxSuppressionOp nms) {
        auto boxes = typeOf(nms.getBoxes()), scores = typeOf(nms.getScores());
        int next = 2;
        std::string maxOut = nms.getMaxOutputBoxesPerClass() ? fmt::format("in{}[0]", next++) : "0";
        std::string iou = nms.getIouThreshold() ? fmt::format("in{}[0]", next++) : "0.0f";
        std::string score = nms.getScoreThreshold() ? fmt::format("in{}[0]", next++) : "0.0f";
        auto algorithm = nms->getAttrOfType<StringAttr>(kAlgorithmAttr);
        bool sorted = algorithm && algorithm.getValue() == "sorted";
        b.line(fmt::format("(void)tract::rt::{}(in0, in1, out0, {}, {}, {}, {}, "
                           "{}, {}, {}, {}, {}{});",
                           sorted ? "non_max_suppression_sorted" : "non_max_suppression",
                           result.getDimSize(0), scores.getDimSize(0), scores.getDimSize(1),
                           boxes.getDimSize(1), maxOut, iou, score,
                           nms.getScoreThreshold() ? "true" : "false",
                           nms.getCenterPointBox() ? "true" : "false", sorted ? ", scratch" : ""));
        call.flops = scores.getNumElements() * boxes.getDimSize(1);
        return success();
      })
      .Case([&](MaxPoolWithIndicesOp p) {
        auto x = typeOf(p.getInput());
        int64_t spatial = x.getRank() - 2;
        ArrayRef<int64_t> pads = p.getPads();
        b.line(fmt::format(
            "static constexpr tract::rt::PoolParams p = {{{}, {}, {}, {}, {}, {}, {}, {}, {}, false}};",
            spatial, x.getDimSize(0) * x.getDimSize(1), four(x.getShape().drop_front(2)),
            four(result.getShape().drop_front(2)), four(p.getKernelShape()), four(p.getStrides()),
            four(p.getDilations()), four(pads.take_front(spatial)), four(pads.drop_front(spatial))));
        b.line(fmt::format("tract::rt::max_pool_with_indices(in0, out0, out1, p, {});",
                           p.getColumnMajor() ? "true" : "false"));
        call.flops = n * product(p.getKernelShape());
        return success();
      })
      .Case([&](MaxUnpoolOp u) {
        b.line(fmt::format("tract::rt::max_unpool(in0, in1, out0, {}, {});",
                           typeOf(u.getInput()).getNumElements(), n));
        return success();
      })
      .Case([&](SliceDynamicOp s) {
        auto x = typeOf(s.getInput());
        std::string in = b.array("kInShape", x.getShape());
        std::string out = b.array("kOutShape", result.getShape());
        int next = 3;
        std::string axes = s.getAxes() ? fmt::format("in{}", next++) : "static_cast<const int64_t *>(nullptr)";
        std::string steps = s.getSteps() ? fmt::format("in{}", next++) : "static_cast<const int64_t *>(nullptr)";
        b.line(fmt::format("tract::rt::slice_dynamic(in0, out0, {}, {}, in1, in2, {}, {}, {}, {});", in,
                           x.getRank(), axes, steps, typeOf(s.getStarts()).getNumElements(), out));
        return success();
      })
      .Case([&](ReduceDynamicOp r) -> LogicalResult {
        auto x = typeOf(r.getInput());
        static const std::pair<const char *, const char *> kinds[] = {
            {"sum", "ReduceSum"}, {"mean", "ReduceMean"}, {"max", "ReduceMax"}, {"min", "ReduceMin"},
            {"prod", "ReduceProd"}, {"sum_square", "ReduceSumSquare"}, {"l1", "ReduceL1"},
            {"l2", "ReduceL2"}, {"log_sum", "ReduceLogSum"}, {"log_sum_exp", "ReduceLogSumExp"}};
        const char *reducerName = nullptr;
        for (auto [k, v] : kinds)
          if (r.getKind() == k)
            reducerName = v;
        if (!reducerName)
          return op->emitError("expected a known reduction kind, got ") << r.getKind();
        std::string in = b.array("kInShape", x.getShape());
        b.line(fmt::format("tract::rt::reduce_dynamic<tract::rt::op::{}>(in0, {}, {}, in1, {}, {}, out0);",
                           reducerName, in, x.getRank(), typeOf(r.getAxes()).getNumElements(),
                           r.getNoopWithEmptyAxes() ? "true" : "false"));
        call.flops = x.getNumElements();
        return success();
      })
      .Case([&](NonZeroOp nz) {
        auto x = typeOf(nz.getInput());
        std::string xs = b.array("kShape", x.getShape());
        b.line(fmt::format("(void)tract::rt::nonzero(in0, {}, {}, out0, {});", xs, x.getRank(),
                           result.getDimSize(1)));
        call.flops = x.getNumElements();
        return success();
      })
      .Case([&](CompressOp cp) {
        auto x = typeOf(cp.getInput());
        auto [outer, len, inner] = splitAt(x.getShape(), cp.getAxis());
        b.line(fmt::format("(void)tract::rt::compress(in0, in1, {}, out0, {}, {}, {}, {});",
                           typeOf(cp.getCond()).getNumElements(), outer, len, inner,
                           result.getDimSize(cp.getAxis())));
        return success();
      })
      .Case([&](UniqueOp u) {
        auto x = typeOf(u.getInput());
        auto [outer, len, inner] = splitAt(x.getShape(), u.getAxis());
        b.line(fmt::format("(void)tract::rt::unique(in0, {}, {}, {}, {}, out0, out1, out2, out3, {});",
                           outer, len, inner, u.getSorted() ? "true" : "false",
                           result.getDimSize(u.getAxis())));
        call.flops = len * len * outer * inner;
        return success();
      })
      .Case([&](DftOp d) {
        auto x = typeOf(d.getInput());
        int64_t axis = d.getAxis();
        int64_t outer = product(x.getShape().take_front(axis));
        int64_t inner = product(x.getShape().slice(axis + 1, x.getRank() - axis - 2));
        b.line(fmt::format("tract::rt::dft(in0, out0, {}, {}, {}, {}, {}, {}, {});", outer,
                           x.getDimSize(axis), inner, x.getShape().back(), d.getDftLength(),
                           d.getInverse() ? "true" : "false", d.getOnesided() ? "true" : "false"));
        call.flops = 8 * outer * inner * x.getDimSize(axis) * d.getDftLength();
        return success();
      })
      .Case([&](StftOp st) {
        auto sig = typeOf(st.getSignal());
        std::string window = st.getWindow()
                                 ? std::string("in1")
                                 : fmt::format("static_cast<const {} *>(nullptr)",
                                               cppElementType(sig.getElementType()));
        int next = st.getWindow() ? 2 : 1;
        std::string step = st.getRuntimeFrameStep()
                               ? fmt::format("static_cast<int64_t>(in{}[0])", next++)
                               : std::to_string(st.getFrameStep());
        std::string length = std::to_string(st.getFrameLength());
        if (st.getRuntimeFrameLength()) {
          // Use the run-time length only when it yields the static bin count:
          // the kernel must not write past the result.
          int64_t bins = result.getDimSize(2);
          b.line(fmt::format("int64_t frameLength = static_cast<int64_t>(in{}[0]);", next));
          b.line(fmt::format("if (({} ? frameLength / 2 + 1 : frameLength) != {}) frameLength = {};",
                             st.getOnesided() ? "true" : "false", bins, st.getFrameLength()));
          length = "frameLength";
        }
        b.line(fmt::format("tract::rt::stft(in0, {}, out0, {}, {}, {}, {}, {}, {}, {});", window,
                           sig.getDimSize(0), sig.getDimSize(1), sig.getDimSize(2),
                           step, length, result.getDimSize(1),
                           st.getOnesided() ? "true" : "false"));
        call.flops = 8 * n * st.getFrameLength();
        return success();
      })
      .Case([&](MelWeightMatrixOp) {
        b.line(fmt::format("tract::rt::mel_weight_matrix(static_cast<int64_t>(in0[0]), "
                           "static_cast<int64_t>(in1[0]), static_cast<int64_t>(in2[0]), "
                           "static_cast<double>(in3[0]), static_cast<double>(in4[0]), out0, {}, {});",
                           result.getDimSize(0), result.getDimSize(1)));
        return success();
      })
      .Case([&](TfIdfOp t) {
        auto x = typeOf(t.getInput());
        int64_t batch = x.getRank() == 2 ? x.getDimSize(0) : 1;
        std::string pool = b.array("kPool", t.getPool());
        std::string counts = b.array("kNgramCounts", t.getNgramCounts());
        std::string indexes = b.array("kNgramIndexes", t.getNgramIndexes());
        std::string weights = "static_cast<const float *>(nullptr)";
        if (!t.getWeights().empty()) {
          SmallVector<std::string> parts;
          for (float w : t.getWeights())
            parts.push_back(cppLiteral(w, Float32Type::get(op->getContext())));
          b.line(fmt::format("static constexpr float kWeights[] = {{{}}};", fmt::join(parts, ", ")));
          weights = "kWeights";
        }
        b.line(fmt::format("tract::rt::tfidf(in0, out0, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});",
                           batch, x.getShape().back(), t.getMinGram(), t.getMaxGram(), t.getMaxSkip(),
                           t.getMode(), pool, t.getPool().size(), counts, t.getNgramCounts().size(),
                           indexes, weights, result.getShape().back()));
        return success();
      })
      .Case([&](DropoutOp d) {
        b.line(fmt::format("tract::rt::dropout(in0, out0, out1, {}, static_cast<double>(in1[0]), "
                           "static_cast<bool>(in2[0]), {}u);",
                           n, (uint32_t)d.getSeed()));
        return success();
      })
      .Case([&](StringNormalizerOp s) {
        std::string stopwords = "static_cast<const char *const *>(nullptr)";
        if (!s.getStopwords().empty()) {
          SmallVector<std::string> parts;
          for (Attribute w : s.getStopwords())
            parts.push_back("\"" + cStringEscape(cast<StringAttr>(w).getValue()) + "\"");
          b.line(fmt::format("static const char *const kStopwords[] = {{{}}};", fmt::join(parts, ", ")));
          stopwords = "kStopwords";
        }
        int caseChange = s.getCaseChange() == "LOWER" ? 1 : s.getCaseChange() == "UPPER" ? 2 : 0;
        b.line(fmt::format("(void)tract::rt::string_normalizer(in0, {}, out0, {}, {} /* {} */, {}, {}, {});",
                           typeOf(s.getInput()).getNumElements(), result.getNumElements(), caseChange,
                           s.getCaseChange(), s.getCaseSensitive() ? "true" : "false", stopwords,
                           s.getStopwords().size()));
        return success();
      })
      .Default([&](Operation *) -> LogicalResult {
        return op->emitError("internal: no C++ kernel for ") << op->getName();
      });
}
