//===- CppEmitter.h - planned tract IR -> model.cpp + model.h ------*- C++ -*-===//
#ifndef TRACT_EMIT_CPPEMITTER_H
#define TRACT_EMIT_CPPEMITTER_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::tract {

struct EmitOptions {
  std::string prefix;      // C identifier prefix of every exported symbol
  std::string headerName;  // what model.cpp #includes
  std::string commandLine; // recorded in the header comment
  std::string modelName;   // the model file's name (no directories)
  std::string target = "generic";
  std::string cpu = "generic"; // the CPU model's name (--cpu; compiler/Support/CpuModels.h)
  std::string hostCpu;         // --cpu=native: LLVM's name for the build machine's CPU
  int64_t oneCoreBytes = int64_t(1) << 20; // the CPU model's L2 (ThreadChoice.h)
  bool smallModelsByRows = false;          // the CPU model's (ThreadChoice.h)
  bool withMain = false;
  bool fp16Gemm = false; // spirv: tiled GEMMs on cooperative-matrix units (--fp16-gemm)
  bool alwaysSplit = false; // --always-split: no model runs on one thread (ThreadChoice.h)
};

struct EmittedCpp {
  std::string source, header;
};

/// Prints a module that went through the codegen pipeline (arena offsets
/// assigned). Fails, with a diagnostic on the op, for an op it cannot print.
LogicalResult emitCpp(ModuleOp module, const EmitOptions &options, EmittedCpp &out);

/// The --report JSON (DESIGN.md): kernels in execution order with shapes,
/// bytes, arena offsets, flops and the ONNX nodes each came from.
std::string emitReport(ModuleOp module, const EmitOptions &options);

/// A C identifier made from `name` (invalid characters become '_').
std::string cIdentifier(llvm::StringRef name);

} // namespace mlir::tract

#endif // TRACT_EMIT_CPPEMITTER_H
