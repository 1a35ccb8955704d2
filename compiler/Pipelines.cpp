//===- Pipelines.cpp - the pass pipelines tractc and tract-opt share --------===//
#include "compiler/Pipelines.h"

#include "compiler/Codegen/Passes.h"
#include "dialects/tract/IR/TractDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::tract {

void registerTractDialects(DialectRegistry &registry) {
  registry.insert<TractDialect, func::FuncDialect>();
}

void buildOptimizePipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void buildCodegenPipeline(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createTractWidenF16Pass());
  pm.addNestedPass<func::FuncOp>(createTractPlanMemoryPass());
}

void registerTractPasses() {
  registerTractCodegenPasses();
  PassPipelineRegistration<>("tract-optimize",
                             "graph-level simplification (canonicalize, CSE)",
                             buildOptimizePipeline);
  PassPipelineRegistration<>("tract-codegen",
                             "target lowering and memory planning",
                             buildCodegenPipeline);
}

} // namespace mlir::tract
