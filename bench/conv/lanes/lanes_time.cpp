// Times one case of lanes_cases.h with the runtime on the include path. Built
// once per runtime compared (bench/run-lanes.sh): LANES_TIME_FN names the
// function, and the base runtime's unit is built with -Dtract=tract_base so
// the two runtimes' inline kernels do not collide in one binary.
//
// (Compiled between optimize_push.h and optimize_pop.h, as generated code
// is, so the epilogue inlines into the kernels.)
#include "tract/rt/optimize_push.h"
#include "tract/rt/nn/conv_lanes.h"

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
  p.in_channels = c.cin;
  p.out_channels = c.cout;
  p.groups = 1;
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

// ReLU6, as MobileNetV2's expansions end.
const auto relu6 = [](float *v, int64_t, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    v[j] = v[j] < 0.0f ? 0.0f : (v[j] > 6.0f ? 6.0f : v[j]);
};
const auto none = [](float *, int64_t, int64_t) {};

} // namespace

double LANES_TIME_FN(const bench::LanesCase &c, int runs) {
  using bench::LanesKernel;
  const ConvParams p = params_of(c);
  const int64_t taps = c.cin * c.k * c.k, out_plane = p.out_size[0] * p.out_size[1];
  const std::vector<float> w = filled(c.cout * taps, 1), bias = filled(c.cout, 2),
                           x = filled(c.cin * c.side * c.side, 3);
  std::vector<float> y(static_cast<size_t>(c.cout * out_plane));
  std::vector<float> packed(static_cast<size_t>(lane_weight_floats(c.cout, taps)));
  pack_lane_weights(w.data(), c.cout, taps, packed.data());
  const int64_t scratch_floats = c.kernel == LanesKernel::OutOfLanes ? from_lanes_scratch_floats()
                                 : c.kernel == LanesKernel::ByTaps ? conv_by_taps_scratch_floats(p)
                                 : c.kernel == LanesKernel::StemLanes
                                     ? conv_to_lanes_scratch_floats(p)
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
        }
      },
      runs);
}

#include "tract/rt/optimize_pop.h"
