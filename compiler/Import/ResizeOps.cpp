//===- ResizeOps.cpp - ONNX Resize and Upsample -> tract ------------------------===//
//
// The output shape must be static: from constant scales or sizes, or from the
// shape the model declares for the result.
//
//===----------------------------------------------------------------------===//
#include "compiler/Import/NodeContext.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tract;

namespace {

struct ResizeSpec {
  std::string mode = "nearest", coord = "half_pixel", nearest = "round_prefer_floor";
  float cubicA = -0.75f, extrapolation = 0.0f;
  bool excludeOutside = false;
};

LogicalResult buildResize(NodeContext &c, const ResizeSpec &spec,
                          std::optional<SmallVector<double>> scales,
                          std::optional<SmallVector<int64_t>> sizes, SmallVector<double> roi,
                          Value runtimeScales = Value(), Value runtimeRoi = Value()) {
  auto xt = c.inputType(0);
  int64_t rank = xt.getRank();
  SmallVector<int64_t> out;
  SmallVector<float> effective;
  if (sizes) {
    if ((int64_t)sizes->size() != rank)
      return c.fail("expected " + std::to_string(rank) + " sizes");
    out = *sizes;
  } else if (scales) {
    if ((int64_t)scales->size() != rank)
      return c.fail("expected " + std::to_string(rank) + " scales");
    for (int64_t i = 0; i < rank; ++i) {
      if (!((*scales)[i] > 0))
        return c.fail("expected positive scales");
      out.push_back((int64_t)std::floor(xt.getDimSize(i) * (*scales)[i]));
    }
  } else if (RankedTensorType declared = c.declaredOutputType(0);
             declared && declared.getRank() == rank) {
    out.assign(declared.getShape().begin(), declared.getShape().end());
  } else {
    return c.unsupported("Resize scales or sizes computed at run time");
  }
  for (int64_t i = 0; i < rank; ++i) {
    if (scales && !sizes)
      effective.push_back((float)(*scales)[i]);
    else
      effective.push_back(xt.getDimSize(i) ? (float)out[i] / (float)xt.getDimSize(i) : 1.0f);
  }
  SmallVector<float> roiF;
  if ((int64_t)roi.size() == 2 * rank) {
    for (double v : roi)
      roiF.push_back((float)v);
  } else {
    roiF.assign(rank, 0.0f);
    roiF.append(rank, 1.0f);
  }
  auto &b = c.builder();
  c.setOutput(0, c.makeTyped<ResizeOp>(
                     RankedTensorType::get(out, xt.getElementType()), c.input(0), runtimeScales,
                     runtimeRoi, b.getStringAttr(spec.mode), b.getStringAttr(spec.coord),
                     b.getStringAttr(spec.nearest), b.getF32FloatAttr(spec.cubicA),
                     b.getBoolAttr(spec.excludeOutside), b.getF32FloatAttr(spec.extrapolation),
                     b.getDenseF32ArrayAttr(effective), b.getDenseF32ArrayAttr(roiF)));
  return success();
}

LogicalResult convertResize(NodeContext &c) {
  ResizeSpec spec;
  spec.mode = c.attrString("mode", "nearest");
  spec.coord = c.attrString("coordinate_transformation_mode",
                            c.opset() < 11 ? "asymmetric" : "half_pixel");
  spec.nearest = c.attrString("nearest_mode", c.opset() < 11 ? "floor" : "round_prefer_floor");
  spec.cubicA = c.attrFloat("cubic_coeff_a", -0.75f);
  spec.excludeOutside = c.attrInt("exclude_outside", 0) != 0;
  spec.extrapolation = c.attrFloat("extrapolation_value", 0.0f);
  if (c.hasAttr("axes") || c.attrString("keep_aspect_ratio_policy", "stretch") != "stretch")
    return c.unsupported("Resize with axes or keep_aspect_ratio_policy (opset 18)");
  if (spec.mode != "nearest" && spec.mode != "linear" && spec.mode != "cubic")
    return c.fail("expected mode nearest, linear or cubic, got '" + spec.mode + "'");
  std::optional<SmallVector<double>> scales;
  std::optional<SmallVector<int64_t>> sizes;
  SmallVector<double> roi;
  size_t scalesIndex = c.opset() < 11 ? 1 : 2;
  Value runtimeScales, runtimeRoi;
  Type f32 = c.builder().getF32Type();
  if (c.opset() >= 11 && c.hasInput(1) && c.inputType(1).getNumElements() > 0) {
    if (auto r = c.constDoubles(1))
      roi = *r;
    else if (c.inputType(1).getNumElements() == 2 * c.inputType(0).getRank())
      runtimeRoi = c.cast(c.input(1), f32);
    else
      return c.fail("expected 2 x rank roi values");
  }
  if (c.hasInput(scalesIndex) && c.inputType(scalesIndex).getNumElements() > 0) {
    scales = c.constDoubles(scalesIndex);
    if (!scales) {
      // Scales arrive at run time: the kernel reads them, the declared
      // output shape gives the static size.
      if (!c.declaredOutputType(0))
        return c.unsupported("Resize scales computed at run time");
      if (c.inputType(scalesIndex).getNumElements() != c.inputType(0).getRank())
        return c.fail("expected one scale per input dim");
      runtimeScales = c.cast(c.input(scalesIndex), f32);
    }
  }
  if (c.opset() >= 11 && c.hasInput(3) && c.inputType(3).getNumElements() > 0) {
    sizes = c.constInts(3);
    if (!sizes && !c.declaredOutputType(0))
      return c.unsupported("Resize sizes computed at run time");
  }
  return buildResize(c, spec, scales, sizes, roi, runtimeScales, runtimeRoi);
}

// Upsample (opsets 7-9): Resize with asymmetric coordinates, nearest floor.
LogicalResult convertUpsample(NodeContext &c) {
  ResizeSpec spec;
  spec.mode = c.attrString("mode", "nearest");
  spec.coord = "asymmetric";
  spec.nearest = "floor";
  if (spec.mode == "bilinear")
    spec.mode = "linear";
  std::optional<SmallVector<double>> scales;
  if (c.hasInput(1)) {
    scales = c.constDoubles(1);
    if (!scales && c.declaredOutputType(0) &&
        c.inputType(1).getNumElements() == c.inputType(0).getRank())
      return buildResize(c, spec, std::nullopt, std::nullopt, {},
                         c.cast(c.input(1), c.builder().getF32Type()));
  } else {
    SmallVector<float> s = c.attrFloats("scales");
    scales = SmallVector<double>(s.begin(), s.end());
  }
  if (!scales)
    return c.unsupported("Upsample scales computed at run time");
  return buildResize(c, spec, scales, std::nullopt, {});
}

} // namespace

void mlir::tract::registerResizeConverters(ConverterTable &t) {
  t.add("Resize", 10, convertResize);
  t.add("Upsample", 7, convertUpsample);
}
