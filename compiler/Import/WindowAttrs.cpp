//===- WindowAttrs.cpp - kernel/strides/dilations/pads of convs and pools ------===//
#include "compiler/Import/WindowAttrs.h"

using namespace mlir;
using namespace mlir::tract;

LogicalResult mlir::tract::checkWindowValues(NodeContext &c, StringRef what,
                                             ArrayRef<int64_t> values, int64_t min) {
  for (int64_t v : values)
    if (v < min || v > kMaxWindowValue)
      return c.fail("expected " + what + " in [" + std::to_string(min) + ", " +
                    std::to_string(kMaxWindowValue) + "], got " + std::to_string(v));
  return success();
}

// Resolves auto_pad for convolutions and pools: returns [begins..., ends...].
static std::optional<SmallVector<int64_t>> windowPads(NodeContext &c, ArrayRef<int64_t> in,
                                               ArrayRef<int64_t> kernel,
                                               ArrayRef<int64_t> strides,
                                               ArrayRef<int64_t> dilations) {
  size_t n = in.size();
  std::string autoPad = c.attrString("auto_pad", "NOTSET");
  SmallVector<int64_t> pads(2 * n, 0);
  if (autoPad == "NOTSET") {
    SmallVector<int64_t> given = c.attrInts("pads");
    if (given.empty())
      return pads;
    if (given.size() != 2 * n) {
      (void)c.fail("expected " + std::to_string(2 * n) + " pads, got " +
                   std::to_string(given.size()));
      return std::nullopt;
    }
    return given;
  }
  if (autoPad == "VALID")
    return pads;
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER") {
    (void)c.fail("expected auto_pad NOTSET, VALID, SAME_UPPER or SAME_LOWER, got '" +
                 autoPad + "'");
    return std::nullopt;
  }
  for (size_t i = 0; i < n; ++i) {
    int64_t out = (in[i] + strides[i] - 1) / strides[i];
    int64_t total = std::max<int64_t>(
        0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in[i]);
    int64_t small = total / 2, large = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : large;
    pads[n + i] = autoPad == "SAME_UPPER" ? large : small;
  }
  return pads;
}

std::optional<Window> mlir::tract::readWindow(NodeContext &c, ArrayRef<int64_t> inSpatial,
                                 ArrayRef<int64_t> kernel) {
  size_t n = inSpatial.size();
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  if (w.kernel.size() != n) {
    (void)c.fail("expected a kernel of " + std::to_string(n) + " dims, got " +
                 std::to_string(w.kernel.size()));
    return std::nullopt;
  }
  w.strides = c.attrInts("strides", SmallVector<int64_t>(n, 1));
  w.dilations = c.attrInts("dilations", SmallVector<int64_t>(n, 1));
  if (w.strides.size() != n || w.dilations.size() != n) {
    (void)c.fail("expected " + std::to_string(n) + " strides and dilations");
    return std::nullopt;
  }
  if (failed(checkWindowValues(c, "strides", w.strides, 1)) ||
      failed(checkWindowValues(c, "dilations", w.dilations, 1)) ||
      failed(checkWindowValues(c, "kernel dims", w.kernel, 1)))
    return std::nullopt;
  auto pads = windowPads(c, inSpatial, w.kernel, w.strides, w.dilations);
  if (!pads || failed(checkWindowValues(c, "pads", *pads, 0)))
    return std::nullopt;
  w.pads = *pads;
  return w;
}
