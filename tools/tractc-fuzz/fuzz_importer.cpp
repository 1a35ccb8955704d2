//===- fuzz_importer.cpp - libFuzzer target: bytes -> ONNX importer -> passes ===//
//
// Each input is taken as a serialized ONNX model and run through what tractc
// does before emitting code: the protobuf parse and conversion, the import
// into the tract dialect (with constant folding on the host), then the
// optimize, fuse and CPU codegen pipelines with the verifier after every
// pass. Errors are expected (most inputs are malformed); crashes, sanitizer
// reports, timeouts and runaway memory are the findings. External data is
// looked up in a folder that does not exist, so no input reads a file.
//
// Built only with -DTRACT_FUZZ=ON (clang): tools/tractc-fuzz/README.md.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/Importer.h"
#include "compiler/Import/OnnxModel.h"
#include "compiler/Pipelines.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ::tract::onnx::Model model;
  std::string error;
  if (!::tract::onnx::parseModel(data, size, "/nonexistent/tractc-fuzz", model, error))
    return 0;

  DialectRegistry registry;
  mlir::tract::registerTractDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  // Diagnostics are the expected outcome: dropped, not printed.
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });

  mlir::tract::ImportResult imported =
      mlir::tract::importModel(context, model, mlir::tract::ImportOptions());
  if (!imported.module)
    return 0;
  ModuleOp module = *imported.module;
  if (failed(verify(module)))
    __builtin_trap(); // the importer built invalid IR without reporting it
  PassManager pm(&context);
  pm.enableVerifier(true);
  mlir::tract::buildOptimizePipeline(pm);
  mlir::tract::buildFusePipeline(pm);
  mlir::tract::buildCodegenPipeline(pm);
  (void)pm.run(module);
  return 0;
}
