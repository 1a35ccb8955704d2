//===- ReduceOps.cpp - ONNX reductions -> tract --------------------------------===//
#include "compiler/Import/NodeContext.h"
#include <cstring>

using namespace mlir;
using namespace mlir::tract;

namespace {

// The reducer name tract.reduce_dynamic uses for a static reduction op.
template <typename OpT>
StringRef reducerKind() {
  StringRef name = OpT::getOperationName();
  return name.drop_front(strlen("tract.reduce_"));
}

// Axes come from an attribute, or (ReduceSum from opset 13, the others from
// 18) from a constant input.
template <typename OpT>
LogicalResult convertReduce(NodeContext &c) {
  auto xt = c.inputType(0);
  SmallVector<int64_t> axes;
  if (c.hasInput(1)) {
    auto a = c.constInts(1);
    if (!a) {
      RankedTensorType declared = c.declaredOutputType(0);
      if (!declared)
        return c.unsupported("reduction axes computed at run time and no declared result shape");
      c.setOutput(0, c.makeTyped<ReduceDynamicOp>(
                         RankedTensorType::get(declared.getShape(), xt.getElementType()),
                         c.input(0), c.cast(c.input(1), c.builder().getI64Type()),
                         reducerKind<OpT>(), c.attrInt("noop_with_empty_axes", 0) != 0));
      return success();
    }
    axes = *a;
  } else {
    axes = c.attrInts("axes");
  }
  if (axes.empty()) {
    if (c.attrInt("noop_with_empty_axes", 0)) {
      c.forward(0, 0);
      return success();
    }
    for (int64_t i = 0; i < xt.getRank(); ++i)
      axes.push_back(i);
  }
  for (int64_t &a : axes) {
    auto n = normalizeAxis(a, xt.getRank());
    if (failed(n))
      return c.fail("expected axes in [-rank, rank), got " + std::to_string(a));
    a = *n;
  }
  llvm::sort(axes);
  FailureOr<Value> v = c.make<OpT>(c.input(0), axes, c.attrInt("keepdims", 1) != 0);
  if (failed(v))
    return failure();
  c.setOutput(0, *v);
  return success();
}

template <typename OpT>
LogicalResult convertArgReduce(NodeContext &c) {
  auto axis = normalizeAxis(c.attrInt("axis", 0), c.inputType(0).getRank());
  if (failed(axis))
    return c.fail("expected an axis in range");
  FailureOr<Value> v = c.make<OpT>(c.input(0), *axis, c.attrInt("keepdims", 1) != 0,
                                   c.attrInt("select_last_index", 0) != 0);
  if (failed(v))
    return failure();
  c.setOutput(0, *v);
  return success();
}

LogicalResult convertCumSum(NodeContext &c) {
  auto axisValue = c.constInts(1);
  if (!axisValue) {
    if (c.inputType(1).getNumElements() != 1)
      return c.fail("expected a one-element axis");
    Value axis = c.input(1);
    if (!c.inputType(1).getElementType().isInteger(32) &&
        !c.inputType(1).getElementType().isInteger(64))
      axis = c.cast(axis, c.builder().getI64Type());
    c.setOutput(0, c.makeTyped<CumSumDynamicOp>(c.inputType(0), c.input(0), axis,
                                                c.attrInt("exclusive", 0) != 0,
                                                c.attrInt("reverse", 0) != 0));
    return success();
  }
  if (axisValue->size() != 1)
    return c.fail("expected a one-element axis");
  auto axis = normalizeAxis((*axisValue)[0], c.inputType(0).getRank());
  if (failed(axis))
    return c.fail("expected an axis in range");
  c.setOutput(0, c.builder().create<CumSumOp>(c.loc, c.input(0), *axis,
                                              c.attrInt("exclusive", 0) != 0,
                                              c.attrInt("reverse", 0) != 0));
  return success();
}

// TopK: k from the attribute (opset < 10), a constant input, or the
// declared output shape.
LogicalResult convertTopK(NodeContext &c) {
  auto xt = c.inputType(0);
  auto axis = normalizeAxis(c.attrInt("axis", -1), xt.getRank());
  if (failed(axis))
    return c.fail("expected an axis in range");
  int64_t k = -1;
  if (c.opset() < 10) {
    k = c.attrInt("k", -1);
  } else if (auto kv = c.constInts(1); kv && kv->size() == 1) {
    k = (*kv)[0];
  } else if (RankedTensorType declared = c.declaredOutputType(0);
             declared && declared.getRank() == xt.getRank()) {
    k = declared.getDimSize(*axis);
  } else {
    return c.unsupported("a TopK k computed at run time");
  }
  if (k < 0 || k > xt.getDimSize(*axis))
    return c.fail("expected k in [0, " + std::to_string(xt.getDimSize(*axis)) + "], got " +
                  std::to_string(k));
  SmallVector<int64_t> shape(xt.getShape());
  shape[*axis] = k;
  auto values = RankedTensorType::get(shape, xt.getElementType());
  auto indices = RankedTensorType::get(shape, c.builder().getI64Type());
  auto op = c.builder().create<TopKOp>(c.loc, values, indices, c.input(0), *axis, k,
                                       c.attrInt("largest", 1) != 0, c.attrInt("sorted", 1) != 0);
  c.setOutput(0, op.getValues());
  c.setOutput(1, op.getIndices());
  return success();
}

} // namespace

void mlir::tract::registerReduceConverters(ConverterTable &t) {
  t.add("ReduceSum", 1, convertReduce<ReduceSumOp>);
  t.add("ReduceMean", 1, convertReduce<ReduceMeanOp>);
  t.add("ReduceMax", 1, convertReduce<ReduceMaxOp>);
  t.add("ReduceMin", 1, convertReduce<ReduceMinOp>);
  t.add("ReduceProd", 1, convertReduce<ReduceProdOp>);
  t.add("ReduceSumSquare", 1, convertReduce<ReduceSumSquareOp>);
  t.add("ReduceL1", 1, convertReduce<ReduceL1Op>);
  t.add("ReduceL2", 1, convertReduce<ReduceL2Op>);
  t.add("ReduceLogSum", 1, convertReduce<ReduceLogSumOp>);
  t.add("ReduceLogSumExp", 1, convertReduce<ReduceLogSumExpOp>);
  t.add("ArgMax", 1, convertArgReduce<ArgMaxOp>);
  t.add("ArgMin", 1, convertArgReduce<ArgMinOp>);
  t.add("CumSum", 11, convertCumSum, 2);
  t.add("TopK", 1, convertTopK);
}
