//===- Passes.td - tract graph-level rewrites ---------------*- tablegen -*-===//
#ifndef TRACT_TRANSFORMS_PASSES
#define TRACT_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def TractDeclutterPass : Pass<"tract-declutter", "func::FuncOp"> {
  let summary = "rewrite the graph to a fixpoint into the small core op set";
  let description = [{
    tract's "declutter": the patterns of DeclutterPatterns.h (arithmetic
    normal forms, activation recognition, conv weight folding, layer norm
    recognition, constant propagation) plus every tract op's folders and
    canonicalisation patterns, applied greedily until nothing changes.
    Numerics: rewrites that change rounding (division by a constant becomes
    multiplication by its reciprocal, batch-norm scales folded into conv
    weights) stay within float tolerance, never change the result's type or
    shape, and never drop NaN/Inf semantics of integer arithmetic.
  }];
  let dependentDialects = ["::mlir::tract::TractDialect"];
  let options = [
    Option<"maxFoldElements", "max-fold-elements", "int64_t", /*default=*/"65536",
           "largest result constant propagation computes at compile time">,
  ];
}

def TractFusePass : Pass<"tract-fuse", "func::FuncOp"> {
  let summary = "group a conv/matmul and the elementwise ops after it into one kernel";
  let description = [{
    Walks the function in order. A conv or matmul, or a float elementwise
    op, starts a chain; the chain grows while its last value has exactly one
    use and that use is a float elementwise op producing the same type (its
    other operands may broadcast: biases, per-channel scales, residuals).
    A chain of two or more ops becomes one `tract.kernel`; a reshape of a
    kernel's only result is absorbed into the kernel's store. Run after
    declutter, so that batch norms are already in the conv weights and
    activations are single ops.
  }];
  let dependentDialects = ["::mlir::tract::TractDialect"];
}

#endif // TRACT_TRANSFORMS_PASSES
