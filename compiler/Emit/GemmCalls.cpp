//===- GemmCalls.cpp - conv / matmul kernels on the runtime's blocked GEMM ---===//
//
// The C++ for the convs and matmuls tract-choose-kernels put on kernels that
// take an epilogue (the blocked GEMM, Winograd, the depthwise conv): the runtime call
// with the static geometry as constexpr data, the packed-weights flag, the
// arena scratch and the epilogue functor (a fused kernel's element-wise ops).
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/KernelChoice.h"
#include "compiler/Emit/KernelCalls.h"

#include "tract/rt/linalg/matmul_gemm.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

using namespace mlir;
using namespace mlir::tract;


bool mlir::tract::emitsGemm(Operation *top) {
  auto algorithm = top->getAttrOfType<StringAttr>(kAlgorithmAttr);
  return algorithm && algorithm.getValue() != "direct" && gemmAnchor(top);
}

bool mlir::tract::takesParallel(Operation *top) {
  if (emitsGemm(top))
    return true;
  Operation *anchor = top;
  if (auto kernel = dyn_cast<KernelOp>(top))
    anchor = kernel.getAnchor();
  return anchor && isa<MaxPoolOp>(anchor);
}

LogicalResult mlir::tract::buildGemmCall(Operation *top, StringRef epilogue, KernelCall &call) {
  Operation *anchor = gemmAnchor(top);
  bool packed = top->hasAttr(kPackedWeightsAttr);
  auto scratchBytes = top->getAttrOfType<IntegerAttr>(kScratchBytesAttr);
  std::string scratch = scratchBytes && scratchBytes.getInt() > 0 ? "scratch" : "nullptr";
  auto result = cast<RankedTensorType>(anchor->getResult(0).getType());
  if (auto conv = dyn_cast<ConvOp>(anchor)) {
    ::tract::rt::ConvParams p = convParamsOf(conv);
    call.lines.push_back(convParamsDecl(p));
    auto algorithm = top->getAttrOfType<StringAttr>(kAlgorithmAttr).getValue();
    if (algorithm.starts_with("winograd_f"))
      call.lines.push_back(fmt::format(
          "tract::rt::winograd::conv_winograd<{}>(in0, in1, {}, out0, p, {}, {}, par);",
          algorithm.back(), conv.getBias() ? "in2" : "nullptr", epilogue.str(), scratch));
    else if (algorithm.starts_with("depthwise")) {
      // Lane layout in / out: the ends of a chain (LaneChains.cpp).
      bool in = algorithm == "depthwise_lanes" || algorithm == "depthwise_lanes_in";
      bool out = algorithm == "depthwise_lanes" || algorithm == "depthwise_lanes_out";
      call.lines.push_back(fmt::format(
          "tract::rt::conv_depthwise<{}, {}>(in0, in1, {}, out0, p, {}, {}, par);", in, out,
          conv.getBias() ? "in2" : "nullptr", epilogue.str(), scratch));
    } else if (algorithm == "pointwise_to_lanes" || algorithm == "pointwise_lanes")
      call.lines.push_back(fmt::format(
          "tract::rt::conv_pointwise_to_lanes<{}>(in0, in1, {}, out0, p, {}, par);",
          algorithm == "pointwise_lanes", conv.getBias() ? "in2" : "nullptr", epilogue.str()));
    else if (algorithm == "conv_to_lanes")
      call.lines.push_back(fmt::format("tract::rt::conv_to_lanes(in0, in1, {}, out0, p, {}, {}, par);",
                                       conv.getBias() ? "in2" : "nullptr", epilogue.str(), scratch));
    else if (algorithm == "pointwise_from_lanes")
      call.lines.push_back(fmt::format(
          "tract::rt::conv_pointwise_from_lanes(in0, in1, {}, out0, p, {}, {}, par);",
          conv.getBias() ? "in2" : "nullptr", epilogue.str(), scratch));
    else
      // Both choices as template arguments, so the firmware image holds one
      // GEMM instantiation per conv (B's source is the runtime's own rule,
      // evaluated on the constexpr geometry).
      call.lines.push_back(fmt::format(
          "tract::rt::gemm::conv_gemm_as<{}, tract::rt::gemm::conv_b_source(p)>(in0, in1, {}, "
          "out0, p, {}, {}, par);",
          packed, conv.getBias() ? "in2" : "nullptr", epilogue.str(), scratch));
    auto w = cast<RankedTensorType>(conv.getWeight().getType());
    call.flops += 2 * result.getNumElements() * (w.getNumElements() / w.getDimSize(0));
    return success();
  }
  auto mm = cast<MatMulOp>(anchor);
  MatMulGeometry g = matMulGeometry(mm, packed);
  std::string batch = declareArray(call, "kBatch", g.batch);
  std::string sa = declareArray(call, "kBatchStridesA", g.aBatchStrides);
  std::string sb = declareArray(call, "kBatchStridesB", g.bBatchStrides);
  // B's form and A's source as template arguments (one GEMM instantiation
  // per matmul in the firmware image), by the runtime's own rule.
  call.lines.push_back(fmt::format(
      "tract::rt::gemm::matmul_f32_as<{}, {}>(in0, in1, out0, {}, {}, {}, {}, {}, {}, {}, {}, {}, "
      "{}, {}, {}, {}, par);",
      packed, ::tract::rt::gemm::matmul_reads_row(g.m, packed), g.batch.size(), batch, sa, sb,
      g.m, g.n, g.k, g.aRs, g.aCs, g.bRs, g.bCs, epilogue.str(), scratch));
  call.flops += 2 * result.getNumElements() * g.k;
  return success();
}
