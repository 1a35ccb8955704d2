// RUN: tract-opt %s --split-input-file --verify-diagnostics

func.func @bad_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error@+2 {{expected broadcastable shapes, got [2,3] and [4]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = tract.add %a, %b : tensor<2x3xf32>, tensor<4xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @mixed_types(%a: tensor<3xf32>, %b: tensor<3xi64>) -> tensor<3xf32> {
  // expected-error@+1 {{expected operands of one element type, got 'f32' and 'i64'}}
  %0 = tract.sub %a, %b : tensor<3xf32>, tensor<3xi64> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @wrong_result(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error@+2 {{'tract.mul' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = tract.mul %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @matmul_inner(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error@+2 {{expected matching inner dims, got 3 and 4}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = tract.matmul %a, %b : tensor<2x3xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+2 {{expected input channels = 2 x group 1, got 3}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_pads(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+2 {{expected 4 pads, got 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0>, group = 1}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) -> tensor<5xf32> {
  // expected-error@+1 {{expected a result with 6 elements, got 5}}
  %0 = tract.reshape %a : tensor<2x3xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @bad_perm(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error@+2 {{expected a permutation of [0, 2), got [1,1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = tract.transpose %a {perm = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @reduce_axis(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error@+2 {{expected axes in [0, 2), got 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = tract.reduce_sum %a {axes = array<i64: 2>, keep_dims = false} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_window(%a: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error@+2 {{expected a window inside dim 0 of size 4, got start 3 limit 5 step 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = tract.slice %a {starts = array<i64: 3>, limits = array<i64: 5>, steps = array<i64: 1>} : tensor<4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @layer_norm_scale(%a: tensor<2x8xf32>, %s: tensor<4xf32>) -> tensor<2x8xf32> {
  // expected-error@+1 {{expected scale and bias of shape [8], got [4]}}
  %0 = tract.layer_norm %a, %s {axis = 1, epsilon = 1.0e-5 : f32} : (tensor<2x8xf32>, tensor<4xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @softmax_axis(%a: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error@+1 {{expected an axis in [0, 2), got 2}}
  %0 = tract.softmax %a {axis = 2} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @kernel_yield_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected the body to yield the elements of a 'tensor<4xf32>'}}
  %0 = tract.kernel(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %c = tract.const dense<1.0> : tensor<f32>
    tract.yield %c : tensor<f32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @kernel_anchor_operands(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{expected the anchor's operands to be the first body arguments}}
  %0 = tract.kernel(%x, %y) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32> {
  ^bb0(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>):
    %m = tract.matmul %b, %a : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
    tract.yield %m : tensor<2x2xf32>
  }
  return %0 : tensor<2x2xf32>
}

// -----

func.func @kernel_tail_input(%x: tensor<1x16x4x4xf32>, %w: tensor<16x16x1x1xf32>, %d: tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{expected the tail to read the value computed before it}}
  %0 = tract.kernel(%x, %w, %d) : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32> {
  ^bb0(%a: tensor<1x16x4x4xf32>, %b: tensor<16x16x1x1xf32>, %c: tensor<16x1x3x3xf32>):
    %e = tract.conv %a, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x4x4xf32>
    %r = tract.relu %e : tensor<1x16x4x4xf32>
    %y = tract.conv %e, %c {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 16} : (tensor<1x16x4x4xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32>
    tract.yield %y : tensor<1x16x4x4xf32>
  }
  return %0 : tensor<1x16x4x4xf32>
}

// -----

func.func @kernel_tail_operands(%x: tensor<1x16x4x4xf32>, %w: tensor<16x16x1x1xf32>, %d: tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{expected the tail's other operands to be the body arguments after the anchor's}}
  %0 = tract.kernel(%x, %w, %d, %d) : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>, tensor<16x1x3x3xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32> {
  ^bb0(%a: tensor<1x16x4x4xf32>, %b: tensor<16x16x1x1xf32>, %c: tensor<16x1x3x3xf32>, %c2: tensor<16x1x3x3xf32>):
    %e = tract.conv %a, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x4x4xf32>
    %y = tract.conv %e, %c2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 16} : (tensor<1x16x4x4xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32>
    tract.yield %y : tensor<1x16x4x4xf32>
  }
  return %0 : tensor<1x16x4x4xf32>
}
