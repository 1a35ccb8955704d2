//===- FixedInputs.h - --input-value: an input's value fixed at compile time -*- C++ -*-===//
#ifndef TRACT_IMPORT_FIXEDINPUTS_H
#define TRACT_IMPORT_FIXEDINPUTS_H

#include "compiler/Import/NodeContext.h"

#include <string>
#include <vector>

namespace mlir::tract {

/// The constant `--input-value NAME=V,...` makes of input `in`: `values`
/// parsed in the input's dtype, in the shape `pinned` gives (--input-shape,
/// may be null), else the model's static one, else a scalar or a vector.
/// Emits an error at `loc` naming the input when the count or a value does
/// not fit.
FailureOr<HostTensor> fixedInputTensor(const ::tract::onnx::ValueInfo &in,
                                       ArrayRef<std::string> values,
                                       const std::vector<int64_t> *pinned, Location loc);

} // namespace mlir::tract

#endif // TRACT_IMPORT_FIXEDINPUTS_H
