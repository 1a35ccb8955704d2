// The convs bench/run-lanes.sh times on conv_lanes.h's register tiles, and
// what one timing of one of them takes: shared by the timing unit (built
// once per runtime compared) and the driver.
#pragma once

#include <cstdint>

namespace bench {

enum class LanesKernel {
  IntoLanes,  // conv_pointwise_to_lanes: NCHW in, NCHW16c out, ReLU6
  OutOfLanes, // conv_pointwise_from_lanes: NCHW16c in, NCHW out
  StemLanes,  // conv_to_lanes<true>: a k x k conv into NCHW16c, ReLU6
  ByTaps,     // conv_to_lanes<false>: a k x k conv by taps into NCHW, ReLU6
  Depthwise,  // conv_depthwise<true, true>: k x k, NCHW16c in and out, ReLU6
  ExpandDepthwise, // conv_expand_depthwise<false, true>: a 1x1 cin -> cout (NCHW in)
                   // fused into a k x k depthwise conv (NCHW16c out), ReLU6 after each
  Winograd4,       // winograd::conv_winograd<4>: a 3x3 stride-1 conv, NCHW in and out,
                   // ReLU6 (its input transform moves tiles into lanes)
};

// A square k x k conv, stride s, padding k / 2, batch 1.
struct LanesCase {
  LanesKernel kernel;
  int64_t cin, cout, side, k, s;
};

// MobileNetV2's expansions and projections; its stem; by taps: ResNet-18's
// stem, 3x3 convs on small maps (taps over Winograd), a 5x5 as Inception-v3
// has, a 3x3 on 14 x 14; MobileNetV2's depthwise convs, alone and with the
// expand before them fused (cout the expanded channels); 3x3 convs on
// Winograd F(4x4): SqueezeNet 1.1's expands, ResNet-18's stages.
constexpr LanesCase kLanesCases[] = {
    {LanesKernel::IntoLanes, 16, 96, 112, 1, 1},   {LanesKernel::IntoLanes, 24, 144, 56, 1, 1},
    {LanesKernel::IntoLanes, 32, 192, 28, 1, 1},   {LanesKernel::IntoLanes, 64, 384, 14, 1, 1},
    {LanesKernel::IntoLanes, 96, 576, 14, 1, 1},   {LanesKernel::IntoLanes, 160, 960, 7, 1, 1},
    {LanesKernel::IntoLanes, 320, 1280, 7, 1, 1},  {LanesKernel::OutOfLanes, 32, 16, 112, 1, 1},
    {LanesKernel::OutOfLanes, 96, 24, 56, 1, 1},   {LanesKernel::OutOfLanes, 144, 24, 56, 1, 1},
    {LanesKernel::OutOfLanes, 144, 32, 28, 1, 1},  {LanesKernel::OutOfLanes, 192, 32, 28, 1, 1},
    {LanesKernel::OutOfLanes, 192, 64, 14, 1, 1},  {LanesKernel::OutOfLanes, 384, 64, 14, 1, 1},
    {LanesKernel::OutOfLanes, 576, 96, 14, 1, 1},  {LanesKernel::OutOfLanes, 576, 160, 7, 1, 1},
    {LanesKernel::OutOfLanes, 960, 160, 7, 1, 1},  {LanesKernel::OutOfLanes, 960, 320, 7, 1, 1},
    {LanesKernel::StemLanes, 3, 32, 224, 3, 2},    {LanesKernel::ByTaps, 3, 64, 224, 7, 2},
    {LanesKernel::ByTaps, 128, 128, 7, 3, 1},      {LanesKernel::ByTaps, 64, 64, 8, 3, 1},
    {LanesKernel::ByTaps, 48, 64, 35, 5, 1},       {LanesKernel::ByTaps, 256, 256, 14, 3, 1},
    {LanesKernel::Depthwise, 32, 32, 112, 3, 1},   {LanesKernel::Depthwise, 144, 144, 56, 3, 1},
    {LanesKernel::Depthwise, 576, 576, 14, 3, 1},  {LanesKernel::Depthwise, 960, 960, 7, 3, 1},
    {LanesKernel::ExpandDepthwise, 16, 96, 112, 3, 2},
    {LanesKernel::ExpandDepthwise, 24, 144, 56, 3, 1},
    {LanesKernel::ExpandDepthwise, 24, 144, 56, 3, 2},
    {LanesKernel::ExpandDepthwise, 32, 192, 28, 3, 1},
    {LanesKernel::Winograd4, 16, 64, 55, 3, 1},    {LanesKernel::Winograd4, 32, 128, 27, 3, 1},
    {LanesKernel::Winograd4, 48, 192, 13, 3, 1},   {LanesKernel::Winograd4, 64, 256, 13, 3, 1},
    {LanesKernel::Winograd4, 64, 64, 56, 3, 1},    {LanesKernel::Winograd4, 128, 128, 28, 3, 1},
    {LanesKernel::Winograd4, 256, 256, 14, 3, 1},
};

inline int64_t lanes_out_side(const LanesCase &c) {
  return (c.side + 2 * (c.k / 2) - c.k) / c.s + 1;
}

// Multiply-adds of a case.
inline double lanes_case_macs(const LanesCase &c) {
  const int64_t o = lanes_out_side(c);
  const double depthwise = double(c.cout * c.k * c.k * o * o);
  if (c.kernel == LanesKernel::Depthwise)
    return depthwise;
  if (c.kernel == LanesKernel::ExpandDepthwise)
    return double(c.cin * c.cout * c.side * c.side) + depthwise;
  return double(c.cin * c.cout * c.k * c.k * o * o);
}

} // namespace bench

// The timing unit's function (lanes_time.cpp, built as lanes_time_new from
// the working tree's runtime and, to compare, as lanes_time_base from
// another's): the median time in us of `runs` runs of case c, one thread,
// weights and input warm.
double lanes_time_new(const bench::LanesCase &c, int runs);
double lanes_time_base(const bench::LanesCase &c, int runs);
