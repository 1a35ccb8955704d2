//===- WindowAttrs.h - kernel/strides/dilations/pads of convs and pools -*- C++ -*-===//
//
// Conv, ConvTranspose's cousins, the pools and the integer convs read the
// same attributes with the same defaults; auto_pad resolves here once.
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_IMPORT_WINDOWATTRS_H
#define TRACT_IMPORT_WINDOWATTRS_H

#include "compiler/Import/NodeContext.h"

#include <optional>

namespace mlir::tract {

struct Window {
  SmallVector<int64_t> kernel, strides, dilations, pads; // pads: begins, then ends
};

/// Fails with the node's error unless every value is in [min, kMaxWindowValue]
/// (TractOps.h): auto_pad and ConvTranspose's sizes are computed here, before
/// the dialect's inference checks the same bound.
LogicalResult checkWindowValues(NodeContext &c, StringRef what, ArrayRef<int64_t> values,
                                int64_t min);

/// The node's window over spatial dims `inSpatial` with `kernel`: strides,
/// dilations and pads with their defaults, auto_pad resolved, all checked.
/// Emits the node's error and returns nullopt on a bad attribute.
std::optional<Window> readWindow(NodeContext &c, ArrayRef<int64_t> inSpatial,
                                 ArrayRef<int64_t> kernel);

} // namespace mlir::tract

#endif // TRACT_IMPORT_WINDOWATTRS_H
