// RUN: tract-opt %s --split-input-file --tract-plan-memory | FileCheck %s

// An elementwise chain runs in place: each op's input dies as it is read,
// so the result overwrites it.
// CHECK-LABEL: func @chain
// CHECK-SAME: tract.arena_bytes = 64
// CHECK: tract.relu %{{.*}} {tract.arena_offsets = array<i64: 0>}
// CHECK: tract.neg %{{.*}} {tract.arena_offsets = array<i64: 0>}
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

// relu's result is read again after neg: neg must not overwrite it; exp may
// overwrite neg's, and the add then reads both.
// CHECK-LABEL: func @chain_not_in_place
// CHECK-SAME: tract.arena_bytes = 128
// CHECK: tract.relu %{{.*}} {tract.arena_offsets = array<i64: 0>}
// CHECK: tract.neg %{{.*}} {tract.arena_offsets = array<i64: 64>}
// CHECK: tract.exp %{{.*}} {tract.arena_offsets = array<i64: 64>}
func.func @chain_not_in_place(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tract.relu %x : tensor<4xf32>
  %1 = tract.neg %0 : tensor<4xf32>
  %2 = tract.exp %1 : tensor<4xf32>
  %3 = tract.add %0, %2 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// A broadcast operand is read at other indices than the one written: never
// overwritten (only the full-shape operand of the add is).
// CHECK-LABEL: func @broadcast_not_in_place
// CHECK: tract.relu %arg0 {tract.arena_offsets = array<i64: [[R:[0-9]+]]>} : tensor<4xf32>
// CHECK: tract.neg %arg1 {tract.arena_offsets = array<i64: [[N:[0-9]+]]>} : tensor<2x4xf32>
// CHECK: tract.add %{{.*}}, %{{.*}} {tract.arena_offsets = array<i64: [[N]]>}
func.func @broadcast_not_in_place(%x: tensor<4xf32>, %y: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = tract.relu %x : tensor<4xf32>
  %1 = tract.neg %y : tensor<2x4xf32>
  %2 = tract.add %0, %1 : tensor<4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  %3 = tract.exp %2 : tensor<2x4xf32>
  return %3 : tensor<2x4xf32>
}

// -----

// A value live across others keeps its buffer; the largest are placed first.
// The reshapes are views of relu's and neg's buffers, which therefore live
// until the add; the add writes in place over relu's (its full-shape
// operand, read at the index it writes); the last reshape (a graph output)
// is a copy.
// CHECK-LABEL: func @skip
// CHECK-SAME: tract.arena_bytes = 1088
// CHECK: tract.relu %{{.*}} {tract.arena_offsets = array<i64: 0>} : tensor<256xf32>
// CHECK: tract.neg %{{.*}} {tract.arena_offsets = array<i64: 1024>} : tensor<4xf32>
// CHECK: tract.reshape %{{.*}} {tract.arena_offsets = array<i64: 1024>} : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: tract.reshape %{{.*}} {tract.arena_offsets = array<i64: 0>} : tensor<256xf32> -> tensor<4x64xf32>
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

// -----

// A reshape of an arena tensor is a view: same offset as its input, and the
// buffer stays live until the view's last use (the exp cannot take it).
// CHECK-LABEL: func @reshape_view
// CHECK: tract.relu %arg0 {tract.arena_offsets = array<i64: [[R:[0-9]+]]>}
// CHECK: tract.reshape %{{.*}} {tract.arena_offsets = array<i64: [[R]]>}
// CHECK: tract.exp %arg0 {tract.arena_offsets = array<i64: [[E:[0-9]+]]>}
// CHECK: tract.add
func.func @reshape_view(%x: tensor<2x8xf32>) -> tensor<16xf32> {
  %0 = tract.relu %x : tensor<2x8xf32>
  %1 = tract.reshape %0 : tensor<2x8xf32> -> tensor<16xf32>
  %2 = tract.exp %x : tensor<2x8xf32>
  %3 = tract.reshape %2 : tensor<2x8xf32> -> tensor<16xf32>
  %4 = tract.add %1, %3 : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  return %4 : tensor<16xf32>
}

// -----

// A reshape of a graph input cannot be a view into the arena: it copies.
// CHECK-LABEL: func @reshape_of_input
// CHECK: tract.reshape %arg0 {tract.arena_offsets = array<i64: 0>}
func.func @reshape_of_input(%x: tensor<2x8xf32>) -> tensor<16xf32> {
  %0 = tract.reshape %x : tensor<2x8xf32> -> tensor<16xf32>
  %1 = tract.neg %0 : tensor<16xf32>
  return %1 : tensor<16xf32>
}

// -----

// A run of tensors that shrink after a peak (an inverted residual's, once
// its expand is fused): largest first puts the 192-byte D at 0, under the
// dead A, and then the 128-byte C, live beside both B and D, finds room
// only above B (640 bytes). Definition order puts C at 0 and D above it:
// the peak of live bytes, A + B = 512, which the plan keeps.
// CHECK-LABEL: func @shrinking_run
// CHECK-SAME: tract.arena_bytes = 512
// CHECK: tract.matmul {{.*}}tract.arena_offsets = array<i64: 0>
// CHECK: tract.matmul {{.*}}tract.arena_offsets = array<i64: 256>
// CHECK: tract.matmul {{.*}}tract.arena_offsets = array<i64: 0>
// CHECK: tract.matmul {{.*}}tract.arena_offsets = array<i64: 128>
func.func @shrinking_run(%x: tensor<1x64xf32>) -> tensor<1x8xf32> {
  %w1 = tract.const dense<0.5> : tensor<64x64xf32>
  %w2 = tract.const dense<0.5> : tensor<64x64xf32>
  %w3 = tract.const dense<0.5> : tensor<64x32xf32>
  %w4 = tract.const dense<0.5> : tensor<32x48xf32>
  %w5 = tract.const dense<0.5> : tensor<48x8xf32>
  %a = tract.matmul %x, %w1 : tensor<1x64xf32>, tensor<64x64xf32> -> tensor<1x64xf32>
  %b = tract.matmul %a, %w2 : tensor<1x64xf32>, tensor<64x64xf32> -> tensor<1x64xf32>
  %c = tract.matmul %b, %w3 : tensor<1x64xf32>, tensor<64x32xf32> -> tensor<1x32xf32>
  %d = tract.matmul %c, %w4 : tensor<1x32xf32>, tensor<32x48xf32> -> tensor<1x48xf32>
  %e = tract.matmul %d, %w5 : tensor<1x48xf32>, tensor<48x8xf32> -> tensor<1x8xf32>
  return %e : tensor<1x8xf32>
}

// -----

// A concat along an axis with only unit dims before it is a view: each
// operand is written straight into its byte range of the result's buffer
// (relu's 16 bytes, then neg's), and exp may then overwrite the whole.
// CHECK-LABEL: func @concat_in_place
// CHECK-SAME: tract.arena_bytes = 64
// CHECK: tract.relu %{{.*}} {tract.arena_offsets = array<i64: 0>}
// CHECK: tract.neg %{{.*}} {tract.arena_offsets = array<i64: 16>}
// CHECK: tract.concat %{{.*}}, %{{.*}} {axis = 1 : i64, tract.arena_offsets = array<i64: 0>}
// CHECK: tract.exp %{{.*}} {tract.arena_offsets = array<i64: 0>}
func.func @concat_in_place(%x: tensor<1x4xf32>, %y: tensor<1x8xf32>) -> tensor<1x12xf32> {
  %0 = tract.relu %x : tensor<1x4xf32>
  %1 = tract.neg %y : tensor<1x8xf32>
  %2 = tract.concat %0, %1 {axis = 1} : (tensor<1x4xf32>, tensor<1x8xf32>) -> tensor<1x12xf32>
  %3 = tract.exp %2 : tensor<1x12xf32>
  %4 = tract.abs %3 : tensor<1x12xf32>
  return %4 : tensor<1x12xf32>
}

// -----

// Concats that copy: operands interleaved in the result (2 rows before the
// axis), an operand outside the arena (a graph input).
// CHECK-LABEL: func @concat_copies
// CHECK: tract.relu %arg0 {tract.arena_offsets = array<i64: [[A:[0-9]+]]>}
// CHECK: tract.neg %arg1 {tract.arena_offsets = array<i64: [[B:[0-9]+]]>}
// CHECK: tract.concat %{{.*}} {axis = 1 : i64, tract.arena_offsets = array<i64: [[C:[0-9]+]]>}
// CHECK-NOT: array<i64: [[A]]>
// CHECK-NOT: array<i64: [[B]]>
// CHECK: tract.relu %arg2 {tract.arena_offsets = array<i64: [[D:[0-9]+]]>}
// CHECK-NOT: array<i64: [[D]]>
// CHECK: tract.concat
func.func @concat_copies(%x: tensor<2x4xf32>, %y: tensor<2x8xf32>, %z: tensor<1x4xf32>) -> (tensor<2x12xf32>, tensor<1x8xf32>) {
  %0 = tract.relu %x : tensor<2x4xf32>
  %1 = tract.neg %y : tensor<2x8xf32>
  %2 = tract.concat %0, %1 {axis = 1} : (tensor<2x4xf32>, tensor<2x8xf32>) -> tensor<2x12xf32>
  %3 = tract.exp %2 : tensor<2x12xf32>
  %4 = tract.relu %z : tensor<1x4xf32>
  %5 = tract.concat %4, %z {axis = 1} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x8xf32>
  %6 = tract.exp %5 : tensor<1x8xf32>
  return %3, %6 : tensor<2x12xf32>, tensor<1x8xf32>
}

// -----

// relu's result is read again after the concat: the concat's bytes stay
// live until then, so exp and the second neg (relu's last reader) write
// elsewhere instead of in place.
// CHECK-LABEL: func @concat_operand_read_later
// CHECK: tract.relu %{{.*}} {tract.arena_offsets = array<i64: [[R:[0-9]+]]>}
// CHECK: tract.concat %{{.*}}, %{{.*}} {axis = 1 : i64, tract.arena_offsets = array<i64: [[R]]>}
// CHECK-NOT: array<i64: [[R]]>
// CHECK: return
func.func @concat_operand_read_later(%x: tensor<1x4xf32>, %y: tensor<1x4xf32>) -> (tensor<1x8xf32>, tensor<1x4xf32>) {
  %0 = tract.relu %x : tensor<1x4xf32>
  %1 = tract.neg %y : tensor<1x4xf32>
  %2 = tract.concat %0, %1 {axis = 1} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x8xf32>
  %3 = tract.exp %2 : tensor<1x8xf32>
  %4 = tract.neg %0 : tensor<1x4xf32>
  %5 = tract.exp %4 : tensor<1x4xf32>
  %6 = tract.abs %3 : tensor<1x8xf32>
  return %6, %5 : tensor<1x8xf32>, tensor<1x4xf32>
}

// -----

// A depthwise conv in lane layout at stride 1 with "same" padding writes its
// output over its input when that dies there (output rows land on input
// rows already staged); at stride 2 it does not. The relu keeps each conv's
// input out of the function's arguments (never planned).
// CHECK-LABEL: func @depthwise_in_place
// CHECK: tract.relu %{{.*}} {tract.arena_offsets = array<i64: [[X:[0-9]+]]>}
// CHECK: tract.conv {{.*}}tract.algorithm = "depthwise_lanes", tract.arena_offsets = array<i64: [[X]]>
// CHECK: tract.conv {{.*}}tract.algorithm = "depthwise_lanes", tract.arena_offsets = array<i64: [[Y:[0-9]+]]>
// CHECK-NOT: array<i64: [[Y]]>
// CHECK: return
func.func @depthwise_in_place(%x: tensor<1x16x8x8xf32>, %w: tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %0 = tract.relu %x : tensor<1x16x8x8xf32>
  %1 = tract.conv %0, %w {dilations = array<i64: 1, 1>, group = 16 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, tract.algorithm = "depthwise_lanes", tract.scratch_bytes = 0 : i64} : (tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x8x8xf32>
  %2 = tract.conv %1, %w {dilations = array<i64: 1, 1>, group = 16 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, tract.algorithm = "depthwise_lanes", tract.scratch_bytes = 0 : i64} : (tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32>
  %3 = tract.relu %2 : tensor<1x16x4x4xf32>
  return %3 : tensor<1x16x4x4xf32>
}
