// The conv kernels on the layer shapes of the benchmark models, one thread:
//   - 3x3 stride-1: im2col GEMM vs Winograd F(2x2,3x3) vs F(4x4,3x3), with
//     the tile size tract-choose-kernels would pick (winograd::choose_tile)
//     and the cost model's constants that would choose best on this CPU;
//     conv_by_taps vs F(2x2) on maps 5-8 wide and the width up to which
//     taps win; conv_by_taps vs im2col on deeper convs (5x5, 1x7, strided
//     and dilated 3x3) and the outputs from which im2col wins (--fit-only:
//     stop there);
//   - first convs of ResNet-18, MobileNetV2 and the KWS CNN, ResNet-18's
//     stride-2 convs (im2col GEMM);
//   - 3-d convs (video models) by taps against im2col (--3d-only: only
//     these);
//   - depthwise 3x3 at strides 1 and 2.
// Medians of 21 runs. Built and run by bench/run-conv.sh.
// As generated code does: the runtime at -O3 under GCC whatever the flags.
#include "tract/rt/optimize_push.h"
#include "tract/rt/nn/conv_depthwise.h"
#include "tract/rt/nn/conv_gemm.h"
#include "tract/rt/nn/conv_lanes.h"
#include "tract/rt/nn/conv_winograd.h"
#include "tract/rt/optimize_pop.h"

#include "bench/peak/fma_peak.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

using namespace tract::rt;

namespace {

double g_peak = 0; // GFLOP/s, the widest FMA width's measured peak

// " (N% of peak)" for a GFLOP/s figure, when the peak is known.
void print_of_peak(double gflops) {
  if (g_peak > 0)
    std::printf(" (%.0f%% of peak)", 100 * gflops / g_peak);
}

// Before each timed call, `prepare` (not timed): see ColdWeights.
template <class F, class P> double median_seconds(F f, P prepare) {
  std::vector<double> t;
  for (int r = 0; r < 21; ++r) {
    prepare();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
template <class F> double median_seconds(F f) {
  return median_seconds(f, [] {});
}

// In a model each conv's weights come from L3 or DRAM (the other layers'
// weights passed through the caches since it last ran) while its input was
// just written by the layer before: the 3x3 convs are timed that way, so
// that Winograd's transformed weights (16/9 and 36/9 times the plain ones)
// cost what they cost in a network. Writes 64 MB, then reads the input.
struct ColdWeights {
  std::vector<char> evict = std::vector<char>(size_t(64) << 20);
  const std::vector<float> *input = nullptr;
  volatile float sink = 0; // the reads are kept
  void operator()() {
    for (size_t i = 0; i < evict.size(); i += 64)
      evict[i] = char(evict[i] + 1);
    for (size_t i = 0; i < input->size(); i += 16)
      sink = sink + (*input)[i];
  }
};
ColdWeights g_cold;

ConvParams square(int64_t cin, int64_t cout, int64_t groups, int64_t h, int64_t stride) {
  const int64_t oh = (h + 2 - 3) / stride + 1;
  return {2, 1, cin, cout, groups, {h, h, 0, 0}, {oh, oh, 0, 0}, {3, 3, 0, 0},
          {stride, stride, 0, 0}, {1, 1, 0, 0}, {1, 1, 0, 0}};
}

template <int M> double winograd_seconds(const ConvParams &p, const std::vector<float> &x,
                                         const std::vector<float> &w, std::vector<float> &y) {
  std::vector<float> u(size_t(winograd::transformed_weight_floats<M>(p)));
  std::vector<float> scratch(size_t(winograd::scratch_floats<M>(p)));
  winograd::transform_weights<M>(w.data(), p, u.data());
  g_cold.input = &x;
  return median_seconds(
      [&] {
        winograd::conv_winograd<M>(x.data(), u.data(), nullptr, y.data(), p,
                                   gemm::NoEpilogue{}, scratch.data());
      },
      std::ref(g_cold));
}

// conv_by_taps (conv_to_lanes into NCHW) and the im2col GEMM, weights packed
// as the compiler packs them for each, timed as winograd_seconds is.
double by_taps_seconds(const ConvParams &p, const std::vector<float> &x,
                       const std::vector<float> &w, std::vector<float> &y) {
  const int64_t k = int64_t(w.size()) / p.out_channels;
  std::vector<float> packed(size_t(lane_weight_floats(p.out_channels, k)));
  pack_lane_weights(w.data(), p.out_channels, k, packed.data());
  std::vector<float> scratch(size_t(conv_by_taps_scratch_floats(p)));
  g_cold.input = &x;
  return median_seconds(
      [&] {
        conv_to_lanes<false>(x.data(), packed.data(), nullptr, y.data(), p, gemm::NoEpilogue{},
                             scratch.data());
      },
      std::ref(g_cold));
}

double im2col_seconds(const ConvParams &p, const std::vector<float> &x,
                      const std::vector<float> &w, std::vector<float> &y) {
  const int64_t k = int64_t(w.size()) / p.out_channels;
  std::vector<float> packed(size_t(gemm::packed_conv_weight_floats(p.out_channels, 1, k)));
  gemm::pack_conv_weights(w.data(), p.out_channels, 1, k, packed.data());
  std::vector<float> scratch(size_t(gemm::conv_scratch_floats(p, true)));
  g_cold.input = &x;
  return median_seconds(
      [&] {
        gemm::conv_gemm(x.data(), packed.data(), true, nullptr, y.data(), p, gemm::NoEpilogue{},
                        scratch.data());
      },
      std::ref(g_cold));
}

// One 3x3 stride-1 conv timed on each algorithm, for the table and for
// fit_conv_costs().
struct Dense3x3 {
  ConvParams p;
  double im2col, f2, f4; // seconds
  double chosen(const winograd::ConvCosts &c) const {
    const int tile = winograd::choose_tile(p, c);
    return tile == 4 ? f4 : tile == 2 ? f2 : im2col;
  }
  double best() const { return std::min(im2col, std::min(f2, f4)); }
};

Dense3x3 dense_3x3(int64_t cin, int64_t cout, int64_t h) {
  const ConvParams p = square(cin, cout, 1, h, 1);
  std::vector<float> x(size_t(cin * h * h), 0.5f), w(size_t(cout * cin * 9), 0.01f);
  std::vector<float> y(size_t(cout * h * h));
  const double im2col = im2col_seconds(p, x, w, y);
  const double f2 = winograd_seconds<2>(p, x, w, y), f4 = winograd_seconds<4>(p, x, w, y);
  const double flop = 2.0 * cin * cout * 9 * h * h;
  std::printf("| 3x3 %ld -> %ld ch %ldx%ld | %.0f us (%.0f GFLOP/s", long(cin), long(cout), long(h),
              long(h), im2col * 1e6, flop / im2col * 1e-9);
  print_of_peak(flop / im2col * 1e-9);
  std::printf(") | %.0f us (x%.2f) | %.0f us (x%.2f) | F(%d) |\n", f2 * 1e6, im2col / f2,
              f4 * 1e6, im2col / f4, winograd::choose_tile(p));
  return {p, im2col, f2, f4};
}

// The cost model's constants (winograd::ConvCosts) that would have chosen
// best on this CPU: a grid of both, scored by how much slower than the
// fastest algorithm the chosen one is, averaged over the shapes (each shape
// counts the same: a network's small convs add up). What tractc --cpu
// knows of a CPU kind comes from this (compiler/Support/CpuModels.cpp).
void fit_conv_costs(const std::vector<Dense3x3> &runs) {
  auto loss = [&](const winograd::ConvCosts &c) {
    double total = 0;
    for (const Dense3x3 &r : runs)
      total += r.chosen(c) / r.best() - 1;
    return total / double(runs.size());
  };
  winograd::ConvCosts fit{};
  double fit_loss = loss(fit);
  for (double t = 4; t <= 80; t += 2)
    for (double g = 0; g <= 40; g += 2)
      if (loss({t, g}) < fit_loss - 1e-9) {
        fit = {t, g};
        fit_loss = loss(fit);
      }
  std::printf("\nCost model fit (the 3x3 convs above; mean time lost against the fastest):\n"
              "  defaults %.0f / %.0f: %.1f%%; best %.0f / %.0f: %.1f%%\n  within 1%% of the best:",
              winograd::ConvCosts{}.winograd_transform, winograd::ConvCosts{}.im2col_gather,
              100 * loss({}), fit.winograd_transform, fit.im2col_gather, 100 * fit_loss);
  for (double t = 4; t <= 80; t += 2) {
    double lo = -1, hi = -1;
    for (double g = 0; g <= 40; g += 2)
      if (loss({t, g}) <= fit_loss + 0.01) {
        lo = lo < 0 ? g : lo;
        hi = g;
      }
    if (lo >= 0)
      std::printf(" %.0f/%.0f-%.0f", t, lo, hi);
  }
  std::printf("  (winograd_transform/im2col_gather range)\n");
}

// conv_by_taps against F(2x2) on narrow maps (the 3x3 convs of SqueezeNet
// 1.0's 7x7 fire modules, Inception's 5x5 and 6x6 shapes), weights cold:
// the widest output rows on which taps win, every width up to it, is what
// a CPU kind's winograd::ConvCosts::taps_over_f2_cols says
// (compiler/Support/CpuModels.cpp).
void fit_taps_over_f2() {
  std::printf("\n| 3x3 stride-1 conv, narrow map | conv_by_taps | Winograd F(2x2) | taps / F(2x2) |\n"
              "|---|---|---|---|\n");
  // (conv_by_taps takes no rows narrower than kMinTapsRowPixels.)
  const int64_t shapes[][3] = {{64, 128, 5},  {128, 128, 5}, {128, 128, 6}, {96, 96, 6},
                               {32, 128, 7},  {48, 192, 7},  {64, 256, 7},  {64, 256, 8},
                               {128, 128, 8}};
  int64_t cols = 0;
  bool taps_ahead = true;
  for (int64_t width = kMinTapsRowPixels; width <= 8; ++width) {
    double ratio_sum = 0;
    int n = 0;
    for (const auto &d : shapes) {
      if (d[2] != width)
        continue;
      const ConvParams p = square(d[0], d[1], 1, width, 1);
      std::vector<float> x(size_t(d[0] * width * width), 0.5f), w(size_t(d[1] * d[0] * 9), 0.01f);
      std::vector<float> y(size_t(d[1] * width * width));
      const double by_taps = by_taps_seconds(p, x, w, y);
      const double f2 = winograd_seconds<2>(p, x, w, y);
      std::printf("| 3x3 %ld -> %ld ch %ldx%ld | %.0f us | %.0f us | %.2f |\n", long(d[0]),
                  long(d[1]), long(width), long(width), by_taps * 1e6, f2 * 1e6, by_taps / f2);
      ratio_sum += by_taps / f2;
      ++n;
    }
    taps_ahead = taps_ahead && n > 0 && ratio_sum / n < 1.0;
    if (taps_ahead)
      cols = width;
  }
  std::printf("\nTaps over F(2x2) (taps faster on average at every width up to it): "
              "taps_over_f2_cols = %ld\n", long(cols));
}

// conv_by_taps against im2col + GEMM on deeper convs that Winograd does
// not take (5x5, 1x7 and 7x1, strided and dilated 3x3), weights cold. taps
// run at about one speed whatever the shape; the GEMM gains with output
// channels and pixels. The outputs (channels x pixels) from which convs
// with more than 64 output channels run faster on im2col, the total time
// least over these shapes, is what a CPU kind's
// winograd::ConvCosts::im2col_over_taps_outputs says (0: taps everywhere).
void fit_im2col_over_taps() {
  struct Deep {
    int64_t cin, cout, kh, kw, stride, dilation, h;
  };
  const Deep shapes[] = {{64, 192, 5, 5, 1, 1, 27},  {64, 128, 5, 5, 1, 1, 27},
                         {64, 96, 5, 5, 1, 1, 27},   {64, 64, 5, 5, 1, 1, 27},
                         {64, 128, 5, 5, 1, 1, 13},  {48, 64, 5, 5, 1, 1, 35},
                         {48, 64, 5, 5, 1, 1, 9},    {64, 128, 3, 3, 2, 1, 56},
                         {128, 256, 3, 3, 2, 1, 28}, {128, 256, 3, 3, 2, 1, 14},
                         {64, 64, 3, 3, 2, 1, 56},   {192, 192, 1, 7, 1, 1, 17},
                         {192, 192, 7, 1, 1, 1, 17}, {128, 128, 1, 7, 1, 1, 9},
                         {128, 128, 3, 3, 1, 2, 14}, {128, 128, 3, 3, 1, 1, 6}};
  std::printf("\n| deeper conv | outputs | conv_by_taps | im2col GEMM | taps / im2col |\n"
              "|---|---|---|---|---|\n");
  struct Timed {
    int64_t cout, outputs;
    double taps, im2col;
  };
  std::vector<Timed> runs;
  for (const Deep &d : shapes) {
    // Odd kernels padded to keep the map ("same"), then the stride.
    const int64_t oh = (d.h - 1) / d.stride + 1, ow = oh;
    const ConvParams p = {2, 1, d.cin, d.cout, 1, {d.h, d.h, 0, 0}, {oh, ow, 0, 0},
                          {d.kh, d.kw, 0, 0}, {d.stride, d.stride, 0, 0},
                          {d.dilation, d.dilation, 0, 0},
                          {d.kh / 2 * d.dilation, d.kw / 2 * d.dilation, 0, 0}};
    if (!conv_by_taps_pays(p))
      continue;
    std::vector<float> x(size_t(d.cin * d.h * d.h), 0.5f);
    std::vector<float> w(size_t(d.cout * d.cin * d.kh * d.kw), 0.01f);
    std::vector<float> y(size_t(d.cout * oh * ow));
    const double taps = by_taps_seconds(p, x, w, y), im2col = im2col_seconds(p, x, w, y);
    const int64_t outputs = d.cout * oh * ow;
    runs.push_back({d.cout, outputs, taps, im2col});
    std::printf("| %ldx%ld stride %ld dilation %ld, %ld -> %ld ch, %ldx%ld | %ld | %.0f us | "
                "%.0f us | %.2f |\n",
                long(d.kh), long(d.kw), long(d.stride), long(d.dilation), long(d.cin),
                long(d.cout), long(d.h), long(d.h), long(outputs), taps * 1e6, im2col * 1e6,
                taps / im2col);
  }
  // Candidates: never (0), or from one of the shapes' outputs on.
  auto total = [&](int64_t from) {
    double t = 0;
    for (const Timed &r : runs)
      t += from > 0 && r.cout > 64 && r.outputs >= from ? r.im2col : r.taps;
    return t;
  };
  int64_t best = 0;
  for (const Timed &r : runs)
    if (r.cout > 64 && total(r.outputs) < total(best))
      best = r.outputs;
  double fastest = 0;
  for (const Timed &r : runs)
    fastest += std::min(r.taps, r.im2col);
  std::printf("\nim2col over taps from (outputs; 0: never) im2col_over_taps_outputs = %ld: "
              "%.1f%% slower than always the faster (taps everywhere: %.1f%%)\n",
              long(best), 100 * (total(best) / fastest - 1), 100 * (total(0) / fastest - 1));
}

// A conv on the im2col GEMM with packed weights, like the compiler's: a
// network's first conv (few input channels, so K is small and the im2col
// gather is as much work as the GEMM), strided convs onto small maps, 3-d
// convs.
void im2col_conv(const char *name, const ConvParams &p) {
  const int64_t cin = p.in_channels, cout = p.out_channels;
  int64_t k = cin, in_plane = 1, out_plane = 1;
  for (int d = 0; d < p.spatial_rank; ++d) {
    k *= p.kernel[d];
    in_plane *= p.in_size[d];
    out_plane *= p.out_size[d];
  }
  std::vector<float> x(size_t(cin * in_plane), 0.5f), w(size_t(cout * k), 0.01f);
  std::vector<float> y(size_t(cout * out_plane));
  std::vector<float> packed(size_t(gemm::packed_conv_weight_floats(cout, 1, k)));
  gemm::pack_conv_weights(w.data(), cout, 1, k, packed.data());
  std::vector<float> scratch(size_t(gemm::conv_scratch_floats(p, true)));
  const double s = median_seconds([&] {
    gemm::conv_gemm(x.data(), packed.data(), true, nullptr, y.data(), p, gemm::NoEpilogue{},
                    scratch.data());
  });
  const double flop = 2.0 * double(cout * k * out_plane);
  std::printf("| %s | %.0f us | %.0f GFLOP/s", name, s * 1e6, flop / s * 1e-9);
  print_of_peak(flop / s * 1e-9);
  std::printf(" |\n");
}

// 3-d convs (video models: R3D, MC3, R(2+1)D) by taps and on the im2col
// GEMM, weights cold, whether or not conv_by_taps_pays takes them.
void convs_3d() {
  struct Conv3d {
    const char *name;
    int64_t cin, cout, kd, kh, kw, sd, sh, pd, ph, d, h; // input d x h x h
  };
  const Conv3d shapes[] = {
      {"MC3 stem 3x7x7 s(1,2,2)", 3, 64, 3, 7, 7, 1, 2, 1, 3, 4, 32},
      {"MC3 3x3x3", 64, 64, 3, 3, 3, 1, 1, 1, 1, 4, 16},
      {"MC3 3x3x3 s2", 64, 128, 3, 3, 3, 2, 2, 1, 1, 4, 16},
      {"MC3 3x3x3", 128, 128, 3, 3, 3, 1, 1, 1, 1, 2, 8},
      {"R3D 3x3x3", 64, 64, 3, 3, 3, 1, 1, 1, 1, 8, 28},
      {"R3D 3x3x3 s2", 128, 256, 3, 3, 3, 2, 2, 1, 1, 4, 14},
      {"R3D 3x3x3", 128, 128, 3, 3, 3, 1, 1, 1, 1, 4, 14},
      {"R3D 3x3x3", 256, 256, 3, 3, 3, 1, 1, 1, 1, 2, 7},
      {"MC3 3x3x3", 256, 256, 3, 3, 3, 1, 1, 1, 1, 1, 4},
      {"MC3 3x3x3", 512, 512, 3, 3, 3, 1, 1, 1, 1, 1, 2},
      {"R(2+1)D 1x3x3", 64, 144, 1, 3, 3, 1, 1, 0, 1, 4, 16},
      {"R(2+1)D 3x1x1", 144, 64, 3, 1, 1, 1, 1, 1, 0, 4, 16},
      {"R(2+1)D stem 1x7x7 s(1,2,2)", 3, 45, 1, 7, 7, 1, 2, 0, 3, 4, 32},
      {"3-d U-Net 3x3x3", 32, 32, 3, 3, 3, 1, 1, 1, 1, 16, 32},
  };
  std::printf("\n| 3-d conv | pays | conv_by_taps | im2col GEMM | taps / im2col |\n"
              "|---|---|---|---|---|\n");
  for (const Conv3d &c : shapes) {
    const int64_t od = (c.d + 2 * c.pd - c.kd) / c.sd + 1;
    const int64_t oh = (c.h + 2 * c.ph - c.kh) / c.sh + 1;
    const ConvParams p = {3, 1, c.cin, c.cout, 1, {c.d, c.h, c.h, 0}, {od, oh, oh, 0},
                          {c.kd, c.kh, c.kw, 0}, {c.sd, c.sh, c.sh, 0}, {1, 1, 1, 0},
                          {c.pd, c.ph, c.ph, 0}};
    std::vector<float> x(size_t(c.cin * c.d * c.h * c.h), 0.5f);
    std::vector<float> w(size_t(c.cout * c.cin * c.kd * c.kh * c.kw), 0.01f);
    std::vector<float> y(size_t(c.cout * od * oh * oh));
    const double im2col = im2col_seconds(p, x, w, y);
    const bool fits = conv_by_taps_fits(p);
    const double taps = fits ? by_taps_seconds(p, x, w, y) : 0.0;
    std::printf("| %s, %ld -> %ld ch, %ldx%ldx%ld | %s | ", c.name, long(c.cin), long(c.cout),
                long(c.d), long(c.h), long(c.h), conv_by_taps_pays(p) ? "yes" : "no");
    if (fits)
      std::printf("%.0f us | %.0f us | %.2f |\n", taps * 1e6, im2col * 1e6, taps / im2col);
    else
      std::printf("- | %.0f us | - |\n", im2col * 1e6);
  }
}

void depthwise(int64_t c, int64_t h, int64_t stride) {
  const ConvParams p = square(c, c, c, h, stride);
  const int64_t oh = p.out_size[0];
  std::vector<float> x(size_t(c * h * h), 0.5f), w(size_t(c * 9), 0.1f), y(size_t(c * oh * oh));
  std::vector<float> scratch(size_t(depthwise_scratch_floats(p)));
  const double s = median_seconds([&] {
    conv_depthwise(x.data(), w.data(), nullptr, y.data(), p, gemm::NoEpilogue{}, scratch.data());
  });
  std::printf("| depthwise 3x3 %ld ch %ldx%ld stride %ld | %.1f us | %.1f ns per channel |\n",
              long(c), long(h), long(h), long(stride), s * 1e6, s * 1e9 / double(c));
}

} // namespace

int main(int argc, char **argv) {
  bench::print_cpu();
  const bench::FmaPeak peak = bench::measure_fma_peak();
  bench::print_fma_peak(peak);
  g_peak = peak.best();
  if (argc > 1 && std::string(argv[1]) == "--3d-only") {
    convs_3d();
    return 0;
  }
  std::printf("\n");
  std::printf("| 3x3 stride-1 conv | im2col GEMM | Winograd F(2x2) | Winograd F(4x4) "
              "| chosen (generic) |\n");
  std::printf("|---|---|---|---|---|\n");
  // ResNet, VGG, SqueezeNet (16 -> 64 at 55, ...), U-Net and KWS layers:
  // both sides of where Winograd starts to pay.
  const int64_t dense[][3] = {{64, 64, 56},  {128, 128, 28}, {256, 256, 14}, {512, 512, 7},
                              {16, 16, 49},  {16, 64, 55},   {32, 128, 27},  {48, 192, 13},
                              {64, 256, 13}, {3, 64, 224},   {8, 8, 64},     {24, 24, 56},
                              {32, 32, 112}, {32, 64, 64},   {128, 64, 32},  {96, 96, 14},
                              {160, 160, 7}, {384, 384, 7},  {64, 64, 16},   {256, 128, 28},
                              // few channels or small maps, where the choice is close
                              {4, 8, 16},    {8, 16, 28},    {8, 32, 16},    {12, 16, 8},
                              {12, 64, 28},  {16, 16, 8},    {16, 32, 28},   {24, 32, 8},
                              {32, 32, 8},   {32, 64, 8},    {48, 16, 8},    {64, 16, 8},
                              {12, 8, 16},   {24, 8, 8},     {16, 8, 28},    {8, 8, 28},
                              // odd maps (Inception's 9x9 at 128 x 128, 17x17, 35x35)
                              {64, 96, 9},   {96, 96, 9},    {128, 128, 9},  {32, 32, 17},
                              {64, 96, 35},  {96, 96, 17},   {48, 64, 13},   {192, 192, 9}};
  std::vector<Dense3x3> runs;
  for (const auto &d : dense)
    runs.push_back(dense_3x3(d[0], d[1], d[2]));
  fit_conv_costs(runs);
  fit_taps_over_f2();
  fit_im2col_over_taps();
  if (argc > 1 && std::string(argv[1]) == "--fit-only")
    return 0;
  std::printf("\n| stem conv (im2col GEMM) | time | GFLOP/s |\n|---|---|---|\n");
  im2col_conv("ResNet-18 7x7 s2, 3 -> 64 ch, 224x224",
              {2, 1, 3, 64, 1, {224, 224, 0, 0}, {112, 112, 0, 0}, {7, 7, 0, 0}, {2, 2, 0, 0},
               {1, 1, 0, 0}, {3, 3, 0, 0}});
  im2col_conv("MobileNetV2 3x3 s2, 3 -> 32 ch, 224x224",
              {2, 1, 3, 32, 1, {224, 224, 0, 0}, {112, 112, 0, 0}, {3, 3, 0, 0}, {2, 2, 0, 0},
               {1, 1, 0, 0}, {1, 1, 0, 0}});
  im2col_conv("KWS 9x3 s(2,1), 1 -> 64 ch, 49x10",
              {2, 1, 1, 64, 1, {49, 10, 0, 0}, {25, 10, 0, 0}, {9, 3, 0, 0}, {2, 1, 0, 0},
               {1, 1, 0, 0}, {4, 1, 0, 0}});
  std::printf("\n| strided and 3-d convs (im2col GEMM) | time | GFLOP/s |\n|---|---|---|\n");
  im2col_conv("ResNet-18 3x3 s2, 64 -> 128 ch, 56x56 -> 28x28", square(64, 128, 1, 56, 2));
  im2col_conv("ResNet-18 3x3 s2, 128 -> 256 ch, 28x28 -> 14x14", square(128, 256, 1, 28, 2));
  im2col_conv("ResNet-18 3x3 s2, 256 -> 512 ch, 14x14 -> 7x7", square(256, 512, 1, 14, 2));
  convs_3d();
  std::printf("\n| depthwise conv (MobileNetV2 shapes) | time | per channel |\n|---|---|---|\n");
  const int64_t dw[][3] = {{32, 112, 1}, {96, 112, 2}, {144, 56, 1}, {144, 56, 2},
                           {384, 14, 1}, {576, 14, 2}, {960, 7, 1}};
  for (const auto &d : dw)
    depthwise(d[0], d[1], d[2]);
}
