//===- tract-opt.cpp - run any tract pass or pipeline on MLIR text ----------===//
#include "compiler/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  mlir::tract::registerTractPasses();
  mlir::DialectRegistry registry;
  mlir::tract::registerTractDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tract optimizer driver\n", registry));
}
