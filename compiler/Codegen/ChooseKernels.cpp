//===- ChooseKernels.cpp - conv / matmul algorithm, scratch, weight packing --===//
//
// See KernelChoice.h for the attributes. The choices:
//   - f32 matmul: the blocked GEMM; a constant rank-2 B is packed at compile
//     time (the activation A is packed per block into scratch).
//   - f32 conv, ungrouped or with several input channels per group: GEMM over the
//     weights as A, packed at compile time; a 1x1 stride-1 unpadded conv
//     reads its input directly as B ("gemm_pointwise"), any other gathers
//     its taps into B panels one block at a time ("im2col_gemm").
//   - a 3x3 stride-1 conv with constant weights: Winograd F(4x4,3x3) or
//     F(2x2,3x3) ("winograd_f4", "winograd_f2") when the runtime's cost model
//     (conv_winograd.h) says it beats im2col; its weights are transformed
//     and packed at compile time.
//   - a 1x1 conv on maps of one pixel (squeeze-and-excitation): the fully
//     connected layer it is, x * W^T with W^T packed as B ("fully_connected",
//     conv_fully_connected.h).
//   - a 1-d or 2-d conv with few input channels (a network's first conv):
//     output pixels of a row in vector lanes, tap by tap, straight into the
//     planes ("conv_row_taps", conv_row_taps.h; its weights as ONNX has
//     them); with many taps on rows under 64 pixels, tap by tap into
//     16-channel tiles transposed into the planes ("conv_by_taps",
//     conv_lanes.h's conv_to_lanes<false>).
//   - a deeper 2-d conv that Winograd does not take (strided, dilated, 5x5,
//     1x7, small maps) with whole 16-channel blocks of outputs: the same
//     direct kernel where it beats im2col (conv_by_taps_pays: rows of 5
//     pixels or more, weights within L2; on some CPU kinds not where the
//     GEMM is large, ConvCosts::im2col_over_taps_outputs); a 3-d conv
//     (video models) too, each (depth, row) of its output a row, with any
//     weights' size where its kernel spans depth.
//   - depthwise convs (groups, one input channel each; 1-d or 2-d): their
//     own row-wise kernel with the same epilogue contract ("depthwise"); as
//     a GEMM they would have M = 1 or 2. Other shapes of them stay on the
//     direct reference kernel ("direct").
//   - then chains of 1x1 -> depthwise -> 1x1 convs keep the tensors between
//     them in 16-channel lane layout (LaneChains.cpp).
//   - f32 RoiAlign: on a channels-last copy of its input in scratch
//     ("channels_last", roi_align_channels_last.h); f32 NonMaxSuppression
//     on candidates sorted in scratch ("sorted", nms_sorted.h).
//   - everything else (integers, f64), and ops marked tract.keep_plain (an
//     optimisation failed on them): the reference kernels, no attribute.
// A constant is packed only when every user reads it as the same packed
// operand (CSE may share one weight between two layers); convs sharing a
// weight over maps of different sizes all take the Winograd tile (or none)
// that costs least over them, so that they can.
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/KernelChoice.h"
#include "compiler/Codegen/Passes.h"
#include "compiler/Support/CpuModels.h"
#include "compiler/Support/ElementsData.h"

#include "tract/rt/linalg/matmul_gemm.h"
#include "tract/rt/nn/conv_depthwise.h"
#include "tract/rt/nn/conv_fully_connected.h"
#include "tract/rt/nn/conv_gemm.h"
#include "tract/rt/nn/conv_lanes.h"
#include "tract/rt/nn/conv_row_taps.h"
#include "tract/rt/nn/conv_winograd.h"
#include "tract/rt/nn/nms_sorted.h"
#include "tract/rt/nn/roi_align_channels_last.h"

#include "mlir/IR/Builders.h"

#include <fmt/format.h>

#include <cstring>
#include <limits>

namespace mlir::tract {
#define GEN_PASS_DEF_TRACTCHOOSEKERNELSPASS
#include "compiler/Codegen/Passes.h.inc"

namespace gm = ::tract::rt::gemm;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

// `loc` (a node's NameLoc, or a fused kernel's FusedLoc of them) names ONNX node `node`.
bool namesNode(Location loc, StringRef node) {
  bool found = false;
  loc->walk([&](Location l) {
    if (auto name = dyn_cast<NameLoc>(l); name && name.getName() == node)
      found = true;
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

bool allF32(Operation *op) {
  auto isF32 = [](Value v) { return typeOf(v).getElementType().isF32(); };
  return llvm::all_of(op->getOperands(), isF32) && llvm::all_of(op->getResults(), isF32);
}

// A conv the GEMM runs: f32, at most 4 spatial dims, not depthwise.
bool convUsesGemm(ConvOp conv) {
  if (!allF32(conv) || typeOf(conv.getInput()).getRank() > 6)
    return false;
  return conv.getGroup() == 1 || typeOf(conv.getWeight()).getDimSize(1) > 1;
}

// A shared weight's users whose own choices would pack it differently
// (taps on one map, im2col on another) all run the GEMM: no Winograd tile,
// no conv_by_taps (sharedWeightTiles).
constexpr int kTileGemmOnly = -1;

// The Winograd tile a conv runs when its weight is its own: the runtime's
// cost model against im2col, except F(2x2) where conv_by_taps beats it
// (rows of 7 pixels or fewer, conv_lanes.h).
int ownWinogradTile(const ::tract::rt::ConvParams &p,
                    const ::tract::rt::winograd::ConvCosts &costs) {
  const int tile = ::tract::rt::winograd::choose_tile(p, costs);
  return tile == 2 && ::tract::rt::conv_by_taps_beats_winograd_f2(p, costs.taps_over_f2_cols)
             ? 0
             : tile;
}

// Whether a conv that Winograd does not take runs conv_by_taps rather than
// im2col + GEMM: where conv_by_taps_pays, except deeper 2-d convs whose
// GEMM is large enough to be faster on this CPU kind
// (ConvCosts::im2col_over_taps_outputs, fitted on 2-d convs; a 3-d conv's
// im2col gathers its operand, a 2-d one copies rows).
bool convByTaps(const ::tract::rt::ConvParams &p,
                const ::tract::rt::winograd::ConvCosts &costs) {
  if (!::tract::rt::conv_by_taps_pays(p))
    return false;
  if (p.spatial_rank == 3)
    return true;
  const int64_t outputs = p.out_channels * p.out_size[0] * p.out_size[1]; // (2-d: fits)
  return costs.im2col_over_taps_outputs == 0 ||
         p.in_channels <= ::tract::rt::kMaxConvToLanesInChannels || p.out_channels <= 64 ||
         outputs < costs.im2col_over_taps_outputs;
}

// How operand 1 of `top` would be packed, as a comparable key; empty when
// it is not a packable weight slot. `tile`, where given, is the Winograd
// tile a conv is to run, or kTileGemmOnly (sharedWeightTiles), else its own
// choice. The packings in the order runOnOperation picks the algorithms:
// Winograd's for its tile size, a fully connected conv's (as B), rows of
// taps' (as they are), conv_by_taps' (16-channel blocks), the GEMM's.
std::string packKey(Operation *top, const ::tract::rt::winograd::ConvCosts &costs,
                    std::optional<int> tile = std::nullopt) {
  Operation *anchor = gemmAnchor(top);
  if (!anchor || top->getNumOperands() < 2)
    return "";
  if (auto conv = dyn_cast<ConvOp>(anchor)) {
    if (!convUsesGemm(conv))
      return "";
    auto w = typeOf(conv.getWeight());
    ::tract::rt::ConvParams p = convParamsOf(conv);
    const int t = tile ? *tile : ownWinogradTile(p, costs);
    std::string how = t > 0 ? fmt::format("winograd {}", t)
                      : ::tract::rt::conv_is_fully_connected(p) ? "fully connected"
                      : ::tract::rt::conv_row_taps_pays(p)      ? "row taps"
                      : t != kTileGemmOnly && convByTaps(p, costs) ? "taps"
                                                                   : "gemm";
    return fmt::format("conv {} {} {} {}", w.getDimSize(0), conv.getGroup(),
                       w.getNumElements() / w.getDimSize(0), how);
  }
  auto mm = cast<MatMulOp>(anchor);
  if (!allF32(mm) || typeOf(mm.getRhs()).getRank() != 2)
    return "";
  return fmt::format("matmul-b {} {}", typeOf(mm.getRhs()).getShape()[0],
                     mm.getTransposeB() ? 1 : 0);
}

// The Winograd tile each conv of a shared weight runs, where its users'
// own choices differ. One weight serves convs of several map sizes
// (RetinaNet's heads run each of their convs on five FPN levels, 40x40 down
// to 3x3), and each map size wants its own tile: F(4x4) at 40x40, im2col
// at 3x3. One constant is packed one way, so with the choices left to each
// conv none was packed and every level ran im2col, repacking 2.4 MB of
// weights per call (the heads: 75% of the model's time, at twice the time
// of the same conv on F(4x4)). Instead all users take the tile (4, 2 or
// none) whose cost summed over them is least, where their keys then agree;
// with none, where some would run conv_by_taps and others the GEMM, all run
// the GEMM (kTileGemmOnly).
DenseMap<Operation *, int> sharedWeightTiles(Block &body,
                                              const ::tract::rt::winograd::ConvCosts &costs) {
  namespace wg = ::tract::rt::winograd;
  DenseMap<Operation *, int> tiles;
  for (auto c : body.getOps<ConstOp>()) {
    SmallVector<Operation *> users;
    SmallVector<::tract::rt::ConvParams> params;
    bool convs = true;
    for (OpOperand &use : c->getUses()) {
      Operation *anchor = gemmAnchor(use.getOwner());
      auto conv = dyn_cast_or_null<ConvOp>(anchor);
      convs = convs && use.getOperandNumber() == 1 && conv && allF32(conv) &&
              convUsesGemm(conv) && !keepsPlainForm(use.getOwner());
      if (!convs)
        break;
      users.push_back(use.getOwner());
      params.push_back(convParamsOf(conv));
    }
    if (!convs || users.size() < 2)
      continue;
    std::optional<int> best;
    double bestCost = 0;
    for (int tile : {4, 2, 0, kTileGemmOnly}) {
      std::string key = packKey(users.front(), costs, tile);
      double cost = 0;
      bool agree = true;
      for (auto [user, p] : llvm::zip(users, params)) {
        agree = agree && (tile <= 0 || wg::conv_fits(p)) && packKey(user, costs, tile) == key;
        cost += tile == 4 ? wg::cost<4>(p, costs) : tile == 2 ? wg::cost<2>(p, costs)
                                                               : wg::im2col_cost(p, costs);
      }
      if (agree && (!best || cost < bestCost)) {
        best = tile;
        bestCost = cost;
      }
    }
    if (best)
      for (Operation *user : users)
        tiles[user] = *best;
  }
  return tiles;
}

// Operand 1 of `top` is a constant that every user packs the same way.
bool weightsPackable(Operation *top, const ::tract::rt::winograd::ConvCosts &costs,
                     const DenseMap<Operation *, int> &tiles) {
  auto c = top->getOperand(1).getDefiningOp<ConstOp>();
  auto tileOf = [&](Operation *user) -> std::optional<int> {
    auto it = tiles.find(user);
    return it == tiles.end() ? std::nullopt : std::optional<int>(it->second);
  };
  std::string key = packKey(top, costs, tileOf(top));
  if (!c || key.empty())
    return false;
  for (OpOperand &use : c->getUses())
    if (use.getOperandNumber() != 1 ||
        packKey(use.getOwner(), costs, tileOf(use.getOwner())) != key)
      return false;
  return true;
}

// An f32 RoiAlign reads its input channels-last from scratch (the input
// transposed once per run; roi_align_channels_last.h).
void chooseRoiAlign(RoiAlignOp roi, Builder &b) {
  auto x = typeOf(roi.getInput());
  if (!x.getElementType().isF32() || !typeOf(roi.getRois()).getElementType().isF32() ||
      keepsPlainForm(roi) || x.getRank() != 4 || !x.hasStaticShape())
    return;
  int64_t floats = ::tract::rt::roi_align_scratch_floats(x.getDimSize(0), x.getDimSize(1),
                                                         x.getDimSize(2), x.getDimSize(3));
  if (floats <= 0) // an empty input: nothing to transpose, the reference writes zeros
    return;
  roi->setAttr(kAlgorithmAttr, b.getStringAttr("channels_last"));
  roi->setAttr(kScratchBytesAttr, b.getI64IntegerAttr(floats * 4));
}

// An f32 NonMaxSuppression sorts each class's candidates in scratch
// (nms_sorted.h; its indices are 32-bit).
void chooseNms(NonMaxSuppressionOp nms, Builder &b) {
  auto boxes = typeOf(nms.getBoxes()), scores = typeOf(nms.getScores());
  if (!boxes.getElementType().isF32() || !scores.getElementType().isF32() ||
      keepsPlainForm(nms) || !boxes.hasStaticShape() || boxes.getRank() != 3 ||
      boxes.getDimSize(1) < 1 || boxes.getDimSize(1) > std::numeric_limits<int32_t>::max())
    return;
  nms->setAttr(kAlgorithmAttr, b.getStringAttr("sorted"));
  nms->setAttr(kScratchBytesAttr, b.getI64IntegerAttr(
                                      ::tract::rt::nms_sorted_scratch_floats(boxes.getDimSize(1)) * 4));
}

struct ChooseKernels : impl::TractChooseKernelsPassBase<ChooseKernels> {
  using TractChooseKernelsPassBase::TractChooseKernelsPassBase;

  void runOnOperation() override {
    std::string hostName;
    const CpuModel *model = cpu == "native" ? &hostCpuModel(hostName) : lookupCpuModel(cpu);
    if (!model) {
      getOperation().emitError() << "unknown CPU kind '" << cpu << "' (expected "
                                 << cpuModelNames() << ")";
      return signalPassFailure();
    }
    const ::tract::rt::winograd::ConvCosts &costs = model->convCosts;
    Builder b(&getContext());
    const DenseMap<Operation *, int> tiles =
        sharedWeightTiles(getOperation().getBody().front(), costs);
    for (Operation &top : getOperation().getBody().front()) {
      if (auto roi = dyn_cast<RoiAlignOp>(&top)) {
        chooseRoiAlign(roi, b);
        continue;
      }
      if (auto nms = dyn_cast<NonMaxSuppressionOp>(&top)) {
        chooseNms(nms, b);
        continue;
      }
      Operation *anchor = gemmAnchor(&top);
      if (!anchor || !allF32(anchor) || keepsPlainForm(&top))
        continue;
      if (!failOnNode.empty() && namesNode(top.getLoc(), failOnNode)) {
        top.emitError("kernel choice failed (injected by --inject-failure for testing)");
        return signalPassFailure();
      }
      int64_t scratchFloats = 0;
      std::string algorithm;
      bool packed = false;
      if (auto conv = dyn_cast<ConvOp>(anchor)) {
        if (!convUsesGemm(conv)) {
          ::tract::rt::ConvParams p = convParamsOf(conv);
          if (!::tract::rt::conv_is_depthwise(p)) {
            top.setAttr(kAlgorithmAttr, b.getStringAttr("direct"));
            continue;
          }
          algorithm = "depthwise";
          scratchFloats = ::tract::rt::depthwise_scratch_floats(p);
        } else {
          packed = weightsPackable(&top, costs, tiles);
          ::tract::rt::ConvParams p = convParamsOf(conv);
          auto shared = tiles.find(&top);
          int tile = !packed                ? 0
                     : shared != tiles.end() ? shared->second
                                             : ownWinogradTile(p, costs);
          if (tile == 4) {
            algorithm = "winograd_f4";
            scratchFloats = ::tract::rt::winograd::scratch_floats<4>(p);
          } else if (tile == 2) {
            algorithm = "winograd_f2";
            scratchFloats = ::tract::rt::winograd::scratch_floats<2>(p);
          } else if (packed && ::tract::rt::conv_is_fully_connected(p)) {
            algorithm = "fully_connected";
            scratchFloats = ::tract::rt::fully_connected_scratch_floats(p);
          } else if (::tract::rt::conv_row_taps_pays(p)) {
            // (Packed or not, the weights are read as they are.)
            algorithm = "conv_row_taps";
            scratchFloats = ::tract::rt::conv_row_taps_scratch_floats(p);
          } else if (packed && tile != kTileGemmOnly && convByTaps(p, costs)) {
            algorithm = "conv_by_taps";
            scratchFloats = ::tract::rt::conv_by_taps_scratch_floats(p);
          } else {
            algorithm = gm::conv_is_pointwise(p) ? "gemm_pointwise" : "im2col_gemm";
            scratchFloats = gm::conv_scratch_floats(p, packed);
          }
        }
      } else {
        auto mm = cast<MatMulOp>(anchor);
        packed = weightsPackable(&top, costs, tiles);
        MatMulGeometry g = matMulGeometry(mm, packed);
        algorithm = "gemm";
        scratchFloats = gm::matmul_scratch_floats(g.m, g.n, g.k, packed);
      }
      top.setAttr(kAlgorithmAttr, b.getStringAttr(algorithm));
      top.setAttr(kScratchBytesAttr, b.getI64IntegerAttr(scratchFloats * 4));
      if (packed)
        top.setAttr(kPackedWeightsAttr, b.getUnitAttr());
    }
    chooseLaneChains(getOperation().getBody().front());
    fuseMaxPoolTails(getOperation().getBody().front());
  }
};

} // namespace

Operation *gemmAnchor(Operation *top) {
  if (isa<ConvOp, MatMulOp>(top))
    return top;
  if (auto kernel = dyn_cast<KernelOp>(top))
    return kernel.getAnchor();
  return nullptr;
}

::tract::rt::PoolParams poolParamsOf(Operation *pool) {
  auto x = typeOf(pool->getOperand(0)), y = typeOf(pool->getResult(0));
  ArrayRef<int64_t> kernel, strides, dilations, pads;
  bool includePad = false;
  if (auto avg = dyn_cast<AvgPoolOp>(pool)) {
    kernel = avg.getKernelShape(), strides = avg.getStrides(), dilations = avg.getDilations();
    pads = avg.getPads();
    includePad = avg.getCountIncludePad();
  } else {
    auto max = cast<MaxPoolOp>(pool);
    kernel = max.getKernelShape(), strides = max.getStrides(), dilations = max.getDilations();
    pads = max.getPads();
  }
  ::tract::rt::PoolParams p{};
  int64_t spatial = x.getRank() - 2;
  p.spatial_rank = static_cast<int>(spatial);
  p.batch_channels = x.getDimSize(0) * x.getDimSize(1);
  p.count_include_pad = includePad;
  for (int64_t d = 0; d < spatial && d < 4; ++d) {
    p.in_size[d] = x.getDimSize(2 + d);
    p.out_size[d] = y.getDimSize(2 + d);
    p.kernel[d] = kernel[d];
    p.stride[d] = strides[d];
    p.dilation[d] = dilations[d];
    p.pad_begin[d] = pads[d];
    p.pad_end[d] = pads[spatial + d];
    int64_t extent = (kernel[d] - 1) * dilations[d] + 1;
    int64_t needed = (p.out_size[d] - 1) * strides[d] + extent - p.in_size[d] - pads[d];
    if (!includePad)
      p.pad_end[d] = std::max(p.pad_end[d], needed);
  }
  return p;
}

::tract::rt::ConvParams convParamsOf(ConvOp conv) {
  auto x = typeOf(conv.getInput()), w = typeOf(conv.getWeight()), y = typeOf(conv.getResult());
  ::tract::rt::ConvParams p{};
  p.spatial_rank = static_cast<int>(x.getRank() - 2);
  p.batch = x.getDimSize(0);
  p.in_channels = x.getDimSize(1);
  p.out_channels = y.getDimSize(1);
  p.groups = conv.getGroup();
  for (int d = 0; d < p.spatial_rank && d < 4; ++d) {
    p.in_size[d] = x.getDimSize(2 + d);
    p.out_size[d] = y.getDimSize(2 + d);
    p.kernel[d] = w.getDimSize(2 + d);
    p.stride[d] = conv.getStrides()[d];
    p.dilation[d] = conv.getDilations()[d];
    p.pad_begin[d] = conv.getPads()[d];
  }
  return p;
}

MatMulGeometry matMulGeometry(MatMulOp mm, bool bPacked) {
  auto a = typeOf(mm.getLhs()), c = typeOf(mm.getRhs()), result = typeOf(mm.getResult());
  int64_t rank = result.getRank();
  MatMulGeometry g;
  ArrayRef<int64_t> batch = result.getShape().drop_back(2);
  g.m = result.getDimSize(rank - 2);
  g.n = result.getDimSize(rank - 1);
  g.k = mm.getTransposeA() ? a.getDimSize(a.getRank() - 2) : a.getShape().back();
  int64_t aCols = a.getShape().back(), bCols = c.getShape().back();
  g.aRs = mm.getTransposeA() ? 1 : aCols;
  g.aCs = mm.getTransposeA() ? aCols : 1;
  g.bRs = mm.getTransposeB() ? 1 : bCols;
  g.bCs = mm.getTransposeB() ? bCols : 1;
  // One shared packed B and a plain row-major A with the result's batch
  // dims: the batches are just more rows of one GEMM.
  if (bPacked && !mm.getTransposeA() && a.getShape().drop_back(2) == batch) {
    for (int64_t d : batch)
      g.m *= d;
    return g;
  }
  auto batchStrides = [&](RankedTensorType t) {
    SmallVector<int64_t> inBatch(t.getShape().drop_back(2));
    SmallVector<int64_t> s = broadcastStrides(inBatch, batch);
    int64_t matrix = t.getDimSize(t.getRank() - 2) * t.getShape().back();
    for (int64_t &v : s)
      v *= matrix;
    return s;
  };
  g.batch.assign(batch.begin(), batch.end());
  g.aBatchStrides = batchStrides(a);
  g.bBatchStrides = batchStrides(c);
  return g;
}

std::optional<std::string> packedWeightBytes(ConstOp c) {
  if (c->use_empty())
    return std::nullopt;
  // tract-choose-kernels packs a constant only for users that all read it
  // as their operand 1 in the same layout: the first use tells.
  OpOperand &use = *c->getUses().begin();
  Operation *user = use.getOwner();
  if (use.getOperandNumber() != 1 || !user->hasAttr(kPackedWeightsAttr))
    return std::nullopt;
  std::string raw = elementsBytes(c.getValue());
  std::vector<float> w(raw.size() / sizeof(float));
  std::memcpy(w.data(), raw.data(), w.size() * sizeof(float));
  std::vector<float> packed;
  Operation *anchor = gemmAnchor(user);
  auto algorithm = user->getAttrOfType<StringAttr>(kAlgorithmAttr).getValue();
  if (algorithm == "winograd_f4" || algorithm == "winograd_f2") {
    ::tract::rt::ConvParams p = convParamsOf(cast<ConvOp>(anchor));
    namespace wg = ::tract::rt::winograd;
    bool f4 = algorithm == "winograd_f4";
    packed.resize(f4 ? wg::transformed_weight_floats<4>(p) : wg::transformed_weight_floats<2>(p));
    if (f4)
      wg::transform_weights<4>(w.data(), p, packed.data());
    else
      wg::transform_weights<2>(w.data(), p, packed.data());
  } else if (algorithm == "pointwise_to_lanes" || algorithm == "pointwise_from_lanes" ||
             algorithm == "pointwise_lanes" || algorithm == "conv_to_lanes" ||
             algorithm == "conv_by_taps" || algorithm.starts_with("expand_depthwise")) {
    auto t = typeOf(cast<ConvOp>(anchor).getWeight());
    int64_t oc = t.getDimSize(0), taps = t.getNumElements() / oc;
    packed.resize(::tract::rt::lane_weight_floats(oc, taps));
    ::tract::rt::pack_lane_weights(w.data(), oc, taps, packed.data());
  } else if (algorithm == "conv_row_taps" || algorithm == "row_taps_max_pool") {
    packed = std::move(w); // the ONNX layout is the kernel's
  } else if (algorithm == "fully_connected") {
    ::tract::rt::ConvParams p = convParamsOf(cast<ConvOp>(anchor));
    packed.resize(::tract::rt::fully_connected_weight_floats(p));
    ::tract::rt::pack_fully_connected_weights(w.data(), p, packed.data());
  } else if (auto conv = dyn_cast<ConvOp>(anchor)) {
    auto t = typeOf(conv.getWeight());
    int64_t oc = t.getDimSize(0), k = t.getNumElements() / oc, groups = conv.getGroup();
    packed.resize(gm::packed_conv_weight_floats(oc, groups, k));
    gm::pack_conv_weights(w.data(), oc, groups, k, packed.data());
  } else {
    auto mm = cast<MatMulOp>(anchor);
    MatMulGeometry g = matMulGeometry(mm, true);
    packed.resize(gm::packed_b_floats(g.k, g.n));
    gm::pack_b(w.data(), g.bRs, g.bCs, g.k, g.n, packed.data());
  }
  return std::string(reinterpret_cast<const char *>(packed.data()), packed.size() * sizeof(float));
}

} // namespace mlir::tract
