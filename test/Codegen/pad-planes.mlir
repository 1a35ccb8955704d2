// RUN: tract-opt %s --split-input-file --tract-choose-kernels --tract-pad-planes --tract-plan-memory | FileCheck %s

// Two pointwise convs on a 13 x 13 map: the first one's output (read by the
// second, on the GEMM) gets planes of 176 floats, 11 whole cache lines, and
// takes 64 x 176 x 4 bytes of the arena; the second writes the graph
// output, which stays dense.
// CHECK-LABEL: func @chain
// CHECK-SAME: tract.arena_bytes = 45056
// CHECK: tract.conv {{.*}}tract.algorithm = "gemm_pointwise"
// CHECK-SAME: tract.plane_stride = 176 : i64
// CHECK: tract.conv
// CHECK-NOT: tract.plane_stride
// CHECK-SAME: -> tensor<1x32x13x13xf32>
func.func @chain(%x: tensor<1x32x13x13xf32>) -> tensor<1x32x13x13xf32> {
  %a = tract.const dense<0.5> : tensor<64x32x1x1xf32>
  %b = tract.const dense<0.25> : tensor<32x64x1x1xf32>
  %0 = tract.conv %x, %a {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x13x13xf32>, tensor<64x32x1x1xf32>) -> tensor<1x64x13x13xf32>
  %1 = tract.conv %0, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x64x13x13xf32>, tensor<32x64x1x1xf32>) -> tensor<1x32x13x13xf32>
  return %1 : tensor<1x32x13x13xf32>
}

// -----

// Not padded: a 16 x 16 plane is whole lines already, and a 7 x 7 one would
// grow by a third (49 -> 64 floats).
// CHECK-LABEL: func @whole_or_small
// CHECK-NOT: tract.plane_stride
// CHECK: return
func.func @whole_or_small(%x: tensor<1x32x16x16xf32>, %y: tensor<1x32x7x7xf32>) -> (tensor<1x32x16x16xf32>, tensor<1x32x7x7xf32>) {
  %a = tract.const dense<0.5> : tensor<32x32x1x1xf32>
  %0 = tract.conv %x, %a {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x16x16xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x16x16xf32>
  %1 = tract.conv %0, %a {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x16x16xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x16x16xf32>
  %2 = tract.conv %y, %a {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x7x7xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x7x7xf32>
  %3 = tract.conv %2, %a {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x7x7xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x7x7xf32>
  return %1, %3 : tensor<1x32x16x16xf32>, tensor<1x32x7x7xf32>
}

// -----

// A reader that takes dense planes keeps its input dense: a standalone
// element-wise op (it reads the tensor flat), and a conv that reads the
// tensor twice (once as the residual of its fused add, by index).
// CHECK-LABEL: func @dense_readers
// CHECK-NOT: tract.plane_stride
// CHECK: return
func.func @dense_readers(%x: tensor<1x32x13x13xf32>) -> (tensor<1x32x13x13xf32>, tensor<1x32x13x13xf32>) {
  %a = tract.const dense<0.5> : tensor<32x32x1x1xf32>
  %0 = tract.conv %x, %a {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x13x13xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x13x13xf32>
  %1 = tract.neg %0 : tensor<1x32x13x13xf32>
  %2 = tract.conv %x, %a {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x13x13xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x13x13xf32>
  %3 = tract.kernel(%2, %a, %2) : (tensor<1x32x13x13xf32>, tensor<32x32x1x1xf32>, tensor<1x32x13x13xf32>) -> tensor<1x32x13x13xf32> {
  ^bb0(%in: tensor<1x32x13x13xf32>, %w: tensor<32x32x1x1xf32>, %res: tensor<1x32x13x13xf32>):
    %c = tract.conv %in, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x13x13xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x13x13xf32>
    %s = tract.add %c, %res : tensor<1x32x13x13xf32>, tensor<1x32x13x13xf32> -> tensor<1x32x13x13xf32>
    tract.yield %s : tensor<1x32x13x13xf32>
  }
  return %1, %3 : tensor<1x32x13x13xf32>, tensor<1x32x13x13xf32>
}

// -----

// A conv whose fused add reads another tensor by the output's index writes
// dense planes, but reads its padded input through the strides.
// CHECK-LABEL: func @residual_reader
// CHECK: tract.conv {{.*}}tract.plane_stride = 176 : i64
// CHECK: tract.kernel
// CHECK-NOT: tract.plane_stride
// CHECK: return
func.func @residual_reader(%x: tensor<1x32x13x13xf32>, %y: tensor<1x32x13x13xf32>) -> tensor<1x32x13x13xf32> {
  %a = tract.const dense<0.5> : tensor<32x32x1x1xf32>
  %0 = tract.conv %x, %a {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x13x13xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x13x13xf32>
  %1 = tract.kernel(%0, %a, %y) : (tensor<1x32x13x13xf32>, tensor<32x32x1x1xf32>, tensor<1x32x13x13xf32>) -> tensor<1x32x13x13xf32> {
  ^bb0(%in: tensor<1x32x13x13xf32>, %w: tensor<32x32x1x1xf32>, %res: tensor<1x32x13x13xf32>):
    %c = tract.conv %in, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x13x13xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x13x13xf32>
    %s = tract.add %c, %res : tensor<1x32x13x13xf32>, tensor<1x32x13x13xf32> -> tensor<1x32x13x13xf32>
    tract.yield %s : tensor<1x32x13x13xf32>
  }
  return %1 : tensor<1x32x13x13xf32>
}

// -----

// A residual of the kernel's own type, padded with its output: the
// epilogue reads it at the output's (padded) index. The two convs on %x
// and the kernel with the residual add write padded planes; a kernel whose
// epilogue reads a tensor of another shape (a per-channel scale) writes
// dense ones.
// CHECK-LABEL: func @padded_residual
// CHECK: tract.conv {{.*}}tract.plane_stride = 176 : i64
// CHECK: tract.conv {{.*}}tract.plane_stride = 176 : i64
// CHECK: tract.kernel
// CHECK-SAME: tract.plane_stride = 176 : i64
// CHECK: tract.kernel
// CHECK-NOT: tract.plane_stride
// CHECK: return
func.func @padded_residual(%x: tensor<1x32x13x13xf32>) -> tensor<1x32x13x13xf32> {
  %a = tract.const dense<0.5> : tensor<32x32x1x1xf32>
  %s = tract.const dense<2.0> : tensor<1x32x1x1xf32>
  %0 = tract.conv %x, %a {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x13x13xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x13x13xf32>
  %r = tract.conv %x, %a {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x13x13xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x13x13xf32>
  %1 = tract.kernel(%0, %a, %r) : (tensor<1x32x13x13xf32>, tensor<32x32x1x1xf32>, tensor<1x32x13x13xf32>) -> tensor<1x32x13x13xf32> {
  ^bb0(%in: tensor<1x32x13x13xf32>, %w: tensor<32x32x1x1xf32>, %res: tensor<1x32x13x13xf32>):
    %c = tract.conv %in, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x13x13xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x13x13xf32>
    %t = tract.add %c, %res : tensor<1x32x13x13xf32>, tensor<1x32x13x13xf32> -> tensor<1x32x13x13xf32>
    tract.yield %t : tensor<1x32x13x13xf32>
  }
  %2 = tract.kernel(%1, %a, %s) : (tensor<1x32x13x13xf32>, tensor<32x32x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<1x32x13x13xf32> {
  ^bb0(%in: tensor<1x32x13x13xf32>, %w: tensor<32x32x1x1xf32>, %sc: tensor<1x32x1x1xf32>):
    %c = tract.conv %in, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x13x13xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x13x13xf32>
    %t = tract.mul %c, %sc : tensor<1x32x13x13xf32>, tensor<1x32x1x1xf32> -> tensor<1x32x13x13xf32>
    tract.yield %t : tensor<1x32x13x13xf32>
  }
  %3 = tract.relu %2 : tensor<1x32x13x13xf32>
  return %3 : tensor<1x32x13x13xf32>
}
