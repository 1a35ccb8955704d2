//===- HostEval.h - evaluate tract ops on compile-time constants ---*- C++ -*-===//
#ifndef TRACT_IMPORT_HOSTEVAL_H
#define TRACT_IMPORT_HOSTEVAL_H

#include "compiler/Import/NodeContext.h"

#include <optional>

namespace mlir::tract {
/// Computes `op` on constant operands with the runtime's reference kernels
/// (the same code the generated C++ runs). Returns nullopt for ops not worth
/// or not possible to fold here (large results, unsupported ops).
std::optional<HostTensor> evaluateOnHost(Operation *op,
                                         ArrayRef<const HostTensor *> operands);
} // namespace mlir::tract

#endif // TRACT_IMPORT_HOSTEVAL_H
