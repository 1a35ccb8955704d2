//===- ConvRewrites.cpp - fold affine maps and pads into convs, pools, matmuls -===//
//
// The importer turns BatchNormalization into x * a + b with per-channel
// constants a and b; after a conv with constant weights both fold away:
// w'[o] = w[o] * a[o], bias'[o] = bias[o] * a[o] + b[o] (after a matmul, the
// scale folds into the weight columns and the shift stays for the epilogue).
// A Pad before a conv or pool becomes its own padding where the values agree.
// Kernel taps that read only padding are dropped.
//
//===----------------------------------------------------------------------===//
#include "compiler/Transforms/DeclutterPatterns.h"
#include "compiler/Transforms/RewriteUtils.h"

#include <cmath>

namespace mlir::tract {
namespace {

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
    auto m = matchConvThenPerChannel<ConvOp>(op);
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
    auto m = matchConvThenPerChannel<ConvOp>(op);
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
// avg_pool(pad(x, 0)) counting the padding (or with no pads of its own) and
// max_pool(pad(x, -inf)) likewise: padding taps count as zeros in the
// average and never win the max.
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
      // (Without pads of its own a pool's windows lie inside the padded
      // tensor, so counting the padding, now its own, is the same divisor:
      // how PyTorch exports avg_pool2d(padding=1), Inception's.)
      ok = value == 0.0 && !op.getCeilMode() &&
           (op.getCountIncludePad() || llvm::all_of(op.getPads(), [](int64_t v) { return v == 0; }));
    else
      ok = std::isinf(value) && value < 0 && !op.getCeilMode();
    if (!ok)
      return rewriter.notifyMatchFailure(op, "the padding value would change the result");
    rewriter.modifyOpInPlace(op, [&] {
      op.getInputMutable().assign(pad.getInput());
      op.setPadsAttr(rewriter.getDenseI64ArrayAttr(absorbed->second));
      if constexpr (std::is_same<Op, AvgPoolOp>::value)
        op.setCountIncludePad(true);
      op->setLoc(fusedLoc({pad, op}));
    });
    return success();
  }
};

// The kernel taps [first, last] of one spatial axis that read the input for
// some output position (the others read padding only); nullopt when none does.
std::optional<std::pair<int64_t, int64_t>> liveTaps(int64_t in, int64_t out, int64_t kernel,
                                                    int64_t stride, int64_t dilation,
                                                    int64_t padBegin) {
  std::optional<std::pair<int64_t, int64_t>> live;
  for (int64_t t = 0; t < kernel; ++t) {
    // Output o reads o * stride + t * dilation - padBegin: the first o whose
    // position is >= 0, then whether that one is < in.
    const int64_t at0 = t * dilation - padBegin;
    const int64_t o = at0 >= 0 ? 0 : (-at0 + stride - 1) / stride;
    if (o >= out || o * stride + at0 >= in)
      continue;
    if (!live)
      live = std::make_pair(t, t);
    live->second = t;
  }
  return live;
}

// A conv whose kernel has taps that read only padding, at every output
// position (DeepLabV3's ASPP: 3x3 convs dilated by 12, 24 and 36 over a 4x4
// map, where only the centre tap meets the input), keeps only the taps
// between the first and last live one of each axis, its begin pads moved in
// by the taps dropped (a 3x3 of which only the centre is live becomes a 1x1
// without pads: a pointwise GEMM, not nine taps of zeros through im2col).
// Exact for finite weights: a dropped tap added weight * 0. An axis is left
// whole when trimming
// it would need a negative pad (a crop).
struct ConvDeadTaps : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvOp op, PatternRewriter &rewriter) const override {
    auto inType = dyn_cast<RankedTensorType>(op.getInput().getType());
    RankedTensorType wType = tensorType(op.getWeight());
    if (!inType || !inType.hasStaticShape() || !op.getType().hasStaticShape() || !wType ||
        !wType.hasStaticShape() || !op.getWeight().getDefiningOp<ConstOp>())
      return rewriter.notifyMatchFailure(op, "shapes not static or weights not constant");
    const int64_t spatial = inType.getRank() - 2;
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations(),
                      pads = op.getPads();
    if (spatial < 1 || (int64_t)strides.size() != spatial ||
        (int64_t)dilations.size() != spatial || (int64_t)pads.size() != 2 * spatial)
      return rewriter.notifyMatchFailure(op, "attributes do not match the rank");
    SmallVector<int64_t> first(spatial), kept(spatial), newPads(pads);
    bool trims = false;
    for (int64_t d = 0; d < spatial; ++d) {
      const int64_t in = inType.getDimSize(2 + d), out = op.getType().getDimSize(2 + d);
      const int64_t k = wType.getDimSize(2 + d);
      first[d] = 0;
      kept[d] = k;
      auto live = liveTaps(in, out, k, strides[d], dilations[d], pads[d]);
      if (!live || (live->first == 0 && live->second == k - 1))
        continue; // all live, or none (the output is the bias: left alone)
      const int64_t n = live->second - live->first + 1;
      const int64_t begin = pads[d] - live->first * dilations[d];
      // The end pad that keeps the output size.
      const int64_t end = (out - 1) * strides[d] + (n - 1) * dilations[d] + 1 - in - begin;
      if (begin < 0 || end < 0)
        continue;
      first[d] = live->first;
      kept[d] = n;
      newPads[d] = begin;
      newPads[spatial + d] = end;
      trims = true;
    }
    if (!trims)
      return rewriter.notifyMatchFailure(op, "every tap reads the input somewhere");
    auto w = floatConstant(op.getWeight());
    if (!w)
      return rewriter.notifyMatchFailure(op, "weights are not f32/f64 constants");
    // Copy the kept window of each [out, in/group] kernel.
    SmallVector<int64_t> newShape(wType.getShape());
    int64_t oldVol = 1, newVol = 1;
    for (int64_t d = 0; d < spatial; ++d) {
      oldVol *= wType.getDimSize(2 + d);
      newVol *= kept[d];
      newShape[2 + d] = kept[d];
    }
    const int64_t kernels = wType.getDimSize(0) * wType.getDimSize(1);
    SmallVector<double> trimmed(kernels * newVol);
    for (int64_t kn = 0; kn < kernels; ++kn)
      for (int64_t i = 0; i < newVol; ++i) {
        // i's position in the kept window, as a flat index into the old one.
        int64_t rest = i, flat = 0, scale = 1;
        for (int64_t d = spatial - 1; d >= 0; --d) {
          flat += (rest % kept[d] + first[d]) * scale;
          rest /= kept[d];
          scale *= wType.getDimSize(2 + d);
        }
        trimmed[kn * newVol + i] = (*w)[kn * oldVol + flat];
      }
    auto newType = RankedTensorType::get(newShape, wType.getElementType());
    Value weight = createFloatConstant(rewriter, op.getLoc(), newType, trimmed);
    // One tap left on an axis: its dilation means nothing, and 1 lets the
    // kernel choice see a plain 1x1 conv.
    SmallVector<int64_t> newDilations(dilations);
    for (int64_t d = 0; d < spatial; ++d)
      if (kept[d] == 1)
        newDilations[d] = 1;
    rewriter.modifyOpInPlace(op, [&] {
      op.getWeightMutable().assign(weight);
      op.setPadsAttr(rewriter.getDenseI64ArrayAttr(newPads));
      op.setDilationsAttr(rewriter.getDenseI64ArrayAttr(newDilations));
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
               PadInto<MaxPoolOp>, ConvDeadTaps, MatMulTimesPerColumn>(patterns.getContext());
}

} // namespace mlir::tract
