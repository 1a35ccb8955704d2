//===- SequenceOps.cpp - ONNX sequences, resolved at import time ----------------===//
//
// With static shapes and constant positions a sequence is a compile-time
// list of tensors: the ops below rearrange the list, and only the tensors
// reach the IR. A position computed at run time is unsupported.
//
//===----------------------------------------------------------------------===//
#include "compiler/Import/NodeContext.h"

using namespace mlir;
using namespace mlir::tract;

namespace {

// A constant position in [-n, n] (or [-n, n - 1] for reads), normalised.
std::optional<int64_t> position(NodeContext &c, size_t i, int64_t n, bool forInsert) {
  if (!c.hasInput(i))
    return forInsert ? n : n - 1;
  auto p = c.constInts(i);
  if (!p || p->size() != 1) {
    (void)c.unsupported("a sequence position computed at run time");
    return std::nullopt;
  }
  int64_t pos = (*p)[0] < 0 ? (*p)[0] + n : (*p)[0];
  if (pos < 0 || pos > (forInsert ? n : n - 1)) {
    (void)c.fail("expected a position in range, got " + std::to_string((*p)[0]));
    return std::nullopt;
  }
  return pos;
}

const SmallVector<Value> *sequence(NodeContext &c, size_t i) {
  const SmallVector<Value> *s = c.sequenceInput(i);
  if (!s)
    (void)c.fail("expected input " + std::to_string(i) + " to be a sequence");
  return s;
}

LogicalResult convertSequenceEmpty(NodeContext &c) {
  c.setSequenceOutput(0, {});
  return success();
}

LogicalResult convertSequenceConstruct(NodeContext &c) {
  SmallVector<Value> elements;
  for (size_t i = 0; i < c.numInputs(); ++i) {
    if (!c.hasInput(i))
      return c.fail("expected every input to be present");
    elements.push_back(c.input(i));
  }
  c.setSequenceOutput(0, elements);
  return success();
}

LogicalResult convertSequenceInsert(NodeContext &c) {
  const SmallVector<Value> *s = sequence(c, 0);
  if (!s)
    return failure();
  auto pos = position(c, 2, s->size(), true);
  if (!pos)
    return failure();
  SmallVector<Value> elements(*s);
  elements.insert(elements.begin() + *pos, c.input(1));
  c.setSequenceOutput(0, elements);
  return success();
}

LogicalResult convertSequenceErase(NodeContext &c) {
  const SmallVector<Value> *s = sequence(c, 0);
  if (!s)
    return failure();
  if (s->empty())
    return c.fail("expected a non-empty sequence");
  auto pos = position(c, 1, s->size(), false);
  if (!pos)
    return failure();
  SmallVector<Value> elements(*s);
  elements.erase(elements.begin() + *pos);
  c.setSequenceOutput(0, elements);
  return success();
}

LogicalResult convertSequenceAt(NodeContext &c) {
  const SmallVector<Value> *s = sequence(c, 0);
  if (!s)
    return failure();
  if (s->empty())
    return c.fail("expected a non-empty sequence");
  auto pos = position(c, 1, s->size(), false);
  if (!pos)
    return failure();
  c.setOutput(0, (*s)[*pos]);
  return success();
}

LogicalResult convertSequenceLength(NodeContext &c) {
  const SmallVector<Value> *s = sequence(c, 0);
  if (!s)
    return failure();
  HostTensor t;
  t.dataType = ::tract::onnx::kInt64;
  int64_t n = s->size();
  t.bytes.assign(reinterpret_cast<const char *>(&n), 8);
  c.setConstOutput(0, t);
  return success();
}

LogicalResult convertSplitToSequence(NodeContext &c) {
  auto xt = c.inputType(0);
  if (xt.getRank() == 0)
    return c.fail("expected an input of rank >= 1");
  auto axis = normalizeAxis(c.attrInt("axis", 0), xt.getRank());
  if (failed(axis))
    return c.fail("expected an axis in range");
  int64_t dim = xt.getDimSize(*axis);
  SmallVector<int64_t> sizes;
  bool keepDims = c.attrInt("keepdims", 1) != 0;
  if (c.hasInput(1)) {
    auto s = c.constInts(1);
    if (!s)
      return c.unsupported("SplitToSequence sizes computed at run time");
    if (s->size() == 1 && c.inputType(1).getRank() == 0) {
      int64_t chunk = (*s)[0];
      if (chunk < 1)
        return c.fail("expected a positive split size");
      for (int64_t off = 0; off < dim; off += chunk)
        sizes.push_back(std::min(chunk, dim - off));
    } else {
      sizes = *s;
    }
    keepDims = true; // with `split`, dims are always kept
  } else {
    sizes.assign(dim, 1);
  }
  int64_t offset = 0;
  SmallVector<Value> elements;
  for (int64_t size : sizes) {
    if (size < 0 || offset + size > dim)
      return c.fail("expected split sizes summing to " + std::to_string(dim));
    SmallVector<int64_t> starts(xt.getRank(), 0), limits(xt.getShape()), steps(xt.getRank(), 1);
    starts[*axis] = offset;
    limits[*axis] = offset + size;
    offset += size;
    FailureOr<Value> part = c.make<SliceOp>(c.input(0), starts, limits, steps);
    if (failed(part))
      return failure();
    Value v = *part;
    if (!keepDims) {
      SmallVector<int64_t> shape(xt.getShape());
      shape.erase(shape.begin() + *axis);
      v = c.reshape(v, shape);
    }
    elements.push_back(v);
  }
  if (offset != dim)
    return c.fail("expected split sizes summing to " + std::to_string(dim));
  c.setSequenceOutput(0, elements);
  return success();
}

LogicalResult convertConcatFromSequence(NodeContext &c) {
  const SmallVector<Value> *s = sequence(c, 0);
  if (!s)
    return failure();
  if (s->empty())
    return c.fail("expected a non-empty sequence");
  auto first = cast<RankedTensorType>((*s)[0].getType());
  bool newAxis = c.attrInt("new_axis", 0) != 0;
  int64_t rank = first.getRank() + (newAxis ? 1 : 0);
  auto axis = normalizeAxis(c.attrInt("axis", 0), rank);
  if (failed(axis))
    return c.fail("expected an axis in range");
  SmallVector<Value> parts;
  for (Value v : *s) {
    if (newAxis) {
      SmallVector<int64_t> shape(cast<RankedTensorType>(v.getType()).getShape());
      shape.insert(shape.begin() + *axis, 1);
      v = c.reshape(v, shape);
    }
    parts.push_back(v);
  }
  return c.bind(c.make<ConcatOp>(parts, *axis));
}

} // namespace

void mlir::tract::registerSequenceConverters(ConverterTable &t) {
  t.add("SequenceEmpty", 11, convertSequenceEmpty, 0);
  t.add("SequenceConstruct", 11, convertSequenceConstruct);
  t.add("SequenceInsert", 11, convertSequenceInsert, 2);
  t.add("SequenceErase", 11, convertSequenceErase);
  t.add("SequenceAt", 11, convertSequenceAt, 2);
  t.add("SequenceLength", 11, convertSequenceLength);
  t.add("SplitToSequence", 11, convertSplitToSequence);
  t.add("ConcatFromSequence", 11, convertConcatFromSequence);
}
