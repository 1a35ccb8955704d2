// RUN: tract-opt %s --split-input-file --tract-optimize | FileCheck %s
// The whole optimize pipeline (declutter, CSE, declutter): CSE merges the
// two copies of x - mean(x) an exporter wrote, and the second declutter
// then recognises the layer norm.

// CHECK-LABEL: func @cse_then_layer_norm
// CHECK-NOT: tract.reduce_mean
// CHECK: tract.layer_norm %arg0
// CHECK-NOT: tract.sub
func.func @cse_then_layer_norm(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %eps = tract.const dense<1.0e-5> : tensor<f32>
  %m = tract.reduce_mean %x {axes = array<i64: 1>} : tensor<2x4xf32> -> tensor<2x1xf32>
  %d1 = tract.sub %x, %m : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
  %d2 = tract.sub %x, %m : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
  %sq = tract.mul %d2, %d2 : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  %v = tract.reduce_mean %sq {axes = array<i64: 1>} : tensor<2x4xf32> -> tensor<2x1xf32>
  %ve = tract.add %v, %eps : tensor<2x1xf32>, tensor<f32> -> tensor<2x1xf32>
  %s = tract.sqrt %ve : tensor<2x1xf32>
  %n = tract.div %d1, %s : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
  return %n : tensor<2x4xf32>
}

// -----

// Without the duplicate, nothing but the pattern itself is needed; with a
// different mean (over another axis) nothing is recognised.
// CHECK-LABEL: func @cse_nofold
// CHECK-COUNT-2: tract.sub
func.func @cse_nofold(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %m = tract.reduce_mean %x {axes = array<i64: 1>} : tensor<2x4xf32> -> tensor<2x1xf32>
  %m0 = tract.reduce_mean %x {axes = array<i64: 0>} : tensor<2x4xf32> -> tensor<1x4xf32>
  %d1 = tract.sub %x, %m : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
  %d2 = tract.sub %x, %m0 : tensor<2x4xf32>, tensor<1x4xf32> -> tensor<2x4xf32>
  return %d1, %d2 : tensor<2x4xf32>, tensor<2x4xf32>
}
