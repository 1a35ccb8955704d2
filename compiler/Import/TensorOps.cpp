//===- TensorOps.cpp - ONNX data-movement and shape ops -> tract ---------------===//
//
// Shapes are static, so Shape/Size/ConstantOfShape/Range produce constants and
// ops whose shape operand is an input (Reshape, Expand, Tile, Slice, ...)
// require it to be known at compile time.
//
//===----------------------------------------------------------------------===//
#include "compiler/Import/NodeContext.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

#include <cstring>

using namespace mlir;
using namespace mlir::tract;
namespace onnx = ::tract::onnx;

namespace {

HostTensor int64Tensor(ArrayRef<int64_t> values, std::vector<int64_t> dims) {
  HostTensor t;
  t.dataType = onnx::kInt64;
  t.dims = std::move(dims);
  t.bytes.assign(reinterpret_cast<const char *>(values.data()), values.size() * 8);
  return t;
}

// Reads a shape-like input (or attribute for old opsets) that must be known.
std::optional<SmallVector<int64_t>> requireInts(NodeContext &c, size_t i, StringRef what) {
  auto v = c.constInts(i);
  if (!v)
    (void)c.unsupported(what + Twine(" computed at run time (input '") + c.node.inputs[i] +
                        "' is not a compile-time constant)");
  return v;
}

// The shape the model declares for output `i` when it holds as many elements
// as `input`: what a Reshape-like op with a run-time shape operand produces.
std::optional<SmallVector<int64_t>> declaredReshape(NodeContext &c, Value input, size_t i = 0) {
  RankedTensorType declared = c.declaredOutputType(i);
  auto in = cast<RankedTensorType>(input.getType());
  if (!declared || declared.getNumElements() != in.getNumElements())
    return std::nullopt;
  return SmallVector<int64_t>(declared.getShape());
}

// The graph inputs `v` is computed from (their names), in argument order.
static SmallVector<std::string> graphInputsOf(Value v) {
  llvm::SmallPtrSet<Operation *, 32> seen;
  llvm::SmallSetVector<unsigned, 4> args;
  SmallVector<Value> work{v};
  while (!work.empty() && seen.size() < 100000) {
    Value x = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      if (isa<func::FuncOp>(arg.getOwner()->getParentOp()))
        args.insert(arg.getArgNumber());
      continue;
    }
    Operation *def = x.getDefiningOp();
    if (def && seen.insert(def).second)
      llvm::append_range(work, def->getOperands());
  }
  SmallVector<std::string> names;
  if (args.empty())
    return names;
  Operation *parent = v.getParentBlock()->getParentOp();
  auto func = isa<func::FuncOp>(parent) ? cast<func::FuncOp>(parent)
                                        : parent->getParentOfType<func::FuncOp>();
  for (unsigned a : args)
    if (auto name = func.getArgAttrOfType<StringAttr>(a, "tract.name"))
      names.push_back(name.str());
  return names;
}

LogicalResult runtimeOperand(NodeContext &c, size_t i, StringRef what) {
  std::string hint;
  SmallVector<std::string> from = graphInputsOf(c.input(i));
  if (!from.empty())
    hint = "; it is computed from input '" + llvm::join(from, "', '") +
           "': if that is fixed, give it with --input-value " + from[0] + "=V";
  return c.unsupported(what + Twine(" computed at run time (input '") + c.node.inputs[i] +
                       "' is not a compile-time constant and the model declares no static "
                       "shape for the result)" + hint);
}

LogicalResult convertIdentity(NodeContext &c) {
  c.forward(0, 0);
  return success();
}

LogicalResult convertReshape(NodeContext &c) {
  auto xt = c.inputType(0);
  SmallVector<int64_t> shape;
  if (c.opset() < 5) {
    shape = c.attrInts("shape");
  } else if (auto s = c.constInts(1)) {
    shape = *s;
  } else if (auto declared = declaredReshape(c, c.input(0))) {
    c.setOutput(0, c.reshape(c.input(0), *declared));
    return success();
  } else {
    return runtimeOperand(c, 1, "a Reshape target shape");
  }
  bool allowZero = c.attrInt("allowzero", 0) != 0;
  int64_t known = 1, inferIndex = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowZero) {
      if ((int64_t)i >= xt.getRank())
        return c.fail("expected a 0 in the target shape only where the input has a dim");
      shape[i] = xt.getDimSize(i);
    }
    if (shape[i] == -1) {
      if (inferIndex >= 0)
        return c.fail("expected at most one -1 in the target shape");
      inferIndex = i;
    } else if (shape[i] < 0) {
      return c.fail("expected target dims >= -1, got " + std::to_string(shape[i]));
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      return c.fail("expected a target shape whose element count fits in 64 bits");
    }
  }
  if (inferIndex >= 0) {
    if (known == 0 || xt.getNumElements() % known != 0)
      return c.fail("cannot infer the -1 dim: " + std::to_string(xt.getNumElements()) +
                    " elements do not divide by " + std::to_string(known));
    shape[inferIndex] = xt.getNumElements() / known;
    known *= shape[inferIndex];
  }
  if (known != xt.getNumElements())
    return c.fail("expected a target shape with " + std::to_string(xt.getNumElements()) +
                  " elements, got " + std::to_string(known));
  c.setOutput(0, c.reshape(c.input(0), shape));
  return success();
}

LogicalResult convertFlatten(NodeContext &c) {
  auto xt = c.inputType(0);
  int64_t rank = xt.getRank();
  int64_t axis = c.attrInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return c.fail("expected an axis in [-rank, rank], got " + std::to_string(c.attrInt("axis", 1)));
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i)
    (i < axis ? outer : inner) *= xt.getDimSize(i);
  c.setOutput(0, c.reshape(c.input(0), {outer, inner}));
  return success();
}

LogicalResult convertSqueeze(NodeContext &c) {
  auto xt = c.inputType(0);
  SmallVector<int64_t> axes;
  if (c.opset() >= 13 && c.hasInput(1)) {
    auto a = c.constInts(1);
    if (!a) {
      if (auto declared = declaredReshape(c, c.input(0))) {
        c.setOutput(0, c.reshape(c.input(0), *declared));
        return success();
      }
      return runtimeOperand(c, 1, "Squeeze axes");
    }
    axes = *a;
  } else {
    axes = c.attrInts("axes");
  }
  SmallVector<bool> drop(xt.getRank(), false);
  if (axes.empty()) {
    for (int64_t i = 0; i < xt.getRank(); ++i)
      drop[i] = xt.getDimSize(i) == 1;
  }
  for (int64_t a : axes) {
    auto n = normalizeAxis(a, xt.getRank());
    if (failed(n) || xt.getDimSize(*n) != 1)
      return c.fail("expected axis " + std::to_string(a) + " to be a dim of size 1");
    drop[*n] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < xt.getRank(); ++i)
    if (!drop[i])
      shape.push_back(xt.getDimSize(i));
  c.setOutput(0, c.reshape(c.input(0), shape));
  return success();
}

LogicalResult convertUnsqueeze(NodeContext &c) {
  auto xt = c.inputType(0);
  SmallVector<int64_t> axes;
  if (c.opset() >= 13) {
    auto a = c.constInts(1);
    if (!a) {
      if (auto declared = declaredReshape(c, c.input(0))) {
        c.setOutput(0, c.reshape(c.input(0), *declared));
        return success();
      }
      return runtimeOperand(c, 1, "Unsqueeze axes");
    }
    axes = *a;
  } else {
    axes = c.attrInts("axes");
  }
  int64_t rank = xt.getRank() + axes.size();
  SmallVector<bool> inserted(rank, false);
  for (int64_t a : axes) {
    auto n = normalizeAxis(a, rank);
    if (failed(n) || inserted[*n])
      return c.fail("expected distinct axes in [-" + std::to_string(rank) + ", " +
                    std::to_string(rank) + "), got " + std::to_string(a));
    inserted[*n] = true;
  }
  SmallVector<int64_t> shape;
  int64_t k = 0;
  for (int64_t i = 0; i < rank; ++i)
    shape.push_back(inserted[i] ? 1 : xt.getDimSize(k++));
  c.setOutput(0, c.reshape(c.input(0), shape));
  return success();
}

LogicalResult convertTranspose(NodeContext &c) {
  auto xt = c.inputType(0);
  SmallVector<int64_t> perm = c.attrInts("perm");
  if (perm.empty())
    for (int64_t i = xt.getRank() - 1; i >= 0; --i)
      perm.push_back(i);
  return c.bind(c.make<TransposeOp>(c.input(0), perm));
}

LogicalResult convertConcat(NodeContext &c) {
  SmallVector<Value> inputs;
  for (size_t i = 0; i < c.numInputs(); ++i)
    if (c.hasInput(i))
      inputs.push_back(c.input(i));
  if (inputs.empty())
    return c.fail("expected at least one input");
  int64_t rank = c.inputType(0).getRank();
  auto axis = normalizeAxis(c.attrInt("axis", c.opset() < 4 ? 1 : 0), rank);
  if (failed(axis))
    return c.fail("expected an axis in range, got " + std::to_string(c.attrInt("axis", 0)));
  // Zero-sized parts add nothing; ONNX allows them with any size off the axis.
  SmallVector<Value> parts;
  for (Value v : inputs)
    if (cast<RankedTensorType>(v.getType()).getNumElements() != 0)
      parts.push_back(v);
  if (parts.empty()) {
    // Every part is empty: so is the result, whose axis dim is their sum.
    SmallVector<int64_t> shape(c.inputType(0).getShape());
    shape[*axis] = 0;
    for (Value v : inputs)
      shape[*axis] += cast<RankedTensorType>(v.getType()).getDimSize(*axis);
    HostTensor t;
    t.dataType = onnxTypeFor(c.inputType(0).getElementType());
    t.dims.assign(shape.begin(), shape.end());
    c.setConstOutput(0, t);
    return success();
  }
  return c.bind(c.make<ConcatOp>(parts, *axis));
}

LogicalResult convertSplit(NodeContext &c) {
  auto xt = c.inputType(0);
  auto axis = normalizeAxis(c.attrInt("axis", 0), xt.getRank());
  if (failed(axis))
    return c.fail("expected an axis in range");
  SmallVector<int64_t> sizes;
  if (c.opset() >= 13 && c.hasInput(1)) {
    auto s = c.constInts(1);
    if (!s) {
      // Sizes known at run time only: take them from the declared outputs.
      SmallVector<int64_t> declared;
      for (size_t i = 0; i < c.numOutputs(); ++i)
        if (RankedTensorType t = c.declaredOutputType(i); t && t.getRank() == xt.getRank())
          declared.push_back(t.getDimSize(*axis));
      if (declared.size() != c.numOutputs())
        return runtimeOperand(c, 1, "Split sizes");
      s = declared;
    }
    sizes = *s;
  } else {
    sizes = c.attrInts("split");
  }
  int64_t dim = xt.getDimSize(*axis), n = c.numOutputs();
  if (n < 1)
    return c.fail("expected at least one output");
  if (sizes.empty()) {
    int64_t chunk = (dim + n - 1) / n;
    for (int64_t i = 0; i < n; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
  }
  if ((int64_t)sizes.size() != n)
    return c.fail("expected " + std::to_string(n) + " split sizes, got " +
                  std::to_string(sizes.size()));
  int64_t total = 0;
  for (int64_t size : sizes) {
    if (size < 0 || size > dim)
      return c.fail("expected split sizes in [0, " + std::to_string(dim) + "]");
    total += size;
  }
  if (total != dim)
    return c.fail("expected split sizes summing to " + std::to_string(dim) + ", got " +
                  std::to_string(total));
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    SmallVector<int64_t> starts(xt.getRank(), 0), limits(xt.getShape()),
        steps(xt.getRank(), 1);
    starts[*axis] = offset;
    limits[*axis] = offset + sizes[i];
    offset += sizes[i];
    if (offset > dim)
      return c.fail("expected split sizes summing to " + std::to_string(dim));
    if (failed(c.bind(c.make<SliceOp>(c.input(0), starts, limits, steps), i)))
      return failure();
  }
  return success();
}

LogicalResult convertSlice(NodeContext &c) {
  auto xt = c.inputType(0);
  int64_t rank = xt.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (c.opset() < 10) {
    starts = c.attrInts("starts");
    ends = c.attrInts("ends");
    axes = c.attrInts("axes");
  } else {
    auto s = c.constInts(1);
    auto e = c.constInts(2);
    bool runtime = !s || !e || (c.hasInput(3) && !c.constInts(3)) || (c.hasInput(4) && !c.constInts(4));
    if (runtime) {
      // Slice parameters known only at run time: the kernel clamps them;
      // the declared result shape is the static one.
      RankedTensorType declared = c.declaredOutputType(0);
      if (!declared || declared.getRank() != rank)
        return runtimeOperand(c, !s ? 1 : 2, "Slice starts/ends");
      Type i64 = c.builder().getI64Type();
      auto idx = [&](size_t i) { return c.hasInput(i) ? c.cast(c.input(i), i64) : Value(); };
      c.setOutput(0, c.makeTyped<SliceDynamicOp>(
                         RankedTensorType::get(declared.getShape(), xt.getElementType()),
                         c.input(0), idx(1), idx(2), idx(3), idx(4)));
      return success();
    }
    starts = *s;
    ends = *e;
    if (c.hasInput(3)) {
      auto a = requireInts(c, 3, "Slice axes");
      if (!a)
        return failure();
      axes = *a;
    }
    if (c.hasInput(4)) {
      auto st = requireInts(c, 4, "Slice steps");
      if (!st)
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return c.fail("expected starts, ends, axes and steps of one length");
  SmallVector<int64_t> outStarts(rank, 0), outLimits(xt.getShape()), outSteps(rank, 1);
  for (size_t i = 0; i < starts.size(); ++i) {
    auto axis = normalizeAxis(axes[i], rank);
    if (failed(axis))
      return c.fail("expected slice axes in range, got " + std::to_string(axes[i]));
    int64_t dim = xt.getDimSize(*axis), step = steps[i];
    if (step == 0)
      return c.fail("expected non-zero slice steps");
    int64_t start = starts[i], end = ends[i];
    if (start < 0)
      start += dim;
    if (end < 0)
      end += dim;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
    }
    // A step past the dim selects what a step of the dim does (no overflow).
    step = std::clamp<int64_t>(step, -std::max<int64_t>(dim, 1), std::max<int64_t>(dim, 1));
    int64_t size = step > 0 ? (end - start + step - 1) / step : (start - end - step - 1) / -step;
    if (size <= 0) {
      start = 0;
      end = 0;
      step = 1;
    }
    outStarts[*axis] = start;
    outLimits[*axis] = end;
    outSteps[*axis] = step;
  }
  return c.bind(c.make<SliceOp>(c.input(0), outStarts, outLimits, outSteps));
}

// Constant indices into a dim of `size` must lie in [-size, size): ONNX
// leaves others undefined, and the generated code would read out of bounds.
LogicalResult checkConstIndices(NodeContext &c, size_t input, int64_t size) {
  std::optional<SmallVector<int64_t>> indices = c.constInts(input);
  if (!indices || ShapedType::isDynamic(size))
    return success();
  for (int64_t i : *indices)
    if (i < -size || i >= size)
      return c.fail("index " + Twine(i) + " is out of range for a dim of " + Twine(size));
  return success();
}

LogicalResult convertGather(NodeContext &c) {
  Value indices = c.input(1);
  auto it = c.inputType(1);
  if (!it.getElementType().isInteger(32) && !it.getElementType().isInteger(64))
    indices = c.cast(indices, c.builder().getI64Type());
  auto axis = normalizeAxis(c.attrInt("axis", 0), c.inputType(0).getRank());
  if (failed(axis))
    return c.fail("expected an axis in range");
  if (failed(checkConstIndices(c, 1, c.inputType(0).getDimSize(*axis))))
    return failure();
  return c.bind(c.make<GatherOp>(c.input(0), indices, *axis));
}

LogicalResult convertGatherElements(NodeContext &c) {
  auto axis = normalizeAxis(c.attrInt("axis", 0), c.inputType(0).getRank());
  if (failed(axis))
    return c.fail("expected an axis in range");
  if (failed(checkConstIndices(c, 1, c.inputType(0).getDimSize(*axis))))
    return failure();
  auto type = RankedTensorType::get(c.inputType(1).getShape(),
                                    c.inputType(0).getElementType());
  c.setOutput(0, c.makeTyped<GatherElementsOp>(type, c.input(0), c.input(1), *axis));
  return success();
}

LogicalResult convertShape(NodeContext &c) {
  auto shape = c.inputType(0).getShape();
  int64_t rank = shape.size();
  int64_t start = c.attrInt("start", 0), end = c.attrInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  SmallVector<int64_t> dims(shape.begin() + start, shape.begin() + end);
  c.setConstOutput(0, int64Tensor(dims, {(int64_t)dims.size()}));
  return success();
}

LogicalResult convertSize(NodeContext &c) {
  int64_t n = c.inputType(0).getNumElements();
  c.setConstOutput(0, int64Tensor({n}, {}));
  return success();
}

LogicalResult convertCast(NodeContext &c) {
  int32_t to = c.attrInt("to", onnx::kUndefined);
  Type element = elementTypeFor(c.context(), to, /*allowString=*/true);
  if (!element)
    return c.unsupported(Twine("Cast to ") + onnx::dataTypeName(to));
  c.setOutput(0, c.cast(c.input(0), element));
  return success();
}

LogicalResult convertCastLike(NodeContext &c) {
  c.setOutput(0, c.cast(c.input(0), c.inputType(1).getElementType()));
  return success();
}

LogicalResult convertConstant(NodeContext &c) {
  if (const HostTensor *t = c.attrTensor("value")) {
    if (!elementTypeFor(c.context(), t->dataType))
      return c.unsupported(Twine("a constant of type ") + onnx::dataTypeName(t->dataType));
    c.setConstOutput(0, *t);
    return success();
  }
  HostTensor t;
  if (c.hasAttr("value_float")) {
    float v = c.attrFloat("value_float", 0);
    t.dataType = onnx::kFloat;
    t.bytes.assign(reinterpret_cast<const char *>(&v), 4);
  } else if (c.hasAttr("value_int")) {
    int64_t v = c.attrInt("value_int", 0);
    t = int64Tensor({v}, {});
  } else if (c.hasAttr("value_floats")) {
    SmallVector<float> v = c.attrFloats("value_floats");
    t.dataType = onnx::kFloat;
    t.dims = {(int64_t)v.size()};
    t.bytes.assign(reinterpret_cast<const char *>(v.data()), v.size() * 4);
  } else if (c.hasAttr("value_ints")) {
    SmallVector<int64_t> v = c.attrInts("value_ints");
    t = int64Tensor(v, {(int64_t)v.size()});
  } else if (c.hasAttr("sparse_value") || c.hasAttr("value_string") ||
             c.hasAttr("value_strings")) {
    return c.unsupported("a Constant without a numeric value (sparse or string)");
  } else {
    return c.fail("expected a value attribute (value, value_float(s) or value_int(s))");
  }
  c.setConstOutput(0, t);
  return success();
}

LogicalResult convertConstantOfShape(NodeContext &c) {
  auto shape = c.constInts(0);
  if (!shape)
    if (RankedTensorType declared = c.declaredOutputType(0))
      shape = SmallVector<int64_t>(declared.getShape());
  if (!shape)
    return runtimeOperand(c, 0, "a ConstantOfShape shape");
  if (failed(checkedNumElements(*shape)))
    return c.fail("expected a shape with non-negative dims and a sane element count");
  HostTensor scalar;
  if (const HostTensor *value = c.attrTensor("value")) {
    if (value->numElements() != 1)
      return c.fail("expected a one-element value");
    scalar = *value;
  } else {
    scalar.dataType = onnx::kFloat;
    scalar.bytes.assign(4, '\0');
  }
  if (!elementTypeFor(c.context(), scalar.dataType))
    return c.unsupported(Twine("a constant of type ") + onnx::dataTypeName(scalar.dataType));
  c.setFilledOutput(0, std::move(scalar), *shape);
  return success();
}

LogicalResult convertExpand(NodeContext &c) {
  auto xt = c.inputType(0);
  auto shape = c.constInts(1);
  if (!shape)
    if (RankedTensorType declared = c.declaredOutputType(0))
      shape = SmallVector<int64_t>(declared.getShape());
  if (!shape)
    return runtimeOperand(c, 1, "an Expand shape");
  auto out = broadcastShapes(xt.getShape(), *shape);
  if (failed(checkedNumElements(*shape)))
    return c.fail("expected a shape with non-negative dims and a sane element count");
  if (failed(out))
    return c.fail("expected a shape the input broadcasts with");
  c.setOutput(0, c.makeTyped<BroadcastOp>(RankedTensorType::get(*out, xt.getElementType()),
                                          c.input(0)));
  return success();
}

LogicalResult convertWhere(NodeContext &c) {
  return c.bind(c.make<SelectOp>(c.input(0), c.input(1), c.input(2)));
}

LogicalResult convertTile(NodeContext &c) {
  auto xt = c.inputType(0);
  auto repeats = c.constInts(1);
  RankedTensorType declared = c.declaredOutputType(0);
  if (!repeats && declared && declared.getRank() == xt.getRank()) {
    repeats.emplace();
    for (int64_t i = 0; i < xt.getRank(); ++i)
      repeats->push_back(xt.getDimSize(i) ? declared.getDimSize(i) / xt.getDimSize(i) : 0);
  }
  if (!repeats)
    return runtimeOperand(c, 1, "Tile repeats");
  if ((int64_t)repeats->size() != xt.getRank())
    return c.fail("expected " + std::to_string(xt.getRank()) + " repeats");
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < xt.getRank(); ++i) {
    if ((*repeats)[i] < 0)
      return c.fail("expected non-negative repeats");
    shape.push_back(xt.getDimSize(i) * (*repeats)[i]);
  }
  c.setOutput(0, c.makeTyped<TileOp>(RankedTensorType::get(shape, xt.getElementType()),
                                     c.input(0)));
  return success();
}

LogicalResult convertPad(NodeContext &c) {
  auto xt = c.inputType(0);
  int64_t rank = xt.getRank();
  SmallVector<int64_t> pads;
  double value = 0;
  if (c.opset() < 11) {
    pads = c.attrInts("pads");
    value = c.attrFloat("value", 0.0f);
  } else {
    auto p = c.constInts(1);
    Value runtimeValue;
    if (c.hasInput(2)) {
      auto v = c.constDoubles(2);
      if (v)
        value = v->empty() ? 0 : (*v)[0];
      else if (c.inputType(2).getNumElements() == 1)
        runtimeValue = c.reshape(c.cast(c.input(2), xt.getElementType()), {1});
      else
        return c.fail("expected a one-element pad value");
    }
    RankedTensorType declared = c.declaredOutputType(0);
    if ((!p || runtimeValue) && !c.hasInput(3)) {
      // Pads or value known at run time only: the kernel reads them; the
      // declared result shape is the static one.
      if (!p && (!declared || declared.getRank() != rank ||
                 c.inputType(1).getNumElements() != 2 * rank))
        return runtimeOperand(c, 1, "Pad pads");
      SmallVector<int64_t> shapePads(2 * rank, 0);
      if (p) {
        shapePads = *p;
      } else {
        for (int64_t i = 0; i < rank; ++i)
          shapePads[rank + i] = declared.getDimSize(i) - xt.getDimSize(i);
      }
      std::string mode = c.attrString("mode", "constant");
      if (mode == "wrap")
        return c.unsupported("Pad mode 'wrap'");
      Value runtimePads = p ? Value() : c.cast(c.input(1), c.builder().getI64Type());
      return c.bind(c.make<PadOp>(c.input(0), runtimePads, runtimeValue,
                                  c.builder().getDenseI64ArrayAttr(shapePads),
                                  c.builder().getStringAttr(mode), c.builder().getF64FloatAttr(value)));
    }
    if (!p)
      return runtimeOperand(c, 1, "Pad pads");
    pads = *p;
    if (c.hasInput(3)) {
      auto axes = requireInts(c, 3, "Pad axes");
      if (!axes)
        return failure();
      SmallVector<int64_t> full(2 * rank, 0);
      if (pads.size() != 2 * axes->size())
        return c.fail("expected two pads per axis");
      for (size_t i = 0; i < axes->size(); ++i) {
        auto a = normalizeAxis((*axes)[i], rank);
        if (failed(a))
          return c.fail("expected pad axes in range");
        full[*a] = pads[i];
        full[rank + *a] = pads[axes->size() + i];
      }
      pads = full;
    }
  }
  std::string mode = c.attrString("mode", "constant");
  if (mode == "wrap")
    return c.unsupported("Pad mode 'wrap'");
  return c.bind(c.make<PadOp>(c.input(0), Value(), Value(), c.builder().getDenseI64ArrayAttr(pads),
                              c.builder().getStringAttr(mode),
                                    c.builder().getF64FloatAttr(value)));
}

// Trilu with a diagonal known only at run time: keep x where col - row >= k
// (upper) or <= k (lower), with col - row a constant [rows, cols] tensor.
LogicalResult convertTriluRuntimeK(NodeContext &c) {
  auto xt = c.inputType(0);
  int64_t rows = xt.getDimSize(xt.getRank() - 2), cols = xt.getDimSize(xt.getRank() - 1);
  if (c.inputType(1).getNumElements() != 1)
    return c.fail("expected a one-element diagonal k");
  SmallVector<int64_t> diff;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t col = 0; col < cols; ++col)
      diff.push_back(col - r);
  Value k = c.reshape(c.cast(c.input(1), c.builder().getI64Type()), {});
  Value d = c.constantI64(diff, {rows, cols});
  FailureOr<Value> keep = c.attrInt("upper", 1) ? c.make<GreaterEqualOp>(d, k)
                                                : c.make<LessEqualOp>(d, k);
  if (failed(keep))
    return failure();
  return c.bind(c.make<SelectOp>(*keep, c.input(0), c.constantScalar(xt.getElementType(), 0)));
}

LogicalResult convertTrilu(NodeContext &c) {
  int64_t k = 0;
  if (c.inputType(0).getRank() < 2)
    return c.fail("expected an input of rank >= 2");
  if (c.hasInput(1)) {
    auto kv = c.constInts(1);
    if (!kv)
      return convertTriluRuntimeK(c);
    k = kv->empty() ? 0 : (*kv)[0];
  }
  c.setOutput(0, c.builder().create<TriluOp>(c.loc, c.input(0), c.attrInt("upper", 1) != 0, k));
  return success();
}

LogicalResult convertDepthToSpace(NodeContext &c) {
  auto xt = c.inputType(0);
  int64_t b = c.attrInt("blocksize", 0);
  if (xt.getRank() != 4 || b < 1 || b > xt.getDimSize(1) || xt.getDimSize(1) % b != 0 ||
      (xt.getDimSize(1) / b) % b != 0)
    return c.fail("expected a 4-D input whose channels divide by blocksize^2");
  auto type = RankedTensorType::get({xt.getDimSize(0), xt.getDimSize(1) / (b * b),
                                     xt.getDimSize(2) * b, xt.getDimSize(3) * b},
                                    xt.getElementType());
  c.setOutput(0, c.makeTyped<DepthToSpaceOp>(type, c.input(0), b,
                                             c.attrString("mode", "DCR") == "CRD"));
  return success();
}

LogicalResult convertSpaceToDepth(NodeContext &c) {
  auto xt = c.inputType(0);
  int64_t b = c.attrInt("blocksize", 0);
  if (xt.getRank() != 4 || b < 1 || b > xt.getDimSize(2) || b > xt.getDimSize(3) ||
      xt.getDimSize(2) % b != 0 || xt.getDimSize(3) % b != 0)
    return c.fail("expected a 4-D input whose spatial dims divide by blocksize");
  auto type = RankedTensorType::get({xt.getDimSize(0), xt.getDimSize(1) * b * b,
                                     xt.getDimSize(2) / b, xt.getDimSize(3) / b},
                                    xt.getElementType());
  c.setOutput(0, c.makeTyped<SpaceToDepthOp>(type, c.input(0), b));
  return success();
}

} // namespace

void mlir::tract::registerTensorConverters(ConverterTable &t) {
  t.add("Identity", 1, convertIdentity);
  t.add("Reshape", 1, convertReshape);
  t.add("Reshape", 5, convertReshape, 2);
  t.add("Flatten", 1, convertFlatten);
  t.add("Squeeze", 1, convertSqueeze);
  t.add("Unsqueeze", 1, convertUnsqueeze);
  t.add("Unsqueeze", 13, convertUnsqueeze, 2);
  t.add("Transpose", 1, convertTranspose);
  t.add("Concat", 1, convertConcat);
  t.add("Split", 2, convertSplit);
  t.add("Slice", 1, convertSlice);
  t.add("Slice", 10, convertSlice, 3);
  t.add("Gather", 1, convertGather, 2);
  t.add("GatherElements", 11, convertGatherElements, 2);
  t.add("Shape", 1, convertShape);
  t.add("Size", 1, convertSize);
  t.add("Cast", 6, convertCast);
  t.add("CastLike", 15, convertCastLike, 2);
  t.add("Constant", 1, convertConstant, 0);
  t.add("ConstantOfShape", 9, convertConstantOfShape);
  t.add("Expand", 8, convertExpand, 2);
  t.add("Where", 9, convertWhere, 3);
  t.add("Tile", 6, convertTile, 2);
  t.add("Pad", 2, convertPad);
  t.add("Pad", 11, convertPad, 2);
  t.add("Trilu", 14, convertTrilu);
  t.add("DepthToSpace", 1, convertDepthToSpace);
  t.add("SpaceToDepth", 1, convertSpaceToDepth);
}
