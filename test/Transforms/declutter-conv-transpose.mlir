// RUN: tract-opt %s --split-input-file --tract-declutter | FileCheck %s
// Transposed convs as one conv over their stride phases, interleaved by a
// transpose and cropped; per-channel Mul/Add folded into them first
// (ConvTransposeRewrites.cpp).

// k = s = 2: each phase is a 1x1 conv (channel R = 2*i + j takes tap (i, j)
// of every input channel), the phases interleave to a 4x4 map, no crop.
// CHECK-LABEL: func @k2_s2_fold
// CHECK-DAG: %[[W:.+]] = tract.const dense<{{\[}}{{\[}}{{\[}}[1.000000e+00]], {{\[}}[5.000000e+00]]], {{\[}}{{\[}}[2.000000e+00]], {{\[}}[6.000000e+00]]], {{\[}}{{\[}}[3.000000e+00]], {{\[}}[7.000000e+00]]], {{\[}}{{\[}}[4.000000e+00]], {{\[}}[8.000000e+00]]]]> : tensor<4x2x1x1xf32>
// CHECK-DAG: %[[B:.+]] = tract.const dense<5.000000e-01> : tensor<4xf32>
// CHECK: %[[C:.+]] = tract.conv %arg0, %[[W]], %[[B]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : {{.+}} -> tensor<1x4x2x2xf32>
// CHECK: %[[S:.+]] = tract.reshape %[[C]] : tensor<1x4x2x2xf32> -> tensor<1x1x2x2x2x2xf32>
// CHECK: %[[T:.+]] = tract.transpose %[[S]] {perm = array<i64: 0, 1, 4, 2, 5, 3>}
// CHECK: %[[Y:.+]] = tract.reshape %[[T]] : tensor<1x1x2x2x2x2xf32> -> tensor<1x1x4x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @k2_s2_fold(%x: tensor<1x2x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %w = tract.const dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[5.0, 6.0], [7.0, 8.0]]]]> : tensor<2x1x2x2xf32>
  %b = tract.const dense<[0.5]> : tensor<1xf32>
  %0 = tract.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1} : (tensor<1x2x2x2xf32>, tensor<2x1x2x2xf32>, tensor<1xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// k = 3, s = 2, pads 1 / 1, output_padding 1 (1-d): two taps per phase,
// phase 0 weighs x[Q-1], x[Q] with w[2], w[0]; phase 1 with 0 (past the
// kernel), w[1]. Positions Q*2+R from 0 to 9 are computed, 1 to 8 kept.
// CHECK-LABEL: func @k3_s2_pads_fold
// CHECK: %[[W:.+]] = tract.const dense<{{\[}}{{\[}}[3.000000e+00, 1.000000e+00], [6.000000e+00, 4.000000e+00]], {{\[}}[0.000000e+00, 2.000000e+00], [0.000000e+00, 5.000000e+00]]]> : tensor<2x2x2xf32>
// CHECK: %[[C:.+]] = tract.conv %arg0, %[[W]] {{{.+}}pads = array<i64: 1, 1>{{.+}}} : {{.+}} -> tensor<1x2x5xf32>
// CHECK: tract.reshape %[[C]] : tensor<1x2x5xf32> -> tensor<1x1x2x5xf32>
// CHECK: tract.transpose {{.+}} {perm = array<i64: 0, 1, 3, 2>}
// CHECK: %[[M:.+]] = tract.reshape {{.+}} : tensor<1x1x5x2xf32> -> tensor<1x1x10xf32>
// CHECK: %[[Y:.+]] = tract.slice %[[M]] {limits = array<i64: 1, 1, 9>, starts = array<i64: 0, 0, 1>, steps = array<i64: 1, 1, 1>}
// CHECK-NEXT: return %[[Y]]
func.func @k3_s2_pads_fold(%x: tensor<1x2x4xf32>) -> tensor<1x1x8xf32> {
  %w = tract.const dense<[[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]> : tensor<2x1x3xf32>
  %0 = tract.conv_transpose %x, %w {strides = array<i64: 2>, dilations = array<i64: 1>, pads = array<i64: 1, 1>, output_padding = array<i64: 1>, group = 1} : (tensor<1x2x4xf32>, tensor<2x1x3xf32>) -> tensor<1x1x8xf32>
  return %0 : tensor<1x1x8xf32>
}

// -----

// Stride 1: a conv with the kernel flipped and k - 1 - pad padding, no
// interleave and no crop.
// CHECK-LABEL: func @s1_fold
// CHECK: %[[W:.+]] = tract.const dense<{{\[}}{{\[}}[3.000000e+00, 2.000000e+00, 1.000000e+00], [6.000000e+00, 5.000000e+00, 4.000000e+00]]]> : tensor<1x2x3xf32>
// CHECK: %[[Y:.+]] = tract.conv %arg0, %[[W]] {{{.+}}pads = array<i64: 1, 1>{{.+}}} : {{.+}} -> tensor<1x1x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @s1_fold(%x: tensor<1x2x4xf32>) -> tensor<1x1x4xf32> {
  %w = tract.const dense<[[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]> : tensor<2x1x3xf32>
  %0 = tract.conv_transpose %x, %w {strides = array<i64: 1>, dilations = array<i64: 1>, pads = array<i64: 1, 1>, output_padding = array<i64: 0>, group = 1} : (tensor<1x2x4xf32>, tensor<2x1x3xf32>) -> tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

// -----

// A bias Add and a BatchNormalization's scale after it fold into its bias
// and weights (output channel 1 is w's dim 1) before the lowering.
// CHECK-LABEL: func @per_channel_fold
// CHECK-DAG: %[[W:.+]] = tract.const dense<{{\[+}}1.000000e+00{{\]+}}, {{\[+}}1.000000e+00{{\]+}}, {{\[+}}3.000000e+00{{\]+}}, {{\[+}}3.000000e+00{{\]+}}> : tensor<4x1x1x1xf32>
// CHECK-DAG: %[[B:.+]] = tract.const dense<[2.000000e+00, 2.000000e+00, 3.000000e+00, 3.000000e+00]> : tensor<4xf32>
// CHECK: tract.conv %arg0, %[[W]], %[[B]]
// CHECK-NOT: tract.add
// CHECK-NOT: tract.mul
// CHECK: return
func.func @per_channel_fold(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x4xf32> {
  %w = tract.const dense<[[[[1.0, 1.0]], [[1.0, 1.0]]]]> : tensor<1x2x1x2xf32>
  %bias = tract.const dense<[[[2.0]], [[1.0]]]> : tensor<2x1x1xf32>
  %scale = tract.const dense<[[[1.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %0 = tract.conv_transpose %x, %w {strides = array<i64: 1, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1} : (tensor<1x1x2x2xf32>, tensor<1x2x1x2xf32>) -> tensor<1x2x2x4xf32>
  %1 = tract.add %0, %bias : tensor<1x2x2x4xf32>, tensor<2x1x1xf32> -> tensor<1x2x2x4xf32>
  %2 = tract.mul %1, %scale : tensor<1x2x2x4xf32>, tensor<2x1x1xf32> -> tensor<1x2x2x4xf32>
  return %2 : tensor<1x2x2x4xf32>
}

// -----

// Dilated, depthwise (one input channel per group) and non-constant weights
// stay transposed convs.
// CHECK-LABEL: func @dilated_nofold
// CHECK: tract.conv_transpose
// CHECK-NOT: tract.conv 
func.func @dilated_nofold(%x: tensor<1x2x4xf32>) -> tensor<1x1x11xf32> {
  %w = tract.const dense<[[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]> : tensor<2x1x3xf32>
  %0 = tract.conv_transpose %x, %w {strides = array<i64: 2>, dilations = array<i64: 2>, pads = array<i64: 0, 0>, output_padding = array<i64: 0>, group = 1} : (tensor<1x2x4xf32>, tensor<2x1x3xf32>) -> tensor<1x1x11xf32>
  return %0 : tensor<1x1x11xf32>
}

// CHECK-LABEL: func @depthwise_nofold
// CHECK: tract.conv_transpose
func.func @depthwise_nofold(%x: tensor<1x2x4xf32>) -> tensor<1x2x8xf32> {
  %w = tract.const dense<[[[1.0, 2.0]], [[4.0, 5.0]]]> : tensor<2x1x2xf32>
  %0 = tract.conv_transpose %x, %w {strides = array<i64: 2>, dilations = array<i64: 1>, pads = array<i64: 0, 0>, output_padding = array<i64: 0>, group = 2} : (tensor<1x2x4xf32>, tensor<2x1x2xf32>) -> tensor<1x2x8xf32>
  return %0 : tensor<1x2x8xf32>
}

// CHECK-LABEL: func @runtime_weights_nofold
// CHECK: tract.conv_transpose
func.func @runtime_weights_nofold(%x: tensor<1x2x4xf32>, %w: tensor<2x1x2xf32>) -> tensor<1x1x8xf32> {
  %0 = tract.conv_transpose %x, %w {strides = array<i64: 2>, dilations = array<i64: 1>, pads = array<i64: 0, 0>, output_padding = array<i64: 0>, group = 1} : (tensor<1x2x4xf32>, tensor<2x1x2xf32>) -> tensor<1x1x8xf32>
  return %0 : tensor<1x1x8xf32>
}

// -----

// Pads past a kernel's reach at the start (pad 4 >= k = 3 with s = 1
// would need a negative conv pad): left as it is.
// CHECK-LABEL: func @deep_crop_nofold
// CHECK: tract.conv_transpose
func.func @deep_crop_nofold(%x: tensor<1x2x8xf32>) -> tensor<1x1x2xf32> {
  %w = tract.const dense<[[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]> : tensor<2x1x3xf32>
  %0 = tract.conv_transpose %x, %w {strides = array<i64: 1>, dilations = array<i64: 1>, pads = array<i64: 4, 4>, output_padding = array<i64: 0>, group = 1} : (tensor<1x2x8xf32>, tensor<2x1x3xf32>) -> tensor<1x1x2xf32>
  return %0 : tensor<1x1x2xf32>
}

// -----

// k = 1, s = 3 in 2-d: 9 phases of one tap each for one tap of kernel, 8 of
// them zeros (over 4x the kernel's taps): left as it is.
// CHECK-LABEL: func @sparse_phases_nofold
// CHECK: tract.conv_transpose
func.func @sparse_phases_nofold(%x: tensor<1x2x3x3xf32>) -> tensor<1x1x7x7xf32> {
  %w = tract.const dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %0 = tract.conv_transpose %x, %w {strides = array<i64: 3, 3>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1} : (tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x1x7x7xf32>
  return %0 : tensor<1x1x7x7xf32>
}
