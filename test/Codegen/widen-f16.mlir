// RUN: tract-opt %s --split-input-file --tract-widen-f16 | FileCheck %s

// Arithmetic on f16 runs in f32 between casts.
// CHECK-LABEL: func @add_f16
// CHECK-SAME: (%[[A:.+]]: tensor<4xf16>, %[[B:.+]]: tensor<4xf16>)
// CHECK: %[[WA:.+]] = tract.cast %[[A]] : tensor<4xf16> -> tensor<4xf32>
// CHECK: %[[WB:.+]] = tract.cast %[[B]] : tensor<4xf16> -> tensor<4xf32>
// CHECK: %[[S:.+]] = tract.add %[[WA]], %[[WB]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK: %[[N:.+]] = tract.cast %[[S]] : tensor<4xf32> -> tensor<4xf16>
// CHECK: return %[[N]]
func.func @add_f16(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  %0 = tract.add %a, %b : tensor<4xf16>, tensor<4xf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Data movement and casts stay on f16 storage.
// CHECK-LABEL: func @move_f16
// CHECK-NEXT: tract.transpose %{{.*}} : tensor<2x3xf16> -> tensor<3x2xf16>
// CHECK-NEXT: tract.cast %{{.*}} : tensor<3x2xf16> -> tensor<3x2xf32>
// CHECK-NEXT: return
func.func @move_f16(%a: tensor<2x3xf16>) -> tensor<3x2xf32> {
  %0 = tract.transpose %a {perm = array<i64: 1, 0>} : tensor<2x3xf16> -> tensor<3x2xf16>
  %1 = tract.cast %0 : tensor<3x2xf16> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// f32 ops are untouched.
// CHECK-LABEL: func @no_f16
// CHECK-NOT: tract.cast
func.func @no_f16(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tract.relu %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
