//===- Pipelines.h - the pass pipelines tractc and tract-opt share -*- C++ -*-===//
#ifndef TRACT_COMPILER_PIPELINES_H
#define TRACT_COMPILER_PIPELINES_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::tract {
/// Dialects every tract tool loads.
void registerTractDialects(DialectRegistry &registry);
/// Passes and pipelines, for tract-opt's command line.
void registerTractPasses();
/// Graph-level simplification: canonicalisation to a fixpoint, dead code.
void buildOptimizePipeline(OpPassManager &pm);
/// Target lowering and memory planning; its output is what emitters print.
void buildCodegenPipeline(OpPassManager &pm);
} // namespace mlir::tract

#endif // TRACT_COMPILER_PIPELINES_H
