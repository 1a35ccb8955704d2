// RUN: tract-opt %s --split-input-file --tract-declutter | FileCheck %s
// Arithmetic normal forms (ArithmeticRewrites.cpp): one _fold / _nofold pair
// per rewrite.

// CHECK-LABEL: func @div_by_const_fold
// CHECK: %[[R:.+]] = tract.const dense<2.500000e-01> : tensor<f32>
// CHECK: tract.mul %arg0, %[[R]]
// CHECK-NOT: tract.div
func.func @div_by_const_fold(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = tract.const dense<4.0> : tensor<f32>
  %0 = tract.div %x, %c : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Integer division truncates: it stays a division.
// CHECK-LABEL: func @div_by_const_nofold
// CHECK: tract.div
func.func @div_by_const_nofold(%x: tensor<4xi32>) -> tensor<4xi32> {
  %c = tract.const dense<4> : tensor<i32>
  %0 = tract.div %x, %c : tensor<4xi32>, tensor<i32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func @sub_const_fold
// CHECK: %[[N:.+]] = tract.const dense<[-1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: tract.add %arg0, %[[N]]
func.func @sub_const_fold(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = tract.const dense<[1.0, -2.0]> : tensor<2xf32>
  %0 = tract.sub %x, %c : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A constant minus x is not x plus a constant.
// CHECK-LABEL: func @sub_const_nofold
// CHECK: tract.sub %{{.*}}, %arg0
func.func @sub_const_nofold(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = tract.const dense<[1.0, -2.0]> : tensor<2xf32>
  %0 = tract.sub %c, %x : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func @pow_square_fold
// CHECK: tract.mul %arg0, %arg0
// CHECK-NOT: tract.pow
func.func @pow_square_fold(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = tract.const dense<2.0> : tensor<f32>
  %0 = tract.pow %x, %c : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @pow_half_fold
// CHECK: tract.sqrt %arg0
func.func @pow_half_fold(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = tract.const dense<0.5> : tensor<f32>
  %0 = tract.pow %x, %c : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @pow_one_fold
// CHECK-NEXT: return %arg0
func.func @pow_one_fold(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = tract.const dense<1.0> : tensor<f32>
  %0 = tract.pow %x, %c : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Other exponents stay powers.
// CHECK-LABEL: func @pow_nofold
// CHECK: tract.pow
func.func @pow_nofold(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = tract.const dense<3.0> : tensor<f32>
  %0 = tract.pow %x, %c : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @neutral_fold
// CHECK-NEXT: return %arg0
func.func @neutral_fold(%x: tensor<3xf32>) -> tensor<3xf32> {
  %zero = tract.const dense<0.0> : tensor<f32>
  %one = tract.const dense<1.0> : tensor<3xf32>
  %0 = tract.add %zero, %x : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
  %1 = tract.mul %0, %one : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %2 = tract.sub %1, %zero : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  %3 = tract.div %2, %one : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %3 : tensor<3xf32>
}

// -----

// Adding a zero that broadcasts x to a larger shape is not the identity.
// CHECK-LABEL: func @neutral_nofold
// CHECK: tract.add
func.func @neutral_nofold(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %zero = tract.const dense<0.0> : tensor<2x3xf32>
  %0 = tract.add %x, %zero : tensor<3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @constant_chain_fold
// CHECK: %[[C:.+]] = tract.const dense<6.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[M:.+]] = tract.mul %arg0, %[[C]]
// CHECK-NEXT: return %[[M]]
func.func @constant_chain_fold(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = tract.const dense<2.0> : tensor<f32>
  %b = tract.const dense<3.0> : tensor<f32>
  %0 = tract.mul %x, %a : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  %1 = tract.mul %0, %b : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// The inner product is used twice: merging would compute it twice.
// CHECK-LABEL: func @constant_chain_nofold
// CHECK-COUNT-2: tract.mul
func.func @constant_chain_nofold(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %a = tract.const dense<2.0> : tensor<f32>
  %b = tract.const dense<3.0> : tensor<f32>
  %0 = tract.mul %x, %a : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  %1 = tract.mul %0, %b : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func @relu_fold
// CHECK: tract.relu %arg0
// CHECK: tract.relu %arg0
// CHECK-NOT: tract.clip
// CHECK-NOT: tract.max
func.func @relu_fold(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = tract.clip %x {min = 0.0 : f64, max = 0x7FF0000000000000 : f64} : tensor<3xf32>
  %zero = tract.const dense<0.0> : tensor<f32>
  %1 = tract.max %x, %zero : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// relu6 keeps its upper bound.
// CHECK-LABEL: func @relu_nofold
// CHECK: tract.clip
func.func @relu_nofold(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tract.clip %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<3xf32>
  return %0 : tensor<3xf32>
}
