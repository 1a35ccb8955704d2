//===- Pipelines.cpp - the pass pipelines tractc and tract-opt share --------===//
#include "compiler/Pipelines.h"

#include "compiler/Codegen/Passes.h"
#include "compiler/Transforms/Passes.h"
#include "dialects/tract/IR/TractDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::tract {

void registerTractDialects(DialectRegistry &registry) {
  registry.insert<TractDialect, func::FuncDialect>();
}

void buildOptimizePipeline(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createTractDeclutterPass());
  pm.addPass(createCSEPass());
  // CSE merges equal subexpressions that let more patterns match (the two
  // copies of x - mean(x) in a written-out layer norm, for one).
  pm.addNestedPass<func::FuncOp>(createTractDeclutterPass());
}

void buildFusePipeline(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createTractFusePass());
}

void buildCodegenPipeline(OpPassManager &pm, const std::string &cpu,
                          const std::string &failOnNode) {
  pm.addNestedPass<func::FuncOp>(createTractWidenF16Pass());
  TractChooseKernelsPassOptions choose;
  choose.cpu = cpu;
  choose.failOnNode = failOnNode;
  pm.addNestedPass<func::FuncOp>(createTractChooseKernelsPass(choose));
  pm.addNestedPass<func::FuncOp>(createTractPadPlanesPass());
  pm.addNestedPass<func::FuncOp>(createTractSchedulePass());
  pm.addNestedPass<func::FuncOp>(createTractPlanMemoryPass());
}

void buildGpuCodegenPipeline(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createTractSchedulePass());
  pm.addNestedPass<func::FuncOp>(createTractPlanMemoryPass());
}

void registerTractPasses() {
  registerTractCodegenPasses();
  registerTractTransformsPasses();
  PassPipelineRegistration<>("tract-optimize",
                             "graph-level simplification (declutter, CSE)",
                             buildOptimizePipeline);
  PassPipelineRegistration<>("tract-fusion", "kernel formation (tract-fuse)",
                             buildFusePipeline);
  PassPipelineRegistration<>("tract-codegen",
                             "target lowering and memory planning",
                             [](OpPassManager &pm) { buildCodegenPipeline(pm); });
  PassPipelineRegistration<>("tract-gpu-codegen",
                             "memory planning for --target=spirv",
                             buildGpuCodegenPipeline);
}

} // namespace mlir::tract
