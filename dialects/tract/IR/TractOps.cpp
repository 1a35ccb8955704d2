//===- TractOps.cpp - tract op verifiers and type inference -----------------===//
//
// Diagnostics follow one pattern: "expected <what>, got <what>", so that an
// importer error on a bad model reads as a sentence naming the ONNX node (the
// op's location).
//
//===----------------------------------------------------------------------===//

#include "dialects/tract/IR/TractOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tract;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>> mlir::tract::broadcastShapes(ArrayRef<int64_t> a,
                                                             ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return failure();
    out[i] = da == 1 ? db : da;
  }
  return out;
}

FailureOr<int64_t> mlir::tract::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return failure();
  return axis < 0 ? axis + rank : axis;
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::interleave(
      shape, [&](int64_t d) { s += std::to_string(d); }, [&] { s += ","; });
  return s + "]";
}

static RankedTensorType rankedType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

//===----------------------------------------------------------------------===//
// Binary family
//===----------------------------------------------------------------------===//

static LogicalResult inferBinary(std::optional<Location> loc, Value lhs, Value rhs,
                                 Type resultElement,
                                 SmallVectorImpl<Type> &inferred) {
  auto a = rankedType(lhs), b = rankedType(rhs);
  auto shape = broadcastShapes(a.getShape(), b.getShape());
  if (failed(shape))
    return emitOptionalError(loc, "expected broadcastable shapes, got ",
                             shapeString(a.getShape()), " and ",
                             shapeString(b.getShape()));
  inferred.push_back(RankedTensorType::get(
      *shape, resultElement ? resultElement : a.getElementType()));
  return success();
}

// The element types must agree, except for pow's exponent and prelu's slope
// which ONNX lets differ (pow) or which the importer casts (prelu).
static LogicalResult verifyBinaryTypes(Operation *op, bool allowMixed) {
  auto a = rankedType(op->getOperand(0)), b = rankedType(op->getOperand(1));
  Type e = a.getElementType();
  if (isa<AndOp, OrOp, XorOp>(op) && !e.isInteger(1))
    return op->emitOpError("expected i1 operands, got ") << e;
  if (isa<ShiftLeftOp, ShiftRightOp>(op) && !e.isUnsignedInteger())
    return op->emitOpError("expected unsigned integer operands, got ") << e;
  if (!allowMixed && a.getElementType() != b.getElementType())
    return op->emitOpError("expected operands of one element type, got ")
           << a.getElementType() << " and " << b.getElementType();
  return success();
}

#define TRACT_BINARY(OP, RESULT_ELEMENT, MIXED)                                \
  LogicalResult OP::inferReturnTypes(MLIRContext *ctx,                         \
                                     std::optional<Location> loc,              \
                                     OP::Adaptor adaptor,                      \
                                     SmallVectorImpl<Type> &inferred) {        \
    (void)ctx;                                                                 \
    return inferBinary(loc, adaptor.getLhs(), adaptor.getRhs(),                \
                       RESULT_ELEMENT, inferred);                              \
  }                                                                            \
  LogicalResult OP::verify() { return verifyBinaryTypes(*this, MIXED); }

TRACT_BINARY(AddOp, Type(), false)
TRACT_BINARY(SubOp, Type(), false)
TRACT_BINARY(MulOp, Type(), false)
TRACT_BINARY(DivOp, Type(), false)
TRACT_BINARY(PowOp, Type(), true)
TRACT_BINARY(MaxOp, Type(), false)
TRACT_BINARY(MinOp, Type(), false)
TRACT_BINARY(ModOp, Type(), false)
TRACT_BINARY(FModOp, Type(), false)
TRACT_BINARY(PReluOp, Type(), false)
TRACT_BINARY(ShiftLeftOp, Type(), false)
TRACT_BINARY(ShiftRightOp, Type(), false)
TRACT_BINARY(AndOp, Type(), false)
TRACT_BINARY(OrOp, Type(), false)
TRACT_BINARY(XorOp, Type(), false)
TRACT_BINARY(EqualOp, IntegerType::get(ctx, 1), false)
TRACT_BINARY(LessOp, IntegerType::get(ctx, 1), false)
TRACT_BINARY(GreaterOp, IntegerType::get(ctx, 1), false)
TRACT_BINARY(LessEqualOp, IntegerType::get(ctx, 1), false)
TRACT_BINARY(GreaterEqualOp, IntegerType::get(ctx, 1), false)
#undef TRACT_BINARY

//===----------------------------------------------------------------------===//
// SelectOp
//===----------------------------------------------------------------------===//

LogicalResult SelectOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         SelectOp::Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto c = rankedType(adaptor.getCond()), a = rankedType(adaptor.getLhs()),
       b = rankedType(adaptor.getRhs());
  auto ab = broadcastShapes(a.getShape(), b.getShape());
  FailureOr<SmallVector<int64_t>> all = failure();
  if (succeeded(ab))
    all = broadcastShapes(c.getShape(), *ab);
  if (failed(all))
    return emitOptionalError(loc, "expected broadcastable shapes, got ",
                             shapeString(c.getShape()), ", ",
                             shapeString(a.getShape()), " and ",
                             shapeString(b.getShape()));
  inferred.push_back(RankedTensorType::get(*all, a.getElementType()));
  return success();
}

LogicalResult SelectOp::verify() {
  if (getLhs().getType().getElementType() != getRhs().getType().getElementType())
    return emitOpError("expected both branches of one element type, got ")
           << getLhs().getType().getElementType() << " and "
           << getRhs().getType().getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  auto in = getInput().getType(), out = getOutput().getType();
  auto shape = broadcastShapes(in.getShape(), out.getShape());
  if (in.getElementType() != out.getElementType())
    return emitOpError("expected the result element type ")
           << in.getElementType() << ", got " << out.getElementType();
  if (failed(shape) || ArrayRef<int64_t>(*shape) != out.getShape())
    return emitOpError("expected a result shape that ")
           << shapeString(in.getShape()) << " broadcasts to, got "
           << shapeString(out.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// MatMulOp
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         MatMulOp::Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto a = rankedType(adaptor.getLhs()), b = rankedType(adaptor.getRhs());
  if (a.getRank() < 2 || b.getRank() < 2)
    return emitOptionalError(loc, "expected operands of rank >= 2, got ",
                             a.getRank(), " and ", b.getRank());
  ArrayRef<int64_t> as = a.getShape(), bs = b.getShape();
  int64_t m = as[as.size() - 2], ka = as.back();
  if (adaptor.getTransposeA())
    std::swap(m, ka);
  int64_t kb = bs[bs.size() - 2], n = bs.back();
  if (adaptor.getTransposeB())
    std::swap(kb, n);
  if (ka != kb)
    return emitOptionalError(loc, "expected matching inner dims, got ", ka,
                             " and ", kb);
  auto batch = broadcastShapes(as.drop_back(2), bs.drop_back(2));
  if (failed(batch))
    return emitOptionalError(loc, "expected broadcastable batch dims, got ",
                             shapeString(as.drop_back(2)), " and ",
                             shapeString(bs.drop_back(2)));
  SmallVector<int64_t> shape = *batch;
  shape.push_back(m);
  shape.push_back(n);
  inferred.push_back(RankedTensorType::get(shape, a.getElementType()));
  return success();
}

LogicalResult MatMulOp::verify() {
  if (getLhs().getType().getElementType() != getRhs().getType().getElementType())
    return emitOpError("expected operands of one element type, got ")
           << getLhs().getType().getElementType() << " and "
           << getRhs().getType().getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// Windowed ops: conv, conv_transpose, pools
//===----------------------------------------------------------------------===//

static LogicalResult checkWindowRange(std::optional<Location> loc, StringRef what,
                                      ArrayRef<int64_t> values, int64_t min) {
  for (int64_t v : values)
    if (v < min || v > kMaxWindowValue)
      return emitOptionalError(loc, "expected ", what, " in [", min, ", ",
                               kMaxWindowValue, "], got ", v);
  return success();
}

// Checks the per-spatial-axis attributes shared by convs and pools: their
// sizes and their ranges.
static LogicalResult checkWindowAttrs(std::optional<Location> loc, int64_t spatial,
                                      ArrayRef<int64_t> strides,
                                      ArrayRef<int64_t> dilations,
                                      ArrayRef<int64_t> pads) {
  if (spatial < 1 || spatial > 4)
    return emitOptionalError(loc, "expected 1 to 4 spatial dims, got ", spatial);
  if ((int64_t)strides.size() != spatial || (int64_t)dilations.size() != spatial)
    return emitOptionalError(loc, "expected ", spatial,
                             " strides and dilations, got ", strides.size(),
                             " and ", dilations.size());
  if ((int64_t)pads.size() != 2 * spatial)
    return emitOptionalError(loc, "expected ", 2 * spatial, " pads, got ",
                             pads.size());
  if (failed(checkWindowRange(loc, "strides", strides, 1)) ||
      failed(checkWindowRange(loc, "dilations", dilations, 1)) ||
      failed(checkWindowRange(loc, "pads", pads, 0)))
    return failure();
  return success();
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       ConvOp::Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto x = rankedType(adaptor.getInput()), w = rankedType(adaptor.getWeight());
  int64_t spatial = x.getRank() - 2;
  if (w.getRank() != x.getRank())
    return emitOptionalError(loc, "expected weights of rank ", x.getRank(),
                             ", got ", w.getRank());
  if (failed(checkWindowAttrs(loc, spatial, adaptor.getStrides(),
                              adaptor.getDilations(), adaptor.getPads())))
    return failure();
  int64_t group = adaptor.getGroup();
  if (group < 1)
    return emitOptionalError(loc, "expected a positive group, got ", group);
  if (x.getDimSize(1) != w.getDimSize(1) * group ||
      w.getDimSize(0) % group != 0)
    return emitOptionalError(loc, "expected input channels = ", w.getDimSize(1),
                             " x group ", group, ", got ", x.getDimSize(1));
  SmallVector<int64_t> shape{x.getDimSize(0), w.getDimSize(0)};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t extent = (w.getDimSize(2 + i) - 1) * adaptor.getDilations()[i] + 1;
    int64_t padded = x.getDimSize(2 + i) + adaptor.getPads()[i] +
                     adaptor.getPads()[spatial + i];
    if (padded < extent)
      return emitOptionalError(loc, "expected a padded input of at least ", extent,
                               " on spatial axis ", i, ", got ", padded);
    shape.push_back((padded - extent) / adaptor.getStrides()[i] + 1);
  }
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

// Weights and bias share the input's element type: the runtime kernels are
// templates over one T.
static LogicalResult verifyConvTypes(Operation *op, Value input, Value weight, Value bias) {
  Type t = cast<RankedTensorType>(input.getType()).getElementType();
  for (Value v : {weight, bias})
    if (v && cast<RankedTensorType>(v.getType()).getElementType() != t)
      return op->emitOpError("expected weights and bias of element type ")
             << t << ", got " << cast<RankedTensorType>(v.getType()).getElementType();
  return success();
}

LogicalResult ConvOp::verify() {
  if (failed(verifyConvTypes(*this, getInput(), getWeight(), getBias())))
    return failure();
  if (getBias() && (getBias().getType().getRank() != 1 ||
                    getBias().getType().getDimSize(0) !=
                        getWeight().getType().getDimSize(0)))
    return emitOpError("expected a bias of shape [")
           << getWeight().getType().getDimSize(0) << "], got "
           << shapeString(getBias().getType().getShape());
  return success();
}

LogicalResult ConvTransposeOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                ConvTransposeOp::Adaptor adaptor,
                                                SmallVectorImpl<Type> &inferred) {
  auto x = rankedType(adaptor.getInput()), w = rankedType(adaptor.getWeight());
  int64_t spatial = x.getRank() - 2;
  if (w.getRank() != x.getRank())
    return emitOptionalError(loc, "expected weights of rank ", x.getRank(),
                             ", got ", w.getRank());
  if (failed(checkWindowAttrs(loc, spatial, adaptor.getStrides(),
                              adaptor.getDilations(), adaptor.getPads())))
    return failure();
  if ((int64_t)adaptor.getOutputPadding().size() != spatial)
    return emitOptionalError(loc, "expected ", spatial, " output paddings, got ",
                             adaptor.getOutputPadding().size());
  if (failed(checkWindowRange(loc, "output paddings", adaptor.getOutputPadding(), 0)))
    return failure();
  int64_t group = adaptor.getGroup();
  if (group < 1)
    return emitOptionalError(loc, "expected a positive group, got ", group);
  if (x.getDimSize(1) != w.getDimSize(0) || x.getDimSize(1) % group != 0)
    return emitOptionalError(loc, "expected input channels = ", w.getDimSize(0),
                             ", got ", x.getDimSize(1));
  SmallVector<int64_t> shape{x.getDimSize(0), w.getDimSize(1) * group};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t size = adaptor.getStrides()[i] * (x.getDimSize(2 + i) - 1) +
                   adaptor.getOutputPadding()[i] +
                   (w.getDimSize(2 + i) - 1) * adaptor.getDilations()[i] + 1 -
                   adaptor.getPads()[i] - adaptor.getPads()[spatial + i];
    if (size < 1)
      return emitOptionalError(loc, "expected a positive output size, got ", size);
    shape.push_back(size);
  }
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult ConvTransposeOp::verify() {
  if (failed(verifyConvTypes(*this, getInput(), getWeight(), getBias())))
    return failure();
  int64_t channels = getOutput().getType().getDimSize(1);
  if (getBias() && (getBias().getType().getRank() != 1 ||
                    getBias().getType().getDimSize(0) != channels))
    return emitOpError("expected a bias of shape [")
           << channels << "], got " << shapeString(getBias().getType().getShape());
  return success();
}

template <typename Adaptor>
static LogicalResult inferPool(std::optional<Location> loc, Adaptor adaptor,
                               SmallVectorImpl<Type> &inferred) {
  auto x = rankedType(adaptor.getInput());
  int64_t spatial = x.getRank() - 2;
  ArrayRef<int64_t> kernel = adaptor.getKernelShape();
  if ((int64_t)kernel.size() != spatial)
    return emitOptionalError(loc, "expected ", spatial, " kernel dims, got ",
                             kernel.size());
  if (failed(checkWindowAttrs(loc, spatial, adaptor.getStrides(),
                              adaptor.getDilations(), adaptor.getPads())) ||
      failed(checkWindowRange(loc, "kernel dims", kernel, 1)))
    return failure();
  SmallVector<int64_t> shape{x.getDimSize(0), x.getDimSize(1)};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t extent = (kernel[i] - 1) * adaptor.getDilations()[i] + 1;
    int64_t stride = adaptor.getStrides()[i];
    int64_t padBegin = adaptor.getPads()[i];
    int64_t padded = x.getDimSize(2 + i) + padBegin + adaptor.getPads()[spatial + i];
    if (padded < extent)
      return emitOptionalError(loc, "expected a padded input of at least ", extent,
                               " on spatial axis ", i, ", got ", padded);
    int64_t size = (padded - extent) / stride + 1;
    if (adaptor.getCeilMode()) {
      size = (padded - extent + stride - 1) / stride + 1;
      // The last window must start inside the input or its begin padding.
      if ((size - 1) * stride >= x.getDimSize(2 + i) + padBegin)
        --size;
    }
    shape.push_back(size);
  }
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

#define TRACT_POOL(OP)                                                         \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc, \
                                     OP::Adaptor adaptor,                      \
                                     SmallVectorImpl<Type> &inferred) {        \
    return inferPool(loc, adaptor, inferred);                                  \
  }                                                                            \
  LogicalResult OP::verify() { return success(); }
TRACT_POOL(MaxPoolOp)
TRACT_POOL(AvgPoolOp)
#undef TRACT_POOL

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

static LogicalResult inferReduce(std::optional<Location> loc, Value input,
                                 ArrayRef<int64_t> axes, bool keepDims,
                                 Type element, SmallVectorImpl<Type> &inferred) {
  auto x = rankedType(input);
  SmallVector<bool> reduced(x.getRank(), false);
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= x.getRank())
      return emitOptionalError(loc, "expected axes in [0, ", x.getRank(), "), got ",
                               axis);
    if (reduced[axis])
      return emitOptionalError(loc, "expected distinct axes, got ", axis, " twice");
    reduced[axis] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < x.getRank(); ++i) {
    if (!reduced[i])
      shape.push_back(x.getDimSize(i));
    else if (keepDims)
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(shape, element ? element : x.getElementType()));
  return success();
}

#define TRACT_REDUCE(OP)                                                       \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc, \
                                     OP::Adaptor adaptor,                      \
                                     SmallVectorImpl<Type> &inferred) {        \
    return inferReduce(loc, adaptor.getInput(), adaptor.getAxes(),             \
                       adaptor.getKeepDims(), Type(), inferred);               \
  }                                                                            \
  LogicalResult OP::verify() { return success(); }
TRACT_REDUCE(ReduceSumOp)
TRACT_REDUCE(ReduceMeanOp)
TRACT_REDUCE(ReduceMaxOp)
TRACT_REDUCE(ReduceMinOp)
TRACT_REDUCE(ReduceProdOp)
TRACT_REDUCE(ReduceSumSquareOp)
TRACT_REDUCE(ReduceL1Op)
TRACT_REDUCE(ReduceL2Op)
TRACT_REDUCE(ReduceLogSumOp)
TRACT_REDUCE(ReduceLogSumExpOp)
#undef TRACT_REDUCE

#define TRACT_ARG_REDUCE(OP)                                                   \
  LogicalResult OP::inferReturnTypes(MLIRContext *ctx,                         \
                                     std::optional<Location> loc,              \
                                     OP::Adaptor adaptor,                      \
                                     SmallVectorImpl<Type> &inferred) {        \
    int64_t axis = adaptor.getAxis();                                          \
    return inferReduce(loc, adaptor.getInput(), ArrayRef<int64_t>(axis),       \
                       adaptor.getKeepDims(), IntegerType::get(ctx, 64),       \
                       inferred);                                              \
  }
TRACT_ARG_REDUCE(ArgMaxOp)
TRACT_ARG_REDUCE(ArgMinOp)
#undef TRACT_ARG_REDUCE

//===----------------------------------------------------------------------===//
// Softmax family and normalisations
//===----------------------------------------------------------------------===//

#define TRACT_AXIS_NORM(OP)                                                    \
  LogicalResult OP::verify() {                                                 \
    int64_t rank = getInput().getType().getRank();                             \
    if (getAxis() < 0 || getAxis() >= rank)                                    \
      return emitOpError("expected an axis in [0, ")                           \
             << rank << "), got " << getAxis();                                \
    return success();                                                          \
  }
TRACT_AXIS_NORM(SoftmaxOp)
TRACT_AXIS_NORM(LogSoftmaxOp)
TRACT_AXIS_NORM(HardmaxOp)
#undef TRACT_AXIS_NORM

LogicalResult LayerNormOp::verify() {
  auto x = getInput().getType();
  if (getAxis() < 0 || getAxis() >= x.getRank())
    return emitOpError("expected an axis in [0, ")
           << x.getRank() << "), got " << getAxis();
  ArrayRef<int64_t> normalized = x.getShape().drop_front(getAxis());
  if (failed(verifyConvTypes(*this, getInput(), getScale(), getBias())))
    return failure();
  if (getScale().getType().getShape() != normalized ||
      (getBias() && getBias().getType().getShape() != normalized))
    return emitOpError("expected scale and bias of shape ")
           << shapeString(normalized) << ", got "
           << shapeString(getScale().getType().getShape());
  if (getOutput().getType() != x)
    return emitOpError("expected the result type ") << x << ", got "
                                                     << getOutput().getType();
  return success();
}

LogicalResult InstanceNormOp::verify() {
  auto x = getInput().getType();
  if (x.getRank() < 3)
    return emitOpError("expected an input of rank >= 3, got ") << x.getRank();
  int64_t c = x.getDimSize(1);
  if (failed(verifyConvTypes(*this, getInput(), getScale(), getBias())))
    return failure();
  if (getScale().getType().getShape() != ArrayRef<int64_t>(c) ||
      getBias().getType().getShape() != ArrayRef<int64_t>(c))
    return emitOpError("expected scale and bias of shape [") << c << "]";
  if (getOutput().getType() != x)
    return emitOpError("expected the result type ") << x << ", got "
                                                     << getOutput().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto in = getInput().getType(), out = getOutput().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("expected the result element type ")
           << in.getElementType() << ", got " << out.getElementType();
  if (in.getNumElements() != out.getNumElements())
    return emitOpError("expected a result with ")
           << in.getNumElements() << " elements, got " << out.getNumElements();
  return success();
}

static LogicalResult checkPermutation(std::optional<Location> loc,
                                      ArrayRef<int64_t> perm, int64_t rank) {
  if ((int64_t)perm.size() != rank)
    return emitOptionalError(loc, "expected a permutation of ", rank,
                             " dims, got ", perm.size());
  SmallVector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return emitOptionalError(loc, "expected a permutation of [0, ", rank,
                               "), got ", shapeString(perm));
    seen[p] = true;
  }
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            TransposeOp::Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto x = rankedType(adaptor.getInput());
  if (failed(checkPermutation(loc, adaptor.getPerm(), x.getRank())))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t p : adaptor.getPerm())
    shape.push_back(x.getDimSize(p));
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult TransposeOp::verify() { return success(); }

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         ConcatOp::Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "expected at least one input, got none");
  auto first = rankedType(adaptor.getInputs().front());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= first.getRank())
    return emitOptionalError(loc, "expected an axis in [0, ", first.getRank(),
                             "), got ", axis);
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (Value v : adaptor.getInputs()) {
    auto t = rankedType(v);
    if (t.getRank() != first.getRank() ||
        t.getElementType() != first.getElementType())
      return emitOptionalError(loc, "expected inputs like ", first, ", got ", t);
    for (int64_t i = 0; i < t.getRank(); ++i)
      if (i != axis && t.getDimSize(i) != first.getDimSize(i))
        return emitOptionalError(loc, "expected inputs of shape ",
                                 shapeString(first.getShape()),
                                 " off the axis, got ", shapeString(t.getShape()));
    shape[axis] += t.getDimSize(axis);
  }
  inferred.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult ConcatOp::verify() { return success(); }

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        SliceOp::Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto x = rankedType(adaptor.getInput());
  ArrayRef<int64_t> starts = adaptor.getStarts(), limits = adaptor.getLimits(),
                    steps = adaptor.getSteps();
  if ((int64_t)starts.size() != x.getRank() || limits.size() != starts.size() ||
      steps.size() != starts.size())
    return emitOptionalError(loc, "expected ", x.getRank(),
                             " starts, limits and steps, got ", starts.size(), ", ",
                             limits.size(), " and ", steps.size());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < x.getRank(); ++i) {
    int64_t step = steps[i];
    if (step == 0)
      return emitOptionalError(loc, "expected non-zero steps, got 0 on axis ", i);
    int64_t size = step > 0 ? (limits[i] - starts[i] + step - 1) / step
                            : (starts[i] - limits[i] - step - 1) / -step;
    size = std::max<int64_t>(size, 0);
    if (size > 0 && (starts[i] < 0 || starts[i] >= x.getDimSize(i) ||
                     starts[i] + (size - 1) * step < 0 ||
                     starts[i] + (size - 1) * step >= x.getDimSize(i)))
      return emitOptionalError(loc, "expected a window inside dim ", i, " of size ",
                               x.getDimSize(i), ", got start ", starts[i],
                               " limit ", limits[i], " step ", step);
    shape.push_back(size);
  }
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult SliceOp::verify() { return success(); }

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         GatherOp::Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto x = rankedType(adaptor.getInput()), idx = rankedType(adaptor.getIndices());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= x.getRank())
    return emitOptionalError(loc, "expected an axis in [0, ", x.getRank(), "), got ",
                             axis);
  SmallVector<int64_t> shape(x.getShape().take_front(axis));
  llvm::append_range(shape, idx.getShape());
  llvm::append_range(shape, x.getShape().drop_front(axis + 1));
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult GatherOp::verify() { return success(); }

LogicalResult GatherElementsOp::verify() {
  auto x = getInput().getType(), idx = getIndices().getType();
  if (x.getRank() != idx.getRank() || getAxis() < 0 || getAxis() >= x.getRank())
    return emitOpError("expected indices of rank ")
           << x.getRank() << " and an axis in range, got rank " << idx.getRank()
           << " and axis " << getAxis();
  for (int64_t i = 0; i < x.getRank(); ++i)
    if (i != getAxis() && idx.getDimSize(i) > x.getDimSize(i))
      return emitOpError("expected index dim ")
             << i << " of at most " << x.getDimSize(i) << ", got " << idx.getDimSize(i);
  if (getOutput().getType().getShape() != idx.getShape())
    return emitOpError("expected the result shape ")
           << shapeString(idx.getShape()) << ", got "
           << shapeString(getOutput().getType().getShape());
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      PadOp::Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  auto x = rankedType(adaptor.getInput());
  ArrayRef<int64_t> pads = adaptor.getPads();
  if ((int64_t)pads.size() != 2 * x.getRank())
    return emitOptionalError(loc, "expected ", 2 * x.getRank(), " pads, got ",
                             pads.size());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < x.getRank(); ++i) {
    int64_t size = x.getDimSize(i) + pads[i] + pads[x.getRank() + i];
    if (size < 0)
      return emitOptionalError(loc, "expected a non-negative padded size, got ", size);
    shape.push_back(size);
  }
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult PadOp::verify() {
  StringRef mode = getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return emitOpError("expected mode constant, reflect or edge, got ") << mode;
  return success();
}

LogicalResult TileOp::verify() {
  auto in = getInput().getType(), out = getOutput().getType();
  if (in.getRank() != out.getRank() || in.getElementType() != out.getElementType())
    return emitOpError("expected a result of rank ")
           << in.getRank() << " and element type " << in.getElementType()
           << ", got " << out;
  for (int64_t i = 0; i < in.getRank(); ++i)
    if (in.getDimSize(i) == 0 ? out.getDimSize(i) != 0
                              : out.getDimSize(i) % in.getDimSize(i) != 0)
      return emitOpError("expected result dim ")
             << i << " to be a multiple of " << in.getDimSize(i) << ", got "
             << out.getDimSize(i);
  return success();
}

LogicalResult ResizeOp::verify() {
  auto in = getInput().getType(), out = getOutput().getType();
  if (in.getRank() != out.getRank() || (int64_t)getScales().size() != in.getRank())
    return emitOpError("expected a result and ")
           << in.getRank() << " scales of the input's rank, got rank " << out.getRank()
           << " and " << getScales().size() << " scales";
  if ((int64_t)getRoi().size() != 2 * in.getRank())
    return emitOpError("expected ") << 2 * in.getRank() << " roi values, got " << getRoi().size();
  StringRef mode = getMode();
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return emitOpError("expected mode nearest, linear or cubic, got ") << mode;
  return success();
}

bool mlir::tract::isElementwiseUnary(Operation *op) {
  return isa<NegOp, AbsOp, SqrtOp, ExpOp, LogOp, ErfOp, ReluOp, SigmoidOp, TanhOp, FloorOp,
             CeilOp, RoundOp, SinOp, CosOp, TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp,
             AsinhOp, AcoshOp, AtanhOp, ReciprocalOp, SignOp, SoftplusOp, SoftsignOp,
             HardSwishOp, MishOp, SiluOp, GeluOp, GeluTanhOp, LeakyReluOp, HardSigmoidOp, ClipOp,
             EluOp, SeluOp, CeluOp, ThresholdedReluOp, ShrinkOp>(op);
}

bool mlir::tract::isElementwise(Operation *op) {
  return isElementwiseUnary(op) ||
         isa<AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, PReluOp>(op);
}

Operation *KernelOp::getAnchor() {
  Block &body = getBody().front();
  if (body.empty() || !isa<ConvOp, MatMulOp>(body.front()))
    return nullptr;
  return &body.front();
}

Operation *KernelOp::getTail() {
  Operation *anchor = getAnchor();
  if (!anchor)
    return nullptr;
  for (Operation &op : llvm::make_range(std::next(anchor->getIterator()), getBody().front().end()))
    if (isa<ConvOp, MaxPoolOp>(op))
      return &op;
  return nullptr;
}

LogicalResult KernelOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("expected ") << getInputs().size() << " body arguments, got "
                                    << body.getNumArguments();
  for (auto [arg, in] : llvm::zip(body.getArguments(), getInputs()))
    if (arg.getType() != in.getType())
      return emitOpError("expected body argument ")
             << arg.getArgNumber() << " of type " << in.getType() << ", got " << arg.getType();
  // The result may be a reshape of what the body computes: the kernel stores
  // its elements in order, so a reshape of its result costs nothing.
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  RankedTensorType computed = yield ? yield.getValue().getType() : RankedTensorType();
  if (!computed || computed.getElementType() != getType().getElementType() ||
      computed.getNumElements() != getType().getNumElements())
    return emitOpError("expected the body to yield the elements of a ") << getType();
  Operation *anchor = getAnchor();
  if (anchor)
    for (auto [i, operand] : llvm::enumerate(anchor->getOperands())) {
      auto arg = dyn_cast<BlockArgument>(operand);
      if (!arg || arg.getArgNumber() != i)
        return emitOpError("expected the anchor's operands to be the first body arguments");
    }
  // A chained kernel's ops before its tail produce the anchor's type; the
  // tail reads the last of them, then the body arguments after the anchor's.
  Operation *tail = getTail();
  RankedTensorType produced = tail ? cast<RankedTensorType>(anchor->getResult(0).getType())
                                   : computed;
  Value last = anchor ? anchor->getResult(0) : Value();
  for (Operation &op : body.without_terminator()) {
    if (&op == anchor)
      continue;
    if (&op == tail) {
      if (op.getOperand(0) != last)
        return emitOpError("expected the tail to read the value computed before it");
      unsigned next = anchor->getNumOperands();
      for (Value operand : op.getOperands().drop_front()) {
        auto arg = dyn_cast<BlockArgument>(operand);
        if (!arg || arg.getArgNumber() != next++)
          return emitOpError("expected the tail's other operands to be the body arguments "
                             "after the anchor's");
      }
      produced = computed;
      continue;
    }
    if (auto c = dyn_cast<ConstOp>(op)) {
      if (c.getType().getNumElements() != 1)
        return emitOpError("expected one-element constants in the body, got ") << c.getType();
      continue;
    }
    if (auto t = dyn_cast<TransposeOp>(op)) {
      if (!isa<BlockArgument>(t.getInput()))
        return emitOpError("expected transposes of kernel inputs only");
      continue;
    }
    if (isa<ConvOp, MatMulOp>(op) || op.getNumResults() != 1 ||
        op.getResult(0).getType() != produced)
      return emitOpError("expected elementwise ops producing ")
             << produced << " after the anchor, got " << op.getName();
    last = op.getResult(0);
  }
  if (tail) {
    Operation *yielded = yield.getValue().getDefiningOp();
    if (!yielded || (yielded != tail && !tail->isBeforeInBlock(yielded)))
      return emitOpError("expected the body to yield a value computed after the tail");
  }
  return success();
}

LogicalResult StringNormalizerOp::verify() {
  auto in = getInput().getType(), out = getOutput().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("expected the result's string slots to match the input's, got ")
           << out.getElementType() << " and " << in.getElementType();
  bool rowOk = in.getRank() == 1 || (in.getRank() == 2 && in.getDimSize(0) == 1);
  if (!rowOk || out.getRank() != in.getRank() || (in.getRank() == 2 && out.getDimSize(0) != 1))
    return emitOpError("expected [C] or [1, C] in and out, got ") << in << " -> " << out;
  if (out.getNumElements() < 1)
    return emitOpError("expected room for at least one result string, got ") << out;
  StringRef change = getCaseChange();
  if (change != "LOWER" && change != "UPPER" && change != "NONE")
    return emitOpError("expected case_change LOWER, UPPER or NONE, got ") << change;
  return success();
}

#define GET_OP_CLASSES
#include "dialects/tract/IR/TractOps.cpp.inc"
