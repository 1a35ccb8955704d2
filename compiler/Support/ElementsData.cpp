//===- ElementsData.cpp - raw bytes <-> constant attributes -----------------===//
#include "compiler/Support/ElementsData.h"

#include "dialects/tract/IR/TractDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallString.h"

#include <cstring>

namespace mlir::tract {

int64_t elementBytes(Type elementType) {
  if (elementType.isInteger(1))
    return 1;
  if (auto s = dyn_cast<StringType>(elementType))
    return s.getBytes();
  return (elementType.getIntOrFloatBitWidth() + 7) / 8;
}

int64_t tensorBytes(Type tensorType) {
  auto shaped = cast<ShapedType>(tensorType);
  return shaped.getNumElements() * elementBytes(shaped.getElementType());
}

SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> in, ArrayRef<int64_t> out) {
  SmallVector<int64_t> strides(out.size(), 0);
  int64_t stride = 1;
  for (int64_t i = (int64_t)in.size() - 1; i >= 0; --i) {
    int64_t o = (int64_t)out.size() - (int64_t)in.size() + i;
    strides[o] = in[i] == 1 ? 0 : stride;
    stride *= in[i];
  }
  return strides;
}

ElementsAttr makeElementsAttr(RankedTensorType type, llvm::StringRef bytes,
                              llvm::StringRef nameHint) {
  Type element = type.getElementType();
  if (element.isInteger(1)) {
    SmallVector<bool> values;
    for (char c : bytes)
      values.push_back(c != 0);
    return DenseElementsAttr::get(type, values);
  }
  if (type.getNumElements() <= kInlineElementsLimit) {
    if (type.getNumElements() == 0)
      return DenseElementsAttr::get(type, ArrayRef<Attribute>{});
    return DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(bytes.data(), bytes.size()));
  }
  AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
      ArrayRef<char>(bytes.data(), bytes.size()), alignof(uint64_t));
  std::string name = nameHint.empty() ? std::string("weight") : nameHint.str();
  for (char &c : name)
    if (!isalnum((unsigned char)c) && c != '_' && c != '.')
      c = '_';
  return DenseResourceElementsAttr::get(type, name, std::move(blob));
}

std::string elementsBytes(ElementsAttr attr) {
  auto type = cast<ShapedType>(attr.getType());
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::string(tensorBytes(type), '\0');
    ArrayRef<char> data = blob->getData();
    return std::string(data.data(), data.size());
  }
  auto dense = cast<DenseElementsAttr>(attr);
  if (type.getElementType().isInteger(1)) {
    std::string out;
    for (bool b : dense.getValues<bool>())
      out.push_back(b ? 1 : 0);
    return out;
  }
  ArrayRef<char> raw = dense.getRawData();
  if (dense.isSplat()) {
    std::string out;
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      out.append(raw.data(), raw.size());
    return out;
  }
  return std::string(raw.data(), raw.size());
}

std::vector<std::string> elementsText(RankedTensorType type, llvm::StringRef bytes) {
  Type e = type.getElementType();
  int64_t width = elementBytes(e);
  std::vector<std::string> out;
  for (int64_t at = 0; at + width <= (int64_t)bytes.size(); at += width) {
    if (isa<StringType>(e)) {
      out.push_back(bytes.substr(at, width).split('\0').first.str());
      continue;
    }
    uint64_t raw = 0;
    std::memcpy(&raw, bytes.data() + at, width); // little-endian host (as the weights)
    llvm::SmallString<32> text;
    if (auto f = dyn_cast<FloatType>(e)) {
      llvm::APFloat(f.getFloatSemantics(), llvm::APInt(f.getWidth(), raw)).toString(text);
    } else if (e.isInteger(1)) {
      text = raw ? "true" : "false";
    } else if (e.isUnsignedInteger()) {
      text = std::to_string(raw);
    } else {
      // Sign-extend from the element's width.
      int shift = 64 - 8 * (int)width;
      text = std::to_string(static_cast<int64_t>(raw << shift) >> shift);
    }
    out.push_back(text.str().str());
  }
  return out;
}

} // namespace mlir::tract
