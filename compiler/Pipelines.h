//===- Pipelines.h - the pass pipelines tractc and tract-opt share -*- C++ -*-===//
#ifndef TRACT_COMPILER_PIPELINES_H
#define TRACT_COMPILER_PIPELINES_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace mlir::tract {
/// Dialects every tract tool loads.
void registerTractDialects(DialectRegistry &registry);
/// Passes and pipelines, for tract-opt's command line.
void registerTractPasses();
/// Graph-level simplification: declutter to a fixpoint, CSE.
void buildOptimizePipeline(OpPassManager &pm);
/// Kernel formation: conv/matmul epilogues and elementwise chains.
void buildFusePipeline(OpPassManager &pm);
/// Target lowering and memory planning; its output is what emitters print.
/// cpu: the CPU kind whose costs choose kernels (compiler/Support/CpuModels.h).
/// failOnNode: testing only (tract-choose-kernels' fail-on-node).
void buildCodegenPipeline(OpPassManager &pm, const std::string &cpu = "generic",
                          const std::string &failOnNode = "");
/// The same for --target=spirv: no CPU kernel choices (the GLSL kernels
/// read plain layouts), then the schedule and the memory plan.
void buildGpuCodegenPipeline(OpPassManager &pm);
} // namespace mlir::tract

#endif // TRACT_COMPILER_PIPELINES_H
