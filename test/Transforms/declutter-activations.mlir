// RUN: tract-opt %s --split-input-file --tract-declutter | FileCheck %s
// Activations written out as graphs (ActivationRewrites.cpp).

// CHECK-LABEL: func @silu_fold
// CHECK-NEXT: %[[S:.+]] = tract.silu %arg0 : tensor<4xf32>
// CHECK-NEXT: return %[[S]]
func.func @silu_fold(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tract.sigmoid %x : tensor<4xf32>
  %1 = tract.mul %0, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// x * sigmoid(y) is a gate, not SiLU.
// CHECK-LABEL: func @silu_nofold
// CHECK: tract.sigmoid
// CHECK: tract.mul
func.func @silu_nofold(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tract.sigmoid %y : tensor<4xf32>
  %1 = tract.mul %x, %0 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// torch's erf GELU: x * (1 + erf(x / sqrt(2))) * 0.5
// CHECK-LABEL: func @gelu_erf_fold
// CHECK-NEXT: %[[G:.+]] = tract.gelu %arg0 : tensor<4xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_erf_fold(%x: tensor<4xf32>) -> tensor<4xf32> {
  %sqrt2 = tract.const dense<1.41421354> : tensor<f32>
  %one = tract.const dense<1.0> : tensor<f32>
  %half = tract.const dense<0.5> : tensor<f32>
  %0 = tract.div %x, %sqrt2 : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = tract.erf %0 : tensor<4xf32>
  %2 = tract.add %1, %one : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %3 = tract.mul %x, %2 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %4 = tract.mul %3, %half : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// Another scale inside the erf is another function.
// CHECK-LABEL: func @gelu_erf_nofold
// CHECK: tract.erf
// CHECK-NOT: tract.gelu
func.func @gelu_erf_nofold(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = tract.const dense<0.6> : tensor<f32>
  %one = tract.const dense<1.0> : tensor<f32>
  %half = tract.const dense<0.5> : tensor<f32>
  %0 = tract.mul %x, %s : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = tract.erf %0 : tensor<4xf32>
  %2 = tract.add %1, %one : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %3 = tract.mul %x, %2 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %4 = tract.mul %3, %half : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
// CHECK-LABEL: func @gelu_tanh_fold
// CHECK-NEXT: %[[G:.+]] = tract.gelu_tanh %arg0 : tensor<4xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_tanh_fold(%x: tensor<4xf32>) -> tensor<4xf32> {
  %three = tract.const dense<3.0> : tensor<f32>
  %k = tract.const dense<0.044715> : tensor<f32>
  %c = tract.const dense<0.797884583> : tensor<f32>
  %one = tract.const dense<1.0> : tensor<f32>
  %half = tract.const dense<0.5> : tensor<f32>
  %0 = tract.pow %x, %three : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = tract.mul %0, %k : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %2 = tract.add %x, %1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %3 = tract.mul %2, %c : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %4 = tract.tanh %3 : tensor<4xf32>
  %5 = tract.add %4, %one : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %6 = tract.mul %x, %half : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %7 = tract.mul %6, %5 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %7 : tensor<4xf32>
}

// -----

// Without the factor 0.5 it is not GELU.
// CHECK-LABEL: func @gelu_tanh_nofold
// CHECK: tract.tanh
// CHECK-NOT: tract.gelu_tanh
func.func @gelu_tanh_nofold(%x: tensor<4xf32>) -> tensor<4xf32> {
  %three = tract.const dense<3.0> : tensor<f32>
  %k = tract.const dense<0.044715> : tensor<f32>
  %c = tract.const dense<0.797884583> : tensor<f32>
  %one = tract.const dense<1.0> : tensor<f32>
  %0 = tract.pow %x, %three : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = tract.mul %0, %k : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %2 = tract.add %x, %1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %3 = tract.mul %2, %c : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %4 = tract.tanh %3 : tensor<4xf32>
  %5 = tract.add %4, %one : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %7 = tract.mul %x, %5 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %7 : tensor<4xf32>
}

// -----

// torch's hardswish before opset 14: x * relu6(x + 3) / 6
// CHECK-LABEL: func @hard_swish_fold
// CHECK-NEXT: %[[H:.+]] = tract.hard_swish %arg0 : tensor<4xf32>
// CHECK-NEXT: return %[[H]]
func.func @hard_swish_fold(%x: tensor<4xf32>) -> tensor<4xf32> {
  %three = tract.const dense<3.0> : tensor<f32>
  %six = tract.const dense<6.0> : tensor<f32>
  %0 = tract.add %x, %three : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = tract.clip %0 {min = 0.0 : f64, max = 6.0 : f64} : tensor<4xf32>
  %2 = tract.div %1, %six : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %3 = tract.mul %x, %2 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// ONNX's HardSigmoid defaults (alpha 0.2) times x is not HardSwish.
// CHECK-LABEL: func @hard_swish_nofold
// CHECK: tract.hard_sigmoid
// CHECK-NOT: tract.hard_swish
func.func @hard_swish_nofold(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tract.hard_sigmoid %x {alpha = 0.2 : f32, beta = 0.5 : f32} : tensor<4xf32>
  %1 = tract.mul %x, %0 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// relu6(x + 3) / 6 alone is HardSigmoid(1/6, 1/2).
// CHECK-LABEL: func @hard_sigmoid_fold
// CHECK-NEXT: %[[H:.+]] = tract.hard_sigmoid %arg0 {alpha = 0.166666672 : f32, beta = 5.000000e-01 : f32}
// CHECK-NEXT: return %[[H]]
func.func @hard_sigmoid_fold(%x: tensor<4xf32>) -> tensor<4xf32> {
  %three = tract.const dense<3.0> : tensor<f32>
  %six = tract.const dense<6.0> : tensor<f32>
  %0 = tract.add %x, %three : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = tract.clip %0 {min = 0.0 : f64, max = 6.0 : f64} : tensor<4xf32>
  %2 = tract.div %1, %six : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// The clip's top (6) times the scale (1/3) is not 1: the result exceeds 1.
// CHECK-LABEL: func @hard_sigmoid_nofold
// CHECK: tract.clip
// CHECK-NOT: tract.hard_sigmoid
func.func @hard_sigmoid_nofold(%x: tensor<4xf32>) -> tensor<4xf32> {
  %three = tract.const dense<3.0> : tensor<f32>
  %s = tract.const dense<3.0> : tensor<f32>
  %0 = tract.add %x, %three : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = tract.clip %0 {min = 0.0 : f64, max = 6.0 : f64} : tensor<4xf32>
  %2 = tract.div %1, %s : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
