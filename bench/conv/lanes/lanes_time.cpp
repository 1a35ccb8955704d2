// Times one case of lanes_cases.h with the runtime on the include path. Built
// once per runtime compared (bench/run-lanes.sh): LANES_TIME_FN names the
// function, and the base runtime's unit is built with -Dtract=tract_base so
// the two runtimes' inline kernels do not collide in one binary.
//
// (Compiled between optimize_push.h and optimize_pop.h, as generated code
// is, so the epilogue inlines into the kernels.)
#include "tract/rt/optimize_push.h"
#include "tract/rt/elementwise/unary_ref.h"
#include "tract/rt/nn/conv_depthwise.h"
#include "tract/rt/nn/conv_expand_depthwise.h"
#include "tract/rt/nn/conv_lanes.h"
#include "tract/rt/nn/conv_winograd.h"

#include "bench/conv/lanes/lanes_cases.h"
#include "bench/median_time.h"

#include <vector>

#ifndef LANES_TIME_FN
#define LANES_TIME_FN lanes_time_new
#endif

namespace {

using namespace tract::rt;

std::vector<float> filled(int64_t n, int salt) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = float(int((i * 37 + size_t(salt)) % 101)) / 101.0f - 0.5f;
  return v;
}

ConvParams params_of(const bench::LanesCase &c) {
  ConvParams p{};
  p.spatial_rank = 2;
  p.batch = 1;
  const bool depthwise = c.kernel == bench::LanesKernel::Depthwise ||
                         c.kernel == bench::LanesKernel::ExpandDepthwise;
  p.in_channels = depthwise ? c.cout : c.cin;
  p.out_channels = c.cout;
  p.groups = depthwise ? c.cout : 1;
  for (int d = 0; d < 2; ++d) {
    p.in_size[d] = c.side;
    p.out_size[d] = bench::lanes_out_side(c);
    p.kernel[d] = c.k;
    p.stride[d] = c.s;
    p.dilation[d] = 1;
    p.pad_begin[d] = c.k / 2;
  }
  return p;
}

// ReLU6 (MobileNetV2's convs end in it) as the compiler emits it for the
// runtime at hand: a ClipEpilogue, which the lane kernels apply in their
// tiles, where the runtime has one (since 2026-12-06), else op::Clip in the
// epilogue's loop.
#if __has_include("tract/rt/elementwise/clip_in_place.h")
const ClipEpilogue relu6{0.0f, 6.0f};
#else
const auto relu6 = [](float *v, int64_t, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    v[j] = op::Clip<float>{0.0f, 6.0f}(v[j]);
};
#endif
const auto none = [](float *, int64_t, int64_t) {};

// The expand before an ExpandDepthwise case's depthwise conv.
ConvParams expand_of(const bench::LanesCase &c) {
  return params_of({bench::LanesKernel::IntoLanes, c.cin, c.cout, c.side, 1, 1});
}

// MobileNetV2's fused expand + depthwise, its weights laid out as the
// compiler packs them.
double expand_depthwise_us(const bench::LanesCase &c, int runs) {
  const ConvParams pe = expand_of(c), pd = params_of(c);
  const std::vector<float> we = filled(c.cout * c.cin, 1), be = filled(c.cout, 2),
                           wd = filled(c.cout * c.k * c.k, 3), bd = filled(c.cout, 4),
                           x = filled(c.cin * c.side * c.side, 5);
  std::vector<float> packed(static_cast<size_t>(lane_weight_floats(c.cout, c.cin)));
  pack_lane_weights(we.data(), c.cout, c.cin, packed.data());
  std::vector<float> y(static_cast<size_t>(c.cout * pd.out_size[0] * pd.out_size[1]));
  std::vector<float> scratch(static_cast<size_t>(expand_depthwise_scratch_floats(pd)));
  return bench::median_us(
      [&] {
        conv_expand_depthwise<false, true>(x.data(), packed.data(), be.data(), wd.data(),
                                           bd.data(), y.data(), pe, pd, relu6, relu6,
                                           scratch.data());
      },
      runs);
}

// A 3x3 conv on Winograd F(4x4), its weights transformed as the compiler
// does.
double winograd4_us(const bench::LanesCase &c, int runs) {
  const ConvParams p = params_of(c);
  const std::vector<float> w = filled(c.cout * c.cin * 9, 1), bias = filled(c.cout, 2),
                           x = filled(c.cin * c.side * c.side, 3);
  std::vector<float> u(static_cast<size_t>(winograd::transformed_weight_floats<4>(p)));
  winograd::transform_weights<4>(w.data(), p, u.data());
  std::vector<float> y(static_cast<size_t>(c.cout * p.out_size[0] * p.out_size[1]));
  std::vector<float> scratch(static_cast<size_t>(winograd::scratch_floats<4>(p)));
  return bench::median_us(
      [&] {
        winograd::conv_winograd<4>(x.data(), u.data(), bias.data(), y.data(), p, relu6,
                                   scratch.data());
      },
      runs);
}

} // namespace

double LANES_TIME_FN(const bench::LanesCase &c, int runs) {
  using bench::LanesKernel;
  if (c.kernel == LanesKernel::ExpandDepthwise)
    return expand_depthwise_us(c, runs);
  if (c.kernel == LanesKernel::Winograd4)
    return winograd4_us(c, runs);
  const ConvParams p = params_of(c);
  const int64_t taps = p.in_channels / p.groups * c.k * c.k;
  const int64_t out_plane = p.out_size[0] * p.out_size[1];
  const std::vector<float> w = filled(c.cout * taps, 1), bias = filled(c.cout, 2),
                           x = filled(p.in_channels * c.side * c.side, 3);
  std::vector<float> y(static_cast<size_t>(c.cout * out_plane));
  std::vector<float> packed(static_cast<size_t>(lane_weight_floats(c.cout, taps)));
  pack_lane_weights(w.data(), c.cout, taps, packed.data());
  const int64_t scratch_floats = c.kernel == LanesKernel::OutOfLanes ? from_lanes_scratch_floats()
                                 : c.kernel == LanesKernel::ByTaps ? conv_by_taps_scratch_floats(p)
                                 : c.kernel == LanesKernel::StemLanes
                                     ? conv_to_lanes_scratch_floats(p)
                                 : c.kernel == LanesKernel::Depthwise ? depthwise_scratch_floats(p)
                                                                      : 0;
  std::vector<float> scratch(static_cast<size_t>(scratch_floats));
  return bench::median_us(
      [&] {
        switch (c.kernel) {
        case LanesKernel::IntoLanes:
          return conv_pointwise_to_lanes(x.data(), packed.data(), bias.data(), y.data(), p, relu6);
        case LanesKernel::OutOfLanes:
          return conv_pointwise_from_lanes(x.data(), packed.data(), bias.data(), y.data(), p, none,
                                           scratch.data());
        case LanesKernel::StemLanes:
          return conv_to_lanes<true>(x.data(), packed.data(), bias.data(), y.data(), p, relu6,
                                     scratch.data());
        case LanesKernel::ByTaps:
          return conv_to_lanes<false>(x.data(), packed.data(), bias.data(), y.data(), p, relu6,
                                      scratch.data());
        case LanesKernel::Depthwise: // (weights as they are: the kernel packs them per block)
          return conv_depthwise<true, true>(x.data(), w.data(), bias.data(), y.data(), p, relu6,
                                            scratch.data());
        case LanesKernel::ExpandDepthwise:
        case LanesKernel::Winograd4:
          return;
        }
      },
      runs);
}

#include "tract/rt/optimize_pop.h"
