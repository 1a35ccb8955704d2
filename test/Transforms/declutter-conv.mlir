// RUN: tract-opt %s --split-input-file --tract-declutter | FileCheck %s
// BatchNormalization's per-channel scale and shift, and zero pads, folded
// into convolutions; kernel taps that read only padding dropped
// (ConvRewrites.cpp).

// conv * a + b with a = [2, 3], b = [1, -1] per channel: weights and bias
// absorb them.
// CHECK-LABEL: func @conv_bn_fold
// CHECK-DAG: %[[W:.+]] = tract.const dense<{{.+}}2.000000e+00]]], {{.+}}3.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[B:.+]] = tract.const dense<[2.000000e+00, -4.000000e+00]> : tensor<2xf32>
// CHECK: %[[Y:.+]] = tract.conv %arg0, %[[W]], %[[B]]
// CHECK-NEXT: return %[[Y]]
func.func @conv_bn_fold(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = tract.const dense<[[[[1.0]]], [[[1.0]]]]> : tensor<2x1x1x1xf32>
  %bias = tract.const dense<[0.5, -1.0]> : tensor<2xf32>
  %a = tract.const dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %b = tract.const dense<[[[1.0]], [[-1.0]]]> : tensor<2x1x1xf32>
  %0 = tract.conv %x, %w, %bias {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %1 = tract.mul %0, %a : tensor<1x2x3x3xf32>, tensor<2x1x1xf32> -> tensor<1x2x3x3xf32>
  %2 = tract.add %1, %b : tensor<1x2x3x3xf32>, tensor<2x1x1xf32> -> tensor<1x2x3x3xf32>
  return %2 : tensor<1x2x3x3xf32>
}

// -----

// A scale that varies along the width, not the channels, stays a multiply.
// CHECK-LABEL: func @conv_bn_nofold
// CHECK: tract.conv
// CHECK: tract.mul
func.func @conv_bn_nofold(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = tract.const dense<[[[[1.0]]], [[[1.0]]]]> : tensor<2x1x1x1xf32>
  %a = tract.const dense<[2.0, 3.0, 4.0]> : tensor<3xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %1 = tract.mul %0, %a : tensor<1x2x3x3xf32>, tensor<3xf32> -> tensor<1x2x3x3xf32>
  return %1 : tensor<1x2x3x3xf32>
}

// -----

// CHECK-LABEL: func @pad_into_conv_fold
// CHECK-NOT: tract.pad
// CHECK: tract.conv %arg0, %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 2, 1, 3, 1>, strides = array<i64: 1, 1>}
func.func @pad_into_conv_fold(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x8x5xf32> {
  %w = tract.const dense<1.0> : tensor<1x1x1x1xf32>
  %0 = tract.pad %x {pads = array<i64: 0, 0, 1, 0, 0, 0, 2, 0>} : tensor<1x1x3x3xf32> -> tensor<1x1x6x3xf32>
  %1 = tract.conv %0, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x1x6x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x8x5xf32>
  return %1 : tensor<1x1x8x5xf32>
}

// -----

// Reflection padding is not zero padding.
// CHECK-LABEL: func @pad_into_conv_nofold
// CHECK: tract.pad
// CHECK: tract.conv
func.func @pad_into_conv_nofold(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x5x5xf32> {
  %w = tract.const dense<1.0> : tensor<1x1x1x1xf32>
  %0 = tract.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = "reflect"} : tensor<1x1x3x3xf32> -> tensor<1x1x5x5xf32>
  %1 = tract.conv %0, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x1x5x5xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x5x5xf32>
  return %1 : tensor<1x1x5x5xf32>
}

// -----

// DeepLabV3's ASPP: a 3x3 conv dilated by 12 over a 4x4 map reads the input
// with its centre tap only; the eight others meet padding everywhere and go:
// a 1x1 conv without pads (and its dilation 1).
// CHECK-LABEL: func @dead_taps_fold
// CHECK: %[[W:.+]] = tract.const dense<{{.*}}> : tensor<3x2x1x1xf32>
// CHECK: tract.conv %arg0, %[[W]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
func.func @dead_taps_fold(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %w = tract.const dense<1.0> : tensor<3x2x3x3xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 12, 12>, pads = array<i64: 12, 12, 12, 12>, group = 1} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// A 3x3 "same" conv over a single row: its top and bottom taps read padding
// only; the kept middle row is w[..][1][..] (4, 5, 6), the width untouched.
// CHECK-LABEL: func @dead_taps_one_axis_fold
// CHECK: %[[W:.+]] = tract.const dense<{{\[\[\[}}[4.000000e+00, 5.000000e+00, 6.000000e+00]]]]> : tensor<1x1x1x3xf32>
// CHECK: tract.conv %arg0, %[[W]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>}
func.func @dead_taps_one_axis_fold(%x: tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32> {
  %w = tract.const dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : tensor<1x1x3x3xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x1x1x8xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x1x8xf32>
  return %0 : tensor<1x1x1x8xf32>
}

// -----

// Every tap of a 3x3 "same" conv over 4x4 reads the input somewhere; and a
// dilated 1-d conv whose only live tap (the middle one) would need a begin
// pad of -1 (a crop) keeps its three taps.
// CHECK-LABEL: func @dead_taps_nofold
// CHECK: tract.conv %arg0, %{{.*}} {{{.*}}pads = array<i64: 1, 1, 1, 1>{{.*}}} : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>)
// CHECK: tract.conv %arg1, %{{.*}} {{{.*}}pads = array<i64: 2, 1>{{.*}}} : (tensor<1x1x4xf32>, tensor<1x1x3xf32>)
func.func @dead_taps_nofold(%x: tensor<1x1x4x4xf32>, %y: tensor<1x1x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x1xf32>) {
  %w = tract.const dense<1.0> : tensor<1x1x3x3xf32>
  %v = tract.const dense<1.0> : tensor<1x1x3xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x4x4xf32>
  %1 = tract.conv %y, %v {strides = array<i64: 1>, dilations = array<i64: 3>, pads = array<i64: 2, 1>, group = 1} : (tensor<1x1x4xf32>, tensor<1x1x3xf32>) -> tensor<1x1x1xf32>
  return %0, %1 : tensor<1x1x4x4xf32>, tensor<1x1x1xf32>
}

// -----

// Zero padding counted in the average: the pool pads itself.
// CHECK-LABEL: func @pad_into_avg_pool_fold
// CHECK-NOT: tract.pad
// CHECK: tract.avg_pool %arg0 {count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
func.func @pad_into_avg_pool_fold(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %0 = tract.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x6x6xf32>
  %1 = tract.avg_pool %0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, count_include_pad = true} : tensor<1x1x6x6xf32> -> tensor<1x1x4x4xf32>
  return %1 : tensor<1x1x4x4xf32>
}

// -----

// A pool without pads of its own (PyTorch's export of avg_pool2d with
// padding, Inception-v3's): every window lies in the padded tensor, so the
// divisor counts the zeros either way; the pool pads itself, counting them.
// CHECK-LABEL: func @pad_into_unpadded_avg_pool_fold
// CHECK-NOT: tract.pad
// CHECK: tract.avg_pool %arg0 {count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
func.func @pad_into_unpadded_avg_pool_fold(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %0 = tract.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x6x6xf32>
  %1 = tract.avg_pool %0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x1x6x6xf32> -> tensor<1x1x4x4xf32>
  return %1 : tensor<1x1x4x4xf32>
}

// -----

// With pads of its own and without count_include_pad the explicit zeros
// count, the pool's own pads do not: it stays. So does a pool in ceil mode.
// CHECK-LABEL: func @pad_into_avg_pool_nofold
// CHECK: tract.pad
// CHECK: tract.avg_pool
// CHECK: tract.pad
// CHECK: tract.avg_pool
func.func @pad_into_avg_pool_nofold(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x6x6xf32>, tensor<1x1x3x3xf32>) {
  %0 = tract.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x6x6xf32>
  %1 = tract.avg_pool %0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x1x6x6xf32> -> tensor<1x1x6x6xf32>
  %2 = tract.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x6x6xf32>
  %3 = tract.avg_pool %2 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = true} : tensor<1x1x6x6xf32> -> tensor<1x1x3x3xf32>
  return %1, %3 : tensor<1x1x6x6xf32>, tensor<1x1x3x3xf32>
}

// -----

// -inf padding never wins a max.
// CHECK-LABEL: func @pad_into_max_pool_fold
// CHECK-NOT: tract.pad
// CHECK: tract.max_pool %arg0 {{.*}}pads = array<i64: 1, 0, 1, 0>
func.func @pad_into_max_pool_fold(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x2xf32> {
  %0 = tract.pad %x {pads = array<i64: 0, 0, 1, 0, 0, 0, 1, 0>, value = 0xFFF0000000000000 : f64} : tensor<1x1x4x4xf32> -> tensor<1x1x6x4xf32>
  %1 = tract.max_pool %0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x1x6x4xf32> -> tensor<1x1x3x2xf32>
  return %1 : tensor<1x1x3x2xf32>
}

// -----

// Zero padding can win a max over negative values: it stays.
// CHECK-LABEL: func @pad_into_max_pool_nofold
// CHECK: tract.pad
// CHECK: tract.max_pool
func.func @pad_into_max_pool_nofold(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x2xf32> {
  %0 = tract.pad %x {pads = array<i64: 0, 0, 1, 0, 0, 0, 1, 0>} : tensor<1x1x4x4xf32> -> tensor<1x1x6x4xf32>
  %1 = tract.max_pool %0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x1x6x4xf32> -> tensor<1x1x3x2xf32>
  return %1 : tensor<1x1x3x2xf32>
}

// -----

// BatchNorm1d's scale after a Linear lands in the weight columns.
// CHECK-LABEL: func @matmul_scale_fold
// CHECK: %[[W:.+]] = tract.const dense<{{\[}}[2.000000e+00, 3.000000e+00], [4.000000e+00, 6.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: %[[M:.+]] = tract.matmul %arg0, %[[W]]
// CHECK-NEXT: return %[[M]]
func.func @matmul_scale_fold(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = tract.const dense<[[1.0, 1.0], [2.0, 2.0]]> : tensor<2x2xf32>
  %c = tract.const dense<[2.0, 3.0]> : tensor<2xf32>
  %0 = tract.matmul %x, %w : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %1 = tract.mul %0, %c : tensor<3x2xf32>, tensor<2xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// A scale per row (not per column) is not a property of the weights.
// CHECK-LABEL: func @matmul_scale_nofold
// CHECK: tract.matmul
// CHECK: tract.mul
func.func @matmul_scale_nofold(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = tract.const dense<[[1.0, 1.0], [2.0, 2.0]]> : tensor<2x2xf32>
  %c = tract.const dense<[[2.0], [3.0], [4.0]]> : tensor<3x1xf32>
  %0 = tract.matmul %x, %w : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %1 = tract.mul %0, %c : tensor<3x2xf32>, tensor<3x1xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}
