//===- PermutedStores.h - transposes done by their producers' stores -------===//
//
// On the GPU a transpose is a dispatch of its own, and a barrier before and
// after it: an encoder layer's head split and merge were 4 of its ~20
// dispatches. Where a kernel's result feeds one transpose only, the kernel
// stores each element straight where the transpose would have put it, and
// the transpose records nothing.
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_EMITSPIRV_PERMUTEDSTORES_H
#define TRACT_EMITSPIRV_PERMUTEDSTORES_H

#include "compiler/Emit/EmitCommon.h"
#include "compiler/EmitSpirv/GlslKernels.h"

namespace mlir::tract {

/// Finds the transposes whose producer can store their result itself and
/// records them in `layout` (GpuLayout::permutedStores, ::absorbed): the
/// producer is a kernel whose result has no other use, and the bytes the
/// transpose writes are touched by no kernel from the producer up to the
/// transpose (the memory plan may have given them to a tensor live there).
void findPermutedStores(const PlannedModel &pm, GpuLayout &layout);

/// GLSL: the index in `to`'s layout (the transpose's output, shape
/// `from` permuted by `perm`) of the element at flat index `index` of
/// `from`.
std::string permutedIndex(ArrayRef<int64_t> from, ArrayRef<int64_t> perm,
                          const std::string &index);

} // namespace mlir::tract

#endif // TRACT_EMITSPIRV_PERMUTEDSTORES_H
