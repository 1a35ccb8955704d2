// RUN: tract-opt %s --split-input-file | tract-opt | FileCheck %s
// Round trip: every op family parses and prints back.

// CHECK-LABEL: func @elementwise
func.func @elementwise(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x3xi1>) -> tensor<2x3xf32> {
  // CHECK: tract.add %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %0 = tract.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  // CHECK: tract.relu %{{.*}} : tensor<2x3xf32>
  %1 = tract.relu %0 : tensor<2x3xf32>
  // CHECK: tract.leaky_relu %{{.*}} {alpha = 1.000000e-01 : f32} : tensor<2x3xf32>
  %2 = tract.leaky_relu %1 {alpha = 0.1 : f32} : tensor<2x3xf32>
  // CHECK: tract.less %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xi1>
  %3 = tract.less %2, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xi1>
  // CHECK: tract.select
  %4 = tract.select %3, %2, %a : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: tract.clip %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
  %5 = tract.clip %4 {min = 0.0 : f64, max = 6.0 : f64} : tensor<2x3xf32>
  return %5 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @weights
func.func @weights() -> tensor<4xf32> {
  // CHECK: tract.const dense_resource<w0> : tensor<4xf32>
  %0 = tract.const dense_resource<w0> : tensor<4xf32>
  return %0 : tensor<4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// CHECK-LABEL: func @nn
func.func @nn(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4xf32> {
  // CHECK: tract.conv %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
  %0 = tract.conv %x, %w, %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: tract.max_pool
  %1 = tract.max_pool %0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>}
      : tensor<1x4x4x4xf32> -> tensor<1x4x2x2xf32>
  // CHECK: tract.reduce_mean %{{.*}} {axes = array<i64: 2, 3>, keep_dims = false}
  %2 = tract.reduce_mean %1 {axes = array<i64: 2, 3>, keep_dims = false} : tensor<1x4x2x2xf32> -> tensor<1x4xf32>
  // CHECK: tract.softmax %{{.*}} {axis = 1 : i64} : tensor<1x4xf32>
  %3 = tract.softmax %2 {axis = 1} : tensor<1x4xf32>
  return %3 : tensor<1x4xf32>
}

// -----

// CHECK-LABEL: func @linalg
func.func @linalg(%a: tensor<2x4x8xf32>, %b: tensor<16x8xf32>, %s: tensor<8xf32>) -> tensor<2x4x8xf32> {
  // CHECK: tract.matmul %{{.*}}, %{{.*}} {transpose_b} : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %0 = tract.matmul %a, %b {transpose_b} : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  // CHECK: tract.slice %{{.*}} {limits = array<i64: 2, 4, 16>, starts = array<i64: 0, 0, 8>, steps = array<i64: 1, 1, 1>}
  %1 = tract.slice %0 {starts = array<i64: 0, 0, 8>, limits = array<i64: 2, 4, 16>, steps = array<i64: 1, 1, 1>} : tensor<2x4x16xf32> -> tensor<2x4x8xf32>
  // CHECK: tract.layer_norm %{{.*}}, %{{.*}} {axis = 2 : i64, epsilon = 9.99999974E-6 : f32}
  %2 = tract.layer_norm %1, %s {axis = 2, epsilon = 1.0e-5 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %2 : tensor<2x4x8xf32>
}

// -----

// CHECK-LABEL: func @movement
func.func @movement(%a: tensor<2x3xf32>, %i: tensor<4xi64>) -> tensor<4x3xi32> {
  // CHECK: tract.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %0 = tract.transpose %a {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK: tract.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x4xf32>
  %1 = tract.concat %0, %0 {axis = 1} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x4xf32>
  // CHECK: tract.reshape %{{.*}} : tensor<3x4xf32> -> tensor<12xf32>
  %2 = tract.reshape %1 : tensor<3x4xf32> -> tensor<12xf32>
  // CHECK: tract.gather %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  %3 = tract.gather %a, %i {axis = 0} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  // CHECK: tract.cast %{{.*}} : tensor<4x3xf32> -> tensor<4x3xi32>
  %4 = tract.cast %3 : tensor<4x3xf32> -> tensor<4x3xi32>
  return %4 : tensor<4x3xi32>
}
