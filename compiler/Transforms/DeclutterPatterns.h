//===- DeclutterPatterns.h - the declutter pass's pattern families -*- C++ -*-===//
//
// Each family lives in its own file and is tested alone in
// test/Transforms/declutter-<family>.mlir (one _fold / _nofold pair per
// rewrite).
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_TRANSFORMS_DECLUTTERPATTERNS_H
#define TRACT_TRANSFORMS_DECLUTTERPATTERNS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tract {

/// Normal forms of arithmetic: x / c -> x * (1/c), x - c -> x + (-c),
/// pow(x, 2|0.5|1), neutral elements, merged constant chains, relu forms.
void populateArithmeticDeclutter(RewritePatternSet &patterns);
/// SiLU, both GELU forms, HardSigmoid and HardSwish written out as graphs.
void populateActivationDeclutter(RewritePatternSet &patterns);
/// Per-channel Mul/Add (BatchNormalization) into conv weights and bias;
/// zero Pad into the conv's pads.
void populateConvDeclutter(RewritePatternSet &patterns);
/// Per-channel Mul/Add into transposed convs; a transposed conv as one conv
/// over its stride phases, interleaved by a transpose and cropped.
void populateConvTransposeDeclutter(RewritePatternSet &patterns);
/// ScatterElements of whole rows (indices broadcast along a row) as ScatterND.
void populateIndexingDeclutter(RewritePatternSet &patterns);
/// LayerNormalization written out (ReduceMean, Sub, Pow, Sqrt, Div, ...),
/// and Mul/Add by constants after a layer_norm as its scale and bias.
void populateNormDeclutter(RewritePatternSet &patterns);
/// Transposes sunk below elementwise ops (to meet and cancel) or absorbed
/// into matmul flags; integer products with zero; a Resize to its own shape.
void populateLayoutDeclutter(RewritePatternSet &patterns);
/// Ops whose operands are all constants, computed at compile time when the
/// result has at most `maxElements` elements.
void populateConstantPropagation(RewritePatternSet &patterns, int64_t maxElements);

} // namespace mlir::tract

#endif // TRACT_TRANSFORMS_DECLUTTERPATTERNS_H
