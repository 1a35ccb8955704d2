//===- ArithmeticRewrites.cpp - normal forms of elementwise arithmetic ------===//
//
// Later patterns (activation and norm recognition, fusion) match one form
// only: multiplication by a constant rather than division, addition of a
// constant rather than subtraction, x * x rather than pow(x, 2).
//
//===----------------------------------------------------------------------===//
#include "compiler/Transforms/DeclutterPatterns.h"
#include "compiler/Transforms/RewriteUtils.h"

#include <cmath>
#include <limits>

namespace mlir::tract {
namespace {

// Constants this small are rewritten; larger ones are weights, left alone.
constexpr int64_t kMaxRewrittenConstant = 1 << 16;

// x / c ==> x * (1 / c)    (floats; x / 0 and x * inf agree up to NaN for 0)
struct DivByConstant : OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DivOp op, PatternRewriter &rewriter) const override {
    if (!isFloatTensor(op.getLhs()))
      return rewriter.notifyMatchFailure(op, "integer division truncates");
    auto c = floatConstant(op.getRhs(), kMaxRewrittenConstant);
    if (!c)
      return rewriter.notifyMatchFailure(op, "divisor is not a small constant");
    for (double &v : *c)
      v = 1.0 / v;
    Value r = createFloatConstant(rewriter, op.getLoc(), tensorType(op.getRhs()), *c);
    rewriter.replaceOpWithNewOp<MulOp>(op, op.getLhs(), r);
    return success();
  }
};

// x - c ==> x + (-c)    (floats: negating an integer minimum overflows)
struct SubConstant : OpRewritePattern<SubOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SubOp op, PatternRewriter &rewriter) const override {
    if (!isFloatTensor(op.getLhs()))
      return rewriter.notifyMatchFailure(op, "not a float subtraction");
    auto c = floatConstant(op.getRhs(), kMaxRewrittenConstant);
    if (!c)
      return rewriter.notifyMatchFailure(op, "subtrahend is not a small constant");
    for (double &v : *c)
      v = -v;
    Value r = createFloatConstant(rewriter, op.getLoc(), tensorType(op.getRhs()), *c);
    rewriter.replaceOpWithNewOp<AddOp>(op, op.getLhs(), r);
    return success();
  }
};

// pow(x, 1) ==> x, pow(x, 2) ==> x * x, pow(x, 0.5) ==> sqrt(x)
struct PowByConstant : OpRewritePattern<PowOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PowOp op, PatternRewriter &rewriter) const override {
    Value x = op.getLhs();
    std::optional<double> e = splatConstant(op.getRhs());
    if (!isFloatTensor(x) || !e || x.getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "not a float power by a scalar of the same shape");
    if (*e == 1.0)
      rewriter.replaceOp(op, x);
    else if (*e == 2.0)
      rewriter.replaceOpWithNewOp<MulOp>(op, x, x);
    else if (*e == 0.5)
      rewriter.replaceOpWithNewOp<SqrtOp>(op, x);
    else
      return rewriter.notifyMatchFailure(op, "exponent is not 1, 2 or 0.5");
    return success();
  }
};

// x + 0, x - 0 ==> x; x * 1, x / 1 ==> x   (when that does not broadcast x)
template <class Op, int kNeutral, bool kCommutative>
struct NeutralElement : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op, PatternRewriter &rewriter) const override {
    for (int side = 0; side < (kCommutative ? 2 : 1); ++side) {
      Value x = op->getOperand(side), c = op->getOperand(1 - side);
      std::optional<double> s = splatConstant(c);
      if (s && *s == kNeutral && x.getType() == op.getType()) {
        rewriter.replaceOp(op, x);
        return success();
      }
    }
    return rewriter.notifyMatchFailure(op, "no neutral operand");
  }
};

// (x + c1) + c2 ==> x + (c1 + c2), (x * c1) * c2 ==> x * (c1 * c2), for
// single-element float constants (Gemm's alpha after a scale, BN's shifts).
template <class Op>
struct MergeConstantChain : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op, PatternRewriter &rewriter) const override {
    auto inner = op.getLhs().template getDefiningOp<Op>();
    if (!inner || !isFloatTensor(op.getLhs()) || !inner->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not a chain of two float ops");
    auto c1 = floatConstant(inner.getRhs(), 1), c2 = floatConstant(op.getRhs(), 1);
    if (!c1 || !c2)
      return rewriter.notifyMatchFailure(op, "not two single-element constants");
    double merged = std::is_same<Op, AddOp>::value ? (*c1)[0] + (*c2)[0] : (*c1)[0] * (*c2)[0];
    RankedTensorType t1 = tensorType(inner.getRhs()), t2 = tensorType(op.getRhs());
    RankedTensorType ct = t1.getRank() >= t2.getRank() ? t1 : t2;
    Value c = createFloatConstant(rewriter, op.getLoc(), ct, {merged});
    auto merged_op = rewriter.create<Op>(op.getLoc(), inner.getLhs(), c);
    if (merged_op.getType() != op.getType()) {
      rewriter.eraseOp(merged_op);
      return rewriter.notifyMatchFailure(op, "merging changes the result shape");
    }
    rewriter.replaceOp(op, merged_op.getResult());
    return success();
  }
};

// clip(x, 0, +inf) ==> relu(x); max(x, 0) ==> relu(x)
struct ClipToRelu : OpRewritePattern<ClipOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ClipOp op, PatternRewriter &rewriter) const override {
    if (!isFloatTensor(op.getInput()) || op.getMin().convertToDouble() != 0.0 ||
        !std::isinf(op.getMax().convertToDouble()) || op.getMax().convertToDouble() < 0)
      return rewriter.notifyMatchFailure(op, "not clip(x, 0, +inf)");
    rewriter.replaceOpWithNewOp<ReluOp>(op, op.getInput());
    return success();
  }
};

struct MaxZeroToRelu : OpRewritePattern<MaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxOp op, PatternRewriter &rewriter) const override {
    for (int side = 0; side < 2; ++side) {
      Value x = op->getOperand(side), c = op->getOperand(1 - side);
      if (isFloatTensor(x) && isSplat(c, 0.0) && x.getType() == op.getType()) {
        rewriter.replaceOpWithNewOp<ReluOp>(op, x);
        return success();
      }
    }
    return rewriter.notifyMatchFailure(op, "not max(x, 0)");
  }
};

} // namespace

void populateArithmeticDeclutter(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<DivByConstant, SubConstant, PowByConstant, ClipToRelu, MaxZeroToRelu,
               MergeConstantChain<AddOp>, MergeConstantChain<MulOp>>(ctx);
  patterns.add<NeutralElement<AddOp, 0, true>, NeutralElement<SubOp, 0, false>,
               NeutralElement<MulOp, 1, true>, NeutralElement<DivOp, 1, false>>(ctx);
}

} // namespace mlir::tract
