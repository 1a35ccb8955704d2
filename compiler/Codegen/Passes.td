//===- Passes.td - tract codegen passes ---------------------*- tablegen -*-===//
#ifndef TRACT_CODEGEN_PASSES
#define TRACT_CODEGEN_PASSES

include "mlir/Pass/PassBase.td"

def TractPlanMemoryPass : Pass<"tract-plan-memory", "func::FuncOp"> {
  let summary = "assign every intermediate tensor an offset in one static arena";
  let description = [{
    Execution order is the order of the function body. Each op result that is
    not a graph output gets a live interval [defining op, last user]; buffers
    are placed largest first at the lowest 64-byte aligned offset that does not
    overlap a placed buffer whose interval intersects (offline first fit).
    A reshape of an arena value shares its buffer (a view), and an
    elementwise op whose full-shape operand dies with it reuses that
    operand's buffer (in place); the shared buffer lives until its last use.
    Results are annotated, and the function gets the arena size:

    Before:
    ```mlir
    %0 = tract.relu %arg0 : tensor<4xf32>
    %1 = tract.neg %0 : tensor<4xf32>
    return %1 : tensor<4xf32>
    ```
    After:
    ```mlir
    func.func @main(...) attributes {tract.arena_bytes = 64 : i64}
    %0 = tract.relu %arg0 {tract.arena_offsets = array<i64: 0>} : tensor<4xf32>
    %1 = tract.neg %0 {tract.arena_offsets = array<i64: -1>} : tensor<4xf32>
    ```
    Offset -1 marks a result that lives outside the arena (a graph output).
  }];
  let dependentDialects = ["::mlir::tract::TractDialect"];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "byte alignment of every arena buffer">,
  ];
}

def TractChooseKernelsPass : Pass<"tract-choose-kernels", "func::FuncOp"> {
  let summary = "choose the runtime algorithm, scratch and weight packing of each conv and matmul";
  let description = [{
    For every f32 conv and matmul of the function body (standalone or the
    anchor of a tract.kernel) records on the body's op: `tract.algorithm`
    ("gemm", "gemm_pointwise", "im2col_gemm" or "direct"), the arena scratch
    it needs (`tract.scratch_bytes`) and, when its constant weights are packed
    at compile time into the GEMM's panels, `tract.packed_weights`. Sizes come
    from the runtime's own headers; Winograd against im2col is priced with
    the costs of the `cpu` option's CPU kind. See compiler/Codegen/KernelChoice.h.
    An op marked `tract.keep_plain` keeps its reference kernel.

    ```mlir
    %0 = tract.conv %x, %w {...} : ... -> tensor<1x64x56x56xf32>
    ```
    becomes
    ```mlir
    %0 = tract.conv %x, %w {..., tract.algorithm = "im2col_gemm",
                            tract.packed_weights, tract.scratch_bytes = 524288 : i64}
    ```
  }];
  let dependentDialects = ["::mlir::tract::TractDialect"];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"generic\"",
           "the CPU kind whose costs choose between conv algorithms "
           "(compiler/Support/CpuModels.h; tractc --cpu)">,
    Option<"failOnNode", "fail-on-node", "std::string", /*default=*/"\"\"",
           "testing: fail on the op of this ONNX node (tractc --inject-failure), to "
           "check that the model still compiles with that op in its plain form">,
  ];
}

def TractPadPlanesPass : Pass<"tract-pad-planes", "func::FuncOp"> {
  let summary = "pad NCHW planes to whole cache lines where every kernel on them takes plane strides";
  let description = [{
    After tract-choose-kernels. An f32 NCHW tensor whose H x W plane is not a
    multiple of 16 floats (and would grow by at most an eighth) gets
    `tract.plane_stride` on its producer, the floats from one plane to the
    next, when its producer and every reader take plane strides: convs on
    gemm_pointwise, im2col_gemm, winograd_f2/f4 (their input and output),
    row_taps_max_pool and pointwise_from_lanes (output) and
    pointwise_to_lanes (input), standalone max and average pools, ReduceSum /
    ReduceMean over the spatial axes (input), and channel concats that are
    views of their operands; a residual that a kernel's epilogue reads is
    padded with the kernel's output or neither is. Planes then start on cache lines, so vector
    loads do not straddle lines and two threads never write one line.

    ```mlir
    %0 = tract.conv %x, %w {..., tract.algorithm = "gemm_pointwise"} : ... -> tensor<1x64x13x13xf32>
    %1 = tract.conv %0, %w2 {..., tract.algorithm = "gemm_pointwise"} : ...
    ```
    becomes
    ```mlir
    %0 = tract.conv %x, %w {..., tract.algorithm = "gemm_pointwise", tract.plane_stride = 176 : i64} : ...
    ```
    See compiler/Codegen/PadPlanes.cpp.
  }];
  let dependentDialects = ["::mlir::tract::TractDialect"];
}

def TractSchedulePass : Pass<"tract-schedule", "func::FuncOp"> {
  let summary = "reorder the function's ops to lower the peak of live arena bytes";
  let description = [{
    tract orders nodes to save RAM; so does this pass. A greedy topological
    order: among the ops whose operands are computed, run the one that adds
    the fewest live bytes (its results, minus the operands it is the last
    reader of); ties keep the original order. The new order is kept only
    when its peak of live bytes is lower than the original's, so the pass
    never makes a plan worse.
  }];
  let dependentDialects = ["::mlir::tract::TractDialect"];
}

def TractWidenF16Pass : Pass<"tract-widen-f16", "func::FuncOp"> {
  let summary = "compute float16 and bfloat16 arithmetic in float32";
  let description = [{
    The runtime stores float16 but has no float16 arithmetic (most targets
    lack it, and ONNX Runtime's CPU kernels widen too). Every op other than
    data movement that reads or writes f16 gets casts around it:

    Before:
    ```mlir
    %0 = tract.add %a, %b : tensor<4xf16>, tensor<4xf16> -> tensor<4xf16>
    ```
    After:
    ```mlir
    %0 = tract.cast %a : tensor<4xf16> -> tensor<4xf32>
    %1 = tract.cast %b : tensor<4xf16> -> tensor<4xf32>
    %2 = tract.add %0, %1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %3 = tract.cast %2 : tensor<4xf32> -> tensor<4xf16>
    ```
  }];
  let dependentDialects = ["::mlir::tract::TractDialect"];
}

#endif // TRACT_CODEGEN_PASSES
