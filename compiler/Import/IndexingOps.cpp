//===- IndexingOps.cpp - ONNX index-driven gathers and scatters -> tract --------===//
#include "compiler/Import/NodeContext.h"

using namespace mlir;
using namespace mlir::tract;

namespace {

Value indexTensor(NodeContext &c, size_t i) {
  auto t = c.inputType(i);
  if (t.getElementType().isInteger(32) || t.getElementType().isInteger(64))
    return c.input(i);
  return c.cast(c.input(i), c.builder().getI64Type());
}

// y = x[batch..., idx[..., :]] with shape idx.shape[:-1] + x.shape[b + idx[-1]:]
LogicalResult convertGatherNd(NodeContext &c) {
  auto xt = c.inputType(0), it = c.inputType(1);
  int64_t b = c.attrInt("batch_dims", 0);
  if (it.getRank() < 1 || b < 0 || b >= std::min(xt.getRank(), it.getRank()))
    return c.fail("expected indices of rank >= 1 and batch_dims < both ranks");
  int64_t depth = it.getShape().back();
  if (depth < 1 || b + depth > xt.getRank())
    return c.fail("expected an index depth of at most " + std::to_string(xt.getRank() - b));
  SmallVector<int64_t> shape(it.getShape().drop_back());
  llvm::append_range(shape, xt.getShape().drop_front(b + depth));
  c.setOutput(0, c.makeTyped<GatherNdOp>(RankedTensorType::get(shape, xt.getElementType()),
                                         c.input(0), indexTensor(c, 1), b));
  return success();
}

LogicalResult convertScatterElements(NodeContext &c) {
  auto xt = c.inputType(0);
  auto axis = normalizeAxis(c.attrInt("axis", 0), xt.getRank());
  if (failed(axis) || c.inputType(1).getShape() != c.inputType(2).getShape() ||
      c.inputType(1).getRank() != xt.getRank())
    return c.fail("expected an axis in range and indices, updates of one shape and the data's rank");
  std::string reduction = c.attrString("reduction", "none");
  c.setOutput(0, c.makeTyped<ScatterElementsOp>(xt, c.input(0), indexTensor(c, 1), c.input(2),
                                                *axis, reduction));
  return success();
}

LogicalResult convertScatterNd(NodeContext &c) {
  auto xt = c.inputType(0), it = c.inputType(1);
  if (it.getRank() < 1 || it.getShape().back() > xt.getRank())
    return c.fail("expected an index depth of at most the data's rank");
  c.setOutput(0, c.makeTyped<ScatterNdOp>(xt, c.input(0), indexTensor(c, 1), c.input(2),
                                          c.attrString("reduction", "none")));
  return success();
}

LogicalResult convertOneHot(NodeContext &c) {
  auto it = c.inputType(0);
  int64_t depth = -1;
  if (auto d = c.constDoubles(1); d && d->size() == 1)
    depth = (int64_t)(*d)[0];
  int64_t rank = it.getRank() + 1;
  auto axis = normalizeAxis(c.attrInt("axis", -1), rank);
  if (failed(axis))
    return c.fail("expected an axis in range");
  if (depth < 0)
    if (RankedTensorType declared = c.declaredOutputType(0); declared && declared.getRank() == rank)
      depth = declared.getDimSize(*axis);
  if (depth < 0)
    return c.unsupported("a OneHot depth computed at run time");
  if (c.inputType(2).getNumElements() != 2)
    return c.fail("expected two values [off, on]");
  SmallVector<int64_t> shape(it.getShape());
  shape.insert(shape.begin() + *axis, depth);
  Type element = c.inputType(2).getElementType();
  c.setOutput(0, c.makeTyped<OneHotOp>(RankedTensorType::get(shape, element), indexTensor(c, 0),
                                       c.input(2), *axis));
  return success();
}

LogicalResult convertReverseSequence(NodeContext &c) {
  auto xt = c.inputType(0);
  int64_t batchAxis = c.attrInt("batch_axis", 1), timeAxis = c.attrInt("time_axis", 0);
  if (xt.getRank() < 2 || batchAxis == timeAxis || batchAxis < 0 || batchAxis > 1 ||
      timeAxis < 0 || timeAxis > 1)
    return c.fail("expected batch_axis and time_axis to be 0 and 1");
  c.setOutput(0, c.makeTyped<ReverseSequenceOp>(xt, c.input(0), indexTensor(c, 1), batchAxis,
                                                timeAxis));
  return success();
}

} // namespace

void mlir::tract::registerIndexingConverters(ConverterTable &t) {
  t.add("GatherND", 11, convertGatherNd, 2);
  t.add("ScatterElements", 11, convertScatterElements, 3);
  t.add("Scatter", 9, convertScatterElements, 3);
  t.add("ScatterND", 11, convertScatterNd, 3);
  t.add("OneHot", 9, convertOneHot, 3);
  t.add("ReverseSequence", 10, convertReverseSequence, 2);
}
