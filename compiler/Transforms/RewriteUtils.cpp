//===- RewriteUtils.cpp - reading and making constants in patterns -----------===//
#include "compiler/Transforms/RewriteUtils.h"

#include "compiler/Support/ElementsData.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>
#include <cstring>

namespace mlir::tract {

bool isFloatTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && isa<FloatType>(t.getElementType());
}

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

namespace {

// Element i of raw little-endian bytes of `element` type as a double.
std::optional<double> elementAt(const std::string &bytes, Type element, int64_t i) {
  auto read = [&](auto tag) {
    decltype(tag) v;
    std::memcpy(&v, bytes.data() + i * sizeof v, sizeof v);
    return static_cast<double>(v);
  };
  if (element.isF32()) return read(float{});
  if (element.isF64()) return read(double{});
  if (element.isInteger(1)) return bytes[i] ? 1.0 : 0.0;
  if (auto it = dyn_cast<IntegerType>(element)) {
    bool u = it.isUnsigned();
    switch (it.getWidth()) {
    case 8: return u ? read(uint8_t{}) : read(int8_t{});
    case 16: return u ? read(uint16_t{}) : read(int16_t{});
    case 32: return u ? read(uint32_t{}) : read(int32_t{});
    case 64: return u ? read(uint64_t{}) : read(int64_t{});
    default: break;
    }
  }
  return std::nullopt;
}

} // namespace

std::optional<SmallVector<double>> floatConstant(Value v, int64_t maxElements) {
  auto c = v.getDefiningOp<ConstOp>();
  if (!c)
    return std::nullopt;
  RankedTensorType t = c.getType();
  if (!(t.getElementType().isF32() || t.getElementType().isF64()) ||
      t.getNumElements() > maxElements)
    return std::nullopt;
  std::string bytes = elementsBytes(c.getValue());
  SmallVector<double> out;
  out.reserve(t.getNumElements());
  for (int64_t i = 0; i < t.getNumElements(); ++i)
    out.push_back(*elementAt(bytes, t.getElementType(), i));
  return out;
}

std::optional<double> splatConstant(Value v) {
  auto c = v.getDefiningOp<ConstOp>();
  if (!c || c.getType().getNumElements() == 0)
    return std::nullopt;
  Type element = c.getType().getElementType();
  if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()); dense && dense.isSplat()) {
    std::string bytes = elementsBytes(c.getValue());
    return elementAt(bytes, element, 0);
  }
  if (c.getType().getNumElements() > 4096)
    return std::nullopt; // a weight tensor, not a scalar that was broadcast
  std::string bytes = elementsBytes(c.getValue());
  std::optional<double> first = elementAt(bytes, element, 0);
  for (int64_t i = 1; first && i < c.getType().getNumElements(); ++i) {
    std::optional<double> e = elementAt(bytes, element, i);
    if (!e || !(*e == *first))
      return std::nullopt;
  }
  return first;
}

bool isSplat(Value v, double expected) {
  std::optional<double> s = splatConstant(v);
  return s && std::fabs(*s - expected) <= 1e-6 * std::max(1.0, std::fabs(expected));
}

Value createFloatConstant(PatternRewriter &rewriter, Location loc, RankedTensorType type,
                          ArrayRef<double> values) {
  std::string bytes;
  if (type.getElementType().isF32()) {
    bytes.resize(values.size() * sizeof(float));
    for (size_t i = 0; i < values.size(); ++i) {
      float f = static_cast<float>(values[i]);
      std::memcpy(bytes.data() + i * sizeof f, &f, sizeof f);
    }
  } else {
    bytes.resize(values.size() * sizeof(double));
    std::memcpy(bytes.data(), values.data(), bytes.size());
  }
  return rewriter.create<ConstOp>(loc, type, makeElementsAttr(type, bytes, "folded"));
}

std::optional<SmallVector<double>> perChannelConstant(Value operand, RankedTensorType out) {
  if (out.getRank() < 2)
    return std::nullopt;
  int64_t channels = out.getDimSize(1);
  auto t = dyn_cast<RankedTensorType>(operand.getType());
  if (!t || t.getRank() > out.getRank())
    return std::nullopt;
  // Align trailing dims: only the channel dim may differ from 1.
  int64_t offset = out.getRank() - t.getRank();
  for (int64_t d = 0; d < t.getRank(); ++d) {
    int64_t size = t.getDimSize(d);
    if (size != 1 && !(d + offset == 1 && size == channels))
      return std::nullopt;
  }
  auto values = floatConstant(operand, channels);
  if (!values)
    return std::nullopt;
  if (values->size() == 1)
    return SmallVector<double>(channels, values->front());
  return values;
}

Value otherOperand(Operation *binary, Value x) {
  if (binary->getNumOperands() != 2)
    return Value();
  if (binary->getOperand(0) == x)
    return binary->getOperand(1);
  if (binary->getOperand(1) == x)
    return binary->getOperand(0);
  return Value();
}

Location subgraphLoc(Operation *root, Value input) {
  SmallVector<Operation *> ops, work{root};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty() && ops.size() < 64) {
    Operation *op = work.pop_back_val();
    if (!seen.insert(op).second || isa<ConstOp>(op))
      continue;
    ops.push_back(op);
    for (Value v : op->getOperands())
      if (v != input)
        if (Operation *def = v.getDefiningOp())
          work.push_back(def);
  }
  return fusedLoc(ops);
}

Location fusedLoc(ArrayRef<Operation *> ops) {
  SmallVector<Location> locs;
  for (Operation *op : ops)
    locs.push_back(op->getLoc());
  return FusedLoc::get(ops.front()->getContext(), locs);
}

} // namespace mlir::tract
