// RUN: tract-opt %s --tract-choose-kernels | FileCheck %s --check-prefix=GENERIC
// RUN: tract-opt %s --tract-choose-kernels=cpu=znver4 | FileCheck %s --check-prefix=GENERIC
// RUN: tract-opt %s --tract-choose-kernels=cpu=znver5 | FileCheck %s --check-prefix=ZNVER5
// RUN: tract-opt %s --tract-choose-kernels=cpu=icelake-server | FileCheck %s --check-prefix=ZNVER5
// RUN: not tract-opt %s --tract-choose-kernels=cpu=zen 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// Winograd against im2col is priced with the CPU kind's costs
// (compiler/Support/CpuModels.cpp): Zen 4's (the generic default) charge 44
// multiply-adds per transformed element and 20 per gathered one, Zen 5's
// (and icelake-server's, unmeasured) 36 and 12. So 12 -> 64 channels on a 16x16 map, where the gather is most of
// im2col's work, is F(4x4) on Zen 5 and not on Zen 4 (there it runs by
// taps, which beats im2col: conv_by_taps); 64 -> 16 channels on
// an 8x8 map (4 tiles of F(4x4) padded to 16 lanes, 16 of F(2x2)) is F(4x4)
// on Zen 4 and F(2x2) on Zen 5.
// GENERIC-LABEL: func @close_calls
// GENERIC: tract.conv {{.*}}tract.algorithm = "conv_by_taps"
// GENERIC: tract.conv {{.*}}tract.algorithm = "winograd_f4"
// ZNVER5-LABEL: func @close_calls
// ZNVER5: tract.conv {{.*}}tract.algorithm = "winograd_f4"
// ZNVER5: tract.conv {{.*}}tract.algorithm = "winograd_f2"
// UNKNOWN: error: unknown CPU kind 'zen' (expected generic, znver4, znver5, icelake-server, or native)
func.func @close_calls(%x: tensor<1x12x16x16xf32>, %y: tensor<1x64x8x8xf32>) -> (tensor<1x64x16x16xf32>, tensor<1x16x8x8xf32>) {
  %w = tract.const dense<0.5> : tensor<64x12x3x3xf32>
  %v = tract.const dense<0.25> : tensor<16x64x3x3xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x12x16x16xf32>, tensor<64x12x3x3xf32>) -> tensor<1x64x16x16xf32>
  %1 = tract.conv %y, %v {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x64x8x8xf32>, tensor<16x64x3x3xf32>) -> tensor<1x16x8x8xf32>
  return %0, %1 : tensor<1x64x16x16xf32>, tensor<1x16x8x8xf32>
}
