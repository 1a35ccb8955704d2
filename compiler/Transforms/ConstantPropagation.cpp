//===- ConstantPropagation.cpp - compute ops on constants at compile time ---===//
//
// The importer already folds shape subgraphs node by node; rewrites create
// new opportunities (a transpose of constant weights, a reshape of a folded
// scale). Computed with the importer's host evaluator, which runs the
// runtime's own kernels: the folded value is bit for bit what the generated
// code would have computed.
//
//===----------------------------------------------------------------------===//
#include "compiler/Transforms/DeclutterPatterns.h"
#include "compiler/Transforms/RewriteUtils.h"

#include "compiler/Import/HostEval.h"
#include "compiler/Support/ElementsData.h"

namespace mlir::tract {
namespace {

HostTensor hostTensorOf(ConstOp c) {
  HostTensor t;
  t.dataType = onnxTypeFor(c.getType().getElementType());
  t.dims.assign(c.getType().getShape().begin(), c.getType().getShape().end());
  t.bytes = elementsBytes(c.getValue());
  return t;
}

struct FoldConstantOperands : RewritePattern {
  FoldConstantOperands(MLIRContext *ctx, int64_t maxElements)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx), maxElements(maxElements) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (isa<ConstOp>(op) || !isa_and_nonnull<TractDialect>(op->getDialect()) ||
        op->getNumResults() != 1 || op->getNumOperands() == 0)
      return rewriter.notifyMatchFailure(op, "not a single-result tract op with operands");
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || type.getNumElements() > maxElements || isa<StringType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "result too large to fold");
    SmallVector<HostTensor> inputs;
    for (Value v : op->getOperands()) {
      auto c = v.getDefiningOp<ConstOp>();
      if (!c)
        return rewriter.notifyMatchFailure(op, "an operand is not constant");
      inputs.push_back(hostTensorOf(c));
    }
    SmallVector<const HostTensor *> ptrs;
    for (const HostTensor &t : inputs)
      ptrs.push_back(&t);
    std::optional<HostTensor> result = evaluateOnHost(op, ptrs);
    if (!result)
      return rewriter.notifyMatchFailure(op, "the host evaluator does not compute this op");
    rewriter.replaceOpWithNewOp<ConstOp>(op, type, makeElementsAttr(type, result->bytes, "folded"));
    return success();
  }

  int64_t maxElements;
};

} // namespace

void populateConstantPropagation(RewritePatternSet &patterns, int64_t maxElements) {
  patterns.add<FoldConstantOperands>(patterns.getContext(), maxElements);
}

} // namespace mlir::tract
