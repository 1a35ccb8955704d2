// The squeeze-and-excitation's two kernels on lane layout
// (nn/squeeze_excite_lanes.h) against plain loops over NCHW, serial and
// split over threads, and the scale in place.
#include "tract/rt/io/thread_pool.h"
#include "tract/rt/nn/squeeze_excite_lanes.h"

#include "test_util.h"

#include <gtest/gtest.h>

using namespace tract_test;
namespace rt = tract::rt;

namespace {

constexpr int64_t L = rt::lanes::kLanes;

// NCHW index of lane-layout index `at` (C % 16 == 0).
int64_t nchw_of(int64_t at, int64_t channels, int64_t plane) {
  const int64_t lane = at % L, pixel = at / L % plane, block = at / L / plane;
  const int64_t b = block / (channels / L), c = block % (channels / L) * L + lane;
  return (b * channels + c) * plane + pixel;
}

struct Case {
  int64_t batch, channels, plane;
};

// Batch 2, one and several blocks; planes not a multiple of the mean's four
// sums, smaller than its stripes (too small to split by pixels: 14x14x672,
// under kMinParallelWork), and split by pixels over threads: 56x56 (stripes
// of 384 and 400 pixels), batch 2, 112x112x32 (EfficientNet's first block).
const Case kCases[] = {{1, 16, 1},     {2, 32, 7},     {1, 48, 90},    {2, 16, 13},
                       {1, 672, 196},  {1, 96, 3136},  {2, 32, 3136},  {1, 32, 12544}};

} // namespace

TEST(SqueezeExciteLanes, MeanAndScaleMatchNchwLoops) {
  for (const Case &c : kCases) {
    const int64_t n = c.batch * c.channels * c.plane;
    const std::vector<float> nchw = random_vec<float>(size_t(n), 11);
    std::vector<float> x(static_cast<size_t>(n));
    for (int64_t at = 0; at < n; ++at)
      x[size_t(at)] = nchw[size_t(nchw_of(at, c.channels, c.plane))];
    const std::vector<float> s = random_vec<float>(size_t(c.batch * c.channels), 12);
    std::vector<float> serial_mean;
    for (int threads : {1, 2, 3}) {
      rt::ThreadPool pool(threads);
      // Each task's scratch (task 0's own first), where the mean splits
      // its plane by pixels.
      const int64_t stride = rt::mean_from_lanes_scratch_floats(c.batch, c.channels, c.plane);
      std::vector<float> scratch(size_t(stride * threads + 1), -7.0f);
      const rt::Parallel par{threads > 1 ? rt::ThreadPool::parallel_for : nullptr, &pool,
                             threads, scratch.data() + stride, stride};
      std::vector<float> mean(size_t(c.batch * c.channels), -1.0f);
      rt::mean_from_lanes(x.data(), mean.data(), c.batch, c.channels, c.plane,
                          stride > 0 ? scratch.data() : nullptr, par);
      // Whichever task sums which stripe: the same floats at any thread
      // count, with scratch or without.
      std::vector<float> by_blocks(mean.size(), -1.0f);
      rt::mean_from_lanes(x.data(), by_blocks.data(), c.batch, c.channels, c.plane, par);
      if (threads == 1)
        serial_mean = mean;
      ASSERT_EQ(mean, serial_mean) << "threads " << threads << ", plane " << c.plane;
      ASSERT_EQ(by_blocks, serial_mean) << "threads " << threads << ", plane " << c.plane;
      EXPECT_EQ(scratch.back(), -7.0f) << "past the last task's scratch";
      for (int64_t bc = 0; bc < c.batch * c.channels; ++bc) {
        double want = 0;
        for (int64_t i = 0; i < c.plane; ++i)
          want += nchw[size_t(bc * c.plane + i)];
        want /= double(c.plane);
        EXPECT_NEAR(mean[size_t(bc)], want, 1e-5 * (1 + std::abs(want)))
            << "channel " << bc << " of " << c.batch << "x" << c.channels << "x" << c.plane
            << ", threads " << threads;
      }
      std::vector<float> y(size_t(n), 0.0f), in_place = x;
      rt::scale_lanes(x.data(), s.data(), y.data(), c.batch, c.channels, c.plane, par);
      rt::scale_lanes(in_place.data(), s.data(), in_place.data(), c.batch, c.channels, c.plane,
                      par);
      for (int64_t at = 0; at < n; ++at) {
        const int64_t i = nchw_of(at, c.channels, c.plane);
        const float want = nchw[size_t(i)] * s[size_t(i / c.plane)];
        ASSERT_EQ(y[size_t(at)], want) << "at " << at << ", threads " << threads;
        ASSERT_EQ(in_place[size_t(at)], want) << "in place, at " << at;
      }
    }
  }
}
