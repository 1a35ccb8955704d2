//===- Passes.h - tract graph-level rewrites ----------------------*- C++ -*-===//
#ifndef TRACT_TRANSFORMS_PASSES_H
#define TRACT_TRANSFORMS_PASSES_H

#include "dialects/tract/IR/TractOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tract {

#define GEN_PASS_DECL
#include "compiler/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Transforms/Passes.h.inc"

} // namespace mlir::tract

#endif // TRACT_TRANSFORMS_PASSES_H
