// RUN: tract-opt %s --split-input-file --canonicalize | FileCheck %s

// reshape(reshape(x)) -> reshape(x)
// CHECK-LABEL: func @reshape_of_reshape
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[R:.+]] = tract.reshape %[[X]] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = tract.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = tract.reshape %0 : tensor<6xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// reshape to the same type folds away
// CHECK-LABEL: func @reshape_fold
// CHECK-NOT: tract.reshape
func.func @reshape_fold(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tract.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @reshape_nofold
// CHECK: tract.reshape
func.func @reshape_nofold(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = tract.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// transpose(transpose(x, [1,2,0]), [1,2,0]) -> transpose(x, [2,0,1])
// CHECK-LABEL: func @compose_transposes
// CHECK: tract.transpose %{{.*}} {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NOT: tract.transpose
func.func @compose_transposes(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = tract.transpose %x {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = tract.transpose %0 {perm = array<i64: 1, 2, 0>} : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// transposes that cancel disappear
// CHECK-LABEL: func @transpose_identity_fold
// CHECK-NOT: tract.transpose
// CHECK: return %arg0
func.func @transpose_identity_fold(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tract.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = tract.transpose %0 {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @cast_fold
// CHECK-NOT: tract.cast
func.func @cast_fold(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tract.cast %x : tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @cast_nofold
// CHECK: tract.cast
func.func @cast_nofold(%x: tensor<3xf32>) -> tensor<3xi64> {
  %0 = tract.cast %x : tensor<3xf32> -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// CHECK-LABEL: func @concat_single_fold
// CHECK-NOT: tract.concat
func.func @concat_single_fold(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tract.concat %x {axis = 0} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @slice_full_fold
// CHECK-NOT: tract.slice
func.func @slice_full_fold(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tract.slice %x {starts = array<i64: 0>, limits = array<i64: 4>, steps = array<i64: 1>} : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @slice_nofold
// CHECK: tract.slice
func.func @slice_nofold(%x: tensor<4xf32>) -> tensor<2xf32> {
  %0 = tract.slice %x {starts = array<i64: 0>, limits = array<i64: 4>, steps = array<i64: 2>} : tensor<4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Inline constants reshape at compile time.
// CHECK-LABEL: func @reshape_const_fold
// CHECK: tract.const dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NOT: tract.reshape
func.func @reshape_const_fold() -> tensor<2x2xf32> {
  %0 = tract.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %1 = tract.reshape %0 : tensor<4xf32> -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}
