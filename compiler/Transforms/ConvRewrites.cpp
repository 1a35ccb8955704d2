//===- ConvRewrites.cpp - fold affine maps and pads into convs, pools, matmuls -===//
//
// The importer turns BatchNormalization into x * a + b with per-channel
// constants a and b; after a conv with constant weights both fold away:
// w'[o] = w[o] * a[o], bias'[o] = bias[o] * a[o] + b[o] (after a matmul, the
// scale folds into the weight columns and the shift stays for the epilogue).
// A Pad before a conv or pool becomes its own padding where the values agree.
//
//===----------------------------------------------------------------------===//
#include "compiler/Transforms/DeclutterPatterns.h"
#include "compiler/Transforms/RewriteUtils.h"

#include <cmath>

namespace mlir::tract {
namespace {

// A conv (f32/f64) that only `user` consumes, with constant weights; and the
// per-channel constant that is user's other operand.
struct ConvAndChannels {
  ConvOp conv;
  SmallVector<double> perChannel;
};

std::optional<ConvAndChannels> matchConvThenPerChannel(Operation *user) {
  for (int side = 0; side < 2; ++side) {
    auto conv = user->getOperand(side).getDefiningOp<ConvOp>();
    if (!conv || !conv->hasOneUse() || conv.getType() != user->getResult(0).getType())
      continue;
    if (!conv.getWeight().getDefiningOp<ConstOp>())
      continue;
    auto c = perChannelConstant(user->getOperand(1 - side), conv.getType());
    if (c)
      return ConvAndChannels{conv, std::move(*c)};
  }
  return std::nullopt;
}

// The conv with new weights and bias, located at the conv and `absorbed`.
ConvOp rebuildConv(PatternRewriter &rewriter, ConvOp conv, Value weight, Value bias,
                   Operation *absorbed) {
  return rewriter.create<ConvOp>(fusedLoc({conv, absorbed}), conv.getType(), conv.getInput(),
                                 weight, bias,
                                 conv.getStridesAttr(), conv.getDilationsAttr(),
                                 conv.getPadsAttr(), conv.getGroupAttr());
}

// The conv's bias as values (zeros when it has none); nullopt when it is
// not an f32/f64 constant.
std::optional<SmallVector<double>> biasValues(ConvOp conv) {
  if (!conv.getBias())
    return SmallVector<double>(tensorType(conv.getWeight()).getDimSize(0), 0.0);
  return floatConstant(conv.getBias());
}

// conv(x, w, b) * a ==> conv(x, w * a, b * a)    (a per output channel)
struct ConvTimesPerChannel : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op, PatternRewriter &rewriter) const override {
    auto m = matchConvThenPerChannel(op);
    if (!m)
      return rewriter.notifyMatchFailure(op, "not conv * per-channel constant");
    ConvOp conv = m->conv;
    auto w = floatConstant(conv.getWeight());
    if (!w)
      return rewriter.notifyMatchFailure(op, "weights are not f32/f64 constants");
    int64_t outChannels = tensorType(conv.getWeight()).getDimSize(0);
    int64_t perOut = outChannels ? (int64_t)w->size() / outChannels : 0;
    for (int64_t o = 0; o < outChannels; ++o)
      for (int64_t i = 0; i < perOut; ++i)
        (*w)[o * perOut + i] *= m->perChannel[o];
    auto b = biasValues(conv);
    if (!b)
      return rewriter.notifyMatchFailure(op, "bias is not a constant");
    Value weight = createFloatConstant(rewriter, conv.getLoc(), tensorType(conv.getWeight()), *w);
    Value bias; // a conv without bias stays without: zeros scale to zeros
    if (conv.getBias()) {
      for (int64_t o = 0; o < outChannels; ++o)
        (*b)[o] *= m->perChannel[o];
      bias = createFloatConstant(rewriter, conv.getLoc(), tensorType(conv.getBias()), *b);
    }
    rewriter.replaceOp(op, rebuildConv(rewriter, conv, weight, bias, op).getResult());
    return success();
  }
};

// conv(x, w, b) + c ==> conv(x, w, b + c)    (c per output channel)
struct ConvPlusPerChannel : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op, PatternRewriter &rewriter) const override {
    auto m = matchConvThenPerChannel(op);
    if (!m)
      return rewriter.notifyMatchFailure(op, "not conv + per-channel constant");
    ConvOp conv = m->conv;
    int64_t outChannels = tensorType(conv.getWeight()).getDimSize(0);
    auto bias = biasValues(conv);
    if (!bias)
      return rewriter.notifyMatchFailure(op, "bias is not a constant");
    for (int64_t o = 0; o < outChannels; ++o)
      (*bias)[o] += m->perChannel[o];
    auto biasType = RankedTensorType::get({outChannels}, conv.getType().getElementType());
    Value b = createFloatConstant(rewriter, conv.getLoc(), biasType, *bias);
    rewriter.replaceOp(op, rebuildConv(rewriter, conv, conv.getWeight(), b, op).getResult());
    return success();
  }
};

// A static constant pad of the spatial dims only, no cropping, as the value
// it pads with and `own` (a conv's or pool's begin pads then end pads) with
// its pads added; nullopt for any other pad.
std::optional<std::pair<double, SmallVector<int64_t>>> absorbablePad(PadOp pad,
                                                                     ArrayRef<int64_t> own) {
  if (!pad || pad.getRuntimePads() || pad.getRuntimeValue() || pad.getMode() != "constant" ||
      !isFloatTensor(pad.getInput()))
    return std::nullopt;
  ArrayRef<int64_t> p = pad.getPads();
  int64_t rank = tensorType(pad.getInput()).getRank(), spatial = rank - 2;
  for (int64_t d = 0; d < rank; ++d)
    if (p[d] < 0 || p[rank + d] < 0 || (d < 2 && (p[d] || p[rank + d])))
      return std::nullopt;
  SmallVector<int64_t> pads(own);
  for (int64_t s = 0; s < spatial; ++s) {
    pads[s] += p[2 + s];
    pads[spatial + s] += p[rank + 2 + s];
  }
  return std::make_pair(pad.getValue().convertToDouble(), std::move(pads));
}

// conv(pad(x, zeros on spatial dims)) ==> conv(x) with the pads added;
// avg_pool(pad(x, 0), count_include_pad) and max_pool(pad(x, -inf)) likewise:
// padding taps count as zeros in the average and never win the max.
template <class Op>
struct PadInto : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op, PatternRewriter &rewriter) const override {
    auto pad = op.getInput().template getDefiningOp<PadOp>();
    auto absorbed = absorbablePad(pad, op.getPads());
    if (!absorbed)
      return rewriter.notifyMatchFailure(op, "input is not a static pad of spatial dims");
    double value = absorbed->first;
    bool ok;
    if constexpr (std::is_same<Op, ConvOp>::value)
      ok = value == 0.0;
    else if constexpr (std::is_same<Op, AvgPoolOp>::value)
      ok = value == 0.0 && op.getCountIncludePad() && !op.getCeilMode();
    else
      ok = std::isinf(value) && value < 0 && !op.getCeilMode();
    if (!ok)
      return rewriter.notifyMatchFailure(op, "the padding value would change the result");
    rewriter.modifyOpInPlace(op, [&] {
      op.getInputMutable().assign(pad.getInput());
      op.setPadsAttr(rewriter.getDenseI64ArrayAttr(absorbed->second));
      op->setLoc(fusedLoc({pad, op}));
    });
    return success();
  }
};

// matmul(a, w) * c ==> matmul(a, w * c) with w a constant matrix and c a
// constant per output column (BatchNorm1d after a Linear).
struct MatMulTimesPerColumn : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op, PatternRewriter &rewriter) const override {
    for (int side = 0; side < 2; ++side) {
      auto mm = op->getOperand(side).getDefiningOp<MatMulOp>();
      if (!mm || !mm->hasOneUse() || mm.getType() != op.getType() || !isFloatTensor(mm) ||
          tensorType(mm.getRhs()).getRank() != 2)
        continue;
      // The scale varies along the last dim only.
      auto ct = dyn_cast<RankedTensorType>(op->getOperand(1 - side).getType());
      int64_t cols = mm.getType().getShape().back();
      if (!ct || ct.getNumElements() != cols || (ct.getRank() > 0 && ct.getShape().back() != cols))
        continue;
      auto c = floatConstant(op->getOperand(1 - side), cols);
      auto w = floatConstant(mm.getRhs());
      if (!c || !w)
        continue;
      RankedTensorType wt = tensorType(mm.getRhs());
      int64_t r = wt.getDimSize(0), k = wt.getDimSize(1);
      // w is [K, N], or [N, K] read transposed.
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < k; ++j)
          (*w)[i * k + j] *= (*c)[mm.getTransposeB() ? i : j];
      Value scaled = createFloatConstant(rewriter, op.getLoc(), wt, *w);
      auto folded = rewriter.create<MatMulOp>(fusedLoc({mm, op}), mm.getType(), mm.getLhs(),
                                              scaled, mm.getTransposeA(), mm.getTransposeB());
      rewriter.replaceOp(op, folded.getResult());
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not matmul * per-column constant");
  }
};

} // namespace

void populateConvDeclutter(RewritePatternSet &patterns) {
  patterns.add<ConvTimesPerChannel, ConvPlusPerChannel, PadInto<ConvOp>, PadInto<AvgPoolOp>,
               PadInto<MaxPoolOp>, MatMulTimesPerColumn>(patterns.getContext());
}

} // namespace mlir::tract
