// RUN: tract-opt %s --split-input-file --tract-fuse | FileCheck %s
// Kernel formation (Fusion.cpp): _fold / _nofold pairs.

// A conv, a residual add and a relu: one kernel whose body starts with the
// conv reading the first arguments; the residual is the next input.
// CHECK-LABEL: func @conv_epilogue_fold
// CHECK: %[[K:.+]] = tract.kernel(%arg0, %{{.+}}, %{{.+}}, %arg1)
// CHECK-NEXT: ^bb0(%[[X:.+]]: tensor<1x1x3x3xf32>, %[[W:.+]]: tensor<2x1x1x1xf32>, %[[B:.+]]: tensor<2xf32>, %[[R:.+]]: tensor<1x2x3x3xf32>):
// CHECK-NEXT: %[[C:.+]] = tract.conv %[[X]], %[[W]], %[[B]]
// CHECK-NEXT: %[[S:.+]] = tract.add %[[C]], %[[R]]
// CHECK-NEXT: %[[Y:.+]] = tract.relu %[[S]]
// CHECK-NEXT: tract.yield %[[Y]]
// CHECK: return %[[K]]
func.func @conv_epilogue_fold(%x: tensor<1x1x3x3xf32>, %r: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = tract.const dense<1.0> : tensor<2x1x1x1xf32>
  %b = tract.const dense<[0.5, -1.0]> : tensor<2xf32>
  %0 = tract.conv %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %1 = tract.add %0, %r : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  %2 = tract.relu %1 : tensor<1x2x3x3xf32>
  return %2 : tensor<1x2x3x3xf32>
}

// -----

// The conv's result is also a graph output: it must reach memory, so the
// relu stays a kernel of its own.
// CHECK-LABEL: func @conv_epilogue_nofold
// CHECK-NOT: tract.kernel
// CHECK: tract.conv
// CHECK: tract.relu
func.func @conv_epilogue_nofold(%x: tensor<1x1x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = tract.const dense<1.0> : tensor<2x1x1x1xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %1 = tract.relu %0 : tensor<1x2x3x3xf32>
  return %0, %1 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// matmul + bias + gelu: the bias broadcasts, one kernel.
// CHECK-LABEL: func @matmul_epilogue_fold
// CHECK: tract.kernel(%arg0, %{{.+}}, %{{.+}})
// CHECK: tract.matmul
// CHECK-NEXT: tract.add
// CHECK-NEXT: tract.gelu
// CHECK-NEXT: tract.yield
func.func @matmul_epilogue_fold(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %w = tract.const dense<0.5> : tensor<8x16xf32>
  %b = tract.const dense<0.25> : tensor<16xf32>
  %0 = tract.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %1 = tract.add %0, %b : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %2 = tract.gelu %1 : tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}

// -----

// Integer matmuls have no float epilogue.
// CHECK-LABEL: func @matmul_epilogue_nofold
// CHECK-NOT: tract.kernel
func.func @matmul_epilogue_nofold(%x: tensor<4x8xi32>, %b: tensor<16xi32>) -> tensor<4x16xi32> {
  %w = tract.const dense<2> : tensor<8x16xi32>
  %0 = tract.matmul %x, %w : tensor<4x8xi32>, tensor<8x16xi32> -> tensor<4x16xi32>
  %1 = tract.add %0, %b : tensor<4x16xi32>, tensor<16xi32> -> tensor<4x16xi32>
  return %1 : tensor<4x16xi32>
}

// -----

// Elementwise ops alone form a map kernel; the one-element constant moves
// into the body, the broadcast operand is an input.
// CHECK-LABEL: func @map_fold
// CHECK: tract.kernel(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: tract.add
// CHECK-NEXT: tract.sigmoid
// CHECK-NEXT: tract.const dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: tract.mul
// CHECK-NEXT: tract.yield
func.func @map_fold(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %two = tract.const dense<2.0> : tensor<f32>
  %0 = tract.add %x, %y : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %1 = tract.sigmoid %0 : tensor<2x3xf32>
  %2 = tract.mul %1, %two : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// The relu's result broadcasts into a larger shape: the add's elements are
// not the relu's, so they stay apart. A single op is no kernel either.
// CHECK-LABEL: func @map_nofold
// CHECK-NOT: tract.kernel
func.func @map_nofold(%x: tensor<3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tract.relu %x : tensor<3xf32>
  %1 = tract.add %0, %y : tensor<3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// An add of two convs (a ResNet downsample) joins the first conv's kernel;
// the second conv stays a kernel of its own.
// CHECK-LABEL: func @two_convs_one_add
// CHECK: %[[C2:.+]] = tract.conv
// CHECK: tract.kernel(%arg0, %{{.+}}, %[[C2]])
// CHECK: tract.conv
// CHECK-NEXT: tract.add
// CHECK-NEXT: tract.relu
func.func @two_convs_one_add(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = tract.const dense<1.0> : tensor<2x1x1x1xf32>
  %v = tract.const dense<2.0> : tensor<2x1x1x1xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %1 = tract.conv %x, %v {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %2 = tract.add %0, %1 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  %3 = tract.relu %2 : tensor<1x2x3x3xf32>
  return %3 : tensor<1x2x3x3xf32>
}

// -----

// A reshape after a kernel is the kernel storing in the new shape.
// CHECK-LABEL: func @reshape_into_store_fold
// CHECK: %[[K:.+]] = tract.kernel(%arg0) : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK: tract.yield %{{.+}} : tensor<2x3xf32>
// CHECK-NOT: tract.reshape
// CHECK: return %[[K]]
func.func @reshape_into_store_fold(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = tract.relu %x : tensor<2x3xf32>
  %1 = tract.neg %0 : tensor<2x3xf32>
  %2 = tract.reshape %1 : tensor<2x3xf32> -> tensor<6xf32>
  return %2 : tensor<6xf32>
}

// -----

// The kernel's result is also read in its own shape: the reshape stays.
// CHECK-LABEL: func @reshape_into_store_nofold
// CHECK: tract.kernel(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: tract.reshape
func.func @reshape_into_store_nofold(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2x3xf32>) {
  %0 = tract.relu %x : tensor<2x3xf32>
  %1 = tract.neg %0 : tensor<2x3xf32>
  %2 = tract.reshape %1 : tensor<2x3xf32> -> tensor<6xf32>
  return %2, %1 : tensor<6xf32>, tensor<2x3xf32>
}

// -----

// A transpose feeding an elementwise chain is read through its permutation
// inside the kernel: no transposed copy.
// CHECK-LABEL: func @transpose_into_load_fold
// CHECK: tract.kernel(%arg0, %arg1) : (tensor<3x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: ^bb0(%[[X:.+]]: tensor<3x2xf32>, %[[Y:.+]]: tensor<2x3xf32>):
// CHECK-NEXT: %[[T:.+]] = tract.transpose %[[X]]
// CHECK-NEXT: tract.add %[[T]], %[[Y]]
// CHECK-NOT: tract.transpose
func.func @transpose_into_load_fold(%x: tensor<3x2xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tract.transpose %x {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
  %1 = tract.add %0, %y : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = tract.relu %1 : tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// The transposed copy is also a graph output: it is computed once, outside.
// CHECK-LABEL: func @transpose_into_load_nofold
// CHECK: %[[T:.+]] = tract.transpose %arg0
// CHECK: tract.kernel(%[[T]], %arg1)
func.func @transpose_into_load_nofold(%x: tensor<3x2xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = tract.transpose %x {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
  %1 = tract.add %0, %y : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = tract.relu %1 : tensor<2x3xf32>
  return %2, %0 : tensor<2x3xf32>, tensor<2x3xf32>
}
