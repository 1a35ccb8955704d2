// RUN: tract-opt %s --split-input-file --tract-declutter | FileCheck %s
// ScatterElements of whole rows as ScatterND (IndexingRewrites.cpp).

// torch's scatter_(0, idx.view(-1, 1, 1).expand_as(u), u): one index per
// row of u, each row written whole.
// CHECK-LABEL: func @scatter_rows_fold
// CHECK: %[[I:.+]] = tract.reshape %arg1 : tensor<3x1x1xi64> -> tensor<3x1xi64>
// CHECK: %[[Y:.+]] = tract.scatter_nd %arg0, %[[I]], %arg2 {reduction = "add"} : (tensor<5x4x2xf32>, tensor<3x1xi64>, tensor<3x4x2xf32>) -> tensor<5x4x2xf32>
// CHECK-NEXT: return %[[Y]]
func.func @scatter_rows_fold(%x: tensor<5x4x2xf32>, %i: tensor<3x1x1xi64>, %u: tensor<3x4x2xf32>) -> tensor<5x4x2xf32> {
  %0 = tract.broadcast %i : tensor<3x1x1xi64> -> tensor<3x4x2xi64>
  %1 = tract.scatter_elements %x, %0, %u {axis = 0 : i64, reduction = "add"} : (tensor<5x4x2xf32>, tensor<3x4x2xi64>, tensor<3x4x2xf32>) -> tensor<5x4x2xf32>
  return %1 : tensor<5x4x2xf32>
}

// -----

// Indices that vary along a row, partial rows, or another axis: left as
// ScatterElements.
// CHECK-LABEL: func @scatter_rows_nofold
// CHECK-NOT: tract.scatter_nd
// CHECK-COUNT-3: tract.scatter_elements
func.func @scatter_rows_nofold(%x: tensor<5x4x2xf32>, %i: tensor<3x4x1xi64>, %j: tensor<3x1x1xi64>,
                               %u: tensor<3x4x2xf32>, %v: tensor<3x3x2xf32>, %k: tensor<1x4x1xi64>,
                               %w: tensor<5x4x2xf32>) -> (tensor<5x4x2xf32>, tensor<5x4x2xf32>, tensor<5x4x2xf32>) {
  %0 = tract.broadcast %i : tensor<3x4x1xi64> -> tensor<3x4x2xi64>
  %1 = tract.scatter_elements %x, %0, %u {axis = 0 : i64} : (tensor<5x4x2xf32>, tensor<3x4x2xi64>, tensor<3x4x2xf32>) -> tensor<5x4x2xf32>
  %2 = tract.broadcast %j : tensor<3x1x1xi64> -> tensor<3x3x2xi64>
  %3 = tract.scatter_elements %x, %2, %v {axis = 0 : i64} : (tensor<5x4x2xf32>, tensor<3x3x2xi64>, tensor<3x3x2xf32>) -> tensor<5x4x2xf32>
  %4 = tract.broadcast %k : tensor<1x4x1xi64> -> tensor<5x4x2xi64>
  %5 = tract.scatter_elements %x, %4, %w {axis = 1 : i64} : (tensor<5x4x2xf32>, tensor<5x4x2xi64>, tensor<5x4x2xf32>) -> tensor<5x4x2xf32>
  return %1, %3, %5 : tensor<5x4x2xf32>, tensor<5x4x2xf32>, tensor<5x4x2xf32>
}
