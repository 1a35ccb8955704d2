// RUN: tract-opt %s --split-input-file --tract-declutter | FileCheck %s
// Layer normalisation written out as a graph (NormRewrites.cpp).

// torch's opset-13 LayerNorm: (x - m) / sqrt(mean((x - m)^2) + eps) * g + b
// CHECK-LABEL: func @layer_norm_fold
// CHECK-DAG: %[[G:.+]] = tract.const dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[B:.+]] = tract.const dense<[1.000000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK: %[[Y:.+]] = tract.layer_norm %arg0, %[[G]], %[[B]] {axis = 2 : i64, epsilon = 9.99999974E-6 : f32}
// CHECK-NEXT: return %[[Y]]
func.func @layer_norm_fold(%x: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %two = tract.const dense<2.0> : tensor<f32>
  %eps = tract.const dense<1.0e-5> : tensor<f32>
  %g = tract.const dense<[2.0, 3.0]> : tensor<2xf32>
  %b = tract.const dense<[1.0, 0.5]> : tensor<2xf32>
  %m = tract.reduce_mean %x {axes = array<i64: 2>} : tensor<1x3x2xf32> -> tensor<1x3x1xf32>
  %d = tract.sub %x, %m : tensor<1x3x2xf32>, tensor<1x3x1xf32> -> tensor<1x3x2xf32>
  %sq = tract.pow %d, %two : tensor<1x3x2xf32>, tensor<f32> -> tensor<1x3x2xf32>
  %v = tract.reduce_mean %sq {axes = array<i64: 2>} : tensor<1x3x2xf32> -> tensor<1x3x1xf32>
  %ve = tract.add %v, %eps : tensor<1x3x1xf32>, tensor<f32> -> tensor<1x3x1xf32>
  %s = tract.sqrt %ve : tensor<1x3x1xf32>
  %n = tract.div %d, %s : tensor<1x3x2xf32>, tensor<1x3x1xf32> -> tensor<1x3x2xf32>
  %y0 = tract.mul %n, %g : tensor<1x3x2xf32>, tensor<2xf32> -> tensor<1x3x2xf32>
  %y = tract.add %y0, %b : tensor<1x3x2xf32>, tensor<2xf32> -> tensor<1x3x2xf32>
  return %y : tensor<1x3x2xf32>
}

// -----

// Normalising over the middle axis is not a layer norm of trailing axes.
// CHECK-LABEL: func @layer_norm_nofold
// CHECK-NOT: tract.layer_norm
// CHECK: tract.div
func.func @layer_norm_nofold(%x: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %eps = tract.const dense<1.0e-5> : tensor<f32>
  %m = tract.reduce_mean %x {axes = array<i64: 1>} : tensor<1x3x2xf32> -> tensor<1x1x2xf32>
  %d = tract.sub %x, %m : tensor<1x3x2xf32>, tensor<1x1x2xf32> -> tensor<1x3x2xf32>
  %sq = tract.mul %d, %d : tensor<1x3x2xf32>, tensor<1x3x2xf32> -> tensor<1x3x2xf32>
  %v = tract.reduce_mean %sq {axes = array<i64: 1>} : tensor<1x3x2xf32> -> tensor<1x1x2xf32>
  %ve = tract.add %v, %eps : tensor<1x1x2xf32>, tensor<f32> -> tensor<1x1x2xf32>
  %s = tract.sqrt %ve : tensor<1x1x2xf32>
  %n = tract.div %d, %s : tensor<1x3x2xf32>, tensor<1x1x2xf32> -> tensor<1x3x2xf32>
  return %n : tensor<1x3x2xf32>
}

// -----

// A scale after layer_norm (opset 17's own op, no bias) becomes its scale.
// CHECK-LABEL: func @layer_norm_scale_fold
// CHECK: %[[G:.+]] = tract.const dense<[2.000000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK: tract.layer_norm %arg0, %[[G]] {axis = 1 : i64
// CHECK-NOT: tract.mul
func.func @layer_norm_scale_fold(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %s = tract.const dense<[1.0, 2.0]> : tensor<2xf32>
  %g = tract.const dense<[[2.0, 3.0]]> : tensor<1x2xf32>
  %0 = tract.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-5 : f32} : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %1 = tract.mul %0, %g : tensor<3x2xf32>, tensor<1x2xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// A shift that varies along rows is not a layer_norm bias.
// CHECK-LABEL: func @layer_norm_bias_nofold
// CHECK: tract.layer_norm
// CHECK: tract.add
func.func @layer_norm_bias_nofold(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %s = tract.const dense<[1.0, 2.0]> : tensor<2xf32>
  %b = tract.const dense<[[1.0], [2.0], [3.0]]> : tensor<3x1xf32>
  %0 = tract.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-5 : f32} : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %1 = tract.add %0, %b : tensor<3x2xf32>, tensor<3x1xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}
