// RUN: tract-opt %s --split-input-file --tract-choose-kernels | FileCheck %s
// RUN: tract-opt %s --split-input-file --tract-choose-kernels --tract-plan-memory | FileCheck %s --check-prefix=PLAN

// A 3x3 conv: im2col blocks into scratch, weights packed. K = 4*9 = 36 rows
// of B; a block of all 64 pixels (36*64 floats) would outgrow the 8x64
// output, so blocks are one 16-column panel of 36 rows, padded to 37 (an odd
// number of cache lines, gemm::packed_panel_stride): 37*16 floats.
// A 1x1 stride-1 conv with few output channels reads its input in place as
// B: no scratch (64 columns, whole panels). A depthwise conv has its own kernel, its
// scratch in 16-channel lanes: 9 tap weights, the bias, 3 staged rows and a
// zero row of 10 pixels (8 outputs, 2 taps of padding), one output row of 8
// pixels: 16 x 58 floats.
// CHECK-LABEL: func @convs
// CHECK: tract.conv {{.*}}tract.algorithm = "im2col_gemm", tract.packed_weights, tract.scratch_bytes = 2368 : i64
// CHECK: tract.conv {{.*}}tract.algorithm = "gemm_pointwise", tract.packed_weights, tract.scratch_bytes = 0 : i64
// CHECK: tract.conv {{.*}}tract.algorithm = "depthwise"
// CHECK-SAME: tract.scratch_bytes = 3712 : i64
// A scratch buffer lives only while its conv runs, beside that conv's input
// and output: the 3x3 conv's scratch (2368 bytes) below its output, whose
// place the pointwise conv's output takes (its reader's scratch is dead);
// the depthwise conv writes the function's result, so the peak is its input
// (2048 bytes) and its scratch (3712) above it: 5760 bytes, the least any
// plan can do (definition order finds it, largest first needed 6400).
// PLAN-LABEL: func @convs
// PLAN-SAME: tract.arena_bytes = 5760
// PLAN: tract.conv {{.*}}tract.arena_offsets = array<i64: 2368>{{.*}}tract.scratch_offset = 0
// PLAN: tract.conv {{.*}}tract.arena_offsets = array<i64: 0>
// PLAN-NOT: scratch_offset
// PLAN-SAME: : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>)
// PLAN: tract.conv {{.*}}tract.arena_offsets = array<i64: -1>{{.*}}tract.scratch_offset = 2048
func.func @convs(%x: tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = tract.const dense<0.5> : tensor<8x4x3x3xf32>
  %p = tract.const dense<0.25> : tensor<8x8x1x1xf32>
  %d = tract.const dense<1.0> : tensor<8x1x3x3xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = tract.conv %0, %p {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %2 = tract.conv %1, %d {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 8} : (tensor<1x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x8x8xf32>
  return %2 : tensor<1x8x8x8xf32>
}

// -----

// A 1x1 -> depthwise -> 1x1 chain on 32 channels keeps both tensors between
// the convs in lane layout (LaneChains.cpp): the expand writes lanes (no
// scratch), the depthwise conv reads and writes them, the project reads them
// (a tile of up to 24 pixels x 16 channels in scratch).
// CHECK-LABEL: func @lane_chain
// CHECK: tract.conv {{.*}}tract.algorithm = "pointwise_to_lanes", tract.packed_weights, tract.scratch_bytes = 0 : i64
// CHECK: tract.conv {{.*}}tract.algorithm = "depthwise_lanes", tract.scratch_bytes
// CHECK: tract.conv {{.*}}tract.algorithm = "pointwise_from_lanes", tract.packed_weights, tract.scratch_bytes = 1536 : i64
func.func @lane_chain(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w1 = tract.const dense<0.5> : tensor<32x16x1x1xf32>
  %d = tract.const dense<1.0> : tensor<32x1x3x3xf32>
  %w2 = tract.const dense<0.25> : tensor<16x32x1x1xf32>
  %0 = tract.conv %x, %w1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  %1 = tract.conv %0, %d {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 32} : (tensor<1x32x8x8xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x8x8xf32>
  %2 = tract.conv %1, %w2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x8x8xf32>, tensor<16x32x1x1xf32>) -> tensor<1x16x8x8xf32>
  return %2 : tensor<1x16x8x8xf32>
}

// -----

// A mean over the plane that is a 1x1 conv's only reader reads lane layout
// (mean_from_lanes): after a depthwise conv the conv reads and writes lanes
// (a keyword spotter's last conv), on an NCHW input it writes them. Not with
// a second reader of the conv's output, nor on 24 channels (not whole
// 16-channel blocks), nor for a mean over channels.
// CHECK-LABEL: func @mean_after_lanes
// CHECK: tract.conv {{.*}}tract.algorithm = "depthwise_lanes_out",
// CHECK: tract.conv {{.*}}tract.algorithm = "pointwise_lanes", tract.packed_weights, tract.scratch_bytes = 0
// CHECK: tract.reduce_mean {{.*}}tract.algorithm = "mean_from_lanes", tract.scratch_bytes = 0
// CHECK-LABEL: func @mean_after_pointwise
// CHECK: tract.conv {{.*}}tract.algorithm = "pointwise_to_lanes", tract.packed_weights, tract.scratch_bytes = 0
// CHECK: tract.reduce_mean {{.*}}tract.algorithm = "mean_from_lanes", tract.scratch_bytes = 0
// CHECK-LABEL: func @mean_not_lanes
// CHECK: tract.conv {{.*}}tract.algorithm = "gemm_pointwise",
// CHECK-NOT: mean_from_lanes
// CHECK: tract.conv {{.*}}tract.algorithm = "gemm_pointwise",
// CHECK-NOT: mean_from_lanes
// CHECK: tract.conv {{.*}}tract.algorithm = "gemm_pointwise",
// CHECK-NOT: mean_from_lanes
func.func @mean_after_lanes(%x: tensor<1x16x8x8xf32>) -> tensor<1x32x1x1xf32> {
  %d = tract.const dense<1.0> : tensor<16x1x3x3xf32>
  %w = tract.const dense<0.5> : tensor<32x16x1x1xf32>
  %0 = tract.conv %x, %d {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 16} : (tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x8x8xf32>
  %1 = tract.conv %0, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  %2 = tract.reduce_mean %1 {axes = array<i64: 2, 3>} : tensor<1x32x8x8xf32> -> tensor<1x32x1x1xf32>
  return %2 : tensor<1x32x1x1xf32>
}
func.func @mean_after_pointwise(%x: tensor<1x16x8x8xf32>) -> tensor<1x32x1x1xf32> {
  %w = tract.const dense<0.5> : tensor<32x16x1x1xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  %1 = tract.reduce_mean %0 {axes = array<i64: 2, 3>} : tensor<1x32x8x8xf32> -> tensor<1x32x1x1xf32>
  return %1 : tensor<1x32x1x1xf32>
}
func.func @mean_not_lanes(%x: tensor<1x16x8x8xf32>) -> (tensor<1x32x1x1xf32>, tensor<1x32x8x8xf32>, tensor<1x24x1x1xf32>, tensor<1x1x8x8xf32>) {
  %w = tract.const dense<0.5> : tensor<32x16x1x1xf32>
  %w24 = tract.const dense<0.5> : tensor<24x16x1x1xf32>
  %w2 = tract.const dense<0.25> : tensor<32x16x1x1xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  %1 = tract.reduce_mean %0 {axes = array<i64: 2, 3>} : tensor<1x32x8x8xf32> -> tensor<1x32x1x1xf32>
  %2 = tract.conv %x, %w24 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x16x8x8xf32>, tensor<24x16x1x1xf32>) -> tensor<1x24x8x8xf32>
  %3 = tract.reduce_mean %2 {axes = array<i64: 2, 3>} : tensor<1x24x8x8xf32> -> tensor<1x24x1x1xf32>
  %4 = tract.conv %x, %w2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  %5 = tract.reduce_mean %4 {axes = array<i64: 1>} : tensor<1x32x8x8xf32> -> tensor<1x1x8x8xf32>
  return %1, %0, %3, %5 : tensor<1x32x1x1xf32>, tensor<1x32x8x8xf32>, tensor<1x24x1x1xf32>, tensor<1x1x8x8xf32>
}

// -----

// A first conv with few input channels feeding a depthwise conv computes
// into lane layout tap by tap (conv_to_lanes): scratch for its 3 x 3 staged
// input rows of 17 floats (1 of padding, 16 of the row).
// CHECK-LABEL: func @stem_chain
// CHECK: tract.conv {{.*}}tract.algorithm = "conv_to_lanes", tract.packed_weights, tract.scratch_bytes = 612 : i64
// CHECK: tract.conv {{.*}}tract.algorithm = "depthwise_lanes_in",
func.func @stem_chain(%x: tensor<1x3x16x16xf32>) -> tensor<1x32x8x8xf32> {
  %w = tract.const dense<0.5> : tensor<32x3x3x3xf32>
  %d = tract.const dense<1.0> : tensor<32x1x3x3xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x3x16x16xf32>, tensor<32x3x3x3xf32>) -> tensor<1x32x8x8xf32>
  %1 = tract.conv %0, %d {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 32} : (tensor<1x32x8x8xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x8x8xf32>
  return %1 : tensor<1x32x8x8xf32>
}

// -----

// No lane layout where a tensor has a second use (the expand's output is
// also returned); a 1x1 conv between two depthwise convs (MobileNet v1)
// reads and writes lanes.
// CHECK-LABEL: func @not_chained
// CHECK: tract.conv {{.*}}tract.algorithm = "gemm_pointwise",
// CHECK: tract.conv {{.*}}tract.algorithm = "depthwise",
// CHECK-LABEL: func @v1_chain
// CHECK: tract.conv {{.*}}tract.algorithm = "depthwise_lanes_out",
// CHECK: tract.conv {{.*}}tract.algorithm = "pointwise_lanes", tract.packed_weights, tract.scratch_bytes = 0
// CHECK: tract.conv {{.*}}tract.algorithm = "depthwise_lanes_in",
func.func @not_chained(%x: tensor<1x16x8x8xf32>) -> (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) {
  %w1 = tract.const dense<0.5> : tensor<32x16x1x1xf32>
  %d = tract.const dense<1.0> : tensor<32x1x3x3xf32>
  %0 = tract.conv %x, %w1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  %1 = tract.conv %0, %d {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 32} : (tensor<1x32x8x8xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x8x8xf32>
  return %0, %1 : tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>
}
func.func @v1_chain(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %d1 = tract.const dense<1.0> : tensor<16x1x3x3xf32>
  %w = tract.const dense<0.5> : tensor<16x16x1x1xf32>
  %d2 = tract.const dense<2.0> : tensor<16x1x3x3xf32>
  %0 = tract.conv %x, %d1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 16} : (tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x8x8xf32>
  %1 = tract.conv %0, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  %2 = tract.conv %1, %d2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 16} : (tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x8x8xf32>
  return %2 : tensor<1x16x8x8xf32>
}

// -----

// Pointwise convs: more than 8 row panels (72 output channels) on fewer
// than 64 pixels (7x7) pack B per block (4 panels of 8 rows, each padded to
// 9: 4 x 9 x 16 floats of scratch);
// few row panels read B in place, with no scratch, down to a last partial
// panel of 9 columns (5x5 = 25 pixels: 16 + 9; two narrow kernels read it).
// CHECK-LABEL: func @pointwise
// CHECK: tract.conv {{.*}}tract.algorithm = "gemm_pointwise", tract.packed_weights, tract.scratch_bytes = 2304 : i64
// CHECK: tract.conv {{.*}}tract.algorithm = "gemm_pointwise", tract.packed_weights, tract.scratch_bytes = 0 : i64
func.func @pointwise(%x: tensor<1x8x7x7xf32>, %y: tensor<1x8x5x5xf32>) -> (tensor<1x72x7x7xf32>, tensor<1x8x5x5xf32>) {
  %w = tract.const dense<0.5> : tensor<72x8x1x1xf32>
  %v = tract.const dense<0.25> : tensor<8x8x1x1xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x7x7xf32>, tensor<72x8x1x1xf32>) -> tensor<1x72x7x7xf32>
  %1 = tract.conv %y, %v {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x5x5xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x5x5xf32>
  return %0, %1 : tensor<1x72x7x7xf32>, tensor<1x8x5x5xf32>
}

// -----

// 3x3 stride-1 convs with constant weights go to Winograd when the runtime's
// cost model says so: F(4x4) for 16 channels on 16x16 (16 tiles: one block
// of 16, scratch 36 x ((16 + 16) x 16 + 2 x 16) floats, a cache line between
// matrices), F(2x2) for 512 channels on 7x7 (F(4x4) would pad 4 tiles to a
// panel of 16; scratch 16 x (1024 x 16 + 2 x 16) floats). The same conv
// with stride 2 runs by taps (conv_by_taps: 16 x 3 staged rows of 17
// floats, one output row of three 16-channel blocks, the widest register
// tile, 816 + 384 floats).
// CHECK-LABEL: func @winograd
// CHECK: tract.conv {{.*}}tract.algorithm = "winograd_f4", tract.packed_weights, tract.scratch_bytes = 78336 : i64
// CHECK: tract.conv {{.*}}tract.algorithm = "winograd_f2", tract.packed_weights, tract.scratch_bytes = 1050624 : i64
// CHECK: tract.conv {{.*}}tract.algorithm = "conv_by_taps", tract.packed_weights, tract.scratch_bytes = 4800 : i64
func.func @winograd(%x: tensor<1x16x16x16xf32>, %y: tensor<1x512x7x7xf32>) -> (tensor<1x16x16x16xf32>, tensor<1x512x7x7xf32>, tensor<1x16x8x8xf32>) {
  %w = tract.const dense<0.5> : tensor<16x16x3x3xf32>
  %v = tract.const dense<0.25> : tensor<512x512x3x3xf32>
  %s = tract.const dense<0.125> : tensor<16x16x3x3xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x16x16x16xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x16x16xf32>
  %1 = tract.conv %y, %v {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32>
  %2 = tract.conv %x, %s {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x16x16x16xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  return %0, %1, %2 : tensor<1x16x16x16xf32>, tensor<1x512x7x7xf32>, tensor<1x16x8x8xf32>
}

// -----

// A constant right operand is packed at compile time and only A takes
// scratch (K = 32 rows of one 8-row panel); two activations are both packed
// per block (B: one panel of 32 rows padded to 33); integer matmuls keep the
// reference kernel.
// CHECK-LABEL: func @matmuls
// CHECK: tract.matmul {{.*}}tract.algorithm = "gemm", tract.packed_weights, tract.scratch_bytes = 1024 : i64
// CHECK: tract.matmul {{.*}}tract.algorithm = "gemm", tract.scratch_bytes = 3136 : i64
// CHECK-NOT: tract.packed_weights
// CHECK: tract.matmul
// CHECK-NOT: tract.algorithm
func.func @matmuls(%x: tensor<4x32xf32>, %y: tensor<32x16xf32>, %i: tensor<2x2xi32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x2xi32>) {
  %w = tract.const dense<0.5> : tensor<32x16xf32>
  %0 = tract.matmul %x, %w : tensor<4x32xf32>, tensor<32x16xf32> -> tensor<4x16xf32>
  %1 = tract.matmul %x, %y : tensor<4x32xf32>, tensor<32x16xf32> -> tensor<4x16xf32>
  %2 = tract.matmul %i, %i : tensor<2x2xi32>, tensor<2x2xi32> -> tensor<2x2xi32>
  return %0, %1, %2 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x2xi32>
}

// -----

// A single row against packed weights (a fully connected layer at batch 1)
// is read in place: no scratch.
// CHECK-LABEL: func @row_matmul
// CHECK: tract.matmul {{.*}}tract.algorithm = "gemm", tract.packed_weights, tract.scratch_bytes = 0 : i64
func.func @row_matmul(%x: tensor<1x32xf32>) -> tensor<1x16xf32> {
  %w = tract.const dense<0.5> : tensor<32x16xf32>
  %0 = tract.matmul %x, %w : tensor<1x32xf32>, tensor<32x16xf32> -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// -----

// One constant read as B by a matmul and as B^T by another: it cannot be
// packed for both, so neither gets it packed.
// CHECK-LABEL: func @shared_weight
// CHECK: tract.matmul {{.*}}tract.algorithm = "gemm", tract.scratch_bytes
// CHECK-NOT: tract.packed_weights
func.func @shared_weight(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %w = tract.const dense<0.5> : tensor<16x16xf32>
  %0 = tract.matmul %x, %w : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
  %1 = tract.matmul %x, %w {transpose_b} : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Where the expanded tensor outgrows L2 (128 channels at 64x64: 2 MB), the
// expand (its ReLU with it) is fused into the depthwise conv: one chained
// kernel whose inputs are the expand's, then the depthwise weights, its
// scratch the depthwise conv's (16 x (9 taps + bias + 4 rows of 65 pixels
// + an output row of 32) floats); the project still reads lane layout.
// CHECK-LABEL: func @expand_fused
// CHECK: %[[K:.*]] = tract.kernel(%arg0, %[[W1:.*]], %[[B1:.*]], %[[D:.*]]) {tract.algorithm = "expand_depthwise_lanes_out", tract.packed_weights, tract.scratch_bytes = 19328 : i64}
// CHECK: ^bb0(%[[X:.*]]: tensor<1x16x64x64xf32>, %[[W:.*]]: tensor<128x16x1x1xf32>, %[[B:.*]]: tensor<128xf32>, %[[DW:.*]]: tensor<128x1x3x3xf32>):
// CHECK-NEXT: %[[E:.*]] = tract.conv %[[X]], %[[W]], %[[B]] {{{[^}]*}}group = 1 : i64{{[^}]*}}}
// CHECK-NEXT: %[[R:.*]] = tract.relu %[[E]]
// CHECK-NEXT: %[[Y:.*]] = tract.conv %[[R]], %[[DW]] {dilations = array<i64: 1, 1>, group = 128 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} :
// CHECK-NEXT: tract.yield %[[Y]]
// CHECK: tract.conv %[[K]], {{.*}}tract.algorithm = "pointwise_from_lanes"
func.func @expand_fused(%x: tensor<1x16x64x64xf32>) -> tensor<1x16x32x32xf32> {
  %w1 = tract.const dense<0.5> : tensor<128x16x1x1xf32>
  %b1 = tract.const dense<0.5> : tensor<128xf32>
  %d = tract.const dense<1.0> : tensor<128x1x3x3xf32>
  %w2 = tract.const dense<0.25> : tensor<16x128x1x1xf32>
  %0 = tract.kernel (%x, %w1, %b1) : (tensor<1x16x64x64xf32>, tensor<128x16x1x1xf32>, tensor<128xf32>) -> tensor<1x128x64x64xf32> {
  ^bb0(%a: tensor<1x16x64x64xf32>, %w: tensor<128x16x1x1xf32>, %b: tensor<128xf32>):
    %c = tract.conv %a, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x16x64x64xf32>, tensor<128x16x1x1xf32>, tensor<128xf32>) -> tensor<1x128x64x64xf32>
    %r = tract.relu %c : tensor<1x128x64x64xf32>
    tract.yield %r : tensor<1x128x64x64xf32>
  }
  %1 = tract.conv %0, %d {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 128} : (tensor<1x128x64x64xf32>, tensor<128x1x3x3xf32>) -> tensor<1x128x32x32xf32>
  %2 = tract.conv %1, %w2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x128x32x32xf32>, tensor<16x128x1x1xf32>) -> tensor<1x16x32x32xf32>
  return %2 : tensor<1x16x32x32xf32>
}

// -----

// A 1x1 conv on one-pixel maps (squeeze-and-excitation) is a fully
// connected layer: weights packed as B; at batch 1 the row is read in place
// (no scratch), at batch 2 A is packed into scratch (matmul_scratch_floats:
// 512 floats).
// CHECK-LABEL: func @fully_connected
// CHECK: tract.conv {{.*}}tract.algorithm = "fully_connected", tract.packed_weights, tract.scratch_bytes = 0 : i64
// CHECK: tract.conv {{.*}}tract.algorithm = "fully_connected", tract.packed_weights, tract.scratch_bytes = 2048 : i64
func.func @fully_connected(%x: tensor<1x64x1x1xf32>, %y: tensor<2x64x1x1xf32>) -> (tensor<1x32x1x1xf32>, tensor<2x32x1x1xf32>) {
  %w = tract.const dense<0.5> : tensor<32x64x1x1xf32>
  %w2 = tract.const dense<0.25> : tensor<32x64x1x1xf32>
  %b = tract.const dense<0.5> : tensor<32xf32>
  %0 = tract.conv %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x64x1x1xf32>, tensor<32x64x1x1xf32>, tensor<32xf32>) -> tensor<1x32x1x1xf32>
  %1 = tract.conv %y, %w2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<2x64x1x1xf32>, tensor<32x64x1x1xf32>) -> tensor<2x32x1x1xf32>
  return %0, %1 : tensor<1x32x1x1xf32>, tensor<2x32x1x1xf32>
}

// -----

// A k x k conv with few input channels and many taps (3 x 7 x 7 = 147, a
// ResNet stem on a small image) on rows under 64 pixels runs tap by tap into
// 16-channel tiles transposed into NCHW, weights packed per 16 output
// channels; scratch: 3 x 7 staged rows of 37 floats (3 of padding, the row's
// 32, 2 more the last window reaches) and one output row of three 16-channel
// blocks (3 x 16 x 16): 1545 floats. 3 x 3 x 3 = 27 taps runs with output
// pixels in vector lanes (conv_row_taps), its weights as they are; scratch:
// 3 x 3 input rows, each in 2 column phases of 16 + 1 (the taps' reach) + 1
// floats: 324.
// CHECK-LABEL: func @conv_by_taps
// CHECK: tract.conv {{.*}}tract.algorithm = "conv_by_taps", tract.packed_weights, tract.scratch_bytes = 6180 : i64
// CHECK: tract.conv {{.*}}tract.algorithm = "conv_row_taps", tract.packed_weights, tract.scratch_bytes = 1296 : i64
func.func @conv_by_taps(%x: tensor<1x3x32x32xf32>) -> (tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>) {
  %w = tract.const dense<0.5> : tensor<32x3x7x7xf32>
  %w3 = tract.const dense<0.5> : tensor<32x3x3x3xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 3, 3, 3, 3>, group = 1} : (tensor<1x3x32x32xf32>, tensor<32x3x7x7xf32>) -> tensor<1x32x16x16xf32>
  %1 = tract.conv %x, %w3 {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x3x32x32xf32>, tensor<32x3x3x3xf32>) -> tensor<1x32x16x16xf32>
  return %0, %1 : tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>
}

// -----

// Deeper convs that Winograd does not take run by taps where that beats
// im2col (conv_by_taps_pays): a 1x7 conv on rows of 17 (32 x 1 staged rows
// of 23 floats, then one output row of 8 blocks: a row that ends mid-tile
// takes its last pixels over a group of blocks; 736 + 8 x 16 x 17 floats),
// and a dilated 3x3. They stay on im2col on rows of 4 pixels, with weights
// past L2 (256 -> 512 x 9 taps: 4.7 MB), as a 1x1 stride-2 conv, and with
// 24 output channels (not whole 16-channel blocks).
// CHECK-LABEL: func @deep_conv_by_taps
// CHECK: tract.conv {{.*}}tract.algorithm = "conv_by_taps", tract.packed_weights, tract.scratch_bytes = 11648 : i64
// CHECK: tract.conv {{.*}}tract.algorithm = "conv_by_taps", tract.packed_weights
// CHECK: tract.conv {{.*}}tract.algorithm = "im2col_gemm", tract.packed_weights
// CHECK: tract.conv {{.*}}tract.algorithm = "im2col_gemm", tract.packed_weights
// CHECK: tract.conv {{.*}}tract.algorithm = "im2col_gemm", tract.packed_weights
// CHECK: tract.conv {{.*}}tract.algorithm = "im2col_gemm", tract.packed_weights
func.func @deep_conv_by_taps(%x: tensor<1x32x17x17xf32>, %y: tensor<1x128x7x7xf32>, %z: tensor<1x256x14x14xf32>) -> (tensor<1x32x17x17xf32>, tensor<1x32x17x17xf32>, tensor<1x128x4x4xf32>, tensor<1x512x7x7xf32>, tensor<1x512x7x7xf32>, tensor<1x24x9x9xf32>) {
  %w17 = tract.const dense<0.5> : tensor<32x32x1x7xf32>
  %wd = tract.const dense<0.5> : tensor<32x32x3x3xf32>
  %w4 = tract.const dense<0.5> : tensor<128x128x3x3xf32>
  %wbig = tract.const dense<0.5> : tensor<512x256x3x3xf32>
  %w1 = tract.const dense<0.5> : tensor<512x256x1x1xf32>
  %w24 = tract.const dense<0.5> : tensor<24x32x3x3xf32>
  %0 = tract.conv %x, %w17 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 3, 0, 3>, group = 1} : (tensor<1x32x17x17xf32>, tensor<32x32x1x7xf32>) -> tensor<1x32x17x17xf32>
  %1 = tract.conv %x, %wd {strides = array<i64: 1, 1>, dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, group = 1} : (tensor<1x32x17x17xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x17x17xf32>
  %2 = tract.conv %y, %w4 {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x128x7x7xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x4x4xf32>
  %3 = tract.conv %z, %wbig {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x256x14x14xf32>, tensor<512x256x3x3xf32>) -> tensor<1x512x7x7xf32>
  %4 = tract.conv %z, %w1 {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x256x14x14xf32>, tensor<512x256x1x1xf32>) -> tensor<1x512x7x7xf32>
  %5 = tract.conv %x, %w24 {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x32x17x17xf32>, tensor<24x32x3x3xf32>) -> tensor<1x24x9x9xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<1x32x17x17xf32>, tensor<1x32x17x17xf32>, tensor<1x128x4x4xf32>, tensor<1x512x7x7xf32>, tensor<1x512x7x7xf32>, tensor<1x24x9x9xf32>
}

// -----

// 3-d convs (video models) run by taps too, each (depth, row) of the output
// a row: a 3x3x3 conv on rows of 16 (64 x 3 x 3 staged rows of 18 floats,
// then one output row of three 16-channel blocks: 10368 + 768 floats), and
// with 7 MB of weights (a kernel that spans depth: im2col would gather its
// operand). A 3x1x1 (temporal only) conv and one on rows of 4 stay on
// im2col.
// CHECK-LABEL: func @conv_3d_by_taps
// CHECK: tract.conv {{.*}}tract.algorithm = "conv_by_taps", tract.packed_weights, tract.scratch_bytes = 44544 : i64
// CHECK: tract.conv {{.*}}tract.algorithm = "conv_by_taps", tract.packed_weights
// CHECK: tract.conv {{.*}}tract.algorithm = "im2col_gemm", tract.packed_weights
// CHECK: tract.conv {{.*}}tract.algorithm = "im2col_gemm", tract.packed_weights
func.func @conv_3d_by_taps(%x: tensor<1x64x4x16x16xf32>, %y: tensor<1x256x2x7x7xf32>, %z: tensor<1x256x1x4x4xf32>) -> (tensor<1x64x4x16x16xf32>, tensor<1x256x2x7x7xf32>, tensor<1x64x4x16x16xf32>, tensor<1x256x1x4x4xf32>) {
  %w = tract.const dense<0.5> : tensor<64x64x3x3x3xf32>
  %wbig = tract.const dense<0.5> : tensor<256x256x3x3x3xf32>
  %wt = tract.const dense<0.5> : tensor<64x64x3x1x1xf32>
  %w4 = tract.const dense<0.5> : tensor<256x256x3x3x3xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>, group = 1} : (tensor<1x64x4x16x16xf32>, tensor<64x64x3x3x3xf32>) -> tensor<1x64x4x16x16xf32>
  %1 = tract.conv %y, %wbig {strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>, group = 1} : (tensor<1x256x2x7x7xf32>, tensor<256x256x3x3x3xf32>) -> tensor<1x256x2x7x7xf32>
  %2 = tract.conv %x, %wt {strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 1, 0, 0, 1, 0, 0>, group = 1} : (tensor<1x64x4x16x16xf32>, tensor<64x64x3x1x1xf32>) -> tensor<1x64x4x16x16xf32>
  %3 = tract.conv %z, %w4 {strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>, group = 1} : (tensor<1x256x1x4x4xf32>, tensor<256x256x3x3x3xf32>) -> tensor<1x256x1x4x4xf32>
  return %0, %1, %2, %3 : tensor<1x64x4x16x16xf32>, tensor<1x256x2x7x7xf32>, tensor<1x64x4x16x16xf32>, tensor<1x256x1x4x4xf32>
}

// -----

// A 3x3 stride-1 conv that Winograd's cost model gives F(2x2) runs by taps
// on rows of 7 pixels (SqueezeNet 1.0's fire modules at a 64 x 64 input),
// stays on F(2x2) at 8 x 8; F(4x4) at 14 x 14 is not affected.
// CHECK-LABEL: func @taps_over_winograd_f2
// CHECK: tract.conv {{.*}}tract.algorithm = "conv_by_taps", tract.packed_weights
// CHECK: tract.conv {{.*}}tract.algorithm = "winograd_f2", tract.packed_weights
// CHECK: tract.conv {{.*}}tract.algorithm = "winograd_f4", tract.packed_weights
func.func @taps_over_winograd_f2(%x: tensor<1x48x7x7xf32>, %y: tensor<1x48x8x8xf32>, %z: tensor<1x48x14x14xf32>) -> (tensor<1x192x7x7xf32>, tensor<1x192x8x8xf32>, tensor<1x192x14x14xf32>) {
  %w = tract.const dense<0.5> : tensor<192x48x3x3xf32>
  %v = tract.const dense<0.25> : tensor<192x48x3x3xf32>
  %u = tract.const dense<0.125> : tensor<192x48x3x3xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x48x7x7xf32>, tensor<192x48x3x3xf32>) -> tensor<1x192x7x7xf32>
  %1 = tract.conv %y, %v {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x48x8x8xf32>, tensor<192x48x3x3xf32>) -> tensor<1x192x8x8xf32>
  %2 = tract.conv %z, %u {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x48x14x14xf32>, tensor<192x48x3x3xf32>) -> tensor<1x192x14x14xf32>
  return %0, %1, %2 : tensor<1x192x7x7xf32>, tensor<1x192x8x8xf32>, tensor<1x192x14x14xf32>
}

// -----

// Output pixels in vector lanes (conv_row_taps): the 7x7 stem on rows of 64
// (3 x 7 rows of 2 phases x (64 + 3 + 1) floats: 2856), weights that are
// not constants (read as they come), a 1-d conv of one input channel
// (80 taps at stride 4: 1 x 1 x 4 phases x (240 + 19 + 1) = 1040 floats);
// 16 input channels (stride 2) stay on im2col.
// CHECK-LABEL: func @conv_row_taps
// CHECK: tract.conv {{.*}}tract.algorithm = "conv_row_taps", tract.packed_weights, tract.scratch_bytes = 11424 : i64
// CHECK: tract.conv {{.*}}tract.algorithm = "conv_row_taps", tract.scratch_bytes = 11424 : i64
// CHECK: tract.conv {{.*}}tract.algorithm = "conv_row_taps", tract.packed_weights, tract.scratch_bytes = 4160 : i64
// CHECK: tract.conv {{.*}}tract.algorithm = "im2col_gemm"
func.func @conv_row_taps(%x: tensor<1x3x128x128xf32>, %wx: tensor<16x3x7x7xf32>, %a: tensor<1x1x1000xf32>, %y: tensor<1x16x20x20xf32>) -> (tensor<1x16x64x64xf32>, tensor<1x16x64x64xf32>, tensor<1x8x231xf32>, tensor<1x8x10x10xf32>) {
  %w = tract.const dense<0.5> : tensor<16x3x7x7xf32>
  %wa = tract.const dense<0.5> : tensor<8x1x80xf32>
  %wy = tract.const dense<0.5> : tensor<8x16x3x3xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 3, 3, 3, 3>, group = 1} : (tensor<1x3x128x128xf32>, tensor<16x3x7x7xf32>) -> tensor<1x16x64x64xf32>
  %1 = tract.conv %x, %wx {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 3, 3, 3, 3>, group = 1} : (tensor<1x3x128x128xf32>, tensor<16x3x7x7xf32>) -> tensor<1x16x64x64xf32>
  %2 = tract.conv %a, %wa {strides = array<i64: 4>, dilations = array<i64: 1>, pads = array<i64: 0, 0>, group = 1} : (tensor<1x1x1000xf32>, tensor<8x1x80xf32>) -> tensor<1x8x231xf32>
  %3 = tract.conv %y, %wy {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x16x20x20xf32>, tensor<8x16x3x3xf32>) -> tensor<1x8x10x10xf32>
  return %0, %1, %2, %3 : tensor<1x16x64x64xf32>, tensor<1x16x64x64xf32>, tensor<1x8x231xf32>, tensor<1x8x10x10xf32>
}

// -----

// An element-wise kernel with no conv anchor (other exporters' hard-swish,
// x * clip(x + 3) / 6, fused as a map) feeding a depthwise conv: it is no
// lane producer, so the depthwise conv stays plain (this crashed tractc on
// paddle2onnx's OCR models).
// CHECK-LABEL: func @map_before_depthwise
// CHECK: tract.kernel
// CHECK-NOT: tract.algorithm
// CHECK: tract.yield
// CHECK: tract.conv {{.*}}tract.algorithm = "depthwise",
func.func @map_before_depthwise(%x: tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %d = tract.const dense<1.0> : tensor<32x1x3x3xf32>
  %k = tract.kernel(%x) : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32> {
  ^bb0(%a: tensor<1x32x8x8xf32>):
    %s = tract.sigmoid %a : tensor<1x32x8x8xf32>
    %m = tract.mul %a, %s : tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32> -> tensor<1x32x8x8xf32>
    tract.yield %m : tensor<1x32x8x8xf32>
  }
  %1 = tract.conv %k, %d {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 32} : (tensor<1x32x8x8xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x8x8xf32>
  return %1 : tensor<1x32x8x8xf32>
}

// -----

// An f32 RoiAlign reads its input channels-last from scratch: the whole
// input, 2 x 3 x 5 x 6 floats; an f64 one stays on the reference kernel.
// CHECK-LABEL: func @roi_align
// CHECK: tract.roi_align {{.*}}tract.algorithm = "channels_last", tract.scratch_bytes = 720 : i64
// CHECK: tract.roi_align
// CHECK-NOT: tract.algorithm
// CHECK: return
func.func @roi_align(%x: tensor<2x3x5x6xf32>, %rois: tensor<4x4xf32>, %b: tensor<4xi64>,
                     %xd: tensor<2x3x5x6xf64>, %roisd: tensor<4x4xf64>) -> (tensor<4x3x2x2xf32>, tensor<4x3x2x2xf64>) {
  %0 = tract.roi_align %x, %rois, %b {sampling_ratio = 2 : i64, spatial_scale = 1.0 : f32, max_mode = false, half_pixel = true} : (tensor<2x3x5x6xf32>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x2x2xf32>
  %1 = tract.roi_align %xd, %roisd, %b {sampling_ratio = 2 : i64, spatial_scale = 1.0 : f32, max_mode = false, half_pixel = true} : (tensor<2x3x5x6xf64>, tensor<4x4xf64>, tensor<4xi64>) -> tensor<4x3x2x2xf64>
  return %0, %1 : tensor<4x3x2x2xf32>, tensor<4x3x2x2xf64>
}

// -----

// An f32 NonMaxSuppression sorts its candidates in scratch: 32-bit indices
// and five columns of kept boxes for 7 boxes, 6 x 7 floats.
// CHECK-LABEL: func @nms
// CHECK: tract.non_max_suppression {{.*}}tract.algorithm = "sorted", tract.scratch_bytes = 168 : i64
func.func @nms(%boxes: tensor<1x7x4xf32>, %scores: tensor<1x2x7xf32>) -> tensor<14x3xi64> {
  %0 = tract.non_max_suppression %boxes, %scores {center_point_box = false} : (tensor<1x7x4xf32>, tensor<1x2x7xf32>) -> tensor<14x3xi64>
  return %0 : tensor<14x3xi64>
}

// -----

// Without boxes or input pixels there is nothing to sort or transpose: the
// reference kernels, no scratch.
// CHECK-LABEL: func @empty_detection_ops
// CHECK-NOT: tract.algorithm
// CHECK: return
func.func @empty_detection_ops(%boxes: tensor<1x0x4xf32>, %scores: tensor<1x2x0xf32>,
                               %x: tensor<1x3x0x6xf32>, %rois: tensor<4x4xf32>, %b: tensor<4xi64>) -> (tensor<0x3xi64>, tensor<4x3x2x2xf32>) {
  %0 = tract.non_max_suppression %boxes, %scores {center_point_box = false} : (tensor<1x0x4xf32>, tensor<1x2x0xf32>) -> tensor<0x3xi64>
  %1 = tract.roi_align %x, %rois, %b {sampling_ratio = 2 : i64, spatial_scale = 1.0 : f32, max_mode = false, half_pixel = true} : (tensor<1x3x0x6xf32>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x2x2xf32>
  return %0, %1 : tensor<0x3xi64>, tensor<4x3x2x2xf32>
}

// -----

// One weight on three map sizes (a detection head over FPN levels): alone,
// 40x40 would be F(4x4), 6x6 F(2x2) and 3x3 im2col, and no one packing
// would serve all three. They all take the tile that costs least summed
// over them (F(4x4): the 40x40 map is most of the work), so the weight is
// packed once. On 6x6 and 3x3 alone, im2col costs least.
// CHECK-LABEL: func @shared_weight_levels
// CHECK: tract.conv {{.*}}tract.algorithm = "winograd_f4", tract.packed_weights
// CHECK: tract.conv {{.*}}tract.algorithm = "winograd_f4", tract.packed_weights
// CHECK: tract.conv {{.*}}tract.algorithm = "winograd_f4", tract.packed_weights
// CHECK-LABEL: func @shared_weight_small_levels
// CHECK: tract.conv {{.*}}tract.algorithm = "im2col_gemm", tract.packed_weights
// CHECK: tract.conv {{.*}}tract.algorithm = "im2col_gemm", tract.packed_weights
func.func @shared_weight_levels(%a: tensor<1x64x40x40xf32>, %b: tensor<1x64x6x6xf32>, %c: tensor<1x64x3x3xf32>) -> (tensor<1x64x40x40xf32>, tensor<1x64x6x6xf32>, tensor<1x64x3x3xf32>) {
  %w = tract.const dense<0.5> : tensor<64x64x3x3xf32>
  %0 = tract.conv %a, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x64x40x40xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x40x40xf32>
  %1 = tract.conv %b, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x64x6x6xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x6x6xf32>
  %2 = tract.conv %c, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x64x3x3xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x3x3xf32>
  return %0, %1, %2 : tensor<1x64x40x40xf32>, tensor<1x64x6x6xf32>, tensor<1x64x3x3xf32>
}
func.func @shared_weight_small_levels(%b: tensor<1x64x6x6xf32>, %c: tensor<1x64x3x3xf32>) -> (tensor<1x64x6x6xf32>, tensor<1x64x3x3xf32>) {
  %w = tract.const dense<0.5> : tensor<64x64x3x3xf32>
  %0 = tract.conv %b, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x64x6x6xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x6x6xf32>
  %1 = tract.conv %c, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x64x3x3xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x3x3xf32>
  return %0, %1 : tensor<1x64x6x6xf32>, tensor<1x64x3x3xf32>
}
