//===- ElementsData.h - raw bytes <-> constant attributes -----------*- C++ -*-===//
//
// One place that knows how a tract.const payload is stored: small tensors and
// booleans inline (DenseElementsAttr), the rest as dense resource blobs so IR
// dumps stay readable. Bytes are row-major, little-endian, bool one byte each.
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_SUPPORT_ELEMENTSDATA_H
#define TRACT_SUPPORT_ELEMENTSDATA_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <string>
#include <vector>

namespace mlir::tract {
/// Tensors with at most this many elements stay inline in the IR.
inline constexpr int64_t kInlineElementsLimit = 16;

/// Bytes of every string slot (`!tract.string<N>`): at most N - 1 bytes of
/// UTF-8 per element, enough for any number Cast prints (25 bytes at most).
inline constexpr unsigned kStringSlotBytes = 64;

/// Bytes of one element of a tensor element type (i1 is one byte).
int64_t elementBytes(Type elementType);
/// Bytes of a static tensor.
int64_t tensorBytes(Type tensorType);

/// Element strides of a tensor of shape `in` read as if broadcast to `out`
/// (numpy rules): 0 on broadcast dims, `out.size()` entries.
SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> in, ArrayRef<int64_t> out);

ElementsAttr makeElementsAttr(RankedTensorType type, llvm::StringRef bytes,
                              llvm::StringRef nameHint);
/// The payload of `attr` as plain row-major bytes (splats expanded).
std::string elementsBytes(ElementsAttr attr);
/// Each element of a payload of `type` as text (ints in decimal, unsigned
/// types unsigned; floats as the shortest text that reads back exactly).
std::vector<std::string> elementsText(RankedTensorType type, llvm::StringRef bytes);
} // namespace mlir::tract

#endif // TRACT_SUPPORT_ELEMENTSDATA_H
