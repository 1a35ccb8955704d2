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
// sums; 112x112x32 (EfficientNet's first block) is split over threads.
const Case kCases[] = {{1, 16, 1}, {2, 32, 7}, {1, 48, 90}, {2, 16, 13}, {1, 32, 12544}};

} // namespace

TEST(SqueezeExciteLanes, MeanAndScaleMatchNchwLoops) {
  for (const Case &c : kCases) {
    const int64_t n = c.batch * c.channels * c.plane;
    const std::vector<float> nchw = random_vec<float>(size_t(n), 11);
    std::vector<float> x(static_cast<size_t>(n));
    for (int64_t at = 0; at < n; ++at)
      x[size_t(at)] = nchw[size_t(nchw_of(at, c.channels, c.plane))];
    const std::vector<float> s = random_vec<float>(size_t(c.batch * c.channels), 12);
    for (int threads : {1, 2, 3}) {
      rt::ThreadPool pool(threads);
      const rt::Parallel par{threads > 1 ? rt::ThreadPool::parallel_for : nullptr, &pool,
                             threads, nullptr, 0};
      std::vector<float> mean(size_t(c.batch * c.channels), -1.0f);
      rt::mean_from_lanes(x.data(), mean.data(), c.batch, c.channels, c.plane, par);
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
