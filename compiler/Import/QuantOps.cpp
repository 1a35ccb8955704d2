//===- QuantOps.cpp - ONNX quantization ops -> tract ------------------------------===//
//
// Exact integer semantics from core ops: integer products and sums run in i32
// (MatMul) or f64 (Conv: every int8/uint8 product sum is exact below 2^53);
// requantization is round-half-to-even then saturation, as ONNX specifies.
// Fast integer kernels come with the CPU performance work.
//
//===----------------------------------------------------------------------===//
#include "compiler/Import/NodeContext.h"
#include "compiler/Import/WindowAttrs.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tract;

namespace {

// Reshapes a per-axis parameter [C] so it broadcasts along `axis` of a
// tensor of rank `rank`; scalars and [1] pass through.
Value alongAxis(NodeContext &c, Value v, int64_t axis, int64_t rank) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getNumElements() == 1)
    return c.reshape(v, {});
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = t.getNumElements();
  return c.reshape(v, shape);
}

std::pair<double, double> integerRange(Type t) {
  unsigned w = t.getIntOrFloatBitWidth();
  if (t.isUnsignedInteger())
    return {0.0, std::ldexp(1.0, w) - 1};
  return {-std::ldexp(1.0, w - 1), std::ldexp(1.0, w - 1) - 1};
}

// saturate(round(x) + zp) as `target`; x is f32.
FailureOr<Value> requantize(NodeContext &c, Value x, Value zeroPoint, Type target) {
  Type f32 = c.builder().getF32Type();
  Value r = c.builder().create<RoundOp>(c.loc, x);
  if (zeroPoint) {
    FailureOr<Value> s = c.make<AddOp>(r, c.cast(zeroPoint, f32));
    if (failed(s))
      return failure();
    r = *s;
  }
  auto [lo, hi] = integerRange(target);
  r = c.builder().create<ClipOp>(c.loc, r, c.builder().getF64FloatAttr(lo),
                                 c.builder().getF64FloatAttr(hi));
  return c.cast(r, target);
}

// The axis of per-axis quantization parameters; irrelevant (0) when the
// scale is a single value, as it is per tensor.
FailureOr<int64_t> quantAxis(NodeContext &c) {
  if (c.inputType(1).getNumElements() == 1)
    return 0;
  auto axis = normalizeAxis(c.attrInt("axis", 1), c.inputType(0).getRank());
  if (failed(axis) || c.inputType(0).getDimSize(*axis) != c.inputType(1).getNumElements()) {
    (void)c.fail("expected per-axis parameters matching the input's dim at axis " +
                 std::to_string(c.attrInt("axis", 1)));
    return failure();
  }
  return axis;
}

LogicalResult convertQuantizeLinear(NodeContext &c) {
  auto xt = c.inputType(0);
  auto axis = quantAxis(c);
  if (failed(axis))
    return failure();
  Type f32 = c.builder().getF32Type();
  Type target = c.hasInput(2) ? c.inputType(2).getElementType()
                              : IntegerType::get(c.context(), 8, IntegerType::Unsigned);
  if (!target.isInteger(8))
    return c.unsupported("QuantizeLinear to a type other than int8/uint8");
  Value scale = alongAxis(c, c.cast(c.input(1), f32), *axis, xt.getRank());
  FailureOr<Value> q = c.make<DivOp>(c.cast(c.input(0), f32), scale);
  if (failed(q))
    return failure();
  Value zp = c.hasInput(2) ? alongAxis(c, c.input(2), *axis, xt.getRank()) : Value();
  return c.bind(requantize(c, *q, zp, target));
}

LogicalResult convertDequantizeLinear(NodeContext &c) {
  auto xt = c.inputType(0);
  auto axis = quantAxis(c);
  if (failed(axis))
    return failure();
  Type f32 = c.builder().getF32Type();
  Value x = c.cast(c.input(0), f32);
  if (c.hasInput(2)) {
    FailureOr<Value> d = c.make<SubOp>(x, c.cast(alongAxis(c, c.input(2), *axis, xt.getRank()), f32));
    if (failed(d))
      return failure();
    x = *d;
  }
  return c.bind(c.make<MulOp>(x, alongAxis(c, c.cast(c.input(1), f32), *axis, xt.getRank())));
}

LogicalResult convertDynamicQuantizeLinear(NodeContext &c) {
  auto xt = c.inputType(0);
  if (!xt.getElementType().isF32())
    return c.fail("expected a float32 input");
  SmallVector<int64_t> all;
  for (int64_t i = 0; i < xt.getRank(); ++i)
    all.push_back(i);
  Type f32 = c.builder().getF32Type();
  Type u8 = IntegerType::get(c.context(), 8, IntegerType::Unsigned);
  Value zero = c.constantScalar(f32, 0);
  FailureOr<Value> hi = c.make<ReduceMaxOp>(c.input(0), all, false);
  FailureOr<Value> lo = c.make<ReduceMinOp>(c.input(0), all, false);
  if (failed(hi) || failed(lo) || failed(hi = c.make<MaxOp>(*hi, zero)) ||
      failed(lo = c.make<MinOp>(*lo, zero)))
    return failure();
  FailureOr<Value> range = c.make<SubOp>(*hi, *lo);
  FailureOr<Value> scale = failed(range) ? range : c.make<DivOp>(*range, c.constantScalar(f32, 255));
  if (failed(scale))
    return failure();
  FailureOr<Value> negLo = c.make<NegOp>(*lo);
  FailureOr<Value> zpf = failed(negLo) ? negLo : c.make<DivOp>(*negLo, *scale);
  if (failed(zpf))
    return failure();
  FailureOr<Value> zp = requantize(c, *zpf, Value(), u8);
  FailureOr<Value> q = c.make<DivOp>(c.input(0), *scale);
  if (failed(zp) || failed(q))
    return failure();
  if (failed(c.bind(requantize(c, *q, *zp, u8))))
    return failure();
  c.setOutput(1, *scale);
  c.setOutput(2, *zp);
  return success();
}

// x - zp in `wide`, with zp reshaped by `shapeZp`.
FailureOr<Value> centered(NodeContext &c, size_t x, size_t zp, Type wide,
                          llvm::function_ref<Value(Value)> shapeZp) {
  Value v = c.cast(c.input(x), wide);
  if (!c.hasInput(zp))
    return v;
  return c.make<SubOp>(v, shapeZp(c.cast(c.input(zp), wide)));
}

// (A - a_zp) @ (B - b_zp) in i32; A's zero point is per row (or scalar),
// B's per tensor.
FailureOr<Value> integerMatMul(NodeContext &c, size_t a, size_t aZp, size_t b, size_t bZp) {
  Type i32 = c.builder().getI32Type();
  FailureOr<Value> ac = centered(c, a, aZp, i32, [&](Value zp) {
    auto t = cast<RankedTensorType>(zp.getType());
    return t.getNumElements() == 1 ? c.reshape(zp, {}) : c.reshape(zp, {t.getNumElements(), 1});
  });
  FailureOr<Value> bc = centered(c, b, bZp, i32, [&](Value zp) { return c.reshape(zp, {}); });
  if (failed(ac) || failed(bc))
    return failure();
  return c.make<MatMulOp>(*ac, *bc, false, false);
}

LogicalResult convertMatMulInteger(NodeContext &c) {
  auto at = c.inputType(0), bt = c.inputType(1);
  if (at.getRank() < 2 || bt.getRank() < 2)
    return c.unsupported("MatMulInteger on vectors");
  return c.bind(integerMatMul(c, 0, 2, 1, 3));
}

// The integer convs take Conv's window attributes.
FailureOr<Value> integerConv(NodeContext &c, Value x, Value w, Value bias) {
  auto xt = cast<RankedTensorType>(x.getType()), wt = cast<RankedTensorType>(w.getType());
  if (xt.getRank() < 3 || wt.getRank() != xt.getRank()) {
    (void)c.fail("expected input and weights of one rank >= 3");
    return failure();
  }
  auto win = readWindow(c, xt.getShape().drop_front(2), wt.getShape().drop_front(2));
  if (!win)
    return failure();
  return c.make<ConvOp>(x, w, bias, win->strides, win->dilations, win->pads, c.attrInt("group", 1));
}

LogicalResult convertConvInteger(NodeContext &c) {
  Type f64 = c.builder().getF64Type();
  int64_t rank = c.inputType(0).getRank();
  FailureOr<Value> x = centered(c, 0, 2, f64, [&](Value zp) { return c.reshape(zp, {}); });
  FailureOr<Value> w = centered(c, 1, 3, f64, [&](Value zp) { return alongAxis(c, zp, 0, rank); });
  if (failed(x) || failed(w))
    return failure();
  FailureOr<Value> y = integerConv(c, *x, *w, Value());
  if (failed(y))
    return failure();
  c.setOutput(0, c.cast(*y, c.builder().getI32Type()));
  return success();
}

// QLinearConv: x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp[, B]
LogicalResult convertQLinearConv(NodeContext &c) {
  Type f64 = c.builder().getF64Type(), f32 = c.builder().getF32Type();
  int64_t rank = c.inputType(0).getRank();
  FailureOr<Value> x = centered(c, 0, 2, f64, [&](Value zp) { return c.reshape(zp, {}); });
  FailureOr<Value> w = centered(c, 3, 5, f64, [&](Value zp) { return alongAxis(c, zp, 0, rank); });
  if (failed(x) || failed(w))
    return failure();
  Value bias = c.hasInput(8) ? c.cast(c.input(8), f64) : Value();
  FailureOr<Value> acc = integerConv(c, *x, *w, bias);
  if (failed(acc))
    return failure();
  // multiplier = x_scale * w_scale / y_scale, w_scale per output channel.
  FailureOr<Value> m = c.make<MulOp>(c.reshape(c.cast(c.input(1), f32), {}),
                                     alongAxis(c, c.cast(c.input(4), f32), 1, rank));
  if (failed(m) || failed(m = c.make<DivOp>(*m, c.reshape(c.cast(c.input(6), f32), {}))))
    return failure();
  FailureOr<Value> scaled = c.make<MulOp>(c.cast(*acc, f32), *m);
  if (failed(scaled))
    return failure();
  return c.bind(requantize(c, *scaled, c.reshape(c.input(7), {}), c.inputType(7).getElementType()));
}

// QLinearMatMul: a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp
LogicalResult convertQLinearMatMul(NodeContext &c) {
  Type f32 = c.builder().getF32Type();
  if (c.inputType(0).getRank() < 2 || c.inputType(3).getRank() < 2)
    return c.unsupported("QLinearMatMul on vectors");
  FailureOr<Value> acc = integerMatMul(c, 0, 2, 3, 5);
  FailureOr<Value> m = c.make<MulOp>(c.cast(c.input(1), f32), c.cast(c.input(4), f32));
  if (failed(acc) || failed(m) || failed(m = c.make<DivOp>(*m, c.cast(c.input(6), f32))))
    return failure();
  auto mt = cast<RankedTensorType>(m->getType());
  Value multiplier = mt.getNumElements() == 1 ? c.reshape(*m, {}) : *m;
  FailureOr<Value> scaled = c.make<MulOp>(c.cast(*acc, f32), multiplier);
  if (failed(scaled))
    return failure();
  return c.bind(requantize(c, *scaled, c.reshape(c.input(7), {}), c.inputType(7).getElementType()));
}

} // namespace

void mlir::tract::registerQuantConverters(ConverterTable &t) {
  t.add("QuantizeLinear", 10, convertQuantizeLinear, 2);
  t.add("DequantizeLinear", 10, convertDequantizeLinear, 2);
  t.add("DynamicQuantizeLinear", 11, convertDynamicQuantizeLinear);
  t.add("MatMulInteger", 10, convertMatMulInteger, 2);
  t.add("ConvInteger", 10, convertConvInteger, 2);
  t.add("QLinearConv", 10, convertQLinearConv, 8);
  t.add("QLinearMatMul", 10, convertQLinearMatMul, 8);
}
