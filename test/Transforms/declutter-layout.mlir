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

// -----

// A transpose sinks below an elementwise op and meets its inverse.
// CHECK-LABEL: func @transpose_sink_fold
// CHECK-NEXT: %[[R:.+]] = tract.relu %arg0 : tensor<2x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @transpose_sink_fold(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tract.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = tract.relu %0 : tensor<3x2xf32>
  %2 = tract.transpose %1 {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// Softmax has an axis: a transpose does not move across it.
// CHECK-LABEL: func @transpose_sink_nofold
// CHECK: tract.transpose
// CHECK-NEXT: tract.softmax
// CHECK-NEXT: tract.transpose
func.func @transpose_sink_nofold(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tract.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = tract.softmax %0 {axis = 1 : i64} : tensor<3x2xf32>
  %2 = tract.transpose %1 {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// Two equal transposes of an add's operands become one after it.
// CHECK-LABEL: func @transpose_binary_fold
// CHECK-NEXT: %[[S:.+]] = tract.add %arg0, %arg1 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[T:.+]] = tract.transpose %[[S]]
// CHECK-NEXT: return %[[T]]
func.func @transpose_binary_fold(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = tract.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = tract.transpose %y {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %2 = tract.add %0, %1 : tensor<3x2xf32>, tensor<3x2xf32> -> tensor<3x2xf32>
  return %2 : tensor<3x2xf32>
}

// -----

// Only one operand transposed: nothing to merge.
// CHECK-LABEL: func @transpose_binary_nofold
// CHECK-NEXT: tract.transpose
// CHECK-NEXT: tract.add
func.func @transpose_binary_nofold(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = tract.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = tract.add %0, %y : tensor<3x2xf32>, tensor<3x2xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// Attention's K^T: a transpose of the last two dims is the matmul's flag.
// CHECK-LABEL: func @transpose_into_matmul_fold
// CHECK-NEXT: %[[M:.+]] = tract.matmul %arg0, %arg1 {transpose_b} : tensor<2x4x8xf32>, tensor<2x5x8xf32> -> tensor<2x4x5xf32>
// CHECK-NEXT: return %[[M]]
func.func @transpose_into_matmul_fold(%q: tensor<2x4x8xf32>, %k: tensor<2x5x8xf32>) -> tensor<2x4x5xf32> {
  %0 = tract.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x5x8xf32> -> tensor<2x8x5xf32>
  %1 = tract.matmul %q, %0 : tensor<2x4x8xf32>, tensor<2x8x5xf32> -> tensor<2x4x5xf32>
  return %1 : tensor<2x4x5xf32>
}

// -----

// A transpose that moves a batch dim is not a matrix transposition: it
// stays, but hands the matmul the swap of its last two dims when that lets
// it copy whole rows (here of k's last dim) instead of single floats.
// CHECK-LABEL: func @transpose_into_matmul_nofold
// CHECK: tract.transpose %arg1 {perm = array<i64: 1, 0, 2>} : tensor<5x8x8xf32> -> tensor<8x5x8xf32>
// CHECK: tract.matmul %arg0, %{{.*}} {transpose_b}
func.func @transpose_into_matmul_nofold(%q: tensor<8x4x8xf32>, %k: tensor<5x8x8xf32>) -> tensor<8x4x5xf32> {
  %0 = tract.transpose %k {perm = array<i64: 1, 2, 0>} : tensor<5x8x8xf32> -> tensor<8x8x5xf32>
  %1 = tract.matmul %q, %0 : tensor<8x4x8xf32>, tensor<8x8x5xf32> -> tensor<8x4x5xf32>
  return %1 : tensor<8x4x5xf32>
}

// -----

// Attention's K^T straight from the [b, s, h, d] projection, (0, 2, 3, 1):
// the head split (0, 2, 1, 3) stays, the transposition goes to the matmul.
// A transpose with another user is left alone.
// CHECK-LABEL: func @transpose_heads_into_matmul
// CHECK: %[[T:.+]] = tract.transpose %arg1 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x16x4x8xf32> -> tensor<1x4x16x8xf32>
// CHECK: tract.matmul %arg0, %[[T]] {transpose_b} : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32> -> tensor<1x4x16x16xf32>
// CHECK: %[[U:.+]] = tract.transpose %arg1 {perm = array<i64: 0, 2, 3, 1>}
// CHECK: tract.matmul %arg0, %[[U]] : tensor<1x4x16x8xf32>, tensor<1x4x8x16xf32>
func.func @transpose_heads_into_matmul(%q: tensor<1x4x16x8xf32>, %k: tensor<1x16x4x8xf32>) -> (tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>, tensor<1x4x8x16xf32>) {
  %0 = tract.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x16x4x8xf32> -> tensor<1x4x8x16xf32>
  %1 = tract.matmul %q, %0 : tensor<1x4x16x8xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x16x16xf32>
  %2 = tract.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x16x4x8xf32> -> tensor<1x4x8x16xf32>
  %3 = tract.matmul %q, %2 : tensor<1x4x16x8xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x16x16xf32>
  return %1, %3, %2 : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>, tensor<1x4x8x16xf32>
}

// -----

// CHECK-LABEL: func @integer_mul_zero_fold
// CHECK-NEXT: %[[Z:.+]] = tract.const dense<0> : tensor<4xi64>
// CHECK-NEXT: return %[[Z]]
func.func @integer_mul_zero_fold(%x: tensor<4xi64>) -> tensor<4xi64> {
  %z = tract.const dense<0> : tensor<i64>
  %0 = tract.mul %x, %z : tensor<4xi64>, tensor<i64> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// For floats x * 0 is NaN when x is infinite: it stays.
// CHECK-LABEL: func @float_mul_zero_nofold
// CHECK: tract.mul
func.func @float_mul_zero_nofold(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = tract.const dense<0.0> : tensor<f32>
  %0 = tract.mul %x, %z : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A Resize to its input's own shape, scales 1, is its input (here bilinear,
// half_pixel: a detector's transform resizing the image to the size it has).
// CHECK-LABEL: func @resize_to_own_shape_fold
// CHECK-NEXT: return %arg0
func.func @resize_to_own_shape_fold(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %0 = tract.resize %x {coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, mode = "linear", nearest_mode = "round_prefer_floor", roi = array<f32: 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0>, scales = array<f32: 1.0, 1.0, 1.0, 1.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

// tf_half_pixel_for_nn samples at x + 0.5 even at scale 1; a changed shape
// is a real resize: both stay.
// CHECK-LABEL: func @resize_to_own_shape_nofold
// CHECK: tract.resize
// CHECK: tract.resize
func.func @resize_to_own_shape_nofold(%x: tensor<1x3x8x8xf32>) -> (tensor<1x3x8x8xf32>, tensor<1x3x16x16xf32>) {
  %0 = tract.resize %x {coordinate_transformation_mode = "tf_half_pixel_for_nn", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, mode = "linear", nearest_mode = "round_prefer_floor", roi = array<f32: 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0>, scales = array<f32: 1.0, 1.0, 1.0, 1.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %1 = tract.resize %x {coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, mode = "linear", nearest_mode = "round_prefer_floor", roi = array<f32: 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  return %0, %1 : tensor<1x3x8x8xf32>, tensor<1x3x16x16xf32>
}
