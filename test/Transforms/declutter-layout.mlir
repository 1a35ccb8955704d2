// RUN: tract-opt %s --split-input-file --tract-declutter | FileCheck %s
// Constant propagation (ConstantPropagation.cpp) and the data-movement
// canonicalisations the declutter pass runs with it (TractFolds.cpp).

// CHECK-LABEL: func @constant_propagation_fold
// CHECK-NEXT: %[[C:.+]] = tract.const dense<[3.000000e+00, 5.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]]
func.func @constant_propagation_fold() -> tensor<2xf32> {
  %a = tract.const dense<[1.0, 2.0]> : tensor<2xf32>
  %b = tract.const dense<[2.0, 3.0]> : tensor<2xf32>
  %0 = tract.add %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Over the size limit, the op stays (here the limit is set to 2 elements).
// RUN: tract-opt %s --split-input-file --tract-declutter=max-fold-elements=2 | FileCheck %s --check-prefix=LIMIT
// LIMIT-LABEL: func @constant_propagation_nofold
// LIMIT: tract.add
// CHECK-LABEL: func @constant_propagation_nofold
// CHECK-NOT: tract.add
func.func @constant_propagation_nofold() -> tensor<3xf32> {
  %a = tract.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = tract.add %a, %a : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @reshape_chain_fold
// CHECK-NEXT: %[[R:.+]] = tract.reshape %arg0 : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain_fold(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = tract.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = tract.reshape %0 : tensor<6xf32> -> tensor<1x6xf32>
  %2 = tract.reshape %1 : tensor<1x6xf32> -> tensor<3x2xf32>
  return %2 : tensor<3x2xf32>
}

// -----

// A reshape whose input another op also reads stays.
// CHECK-LABEL: func @reshape_chain_nofold
// CHECK: tract.reshape %arg0
// CHECK: tract.relu
func.func @reshape_chain_nofold(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = tract.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = tract.relu %0 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// -----

// CHECK-LABEL: func @transpose_pair_fold
// CHECK-NEXT: return %arg0
func.func @transpose_pair_fold(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tract.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %1 = tract.transpose %0 {perm = array<i64: 1, 2, 0>} : tensor<4x2x3xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// Two transposes that do not cancel merge into one.
// CHECK-LABEL: func @transpose_pair_nofold
// CHECK-NEXT: tract.transpose %arg0 {perm = array<i64: 1, 0, 2>}
// CHECK-NEXT: return
func.func @transpose_pair_nofold(%x: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  %0 = tract.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %1 = tract.transpose %0 {perm = array<i64: 2, 1, 0>} : tensor<4x2x3xf32> -> tensor<3x2x4xf32>
  return %1 : tensor<3x2x4xf32>
}
