// The convs on conv_lanes.h's register tiles (pixels x 16-channel blocks),
// one thread: the pointwise convs into and out of lane layout on
// MobileNetV2's shapes, a stem into lane layout, convs by taps into NCHW,
// MobileNetV2's depthwise convs alone and after their fused expands, with
// ReLU6 where MobileNetV2 has it, 3x3 convs on Winograd F(4x4)
// (lanes_cases.h); `--only TEXT`: the cases whose kernel's name holds TEXT. Alone: each case's median time, GFLOP/s and fraction of
// the FMA peak measured in the same run. With LANES_PAIRED (built by
// bench/run-lanes.sh --against REF): the same cases on the runtime at REF
// and on the working tree's, alternating within one process, case by case
// (9 pairs of medians of 41 runs): each pair's new / base ratio, their
// median and quartiles. Run against itself, the medians stay within 2% on
// a noisy 2-core VM where two separate runs drift apart by 10%.
#include "bench/conv/lanes/lanes_cases.h"
#include "bench/peak/fma_peak.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

const char *kernel_name(bench::LanesKernel k) {
  switch (k) {
  case bench::LanesKernel::IntoLanes:
    return "into";
  case bench::LanesKernel::OutOfLanes:
    return "out of";
  case bench::LanesKernel::StemLanes:
    return "stem";
  case bench::LanesKernel::ByTaps:
    return "taps";
  case bench::LanesKernel::Depthwise:
    return "depthwise";
  case bench::LanesKernel::ExpandDepthwise:
    return "expand + depthwise";
  case bench::LanesKernel::Winograd4:
    return "winograd F(4x4)";
  }
  return "?";
}

void print_case(const bench::LanesCase &c) {
  std::printf("| %s %lldx%lld s%lld, %lld -> %lld at %lldx%lld |", kernel_name(c.kernel),
              (long long)c.k, (long long)c.k, (long long)c.s, (long long)c.cin, (long long)c.cout,
              (long long)c.side, (long long)c.side);
}

} // namespace

int main(int argc, char **argv) {
  const char *only = argc > 2 && !std::strcmp(argv[1], "--only") ? argv[2] : nullptr;
  auto skip = [&](const bench::LanesCase &c) {
    return only && !std::strstr(kernel_name(c.kernel), only);
  };
  bench::print_cpu();
  const bench::FmaPeak peak = bench::measure_fma_peak();
  bench::print_fma_peak(peak);
#ifdef LANES_PAIRED
  std::printf("\none thread; new / base: median of 9 paired medians (quartiles)\n\n"
              "| conv | base us | new us | new / base |\n|---|---|---|---|\n");
  for (const bench::LanesCase &c : bench::kLanesCases) {
    if (skip(c))
      continue;
    std::vector<double> ratios, base, fresh;
    for (int i = 0; i < 9; ++i) {
      base.push_back(lanes_time_base(c, 41));
      fresh.push_back(lanes_time_new(c, 41));
      ratios.push_back(fresh.back() / base.back());
    }
    std::sort(ratios.begin(), ratios.end());
    std::sort(base.begin(), base.end());
    std::sort(fresh.begin(), fresh.end());
    print_case(c);
    std::printf(" %.1f | %.1f | %.3f (%.3f-%.3f) |\n", base[4], fresh[4], ratios[4], ratios[2],
                ratios[6]);
  }
#else
  std::printf("\none thread\n\n| conv | us | GFLOP/s | of peak |\n|---|---|---|---|\n");
  for (const bench::LanesCase &c : bench::kLanesCases) {
    if (skip(c))
      continue;
    const double us = lanes_time_new(c, 301);
    const double gflops = 2.0 * bench::lanes_case_macs(c) / us * 1e-3;
    print_case(c);
    std::printf(" %.1f | %.1f | %.0f%% |\n", us, gflops, 100.0 * gflops / peak.best());
  }
#endif
  return 0;
}
