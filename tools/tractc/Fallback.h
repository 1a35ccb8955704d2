//===- Fallback.h - a failed optimisation costs one node, not the model -*- C++ -*-===//
//
// tractc compiles a valid model even when an optimisation fails on part of
// it (a rewrite, a fusion or a kernel choice meeting a graph it was not
// written for, or an emitter refusing what they made). Each attempt runs the
// pipelines and the emitter on a fresh copy of the imported module, its
// diagnostics held back. When one fails, the ONNX nodes its errors name are
// marked tract.keep_plain in the next copy (fusion and kernel choice leave
// them on their reference kernels) and it runs again; when no new node is
// named, the next attempt skips the declutter rewrites, then fusion too. The
// nodes kept plain, and why, go to a warning and to --report.
//
//===----------------------------------------------------------------------===//
#ifndef TRACTC_FALLBACK_H
#define TRACTC_FALLBACK_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <functional>
#include <string>
#include <vector>

namespace tractc {

/// What one attempt runs: the optimizer's rewrites and fusion may be off.
struct AttemptConfig {
  bool declutter = true;
  bool fuse = true;
};

/// Nodes kept in their plain form, and the error that made tractc do so.
struct PlainNodes {
  std::vector<std::string> nodes;
  std::string reason;
};

/// Runs `attempt` on copies of `imported` until one succeeds, falling back
/// as above, and returns the module it succeeded on. `optimize` false starts
/// without declutter and fusion (--no-optimize). An attempt fails when it
/// returns failure or reports an error. Diagnostics of the attempts that
/// failed and were recovered from are dropped; on success those of the
/// successful attempt, or on failure those of the last one, are reported
/// again. An error that says the target does not support an op is not an
/// optimisation failing: it ends the retries.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
compileWithFallback(mlir::ModuleOp imported, bool optimize,
                    const std::function<mlir::LogicalResult(mlir::ModuleOp, AttemptConfig)> &attempt,
                    std::vector<PlainNodes> &fallbacks);

} // namespace tractc

#endif // TRACTC_FALLBACK_H
