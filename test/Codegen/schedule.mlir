// RUN: tract-opt %s --split-input-file --tract-schedule --tract-plan-memory | FileCheck %s

// Three 4 KiB branches each reduced to a scalar: as imported, all three are
// live at once (12 KiB); reducing each branch as soon as it exists needs one
// 4 KiB buffer at a time.
// CHECK-LABEL: func @branches
// CHECK-SAME: tract.arena_bytes = 4096
// CHECK: tract.relu
// CHECK-NEXT: tract.reduce_sum
// CHECK-NEXT: tract.neg
// CHECK-NEXT: tract.reduce_sum
// CHECK-NEXT: tract.exp
// CHECK-NEXT: tract.reduce_sum
func.func @branches(%x: tensor<1024xf32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %a = tract.relu %x : tensor<1024xf32>
  %b = tract.neg %x : tensor<1024xf32>
  %c = tract.exp %x : tensor<1024xf32>
  %sa = tract.reduce_sum %a {axes = array<i64: 0>, keep_dims = false} : tensor<1024xf32> -> tensor<f32>
  %sb = tract.reduce_sum %b {axes = array<i64: 0>, keep_dims = false} : tensor<1024xf32> -> tensor<f32>
  %sc = tract.reduce_sum %c {axes = array<i64: 0>, keep_dims = false} : tensor<1024xf32> -> tensor<f32>
  return %sa, %sb, %sc : tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// Nothing to gain: the imported order stays (the sum needs both branches).
// CHECK-LABEL: func @no_gain
// CHECK: tract.relu
// CHECK-NEXT: tract.neg
// CHECK-NEXT: tract.add
func.func @no_gain(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %a = tract.relu %x : tensor<1024xf32>
  %b = tract.neg %x : tensor<1024xf32>
  %s = tract.add %a, %b : tensor<1024xf32>, tensor<1024xf32> -> tensor<1024xf32>
  return %s : tensor<1024xf32>
}
