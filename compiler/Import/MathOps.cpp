//===- MathOps.cpp - ONNX elementwise math -> tract -----------------------------===//
#include "compiler/Import/NodeContext.h"

using namespace mlir;
using namespace mlir::tract;

namespace {

template <typename OpT>
LogicalResult convertUnary(NodeContext &c) {
  c.setOutput(0, c.builder().create<OpT>(c.loc, c.input(0)));
  return success();
}

template <typename OpT>
LogicalResult convertBinary(NodeContext &c) {
  Value rhs = c.input(1);
  if (c.opset() < 7 && c.attrInt("broadcast", 0) != 0) {
    // Legacy broadcasting: B's shape is a run of A's dims starting at `axis`
    // (default: A's last dims); lay B out at that position.
    auto at = c.inputType(0), bt = c.inputType(1);
    int64_t axis = c.attrInt("axis", at.getRank() - bt.getRank());
    if (axis < 0)
      axis += at.getRank();
    if (axis < 0 || axis + bt.getRank() > at.getRank())
      return c.fail("expected B's dims to fit in A's from axis " + std::to_string(axis));
    SmallVector<int64_t> shape(at.getRank(), 1);
    for (int64_t i = 0; i < bt.getRank(); ++i)
      shape[axis + i] = bt.getDimSize(i);
    rhs = c.reshape(rhs, shape);
  }
  FailureOr<Value> v = c.make<OpT>(c.input(0), rhs);
  if (failed(v))
    return failure();
  c.setOutput(0, *v);
  return success();
}

// Sum, Mean, Max, Min take any number of inputs.
// Variadic inputs may not be omitted: an empty name is an error.
LogicalResult checkAllInputs(NodeContext &c) {
  for (size_t i = 0; i < c.numInputs(); ++i)
    if (!c.hasInput(i))
      return c.fail("expected every input to be present, input " + std::to_string(i) +
                    " is empty");
  return success();
}

template <typename OpT>
LogicalResult convertVariadic(NodeContext &c) {
  if (failed(checkAllInputs(c)))
    return failure();
  Value acc = c.input(0);
  for (size_t i = 1; i < c.numInputs(); ++i) {
    FailureOr<Value> v = c.make<OpT>(acc, c.input(i));
    if (failed(v))
      return failure();
    acc = *v;
  }
  c.setOutput(0, acc);
  return success();
}

LogicalResult convertMean(NodeContext &c) {
  if (failed(checkAllInputs(c)))
    return failure();
  Value acc = c.input(0);
  for (size_t i = 1; i < c.numInputs(); ++i) {
    FailureOr<Value> v = c.make<AddOp>(acc, c.input(i));
    if (failed(v))
      return failure();
    acc = *v;
  }
  if (c.numInputs() > 1) {
    Type element = cast<RankedTensorType>(acc.getType()).getElementType();
    FailureOr<Value> v =
        c.make<DivOp>(acc, c.constantScalar(element, (double)c.numInputs()));
    if (failed(v))
      return failure();
    acc = *v;
  }
  c.setOutput(0, acc);
  return success();
}

LogicalResult convertMod(NodeContext &c) {
  if (c.attrInt("fmod", 0))
    return convertBinary<FModOp>(c);
  return convertBinary<ModOp>(c);
}

LogicalResult convertBitShift(NodeContext &c) {
  std::string dir = c.attrString("direction", "");
  if (dir == "LEFT")
    return convertBinary<ShiftLeftOp>(c);
  if (dir == "RIGHT")
    return convertBinary<ShiftRightOp>(c);
  return c.fail("expected direction LEFT or RIGHT, got '" + dir + "'");
}

LogicalResult convertPRelu(NodeContext &c) {
  Value slope = c.cast(c.input(1), c.inputType(0).getElementType());
  auto xt = c.inputType(0), st = c.inputType(1);
  // Exporters (and ONNX before opset 7) give a per-channel slope as [C]:
  // broadcast it along dim 1 when numpy rules would not apply.
  if (st.getRank() == 1 && xt.getRank() >= 2 && st.getDimSize(0) == xt.getDimSize(1) &&
      failed(broadcastShapes(xt.getShape(), st.getShape()))) {
    SmallVector<int64_t> shape(xt.getRank() - 1, 1);
    shape[0] = st.getDimSize(0);
    slope = c.reshape(slope, shape);
  }
  FailureOr<Value> v = c.make<PReluOp>(c.input(0), slope);
  if (failed(v))
    return failure();
  c.setOutput(0, *v);
  return success();
}

// Less/Greater-or-equal exist since opset 12; before, only strict forms.
template <typename OpT>
LogicalResult convertCompare(NodeContext &c) {
  return convertBinary<OpT>(c);
}

LogicalResult convertLeakyRelu(NodeContext &c) {
  c.setOutput(0, c.builder().create<LeakyReluOp>(
                     c.loc, c.input(0), c.builder().getF32FloatAttr(c.attrFloat("alpha", 0.01f))));
  return success();
}

LogicalResult convertHardSigmoid(NodeContext &c) {
  c.setOutput(0, c.builder().create<HardSigmoidOp>(
                     c.loc, c.input(0), c.builder().getF32FloatAttr(c.attrFloat("alpha", 0.2f)),
                     c.builder().getF32FloatAttr(c.attrFloat("beta", 0.5f))));
  return success();
}

LogicalResult convertElu(NodeContext &c) {
  c.setOutput(0, c.builder().create<EluOp>(
                     c.loc, c.input(0), c.builder().getF32FloatAttr(c.attrFloat("alpha", 1.0f))));
  return success();
}

LogicalResult convertSelu(NodeContext &c) {
  c.setOutput(0, c.builder().create<SeluOp>(
                     c.loc, c.input(0),
                     c.builder().getF32FloatAttr(c.attrFloat("alpha", 1.67326319217681884765625f)),
                     c.builder().getF32FloatAttr(c.attrFloat("gamma", 1.05070102214813232421875f))));
  return success();
}

LogicalResult convertCelu(NodeContext &c) {
  c.setOutput(0, c.builder().create<CeluOp>(
                     c.loc, c.input(0), c.builder().getF32FloatAttr(c.attrFloat("alpha", 1.0f))));
  return success();
}

LogicalResult convertThresholdedRelu(NodeContext &c) {
  c.setOutput(0, c.builder().create<ThresholdedReluOp>(
                     c.loc, c.input(0), c.builder().getF32FloatAttr(c.attrFloat("alpha", 1.0f))));
  return success();
}

LogicalResult convertShrink(NodeContext &c) {
  c.setOutput(0, c.builder().create<ShrinkOp>(
                     c.loc, c.input(0), c.builder().getF32FloatAttr(c.attrFloat("bias", 0.0f)),
                     c.builder().getF32FloatAttr(c.attrFloat("lambd", 0.5f))));
  return success();
}

LogicalResult convertIsInf(NodeContext &c) {
  auto type = c.inputType(0);
  auto result = RankedTensorType::get(type.getShape(), c.builder().getI1Type());
  c.setOutput(0, c.makeTyped<IsInfOp>(
                     result, c.input(0),
                     c.builder().getBoolAttr(c.attrInt("detect_positive", 1) != 0),
                     c.builder().getBoolAttr(c.attrInt("detect_negative", 1) != 0)));
  return success();
}

LogicalResult convertIsNaN(NodeContext &c) {
  auto type = c.inputType(0);
  auto result = RankedTensorType::get(type.getShape(), c.builder().getI1Type());
  c.setOutput(0, c.makeTyped<IsNanOp>(result, c.input(0)));
  return success();
}

// Clip: bounds are attributes before opset 11, optional inputs after. A
// non-constant bound becomes max/min ops. An omitted bound is the type's
// lowest / largest finite value, as ONNX says (and ONNX Runtime does): an
// infinite input is clipped to it.
LogicalResult convertClip(NodeContext &c) {
  Type element = c.inputType(0).getElementType();
  double largest = std::numeric_limits<float>::max();
  if (element.isF64())
    largest = std::numeric_limits<double>::max();
  else if (element.isF16())
    largest = 65504.0;
  else if (element.isBF16())
    largest = 3.3895313892515355e38;
  double lo = -largest, hi = largest;
  if (element.isInteger()) {
    unsigned width = element.getIntOrFloatBitWidth();
    bool isUnsigned = element.isUnsignedInteger();
    lo = isUnsigned ? 0.0 : -std::ldexp(1.0, width - 1);
    hi = isUnsigned ? std::ldexp(1.0, width) - 1 : std::ldexp(1.0, width - 1) - 1;
  }
  Value x = c.input(0);
  if (c.opset() < 11) {
    lo = c.attrFloat("min", -std::numeric_limits<float>::max());
    hi = c.attrFloat("max", std::numeric_limits<float>::max());
  } else {
    for (size_t i = 1; i <= 2; ++i) {
      if (!c.hasInput(i))
        continue;
      auto bound = c.constDoubles(i);
      if (bound && bound->size() == 1) {
        (i == 1 ? lo : hi) = (*bound)[0];
        continue;
      }
      FailureOr<Value> v = i == 1 ? c.make<MaxOp>(x, c.input(i)) : c.make<MinOp>(x, c.input(i));
      if (failed(v))
        return failure();
      x = *v;
    }
  }
  c.setOutput(0, c.builder().create<ClipOp>(c.loc, x, c.builder().getF64FloatAttr(lo),
                                            c.builder().getF64FloatAttr(hi)));
  return success();
}

LogicalResult convertDet(NodeContext &c) {
  auto xt = c.inputType(0);
  if (xt.getRank() < 2 || xt.getDimSize(xt.getRank() - 1) != xt.getDimSize(xt.getRank() - 2))
    return c.fail("expected square matrices in the last two dims");
  c.setOutput(0, c.makeTyped<DetOp>(
                     RankedTensorType::get(xt.getShape().drop_back(2), xt.getElementType()),
                     c.input(0)));
  return success();
}

} // namespace

void mlir::tract::registerMathConverters(ConverterTable &t) {
  t.add("Neg", 1, convertUnary<NegOp>);
  t.add("Abs", 1, convertUnary<AbsOp>);
  t.add("Sqrt", 1, convertUnary<SqrtOp>);
  t.add("Exp", 1, convertUnary<ExpOp>);
  t.add("Log", 1, convertUnary<LogOp>);
  t.add("Erf", 9, convertUnary<ErfOp>);
  t.add("Relu", 1, convertUnary<ReluOp>);
  t.add("Sigmoid", 1, convertUnary<SigmoidOp>);
  t.add("Tanh", 1, convertUnary<TanhOp>);
  t.add("Floor", 1, convertUnary<FloorOp>);
  t.add("Ceil", 1, convertUnary<CeilOp>);
  t.add("Round", 11, convertUnary<RoundOp>);
  t.add("Sin", 7, convertUnary<SinOp>);
  t.add("Cos", 7, convertUnary<CosOp>);
  t.add("Tan", 7, convertUnary<TanOp>);
  t.add("Asin", 7, convertUnary<AsinOp>);
  t.add("Acos", 7, convertUnary<AcosOp>);
  t.add("Atan", 7, convertUnary<AtanOp>);
  t.add("Sinh", 9, convertUnary<SinhOp>);
  t.add("Cosh", 9, convertUnary<CoshOp>);
  t.add("Asinh", 9, convertUnary<AsinhOp>);
  t.add("Acosh", 9, convertUnary<AcoshOp>);
  t.add("Atanh", 9, convertUnary<AtanhOp>);
  t.add("Reciprocal", 1, convertUnary<ReciprocalOp>);
  t.add("Sign", 9, convertUnary<SignOp>);
  t.add("Softplus", 1, convertUnary<SoftplusOp>);
  t.add("Softsign", 1, convertUnary<SoftsignOp>);
  t.add("Not", 1, convertUnary<NotOp>);
  t.add("HardSwish", 14, convertUnary<HardSwishOp>);
  t.add("Mish", 18, convertUnary<MishOp>);
  t.add("LeakyRelu", 1, convertLeakyRelu);
  t.add("HardSigmoid", 1, convertHardSigmoid);
  t.add("Elu", 1, convertElu);
  t.add("Selu", 1, convertSelu);
  t.add("Celu", 12, convertCelu);
  t.add("ThresholdedRelu", 10, convertThresholdedRelu);
  t.add("Shrink", 9, convertShrink);
  t.add("IsNaN", 9, convertIsNaN);
  t.add("IsInf", 10, convertIsInf);
  t.add("Clip", 1, convertClip);

  t.add("Add", 1, convertBinary<AddOp>, 2);
  t.add("Sub", 1, convertBinary<SubOp>, 2);
  t.add("Mul", 1, convertBinary<MulOp>, 2);
  t.add("Div", 1, convertBinary<DivOp>, 2);
  t.add("Pow", 1, convertBinary<PowOp>, 2);
  t.add("Mod", 10, convertMod, 2);
  t.add("BitShift", 11, convertBitShift, 2);
  t.add("PRelu", 1, convertPRelu, 2);
  t.add("And", 1, convertBinary<AndOp>, 2);
  t.add("Or", 1, convertBinary<OrOp>, 2);
  t.add("Xor", 1, convertBinary<XorOp>, 2);
  t.add("Equal", 1, convertCompare<EqualOp>, 2);
  t.add("Less", 1, convertCompare<LessOp>, 2);
  t.add("Greater", 1, convertCompare<GreaterOp>, 2);
  t.add("LessOrEqual", 12, convertCompare<LessEqualOp>, 2);
  t.add("GreaterOrEqual", 12, convertCompare<GreaterEqualOp>, 2);
  t.add("Sum", 1, convertVariadic<AddOp>);
  t.add("Max", 1, convertVariadic<MaxOp>);
  t.add("Min", 1, convertVariadic<MinOp>);
  t.add("Mean", 1, convertMean);
  t.add("Det", 11, convertDet);
}
