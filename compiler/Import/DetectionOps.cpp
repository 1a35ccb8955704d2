//===- DetectionOps.cpp - ONNX detection and sampling ops -> tract ---------------===//
//
// GridSample, RoiAlign, NonMaxSuppression, MaxUnpool. NonMaxSuppression has a
// data-dependent row count: the static row count is the one the model
// declares, else the largest possible; unused rows hold rt::kPaddingIndex
// (out of range: gathering boxes through them reads zeros).
//
//===----------------------------------------------------------------------===//
#include "compiler/Import/NodeContext.h"

using namespace mlir;
using namespace mlir::tract;

namespace {

LogicalResult convertGridSample(NodeContext &c) {
  auto xt = c.inputType(0), gt = c.inputType(1);
  if (xt.getRank() != 4 || gt.getRank() != 4 || gt.getDimSize(3) != 2 ||
      gt.getDimSize(0) != xt.getDimSize(0))
    return c.unsupported("GridSample other than 4-D input with an [N, H, W, 2] grid");
  std::string mode = c.attrString("mode", "bilinear"), padding = c.attrString("padding_mode", "zeros");
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return c.fail("expected mode bilinear, nearest or bicubic, got '" + mode + "'");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return c.fail("expected padding_mode zeros, border or reflection, got '" + padding + "'");
  auto type = RankedTensorType::get({xt.getDimSize(0), xt.getDimSize(1), gt.getDimSize(1), gt.getDimSize(2)},
                                    xt.getElementType());
  c.setOutput(0, c.makeTyped<GridSampleOp>(type, c.input(0), c.cast(c.input(1), xt.getElementType()),
                                           mode, padding, c.attrInt("align_corners", 0) != 0));
  return success();
}

LogicalResult convertRoiAlign(NodeContext &c) {
  auto xt = c.inputType(0), rt = c.inputType(1);
  if (xt.getRank() != 4 || rt.getRank() != 2 || rt.getDimSize(1) != 4)
    return c.fail("expected a 4-D input and rois of shape [num_rois, 4]");
  std::string mode = c.attrString("mode", "avg");
  std::string coord = c.attrString("coordinate_transformation_mode",
                                   c.opset() < 16 ? "output_half_pixel" : "half_pixel");
  int64_t oh = c.attrInt("output_height", 1), ow = c.attrInt("output_width", 1);
  if (oh < 1 || ow < 1)
    return c.fail("expected positive output sizes");
  auto type = RankedTensorType::get({rt.getDimSize(0), xt.getDimSize(1), oh, ow}, xt.getElementType());
  Value indices = c.input(2);
  if (!c.inputType(2).getElementType().isInteger(64) && !c.inputType(2).getElementType().isInteger(32))
    indices = c.cast(indices, c.builder().getI64Type());
  c.setOutput(0, c.makeTyped<RoiAlignOp>(type, c.input(0), c.cast(c.input(1), xt.getElementType()),
                                         indices, c.builder().getI64IntegerAttr(c.attrInt("sampling_ratio", 0)),
                                         c.builder().getF32FloatAttr(c.attrFloat("spatial_scale", 1.0f)),
                                         c.builder().getBoolAttr(mode == "max"),
                                         c.builder().getBoolAttr(coord == "half_pixel")));
  return success();
}

LogicalResult convertNonMaxSuppression(NodeContext &c) {
  auto bt = c.inputType(0), st = c.inputType(1);
  if (bt.getRank() != 3 || bt.getDimSize(2) != 4 || st.getRank() != 3 ||
      st.getDimSize(0) != bt.getDimSize(0) || st.getDimSize(2) != bt.getDimSize(1))
    return c.fail("expected boxes [B, N, 4] and scores [B, C, N]");
  int64_t rows;
  if (RankedTensorType declared = c.declaredOutputType(0);
      declared && declared.getRank() == 2 && declared.getDimSize(1) == 3) {
    rows = declared.getDimSize(0);
  } else {
    int64_t perClass = bt.getDimSize(1);
    if (auto m = c.constInts(2); m && m->size() == 1)
      perClass = std::min(perClass, std::max<int64_t>((*m)[0], 0));
    rows = st.getDimSize(0) * st.getDimSize(1) * perClass;
  }
  Type f32 = c.builder().getF32Type();
  auto scalar = [&](size_t i, Type t) -> Value {
    return c.hasInput(i) ? c.reshape(c.cast(c.input(i), t), {1}) : Value();
  };
  auto type = RankedTensorType::get({rows, 3}, c.builder().getI64Type());
  c.setOutput(0, c.makeTyped<NonMaxSuppressionOp>(
                     type, c.input(0), c.input(1), scalar(2, c.builder().getI64Type()),
                     scalar(3, f32), scalar(4, f32), c.attrInt("center_point_box", 0) != 0));
  (void)bt;
  return success();
}

LogicalResult convertMaxUnpool(NodeContext &c) {
  auto xt = c.inputType(0);
  int64_t n = xt.getRank() - 2;
  if (n < 1)
    return c.fail("expected an input of rank >= 3");
  SmallVector<int64_t> shape;
  // Indices address the default output (the pooled input's shape); an
  // explicit output_shape pads that at the end of each spatial dim.
  SmallVector<int64_t> kernel = c.attrInts("kernel_shape");
  SmallVector<int64_t> strides = c.attrInts("strides", SmallVector<int64_t>(n, 1));
  SmallVector<int64_t> pads = c.attrInts("pads", SmallVector<int64_t>(2 * n, 0));
  if ((int64_t)kernel.size() != n || (int64_t)strides.size() != n || (int64_t)pads.size() != 2 * n)
    return c.fail("expected kernel_shape, strides and pads for every spatial dim");
  shape = {xt.getDimSize(0), xt.getDimSize(1)};
  for (int64_t i = 0; i < n; ++i)
    shape.push_back((xt.getDimSize(2 + i) - 1) * strides[i] + kernel[i] - pads[i] - pads[n + i]);
  Value y = c.makeTyped<MaxUnpoolOp>(RankedTensorType::get(shape, xt.getElementType()),
                                     c.input(0), c.input(1));
  if (c.hasInput(2)) {
    auto s = c.constInts(2);
    if (!s)
      if (RankedTensorType declared = c.declaredOutputType(0))
        s = SmallVector<int64_t>(declared.getShape());
    if (!s)
      return c.unsupported("a MaxUnpool output_shape computed at run time");
    if ((int64_t)s->size() != xt.getRank())
      return c.fail("expected an output_shape of the input's rank");
    SmallVector<int64_t> padding(2 * xt.getRank(), 0);
    for (int64_t i = 0; i < xt.getRank(); ++i) {
      if ((*s)[i] < shape[i])
        return c.fail("expected an output_shape at least the default one");
      padding[xt.getRank() + i] = (*s)[i] - shape[i];
    }
    if (failed(c.bind(c.make<PadOp>(y, Value(), Value(), c.builder().getDenseI64ArrayAttr(padding),
                                    c.builder().getStringAttr("constant"),
                                    c.builder().getF64FloatAttr(0.0)))))
      return failure();
    return success();
  }
  c.setOutput(0, y);
  return success();
}

} // namespace

void mlir::tract::registerDetectionConverters(ConverterTable &t) {
  t.add("GridSample", 16, convertGridSample, 2);
  t.add("RoiAlign", 10, convertRoiAlign, 3);
  t.add("NonMaxSuppression", 10, convertNonMaxSuppression, 2);
  t.add("MaxUnpool", 9, convertMaxUnpool, 2);
}
