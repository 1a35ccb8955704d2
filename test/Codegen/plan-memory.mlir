// RUN: tract-opt %s --split-input-file --tract-plan-memory | FileCheck %s

// A chain reuses memory: relu's buffer is dead once neg has read it.
// CHECK-LABEL: func @chain
// CHECK-SAME: tract.arena_bytes = 128
// CHECK: tract.relu %{{.*}} {tract.arena_offsets = array<i64: 0>}
// CHECK: tract.neg %{{.*}} {tract.arena_offsets = array<i64: 64>}
// CHECK: tract.exp %{{.*}} {tract.arena_offsets = array<i64: 0>}
// CHECK: tract.abs %{{.*}} {tract.arena_offsets = array<i64: -1>}
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tract.relu %x : tensor<4xf32>
  %1 = tract.neg %0 : tensor<4xf32>
  %2 = tract.exp %1 : tensor<4xf32>
  %3 = tract.abs %2 : tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// A value live across others keeps its buffer; the largest are placed first
// (relu, then reshape and add reuse relu's space once it is dead).
// CHECK-LABEL: func @skip
// CHECK-SAME: tract.arena_bytes = 2112
// CHECK: tract.relu %{{.*}} {tract.arena_offsets = array<i64: 0>} : tensor<256xf32>
// CHECK: tract.neg %{{.*}} {tract.arena_offsets = array<i64: 1024>} : tensor<4xf32>
// CHECK: tract.reshape %{{.*}} {tract.arena_offsets = array<i64: 2048>} : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: tract.reshape %{{.*}} {tract.arena_offsets = array<i64: 1024>} : tensor<256xf32> -> tensor<4x64xf32>
// CHECK: tract.add %{{.*}}, %{{.*}} {tract.arena_offsets = array<i64: 0>}
// CHECK: tract.reshape %{{.*}} {tract.arena_offsets = array<i64: -1>}
func.func @skip(%x: tensor<256xf32>, %y: tensor<4xf32>) -> tensor<256xf32> {
  %0 = tract.relu %x : tensor<256xf32>
  %1 = tract.neg %y : tensor<4xf32>
  %2 = tract.reshape %1 : tensor<4xf32> -> tensor<4x1xf32>
  %3 = tract.reshape %0 : tensor<256xf32> -> tensor<4x64xf32>
  %4 = tract.add %3, %2 : tensor<4x64xf32>, tensor<4x1xf32> -> tensor<4x64xf32>
  %5 = tract.reshape %4 : tensor<4x64xf32> -> tensor<256xf32>
  return %5 : tensor<256xf32>
}

// -----

// Constants and graph outputs stay out of the arena.
// CHECK-LABEL: func @no_arena
// CHECK-SAME: tract.arena_bytes = 0
// CHECK: tract.const
// CHECK-NOT: tract.arena_offsets
// CHECK: tract.mul %{{.*}} {tract.arena_offsets = array<i64: -1>}
func.func @no_arena(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = tract.const dense<2.0> : tensor<4xf32>
  %0 = tract.mul %x, %c : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
