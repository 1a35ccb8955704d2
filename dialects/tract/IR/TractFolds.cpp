//===- TractFolds.cpp - tract folders and canonicalisation patterns ---------===//
//
// Folders only return existing values or attributes; anything that creates
// ops is a pattern (STYLE.md rule 2). Every pattern is always profitable.
//
//===----------------------------------------------------------------------===//

#include "dialects/tract/IR/TractOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tract;

OpFoldResult ConstOp::fold(FoldAdaptor) { return getValue(); }

// reshape(x) : T -> T  ==>  x
OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getOutput().getType())
    return getInput();
  // Reshaping an inline (non-resource) constant is free: same bytes.
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(getOutput().getType());
  return {};
}

namespace {
// reshape(reshape(x)) -> reshape(x)
struct FoldReshapeOfReshape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a reshape");
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getInput());
    return success();
  }
};

// transpose(transpose(x, p0), p1) -> transpose(x, p0[p1])
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a transpose");
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPerm())
      perm.push_back(inner.getPerm()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, inner.getInput(), perm);
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<FoldReshapeOfReshape>(context);
}

// transpose(x, identity) ==> x
OpFoldResult TransposeOp::fold(FoldAdaptor) {
  for (auto [i, p] : llvm::enumerate(getPerm()))
    if ((int64_t)i != p)
      return {};
  return getInput();
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}

// concat(x) ==> x
OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  return {};
}

// slice covering the whole input with unit steps ==> input
OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getInput().getType() != getOutput().getType())
    return {};
  for (auto [start, step] : llvm::zip(getStarts(), getSteps()))
    if (start != 0 || step != 1)
      return {};
  return getInput();
}

// cast(x) : T -> T ==> x
OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getOutput().getType())
    return getInput();
  return {};
}

// broadcast(x) : T -> T ==> x
OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getOutput().getType())
    return getInput();
  return {};
}
