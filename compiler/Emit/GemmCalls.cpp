//===- GemmCalls.cpp - conv / matmul kernels on the runtime's blocked GEMM ---===//
//
// The C++ for the convs and matmuls tract-choose-kernels put on kernels that
// take an epilogue (the blocked GEMM, Winograd, the depthwise conv): the runtime call
// with the static geometry as constexpr data, the packed-weights flag, the
// arena scratch and the epilogue functor (a fused kernel's element-wise ops).
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/KernelChoice.h"
#include "compiler/Codegen/Passes.h"
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
  if (emitsGemm(top) || isSqueezeExciteLanes(top) || trailingSumRows(top))
    return true;
  Operation *anchor = top;
  if (auto kernel = dyn_cast<KernelOp>(top))
    anchor = kernel.getAnchor();
  return anchor && isa<MaxPoolOp, AvgPoolOp, SoftmaxOp, GridSampleOp>(anchor);
}

namespace {

int64_t convFlops(ConvOp conv) {
  auto w = cast<RankedTensorType>(conv.getWeight().getType());
  return 2 * cast<RankedTensorType>(conv.getResult().getType()).getNumElements() *
         (w.getNumElements() / w.getDimSize(0));
}

// A 1x1 expand chained into a depthwise conv (LaneChains.cpp): the kernel's
// inputs are the expand's operands, then the depthwise conv's others; the
// ops before the tail are the `epilogue_expand` functor in scope.
LogicalResult buildExpandDepthwiseCall(KernelOp kernel, ConvOp expand, ConvOp depthwise,
                                       StringRef epilogue, const std::string &scratch,
                                       KernelCall &call) {
  StringRef algorithm = kernel->getAttrOfType<StringAttr>(kAlgorithmAttr).getValue();
  if (!algorithm.starts_with("expand_depthwise"))
    return kernel.emitError("a chained kernel needs algorithm expand_depthwise, got ")
           << algorithm;
  bool in = algorithm.ends_with("_lanes") || algorithm.ends_with("_lanes_in");
  bool out = algorithm.ends_with("_lanes") || algorithm.ends_with("_lanes_out");
  call.lines.push_back(convParamsDecl(convParamsOf(expand), "pe"));
  call.lines.push_back(convParamsDecl(convParamsOf(depthwise), "pd"));
  unsigned wd = expand->getNumOperands();
  call.lines.push_back(fmt::format(
      "tract::rt::conv_expand_depthwise<{}, {}>(in0, in1, {}, in{}, {}, out0, pe, pd, "
      "epilogue_expand, {}, {}, par);",
      in, out, expand.getBias() ? "in2" : "nullptr", wd,
      depthwise.getBias() ? fmt::format("in{}", wd + 1) : "nullptr", epilogue.str(), scratch));
  call.flops += convFlops(expand) + convFlops(depthwise);
  return success();
}

// A network's first conv chained into the max pool that reads it
// (ChainedKernels.cpp): the conv's operands are the kernel's; the ops before
// the pool are the `epilogue_conv` functor in scope, those after it `epilogue`.
LogicalResult buildRowTapsPoolCall(KernelOp kernel, ConvOp conv, MaxPoolOp pool,
                                   StringRef epilogue, const std::string &scratch,
                                   KernelCall &call) {
  StringRef algorithm = kernel->getAttrOfType<StringAttr>(kAlgorithmAttr).getValue();
  if (algorithm != "row_taps_max_pool")
    return kernel.emitError("a max pool tail needs algorithm row_taps_max_pool, got ")
           << algorithm;
  ::tract::rt::PoolParams pp = poolParamsOf(pool);
  pp.out_plane_stride = planeStrideOf(kernel.getResult());
  call.lines.push_back(convParamsDecl(convParamsOf(conv), "p"));
  call.lines.push_back(poolParamsDecl(pp, "pp"));
  call.lines.push_back(fmt::format(
      "tract::rt::conv_row_taps_max_pool(in0, in1, {}, out0, p, pp, epilogue_conv, {}, {}, "
      "par);",
      conv.getBias() ? "in2" : "nullptr", epilogue.str(), scratch));
  call.flops += convFlops(conv);
  return success();
}

} // namespace

LogicalResult mlir::tract::buildGemmCall(Operation *top, StringRef epilogue, KernelCall &call) {
  Operation *anchor = gemmAnchor(top);
  bool packed = top->hasAttr(kPackedWeightsAttr);
  auto scratchBytes = top->getAttrOfType<IntegerAttr>(kScratchBytesAttr);
  std::string scratch = scratchBytes && scratchBytes.getInt() > 0 ? "scratch" : "nullptr";
  auto result = cast<RankedTensorType>(anchor->getResult(0).getType());
  auto kernel = dyn_cast<KernelOp>(top);
  if (Operation *tail = kernel ? kernel.getTail() : nullptr) {
    if (auto pool = dyn_cast<MaxPoolOp>(tail))
      return buildRowTapsPoolCall(kernel, cast<ConvOp>(anchor), pool, epilogue, scratch, call);
    return buildExpandDepthwiseCall(kernel, cast<ConvOp>(anchor), cast<ConvOp>(tail),
                                    epilogue, scratch, call);
  }
  if (auto conv = dyn_cast<ConvOp>(anchor)) {
    ::tract::rt::ConvParams p = convParamsOf(conv);
    // Padded planes (tract-pad-planes) in x and y.
    p.in_plane_stride = planeStrideOf(top->getOperand(0));
    p.out_plane_stride = planeStrideOf(top->getResult(0));
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
    else if (algorithm == "fully_connected")
      call.lines.push_back(fmt::format(
          "tract::rt::conv_fully_connected<{}>(in0, in1, {}, out0, p, {}, {}, par);",
          p.batch == 1, conv.getBias() ? "in2" : "nullptr", epilogue.str(), scratch));
    else if (algorithm == "conv_to_lanes" || algorithm == "conv_by_taps")
      call.lines.push_back(fmt::format(
          "tract::rt::conv_to_lanes<{}>(in0, in1, {}, out0, p, {}, {}, par);",
          algorithm == "conv_to_lanes", conv.getBias() ? "in2" : "nullptr", epilogue.str(),
          scratch));
    else if (algorithm == "conv_row_taps")
      call.lines.push_back(fmt::format(
          "tract::rt::conv_row_taps(in0, in1, {}, out0, p, {}, {}, par);",
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
    call.flops += convFlops(conv);
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
