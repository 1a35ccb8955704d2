//===- Declutter.cpp - the tract-declutter pass ------------------------------===//
#include "compiler/Transforms/DeclutterPatterns.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tract {
#define GEN_PASS_DEF_TRACTDECLUTTERPASS
#include "compiler/Transforms/Passes.h.inc"

namespace {

struct Declutter : impl::TractDeclutterPassBase<Declutter> {
  using TractDeclutterPassBase::TractDeclutterPassBase;

  LogicalResult initialize(MLIRContext *ctx) override {
    RewritePatternSet set(ctx);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      if (op.getDialect().getNamespace() == TractDialect::getDialectNamespace())
        op.getCanonicalizationPatterns(set, ctx);
    populateArithmeticDeclutter(set);
    populateActivationDeclutter(set);
    populateConvDeclutter(set);
    populateConvTransposeDeclutter(set);
    populateIndexingDeclutter(set);
    populateNormDeclutter(set);
    populateLayoutDeclutter(set);
    populateConstantPropagation(set, maxFoldElements);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    GreedyRewriteConfig config;
    // To a fixpoint: the whole function is revisited until nothing applies.
    config.maxIterations = GreedyRewriteConfig::kNoLimit;
    bool changed = false;
    if (failed(applyPatternsAndFoldGreedily(getOperation(), patterns, config, &changed)))
      signalPassFailure();
  }

  FrozenRewritePatternSet patterns;
};

} // namespace
} // namespace mlir::tract
