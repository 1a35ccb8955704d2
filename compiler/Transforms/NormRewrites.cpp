//===- NormRewrites.cpp - layer normalisation written out as a graph --------===//
//
// Before opset 17 exporters write LayerNormalization as
//   m = mean(x), d = x - m, v = mean(d * d), y = d / sqrt(v + eps) * g + b
// over the trailing axes. Recognised, it becomes one layer_norm (a single
// pass kernel); the constant scale and shift that follow fold into it.
//
//===----------------------------------------------------------------------===//
#include "compiler/Transforms/DeclutterPatterns.h"
#include "compiler/Transforms/RewriteUtils.h"

namespace mlir::tract {
namespace {

// The first axis of a mean over the trailing axes of x, kept dims; or -1.
int64_t trailingMeanAxis(ReduceMeanOp mean) {
  int64_t rank = tensorType(mean.getInput()).getRank();
  ArrayRef<int64_t> axes = mean.getAxes();
  if (!mean.getKeepDims() || axes.empty())
    return -1;
  SmallVector<int64_t> sorted;
  for (int64_t a : axes)
    sorted.push_back(a < 0 ? a + rank : a);
  llvm::sort(sorted);
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != rank - (int64_t)sorted.size() + (int64_t)i)
      return -1;
  return sorted.front();
}

// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) ==> layer_norm(x, 1, eps)
struct DecomposedLayerNorm : OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DivOp op, PatternRewriter &rewriter) const override {
    auto sub = op.getLhs().getDefiningOp<SubOp>();
    auto sqrt = op.getRhs().getDefiningOp<SqrtOp>();
    if (!sub || !sqrt || !isFloatTensor(op.getLhs()))
      return rewriter.notifyMatchFailure(op, "not (x - m) / sqrt(...)");
    Value x = sub.getLhs();
    auto mean = sub.getRhs().getDefiningOp<ReduceMeanOp>();
    if (!mean || mean.getInput() != x || x.getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "numerator is not x - mean(x)");
    int64_t axis = trailingMeanAxis(mean);
    auto addEps = sqrt.getInput().getDefiningOp<AddOp>();
    std::optional<double> eps = addEps ? splatConstant(addEps.getRhs()) : std::nullopt;
    auto var = addEps ? addEps.getLhs().getDefiningOp<ReduceMeanOp>() : ReduceMeanOp();
    if (axis < 0 || !eps || !var || var.getAxes() != mean.getAxes() || !var.getKeepDims())
      return rewriter.notifyMatchFailure(op, "denominator is not sqrt(mean(...) + eps)");
    auto square = var.getInput().getDefiningOp<MulOp>();
    if (!square || square.getLhs() != sub.getResult() || square.getRhs() != sub.getResult())
      return rewriter.notifyMatchFailure(op, "variance is not mean((x - m)^2)");
    auto xt = tensorType(x);
    auto normalized = RankedTensorType::get(xt.getShape().drop_front(axis), xt.getElementType());
    if (!(xt.getElementType().isF32() || xt.getElementType().isF64()))
      return rewriter.notifyMatchFailure(op, "not f32/f64");
    Value ones = createFloatConstant(rewriter, op.getLoc(), normalized,
                                     SmallVector<double>(normalized.getNumElements(), 1.0));
    Location loc = subgraphLoc(op, x);
    rewriter
        .replaceOpWithNewOp<LayerNormOp>(op, xt, x, ones, Value(), rewriter.getI64IntegerAttr(axis),
                                         rewriter.getF32FloatAttr((float)*eps))
        ->setLoc(loc);
    return success();
  }
};

// A constant that broadcasts to `normalized` (leading 1s dropped, the same
// shape, or one element) as `normalized`'s values.
std::optional<SmallVector<double>> normalizedConstant(Value c, RankedTensorType normalized) {
  auto t = dyn_cast<RankedTensorType>(c.getType());
  if (!t)
    return std::nullopt;
  ArrayRef<int64_t> shape = t.getShape();
  while (!shape.empty() && shape.front() == 1 && shape.size() > normalized.getShape().size())
    shape = shape.drop_front();
  auto values = floatConstant(c, normalized.getNumElements());
  if (!values)
    return std::nullopt;
  if (values->size() == 1)
    return SmallVector<double>(normalized.getNumElements(), values->front());
  if (shape != normalized.getShape())
    return std::nullopt;
  return values;
}

// layer_norm(x, s, b) * g ==> layer_norm(x, s * g, b * g)
// layer_norm(x, s, b) + c ==> layer_norm(x, s, b + c)
template <class Op>
struct AffineAfterLayerNorm : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op, PatternRewriter &rewriter) const override {
    constexpr bool kScale = std::is_same<Op, MulOp>::value;
    for (int side = 0; side < 2; ++side) {
      auto ln = op->getOperand(side).template getDefiningOp<LayerNormOp>();
      if (!ln || !ln->hasOneUse() || ln.getType() != op.getType())
        continue;
      auto xt = tensorType(ln.getInput());
      auto normalized =
          RankedTensorType::get(xt.getShape().drop_front(ln.getAxis()), xt.getElementType());
      auto c = normalizedConstant(op->getOperand(1 - side), normalized);
      auto scale = floatConstant(ln.getScale());
      std::optional<SmallVector<double>> bias =
          ln.getBias() ? floatConstant(ln.getBias())
                       : SmallVector<double>(normalized.getNumElements(), 0.0);
      if (!c || !scale || !bias)
        continue;
      for (size_t i = 0; i < c->size(); ++i) {
        if (kScale) {
          (*scale)[i] *= (*c)[i];
          (*bias)[i] *= (*c)[i];
        } else {
          (*bias)[i] += (*c)[i];
        }
      }
      bool needBias = ln.getBias() || !kScale;
      Value s = createFloatConstant(rewriter, op.getLoc(), normalized, *scale);
      Value b = needBias ? createFloatConstant(rewriter, op.getLoc(), normalized, *bias) : Value();
      // The location first: replacing `op` erases it.
      Location loc = fusedLoc({ln, op});
      rewriter
          .replaceOpWithNewOp<LayerNormOp>(op, op.getType(), ln.getInput(), s, b,
                                           ln.getAxisAttr(), ln.getEpsilonAttr())
          ->setLoc(loc);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not layer_norm then a constant");
  }
};

} // namespace

void populateNormDeclutter(RewritePatternSet &patterns) {
  patterns.add<DecomposedLayerNorm, AffineAfterLayerNorm<MulOp>, AffineAfterLayerNorm<AddOp>>(
      patterns.getContext());
}

} // namespace mlir::tract
