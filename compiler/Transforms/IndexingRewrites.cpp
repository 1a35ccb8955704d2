//===- IndexingRewrites.cpp - scatters that move whole slices ----------------===//
//
// torch exports `out.scatter_(0, idx.view(-1, 1, 1, 1).expand_as(u), u)`
// (torchvision's MultiScaleRoIAlign puts each level's pooled rois back in
// place this way) as ScatterElements whose indices are an Expand of one
// index per row: every element of row i goes to row idx[i]. That is a
// ScatterND of whole rows: no index tensor of the updates' size is built
// (Faster R-CNN: 15 MB of int64 per level) and rows are copied, not
// elements one index at a time.
//
//===----------------------------------------------------------------------===//
#include "compiler/Transforms/DeclutterPatterns.h"
#include "compiler/Transforms/RewriteUtils.h"

namespace mlir::tract {
namespace {

// scatter_elements(x, broadcast(i [m, 1, ...]), u, axis 0) with u and the
// indices covering whole rows of x ==> scatter_nd(x, reshape(i, [m, 1]), u)
struct ScatterRowsAsScatterNd : OpRewritePattern<ScatterElementsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScatterElementsOp op, PatternRewriter &rewriter) const override {
    auto xt = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto it = dyn_cast<RankedTensorType>(op.getIndices().getType());
    auto broadcast = op.getIndices().getDefiningOp<BroadcastOp>();
    if (!xt || !it || !broadcast || !xt.hasStaticShape() || !it.hasStaticShape() ||
        it.getRank() != xt.getRank() || it.getRank() < 1)
      return rewriter.notifyMatchFailure(op, "indices are not a static broadcast");
    const int64_t rank = xt.getRank();
    if (op.getAxis() != 0 && op.getAxis() != -rank)
      return rewriter.notifyMatchFailure(op, "not along the first axis");
    auto small = dyn_cast<RankedTensorType>(broadcast.getInput().getType());
    if (!small || small.getRank() != rank || small.getDimSize(0) != it.getDimSize(0))
      return rewriter.notifyMatchFailure(op, "the broadcast does not keep the rows");
    for (int64_t d = 1; d < rank; ++d)
      if (small.getDimSize(d) != 1 || it.getDimSize(d) != xt.getDimSize(d))
        return rewriter.notifyMatchFailure(op, "indices vary within a row, or rows are partial");
    if (op.getUpdates().getType() != it.clone(xt.getElementType()))
      return rewriter.notifyMatchFailure(op, "updates do not have the indices' shape");
    const int64_t rows = it.getDimSize(0);
    Value tuples = rewriter.create<ReshapeOp>(
        op.getLoc(), RankedTensorType::get({rows, 1}, it.getElementType()), broadcast.getInput());
    rewriter.replaceOpWithNewOp<ScatterNdOp>(op, op.getType(), op.getInput(), tuples,
                                             op.getUpdates(), op.getReductionAttr());
    return success();
  }
};

} // namespace

void populateIndexingDeclutter(RewritePatternSet &patterns) {
  patterns.add<ScatterRowsAsScatterNd>(patterns.getContext());
}

} // namespace mlir::tract
