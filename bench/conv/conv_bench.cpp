// The conv kernels on the layer shapes of the benchmark models, one thread:
//   - 3x3 stride-1: im2col GEMM vs Winograd F(2x2,3x3) vs F(4x4,3x3), with
//     the tile size tract-choose-kernels would pick (winograd::choose_tile);
//   - first convs of ResNet-18, MobileNetV2 and the KWS CNN, ResNet-18's
//     stride-2 convs and 3-d convs (im2col GEMM);
//   - depthwise 3x3 at strides 1 and 2.
// Medians of 21 runs. Built and run by bench/run-conv.sh.
// As generated code does: the runtime at -O3 under GCC whatever the flags.
#include "tract/rt/optimize_push.h"
#include "tract/rt/nn/conv_depthwise.h"
#include "tract/rt/nn/conv_gemm.h"
#include "tract/rt/nn/conv_winograd.h"
#include "tract/rt/optimize_pop.h"

#include "bench/peak/fma_peak.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace tract::rt;

namespace {

double g_peak = 0; // GFLOP/s, the widest FMA width's measured peak

// " (N% of peak)" for a GFLOP/s figure, when the peak is known.
void print_of_peak(double gflops) {
  if (g_peak > 0)
    std::printf(" (%.0f%% of peak)", 100 * gflops / g_peak);
}

template <class F> double median_seconds(F f) {
  std::vector<double> t;
  for (int r = 0; r < 21; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

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
  return median_seconds([&] {
    winograd::conv_winograd<M>(x.data(), u.data(), nullptr, y.data(), p, gemm::NoEpilogue{},
                               scratch.data());
  });
}

void dense_3x3(int64_t c, int64_t h) {
  const ConvParams p = square(c, c, 1, h, 1);
  std::vector<float> x(size_t(c * h * h), 0.5f), w(size_t(c * c * 9), 0.01f), y(size_t(c * h * h));
  std::vector<float> packed(size_t(gemm::packed_conv_weight_floats(c, 1, c * 9)));
  gemm::pack_conv_weights(w.data(), c, 1, c * 9, packed.data());
  std::vector<float> scratch(size_t(gemm::conv_scratch_floats(p, true)));
  const double im2col = median_seconds([&] {
    gemm::conv_gemm(x.data(), packed.data(), true, nullptr, y.data(), p, gemm::NoEpilogue{},
                    scratch.data());
  });
  const double f2 = winograd_seconds<2>(p, x, w, y), f4 = winograd_seconds<4>(p, x, w, y);
  const double flop = 2.0 * c * c * 9 * h * h;
  std::printf("| 3x3 %ld ch %ldx%ld | %.0f us (%.0f GFLOP/s", long(c), long(h), long(h),
              im2col * 1e6, flop / im2col * 1e-9);
  print_of_peak(flop / im2col * 1e-9);
  std::printf(") | %.0f us (x%.2f) | %.0f us (x%.2f) | F(%d) |\n", f2 * 1e6, im2col / f2,
              f4 * 1e6, im2col / f4, winograd::choose_tile(p));
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

int main() {
  bench::print_cpu();
  const bench::FmaPeak peak = bench::measure_fma_peak();
  bench::print_fma_peak(peak);
  g_peak = peak.best();
  std::printf("\n");
  std::printf("| 3x3 stride-1 conv | im2col GEMM | Winograd F(2x2) | Winograd F(4x4) | chosen |\n");
  std::printf("|---|---|---|---|---|\n");
  const int64_t dense[][2] = {{64, 56}, {128, 28}, {256, 14}, {512, 7}, {16, 49}};
  for (const auto &d : dense)
    dense_3x3(d[0], d[1]);
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
  im2col_conv("R3D 3x3x3, 64 -> 64 ch, 8x28x28",
              {3, 1, 64, 64, 1, {8, 28, 28, 0}, {8, 28, 28, 0}, {3, 3, 3, 0}, {1, 1, 1, 0},
               {1, 1, 1, 0}, {1, 1, 1, 0}});
  im2col_conv("R3D 3x3x3 s2, 128 -> 256 ch, 4x14x14 -> 2x7x7",
              {3, 1, 128, 256, 1, {4, 14, 14, 0}, {2, 7, 7, 0}, {3, 3, 3, 0}, {2, 2, 2, 0},
               {1, 1, 1, 0}, {1, 1, 1, 0}});
  std::printf("\n| depthwise conv (MobileNetV2 shapes) | time | per channel |\n|---|---|---|\n");
  const int64_t dw[][3] = {{32, 112, 1}, {96, 112, 2}, {144, 56, 1}, {144, 56, 2},
                           {384, 14, 1}, {576, 14, 2}, {960, 7, 1}};
  for (const auto &d : dw)
    depthwise(d[0], d[1], d[2]);
}
