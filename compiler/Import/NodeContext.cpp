//===- NodeContext.cpp - what an op converter sees of its ONNX node ----------===//
#include "compiler/Import/NodeContext.h"

#include "compiler/Import/Importer.h"
#include "compiler/Support/ElementsData.h"

#include "tract/rt/half.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::tract;
namespace onnx = ::tract::onnx;

Type mlir::tract::elementTypeFor(MLIRContext *ctx, int32_t onnxType, bool allowString) {
  switch (onnxType) {
  case onnx::kString: return allowString ? StringType::get(ctx, kStringSlotBytes) : Type();
  case onnx::kFloat: return Float32Type::get(ctx);
  case onnx::kFloat16: return Float16Type::get(ctx);
  case onnx::kBFloat16: return BFloat16Type::get(ctx);
  case onnx::kDouble: return Float64Type::get(ctx);
  case onnx::kBool: return IntegerType::get(ctx, 1);
  case onnx::kInt8: return IntegerType::get(ctx, 8);
  case onnx::kInt16: return IntegerType::get(ctx, 16);
  case onnx::kInt32: return IntegerType::get(ctx, 32);
  case onnx::kInt64: return IntegerType::get(ctx, 64);
  case onnx::kUInt8: return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case onnx::kUInt16: return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case onnx::kUInt32: return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case onnx::kUInt64: return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  default: return Type();
  }
}

int32_t mlir::tract::onnxTypeFor(Type t) {
  if (t.isF32()) return onnx::kFloat;
  if (t.isF16()) return onnx::kFloat16;
  if (t.isBF16()) return onnx::kBFloat16;
  if (isa<StringType>(t)) return onnx::kString;
  if (t.isF64()) return onnx::kDouble;
  if (t.isInteger(1)) return onnx::kBool;
  if (auto i = dyn_cast<IntegerType>(t)) {
    bool u = i.isUnsigned();
    switch (i.getWidth()) {
    case 8: return u ? onnx::kUInt8 : onnx::kInt8;
    case 16: return u ? onnx::kUInt16 : onnx::kInt16;
    case 32: return u ? onnx::kUInt32 : onnx::kInt32;
    case 64: return u ? onnx::kUInt64 : onnx::kInt64;
    default: break;
    }
  }
  return onnx::kUndefined;
}

void ConverterTable::add(StringRef opType, int64_t sinceOpset, ConvertFn fn,
                         unsigned minInputs) {
  table[opType].push_back({sinceOpset, fn, minInputs});
}

std::vector<std::pair<std::string, int64_t>> ConverterTable::entries() const {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto &kv : table) {
    int64_t since = INT64_MAX;
    for (const Entry &e : kv.second)
      since = std::min(since, e.since);
    out.push_back({kv.first().str(), since});
  }
  std::sort(out.begin(), out.end());
  return out;
}

const ConverterTable::Entry *ConverterTable::lookup(StringRef opType, int64_t opset) const {
  auto it = table.find(opType);
  if (it == table.end())
    return nullptr;
  const Entry *best = nullptr;
  for (const Entry &e : it->second)
    if (e.since <= opset && (!best || e.since > best->since))
      best = &e;
  return best;
}

NodeContext::NodeContext(Importer &importer, const onnx::Node &node, Location loc)
    : node(node), loc(loc), importer(importer) {}

int64_t NodeContext::opset() const { return importer.opset; }
OpBuilder &NodeContext::builder() { return importer.builder; }
MLIRContext *NodeContext::context() { return importer.builder.getContext(); }

Value NodeContext::input(size_t i) {
  if (!hasInput(i))
    return Value();
  GraphValue *v = importer.lookup(node.inputs[i]);
  return v ? importer.materialize(*v, node.inputs[i]) : Value();
}

RankedTensorType NodeContext::inputType(size_t i) {
  if (!hasInput(i))
    return RankedTensorType();
  GraphValue *v = importer.lookup(node.inputs[i]);
  if (!v)
    return RankedTensorType();
  if (v->value)
    return mlir::cast<RankedTensorType>(v->value.getType());
  return RankedTensorType::get(v->constant->dims,
                               elementTypeFor(context(), v->constant->dataType));
}

const HostTensor *NodeContext::constInput(size_t i) {
  if (!hasInput(i))
    return nullptr;
  GraphValue *v = importer.lookup(node.inputs[i]);
  return v ? v->constant.get() : nullptr;
}

template <typename T>
static T readAt(const HostTensor &t, int64_t i) {
  T v;
  std::memcpy(&v, t.bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

std::optional<SmallVector<int64_t>> NodeContext::constInts(size_t i) {
  const HostTensor *t = constInput(i);
  if (!t)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (int64_t k = 0; k < t->numElements(); ++k) {
    switch (t->dataType) {
    case onnx::kInt64: out.push_back(readAt<int64_t>(*t, k)); break;
    case onnx::kInt32: out.push_back(readAt<int32_t>(*t, k)); break;
    case onnx::kInt16: out.push_back(readAt<int16_t>(*t, k)); break;
    case onnx::kInt8: out.push_back(readAt<int8_t>(*t, k)); break;
    case onnx::kUInt8: case onnx::kBool: out.push_back(readAt<uint8_t>(*t, k)); break;
    case onnx::kUInt16: out.push_back(readAt<uint16_t>(*t, k)); break;
    case onnx::kUInt32: out.push_back(readAt<uint32_t>(*t, k)); break;
    case onnx::kUInt64: out.push_back((int64_t)readAt<uint64_t>(*t, k)); break;
    default: return std::nullopt;
    }
  }
  return out;
}

std::optional<SmallVector<double>> NodeContext::constDoubles(size_t i) {
  const HostTensor *t = constInput(i);
  if (!t)
    return std::nullopt;
  if (t->dataType == onnx::kFloat || t->dataType == onnx::kDouble) {
    SmallVector<double> out;
    for (int64_t k = 0; k < t->numElements(); ++k)
      out.push_back(t->dataType == onnx::kFloat ? readAt<float>(*t, k)
                                                : readAt<double>(*t, k));
    return out;
  }
  auto ints = constInts(i);
  if (!ints)
    return std::nullopt;
  return SmallVector<double>(ints->begin(), ints->end());
}

bool NodeContext::hasAttr(StringRef name) const { return node.attr(name.str()); }

namespace {
const char *attributeKindName(int kind) {
  using A = onnx::Attribute;
  switch (kind) {
  case A::kFloat: return "a float";
  case A::kInt: return "an int";
  case A::kString: return "a string";
  case A::kTensor: return "a tensor";
  case A::kFloats: return "floats";
  case A::kInts: return "ints";
  case A::kStrings: return "strings";
  case A::kGraph: return "a graph";
  default: return "of an unsupported type";
  }
}
} // namespace

const onnx::Attribute *NodeContext::typedAttr(StringRef name, int kind, int also) const {
  const onnx::Attribute *a = node.attr(name.str());
  if (!a || a->kind == kind || a->kind == also)
    return a;
  if (attrError.empty())
    attrError = ("attribute '" + name + "' is " + attributeKindName(a->kind) + ", expected " +
                 attributeKindName(kind))
                    .str();
  return nullptr;
}

int64_t NodeContext::attrInt(StringRef name, int64_t def) const {
  const onnx::Attribute *a = typedAttr(name, onnx::Attribute::kInt);
  return a ? a->i : def;
}

float NodeContext::attrFloat(StringRef name, float def) const {
  const onnx::Attribute *a = typedAttr(name, onnx::Attribute::kFloat, onnx::Attribute::kInt);
  if (!a)
    return def;
  return a->kind == onnx::Attribute::kFloat ? a->f : (float)a->i;
}

std::string NodeContext::attrString(StringRef name, StringRef def) const {
  const onnx::Attribute *a = typedAttr(name, onnx::Attribute::kString);
  return a ? a->s : def.str();
}

SmallVector<int64_t> NodeContext::attrInts(StringRef name, ArrayRef<int64_t> def) const {
  if (const onnx::Attribute *a = typedAttr(name, onnx::Attribute::kInts))
    return SmallVector<int64_t>(a->ints.begin(), a->ints.end());
  return SmallVector<int64_t>(def.begin(), def.end());
}

SmallVector<float> NodeContext::attrFloats(StringRef name) const {
  if (const onnx::Attribute *a = typedAttr(name, onnx::Attribute::kFloats))
    return SmallVector<float>(a->floats.begin(), a->floats.end());
  return {};
}

std::vector<std::string> NodeContext::attrStrings(StringRef name) const {
  if (const onnx::Attribute *a = typedAttr(name, onnx::Attribute::kStrings))
    return a->strings;
  return {};
}

const HostTensor *NodeContext::attrTensor(StringRef name) const {
  const onnx::Attribute *a = typedAttr(name, onnx::Attribute::kTensor);
  return a ? &a->t : nullptr;
}

RankedTensorType NodeContext::declaredOutputType(size_t i) {
  if (i >= node.outputs.size() || node.outputs[i].empty())
    return RankedTensorType();
  return importer.declaredType(node.outputs[i]);
}

void NodeContext::setOutput(size_t i, Value v) {
  if (i < node.outputs.size() && !node.outputs[i].empty())
    importer.bind(node.outputs[i], {v, nullptr});
}

void NodeContext::setConstOutput(size_t i, HostTensor t) {
  if (i < node.outputs.size() && !node.outputs[i].empty()) {
    t.name = node.outputs[i];
    importer.bind(node.outputs[i], {Value(), std::make_shared<const HostTensor>(std::move(t))});
  }
}

void NodeContext::setFilledOutput(size_t i, HostTensor scalar, ArrayRef<int64_t> shape) {
  int64_t count = *checkedNumElements(shape);
  if (count <= kMaxFoldElements) {
    HostTensor t;
    t.dataType = scalar.dataType;
    t.dims.assign(shape.begin(), shape.end());
    t.bytes.reserve(count * scalar.bytes.size());
    for (int64_t k = 0; k < count; ++k)
      t.bytes += scalar.bytes;
    setConstOutput(i, std::move(t));
    return;
  }
  scalar.dims.clear();
  Value v = constant(scalar);
  auto type = RankedTensorType::get(shape, mlir::cast<RankedTensorType>(v.getType()).getElementType());
  setOutput(i, makeTyped<BroadcastOp>(type, v));
}

GraphValue NodeContext::inputValue(size_t i) {
  if (!hasInput(i))
    return {};
  GraphValue *v = importer.lookup(node.inputs[i]);
  return v ? *v : GraphValue{};
}

void NodeContext::setOutputValue(size_t i, GraphValue v) {
  if (i < node.outputs.size() && !node.outputs[i].empty())
    importer.bind(node.outputs[i], std::move(v));
}

const ::tract::onnx::Graph *NodeContext::attrGraph(StringRef name) const {
  const onnx::Attribute *a = typedAttr(name, onnx::Attribute::kGraph);
  return a ? a->g.get() : nullptr;
}

FailureOr<SmallVector<GraphValue>> NodeContext::inlineGraph(const ::tract::onnx::Graph &graph,
                                                            ArrayRef<GraphValue> args) {
  return importer.inlineGraph(graph, args);
}

Value NodeContext::materialize(GraphValue &v) {
  return importer.materialize(v, node.name);
}

const SmallVector<Value> *NodeContext::sequenceInput(size_t i) {
  if (!hasInput(i))
    return nullptr;
  GraphValue *v = importer.lookup(node.inputs[i]);
  return v ? v->sequence.get() : nullptr;
}

void NodeContext::setSequenceOutput(size_t i, SmallVector<Value> elements) {
  if (i < node.outputs.size() && !node.outputs[i].empty())
    importer.bind(node.outputs[i],
                  {Value(), nullptr, std::make_shared<const SmallVector<Value>>(std::move(elements))});
}

void NodeContext::forward(size_t i, size_t j) {
  if (const SmallVector<Value> *seq = sequenceInput(j)) {
    setSequenceOutput(i, *seq);
    return;
  }
  if (const HostTensor *t = constInput(j))
    setConstOutput(i, *t);
  else
    setOutput(i, input(j));
}

LogicalResult NodeContext::bind(FailureOr<Value> v, size_t i) {
  if (failed(v))
    return failure();
  setOutput(i, *v);
  return success();
}

Value NodeContext::constant(const HostTensor &t) {
  auto type = RankedTensorType::get(t.dims, elementTypeFor(context(), t.dataType));
  return builder().create<ConstOp>(loc, type, makeElementsAttr(type, t.bytes, node.name));
}

Value NodeContext::constantI64(ArrayRef<int64_t> values, ArrayRef<int64_t> shape) {
  HostTensor t;
  t.dataType = onnx::kInt64;
  t.dims.assign(shape.begin(), shape.end());
  t.bytes.assign(reinterpret_cast<const char *>(values.data()), values.size() * 8);
  return constant(t);
}

void mlir::tract::appendScalar(HostTensor &t, double v) {
  auto put = [&](auto x) { t.bytes.append(reinterpret_cast<const char *>(&x), sizeof(x)); };
  // A double outside an integer type's range does not convert (undefined
  // behaviour): it saturates, NaN to 0 (an attribute like NLL's
  // ignore_index may hold anything).
  auto integer = [&](auto zero) {
    using I = decltype(zero);
    if (std::isnan(v))
      return I(0);
    if (v <= (double)std::numeric_limits<I>::min())
      return std::numeric_limits<I>::min();
    if (v >= (double)std::numeric_limits<I>::max())
      return std::numeric_limits<I>::max();
    return (I)v;
  };
  switch (t.dataType) {
  case onnx::kFloat: put((float)v); break;
  case onnx::kDouble: put(v); break;
  case onnx::kFloat16: put(::tract::rt::float_to_half((float)v).bits); break;
  case onnx::kBFloat16: put(::tract::rt::float_to_bfloat16((float)v).bits); break;
  case onnx::kInt8: put(integer(int8_t(0))); break;
  case onnx::kInt16: put(integer(int16_t(0))); break;
  case onnx::kInt32: put(integer(int32_t(0))); break;
  case onnx::kInt64: put(integer(int64_t(0))); break;
  case onnx::kUInt8: put(integer(uint8_t(0))); break;
  case onnx::kUInt16: put(integer(uint16_t(0))); break;
  case onnx::kUInt32: put(integer(uint32_t(0))); break;
  case onnx::kUInt64: put(integer(uint64_t(0))); break;
  case onnx::kBool: put((uint8_t)(v != 0)); break;
  default: break;
  }
}

Value NodeContext::constantScalar(Type elementType, double value) {
  HostTensor t;
  t.dataType = onnxTypeFor(elementType);
  appendScalar(t, value);
  return constant(t);
}

Value NodeContext::reshape(Value v, ArrayRef<int64_t> shape) {
  auto type = mlir::cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  return makeTyped<ReshapeOp>(RankedTensorType::get(shape, type.getElementType()), v);
}

Value NodeContext::cast(Value v, Type elementType) {
  auto type = mlir::cast<RankedTensorType>(v.getType());
  if (type.getElementType() == elementType)
    return v;
  return makeTyped<CastOp>(RankedTensorType::get(type.getShape(), elementType), v);
}

LogicalResult NodeContext::fail(const Twine &reason) {
  emitError(loc) << reason;
  return failure();
}

LogicalResult NodeContext::unsupported(const Twine &what) {
  importer.unsupported = true;
  emitError(loc) << "unsupported: " << what;
  return failure();
}
