//===- LaneChains.cpp - keep pointwise -> depthwise -> pointwise in lane layout -===//
//
// MobileNet's inverted residual is a 1x1 expand, a depthwise conv and a 1x1
// project. The depthwise kernel computes 16 channels at a time in lane
// layout (NCHW16c); on NCHW tensors it transposes every input row in and
// every output row back, as many shuffles as its FMAs. Here, after
// tract-choose-kernels has picked the algorithms, a tensor passed only from
// one of these convs to the next is kept in lane layout instead: the expand
// writes it (conv_pointwise_to_lanes; a network's first conv, few input
// channels k x k, conv_to_lanes), the depthwise reads and writes it
// with plain copies, the project reads it (conv_pointwise_from_lanes) and
// writes NCHW. The tensor keeps its type and bytes (channels % 16 == 0);
// only its producer and consumer know the order. Conditions:
//   - the tensor has exactly one use, the consumer's conv input;
//   - a kernel writing lane layout has no fused op that reads another
//     tensor (its epilogue indices are lane-layout indices) and no reshape
//     absorbed into its store;
//   - the pointwise convs are plain 1x1 (stride 1, no padding, groups 1)
//     with weights packed at compile time and used by no other op (they are
//     packed for the lane kernels instead of the GEMM);
//   - the depthwise conv maps channel blocks to channel blocks
//     (conv_depthwise_lanes_fits).
// A pointwise conv between two depthwise convs (MobileNet v1, DS-CNN keyword
// spotters) reads and writes lane layout (conv_pointwise_to_lanes<true>).
//
// A squeeze-and-excitation between the depthwise conv and the project
// (EfficientNet) reads lane layout too: the depthwise conv's output then has
// two uses, a mean over the plane (mean_from_lanes) and a Mul by a
// per-channel [N, C, 1, 1] scale (scale_lanes) whose product is the
// project's input and nothing else's.
//
// Then, where the expanded tensor would not stay in L2
// (conv_expand_depthwise_pays), the expand is fused into the depthwise conv:
// one tract.kernel whose body holds both convs (the depthwise conv as its
// tail), run by conv_expand_depthwise, which computes the expand row by row
// into the depthwise conv's staged rows. Algorithms "expand_depthwise"
// [_lanes_in | _lanes_out | _lanes]: which of the expand's input and the
// depthwise conv's output stay in lane layout.
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/KernelChoice.h"

#include "tract/rt/nn/conv_depthwise.h"
#include "tract/rt/nn/conv_expand_depthwise.h"
#include "tract/rt/nn/conv_lanes.h"
#include "tract/rt/nn/squeeze_excite_lanes.h"

#include "mlir/IR/Builders.h"

namespace mlir::tract {
namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

// The conv `top` runs with `algorithm`, its weights packed at compile time
// and used by no other op (so they can be packed for a lane kernel), and
// `fits` its geometry.
bool packedConvWith(Operation *top, StringRef algorithm,
                    bool (*fits)(const ::tract::rt::ConvParams &)) {
  auto conv = dyn_cast_or_null<ConvOp>(top ? gemmAnchor(top) : nullptr);
  if (!conv || algorithmOf(top) != algorithm || !top->hasAttr(kPackedWeightsAttr))
    return false;
  auto weights = top->getOperand(1).getDefiningOp<ConstOp>();
  return weights && weights->hasOneUse() && fits(convParamsOf(conv));
}

// A plain 1x1 conv on the GEMM.
bool lanePointwise(Operation *top) {
  return packedConvWith(top, "gemm_pointwise", [](const ::tract::rt::ConvParams &p) {
    return ::tract::rt::conv_is_plain_pointwise(p);
  });
}

// A network's first conv (few input channels) on the GEMM: conv_to_lanes
// computes it tap by tap into lanes.
bool laneFirstConv(Operation *top) {
  return packedConvWith(top, "im2col_gemm", ::tract::rt::conv_to_lanes_fits) ||
         packedConvWith(top, "conv_by_taps", ::tract::rt::conv_to_lanes_fits) ||
         packedConvWith(top, "conv_row_taps", ::tract::rt::conv_to_lanes_fits);
}

// `use` is the conv input of its owner and nothing else of it reads that
// value (in a kernel, block argument 0 feeds only the anchor).
bool readAsConvInputOnly(OpOperand &use) {
  if (use.getOperandNumber() != 0)
    return false;
  auto kernel = dyn_cast<KernelOp>(use.getOwner());
  if (!kernel)
    return true;
  return kernel.getBody().front().getArgument(0).hasOneUse();
}

// The readers of a depthwise conv's output `y` [N, C, H, W] when they are a
// squeeze-and-excitation: a mean over H and W, and a Mul by an [N, C, 1, 1]
// scale whose product is only a plain pointwise conv's input.
struct SqueezeExcite {
  ReduceMeanOp mean;
  MulOp scale;
  Operation *project;
};

std::optional<SqueezeExcite> squeezeExciteOf(Value y) {
  auto type = typeOf(y);
  if (type.getRank() != 4 || !type.getElementType().isF32())
    return std::nullopt;
  SqueezeExcite se{};
  for (OpOperand &use : y.getUses()) {
    Operation *user = use.getOwner();
    if (auto mean = dyn_cast<ReduceMeanOp>(user)) {
      if (se.mean || mean.getAxes() != ArrayRef<int64_t>{2, 3})
        return std::nullopt;
      se.mean = mean;
    } else if (auto mul = dyn_cast<MulOp>(user)) {
      Value s = mul->getOperand(1 - use.getOperandNumber());
      ArrayRef<int64_t> n_c = type.getShape().take_front(2);
      if (se.scale || s == y || typeOf(s).getShape() != ArrayRef<int64_t>{n_c[0], n_c[1], 1, 1})
        return std::nullopt;
      se.scale = mul;
    } else {
      return std::nullopt;
    }
  }
  if (!se.mean || !se.scale || !se.scale->getResult(0).hasOneUse())
    return std::nullopt;
  OpOperand &use = *se.scale->getResult(0).getUses().begin();
  if (!readAsConvInputOnly(use) || !lanePointwise(use.getOwner()))
    return std::nullopt;
  se.project = use.getOwner();
  return se;
}

// A lane mean's scratch: its stripes' sums where it splits its plane by
// pixels (squeeze_excite_lanes.h).
int64_t meanFromLanesScratch(ReduceMeanOp mean) {
  ArrayRef<int64_t> x = typeOf(mean->getOperand(0)).getShape();
  return ::tract::rt::mean_from_lanes_scratch_floats(x[0], x[1], x[2] * x[3]);
}

// The expand -> depthwise pairs of lane chains where fusing pays.
void fuseExpands(Block &body) {
  SmallVector<Operation *> tops;
  for (Operation &top : body) {
    StringRef a = algorithmOf(&top);
    if (a == "depthwise_lanes" || a == "depthwise_lanes_in")
      tops.push_back(&top);
  }
  for (Operation *top : tops) {
    Operation *producer = top->getOperand(0).getDefiningOp();
    StringRef a = producer ? algorithmOf(producer) : StringRef();
    if (a != "pointwise_to_lanes" && a != "pointwise_lanes")
      continue;
    // Only the anchor's operands come in (its epilogue reads nothing).
    auto pc = cast<ConvOp>(gemmAnchor(producer));
    if (producer->getNumOperands() != pc->getNumOperands())
      continue;
    ::tract::rt::ConvParams pe = convParamsOf(pc),
                            pd = convParamsOf(cast<ConvOp>(gemmAnchor(top)));
    if (!::tract::rt::conv_expand_depthwise_pays(pe, pd))
      continue;
    bool in = a == "pointwise_lanes", out = algorithmOf(top) == "depthwise_lanes";
    chainIntoKernel(producer, top,
                        in && out ? "expand_depthwise_lanes"
                        : in      ? "expand_depthwise_lanes_in"
                        : out     ? "expand_depthwise_lanes_out"
                                  : "expand_depthwise",
                        ::tract::rt::expand_depthwise_scratch_floats(pd));
  }
}

// A mean over the plane (a global average pool) that is the only reader of
// a 1x1 conv's output reads it in lane layout (mean_from_lanes): the conv
// writes lanes, with no transpose back to NCHW. A conv that read lanes
// already (a keyword spotter's last conv, after a depthwise conv) becomes
// pointwise_lanes, which runs at the GEMM's speed where
// pointwise_from_lanes pays for the transpose (KWS's last conv 13 -> 11 us).
void chooseLaneMeans(Block &body) {
  for (Operation &op : body) {
    auto mean = dyn_cast<ReduceMeanOp>(op);
    if (!mean || !algorithmOf(mean).empty() || mean.getAxes() != ArrayRef<int64_t>{2, 3})
      continue;
    Value x = mean->getOperand(0);
    Operation *producer = x.getDefiningOp();
    auto type = typeOf(x);
    if (!producer || !x.hasOneUse() || type.getRank() != 4 || !type.getElementType().isF32() ||
        type.getDimSize(1) % ::tract::rt::lanes::kLanes != 0 || !epilogueReadsNothing(producer))
      continue;
    if (algorithmOf(producer) == "pointwise_from_lanes")
      setAlgorithm(producer, "pointwise_lanes", 0);
    else if (lanePointwise(producer))
      setAlgorithm(producer, "pointwise_to_lanes", 0);
    else
      continue;
    setAlgorithm(mean, "mean_from_lanes", meanFromLanesScratch(mean));
  }
}

} // namespace

bool isSqueezeExciteLanes(Operation *op) {
  StringRef a = algorithmOf(op);
  return a == "mean_from_lanes" || a == "scale_lanes";
}

void chooseLaneChains(Block &body) {
  for (Operation &top : body) {
    auto dw = dyn_cast_or_null<ConvOp>(gemmAnchor(&top));
    if (!dw || algorithmOf(&top) != "depthwise" ||
        !::tract::rt::conv_depthwise_lanes_fits(convParamsOf(dw)))
      continue;
    bool in = false, out = false;
    Value x = top.getOperand(0);
    Operation *producer = x.getDefiningOp();
    if (producer && x.hasOneUse() && readAsConvInputOnly(*x.getUses().begin()) &&
        epilogueReadsNothing(producer)) {
      auto pc = dyn_cast_or_null<ConvOp>(gemmAnchor(producer));
      if (lanePointwise(producer)) {
        setAlgorithm(producer, "pointwise_to_lanes", 0);
        in = true;
      } else if (algorithmOf(producer) == "pointwise_from_lanes" && pc &&
                 typeOf(pc.getResult()).getDimSize(1) % ::tract::rt::lanes::kLanes == 0) {
        // Between two depthwise convs: lanes in and out.
        setAlgorithm(producer, "pointwise_lanes", 0);
        in = true;
      } else if (laneFirstConv(producer)) {
        setAlgorithm(producer, "conv_to_lanes",
                     ::tract::rt::conv_to_lanes_scratch_floats(
                         convParamsOf(cast<ConvOp>(gemmAnchor(producer)))));
        in = true;
      }
    }
    Value y = top.getResult(0);
    if (y.hasOneUse() && epilogueReadsNothing(&top)) {
      OpOperand &use = *y.getUses().begin();
      if (readAsConvInputOnly(use) && lanePointwise(use.getOwner())) {
        setAlgorithm(use.getOwner(), "pointwise_from_lanes",
                     ::tract::rt::from_lanes_scratch_floats());
        out = true;
      }
    } else if (auto se = squeezeExciteOf(y); se && epilogueReadsNothing(&top)) {
      setAlgorithm(se->mean, "mean_from_lanes", meanFromLanesScratch(se->mean));
      setAlgorithm(se->scale, "scale_lanes", 0);
      setAlgorithm(se->project, "pointwise_from_lanes", ::tract::rt::from_lanes_scratch_floats());
      out = true;
    }
    if (in || out)
      setAlgorithm(&top,
                   in && out ? "depthwise_lanes" : in ? "depthwise_lanes_in" : "depthwise_lanes_out",
                   ::tract::rt::depthwise_scratch_floats(convParamsOf(dw)));
  }
  chooseLaneMeans(body);
  fuseExpands(body);
}

} // namespace mlir::tract
