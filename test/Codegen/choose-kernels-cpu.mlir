// RUN: tract-opt %s --tract-choose-kernels | FileCheck %s --check-prefix=GENERIC
// RUN: tract-opt %s --tract-choose-kernels=cpu=znver4 | FileCheck %s --check-prefix=GENERIC
// RUN: tract-opt %s --tract-choose-kernels=cpu=znver5 | FileCheck %s --check-prefix=ZNVER5
// RUN: tract-opt %s --tract-choose-kernels=cpu=icelake-server | FileCheck %s --check-prefix=ICELAKE
// RUN: not tract-opt %s --tract-choose-kernels=cpu=zen 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// Winograd against im2col is priced with the CPU kind's costs
// (compiler/Support/CpuModels.cpp): Zen 4's (the generic default) charge 44
// multiply-adds per transformed element and 20 per gathered one, Zen 5's 36
// and 12, icelake-server's (fitted on a Sapphire Rapids class Xeon) 14 and
// 12. So 12 -> 64 channels on a 16x16 map, where the gather is most of
// im2col's work, is F(4x4) on Zen 5 and Intel and not on Zen 4 (there it
// runs by taps, which beats im2col: conv_by_taps); 64 -> 16 channels on an
// 8x8 map (4 tiles of F(4x4) padded to 16 lanes, 16 of F(2x2)) is F(4x4) on
// Zen 4 and F(2x2) on the others; 16 -> 64 on 14x14 is F(4x4) where the
// transforms are cheap enough. On rows of 7 pixels taps replace F(2x2) on
// Zen 5 (and Zen 4), not on Intel, where F(2x2) is faster in the model.
// GENERIC-LABEL: func @close_calls
// GENERIC: tract.conv {{.*}}tract.algorithm = "conv_by_taps"
// GENERIC: tract.conv {{.*}}tract.algorithm = "winograd_f4"
// GENERIC: tract.conv {{.*}}tract.algorithm = "conv_by_taps"
// GENERIC: tract.conv {{.*}}tract.algorithm = "conv_by_taps"
// ZNVER5-LABEL: func @close_calls
// ZNVER5: tract.conv {{.*}}tract.algorithm = "winograd_f4"
// ZNVER5: tract.conv {{.*}}tract.algorithm = "winograd_f2"
// ZNVER5: tract.conv {{.*}}tract.algorithm = "conv_by_taps"
// ZNVER5: tract.conv {{.*}}tract.algorithm = "winograd_f4"
// ICELAKE-LABEL: func @close_calls
// ICELAKE: tract.conv {{.*}}tract.algorithm = "winograd_f4"
// ICELAKE: tract.conv {{.*}}tract.algorithm = "winograd_f2"
// ICELAKE: tract.conv {{.*}}tract.algorithm = "winograd_f2"
// ICELAKE: tract.conv {{.*}}tract.algorithm = "winograd_f4"
// UNKNOWN: error: unknown CPU kind 'zen' (expected generic, znver4, znver5, icelake-server, or native)
func.func @close_calls(%x: tensor<1x12x16x16xf32>, %y: tensor<1x64x8x8xf32>, %z: tensor<1x48x7x7xf32>, %s: tensor<1x16x14x14xf32>) -> (tensor<1x64x16x16xf32>, tensor<1x16x8x8xf32>, tensor<1x192x7x7xf32>, tensor<1x64x14x14xf32>) {
  %w = tract.const dense<0.5> : tensor<64x12x3x3xf32>
  %v = tract.const dense<0.25> : tensor<16x64x3x3xf32>
  %u = tract.const dense<0.125> : tensor<192x48x3x3xf32>
  %t = tract.const dense<0.375> : tensor<64x16x3x3xf32>
  %0 = tract.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x12x16x16xf32>, tensor<64x12x3x3xf32>) -> tensor<1x64x16x16xf32>
  %1 = tract.conv %y, %v {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x64x8x8xf32>, tensor<16x64x3x3xf32>) -> tensor<1x16x8x8xf32>
  %2 = tract.conv %z, %u {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x48x7x7xf32>, tensor<192x48x3x3xf32>) -> tensor<1x192x7x7xf32>
  %3 = tract.conv %s, %t {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x16x14x14xf32>, tensor<64x16x3x3xf32>) -> tensor<1x64x14x14xf32>
  return %0, %1, %2, %3 : tensor<1x64x16x16xf32>, tensor<1x16x8x8xf32>, tensor<1x192x7x7xf32>, tensor<1x64x14x14xf32>
}

// Deeper convs that Winograd does not take (here 5x5) run by taps where
// conv_by_taps_pays, except, on icelake-server, those with more than 64
// output channels and at least 25088 outputs: their im2col GEMM is faster
// there (AlexNet's 5x5 conv, 192 x 27 x 27). 128 x 13 x 13 (21632 outputs),
// 64 x 27 x 27 and a first conv (3 input channels) stay on taps.
// GENERIC-LABEL: func @deep_convs
// GENERIC-COUNT-4: tract.algorithm = "conv_by_taps"
// ZNVER5-LABEL: func @deep_convs
// ZNVER5-COUNT-4: tract.algorithm = "conv_by_taps"
// ICELAKE-LABEL: func @deep_convs
// ICELAKE: tract.conv {{.*}}tract.algorithm = "im2col_gemm"
// ICELAKE: tract.conv {{.*}}tract.algorithm = "conv_by_taps"
// ICELAKE: tract.conv {{.*}}tract.algorithm = "conv_by_taps"
// ICELAKE: tract.conv {{.*}}tract.algorithm = "conv_by_taps"
func.func @deep_convs(%a: tensor<1x64x27x27xf32>, %b: tensor<1x64x13x13xf32>, %c: tensor<1x3x32x32xf32>) -> (tensor<1x192x27x27xf32>, tensor<1x128x13x13xf32>, tensor<1x64x27x27xf32>, tensor<1x64x16x16xf32>) {
  %w = tract.const dense<0.5> : tensor<192x64x5x5xf32>
  %v = tract.const dense<0.25> : tensor<128x64x5x5xf32>
  %u = tract.const dense<0.125> : tensor<64x64x5x5xf32>
  %t = tract.const dense<0.375> : tensor<64x3x7x7xf32>
  %0 = tract.conv %a, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, group = 1} : (tensor<1x64x27x27xf32>, tensor<192x64x5x5xf32>) -> tensor<1x192x27x27xf32>
  %1 = tract.conv %b, %v {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, group = 1} : (tensor<1x64x13x13xf32>, tensor<128x64x5x5xf32>) -> tensor<1x128x13x13xf32>
  %2 = tract.conv %a, %u {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, group = 1} : (tensor<1x64x27x27xf32>, tensor<64x64x5x5xf32>) -> tensor<1x64x27x27xf32>
  %3 = tract.conv %c, %t {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 3, 3, 3, 3>, group = 1} : (tensor<1x3x32x32xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x16x16xf32>
  return %0, %1, %2, %3 : tensor<1x192x27x27xf32>, tensor<1x128x13x13xf32>, tensor<1x64x27x27xf32>, tensor<1x64x16x16xf32>
}
