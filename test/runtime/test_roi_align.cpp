// RoiAlign (nn/roi_align_ref.h) against a naive double-precision reference
// (bilinear taps evaluated per sample, no precomputation), the ONNX
// examples from the Debian test data and hand-computed ramps.
#include "tract/rt/nn/roi_align_channels_last.h"
#include "tract/rt/nn/roi_align_ref.h"

#include "batch3_debian_cases.h"
#include "test_util.h"

using namespace tract_test;
namespace rt = tract::rt;

namespace {

struct RoiP {
  int64_t n, c, h, w, num_rois, oh, ow, ratio;
  float scale;
  bool max_mode, half_pixel;
};

// The four weighted taps of one sample (all zero outside [-1, size]).
void taps(const double *plane, int64_t h, int64_t w, double y, double x,
          double out[4]) {
  out[0] = out[1] = out[2] = out[3] = 0.0;
  if (y < -1.0 || y > double(h) || x < -1.0 || x > double(w))
    return;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t y0 = int64_t(y), x0 = int64_t(x), y1 = y0 + 1, x1 = x0 + 1;
  if (y0 >= h - 1) {
    y0 = y1 = h - 1;
    y = double(y0);
  }
  if (x0 >= w - 1) {
    x0 = x1 = w - 1;
    x = double(x0);
  }
  const double ly = y - double(y0), lx = x - double(x0);
  out[0] = (1 - ly) * (1 - lx) * plane[y0 * w + x0];
  out[1] = (1 - ly) * lx * plane[y0 * w + x1];
  out[2] = ly * (1 - lx) * plane[y1 * w + x0];
  out[3] = ly * lx * plane[y1 * w + x1];
}

std::vector<double> naive(const RoiP &p, const std::vector<double> &x,
                          const std::vector<double> &rois,
                          const std::vector<int64_t> &bi) {
  std::vector<double> y(size_t(p.num_rois * p.c * p.oh * p.ow), 0.0);
  const double off = p.half_pixel ? 0.5 : 0.0;
  for (int64_t r = 0; r < p.num_rois; ++r) {
    const int64_t b = bi[size_t(r)];
    if (b < 0 || b >= p.n)
      continue;
    const double *roi = &rois[size_t(4 * r)];
    const double sw = roi[0] * double(p.scale) - off;
    const double sh = roi[1] * double(p.scale) - off;
    double rw = roi[2] * double(p.scale) - off - sw;
    double rh = roi[3] * double(p.scale) - off - sh;
    if (!p.half_pixel) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    const double bh = rh / double(p.oh), bw = rw / double(p.ow);
    const int64_t gh =
        p.ratio > 0
            ? p.ratio
            : std::max<int64_t>(0, int64_t(std::ceil(rh / double(p.oh))));
    const int64_t gw =
        p.ratio > 0
            ? p.ratio
            : std::max<int64_t>(0, int64_t(std::ceil(rw / double(p.ow))));
    for (int64_t ch = 0; ch < p.c; ++ch) {
      const double *plane = &x[size_t((b * p.c + ch) * p.h * p.w)];
      for (int64_t ph = 0; ph < p.oh; ++ph)
        for (int64_t pw = 0; pw < p.ow; ++pw) {
          double acc = 0.0, mx = -INFINITY;
          for (int64_t iy = 0; iy < gh; ++iy)
            for (int64_t ix = 0; ix < gw; ++ix) {
              const double yy =
                  sh + double(ph) * bh + (double(iy) + 0.5) * bh / double(gh);
              const double xx =
                  sw + double(pw) * bw + (double(ix) + 0.5) * bw / double(gw);
              double t[4];
              taps(plane, p.h, p.w, yy, xx, t);
              acc += t[0] + t[1] + t[2] + t[3];
              mx = std::max(
                  mx, std::max(std::max(t[0], t[1]), std::max(t[2], t[3])));
            }
          double v = 0.0;
          if (gh > 0 && gw > 0)
            v = p.max_mode ? mx : acc / double(gh * gw);
          y[size_t(((r * p.c + ch) * p.oh + ph) * p.ow + pw)] = v;
        }
    }
  }
  return y;
}

template <class T, class TI>
void check_random(const RoiP &p, uint64_t seed, double tol) {
  Rng rng(seed);
  const auto xd =
      random_vec<double>(size_t(p.n * p.c * p.h * p.w), seed, -2.0, 2.0);
  std::vector<double> rd;
  std::vector<int64_t> bi;
  for (int64_t r = 0; r < p.num_rois; ++r) {
    // Rois in (scaled) input coordinates, some spilling outside, some
    // flipped (malformed), and a bad batch index now and then.
    const double sx = double(p.w) / double(p.scale),
                 sy = double(p.h) / double(p.scale);
    double x1 = rng.uniform(-0.3 * sx, 1.1 * sx),
           y1 = rng.uniform(-0.3 * sy, 1.1 * sy);
    double x2 = x1 + rng.uniform(-0.2 * sx, sx),
           y2 = y1 + rng.uniform(-0.2 * sy, sy);
    rd.insert(rd.end(), {x1, y1, x2, y2});
    bi.push_back(r % 5 == 4 ? (r % 2 ? p.n : -1)
                            : int64_t(rng.range(0, p.n - 1)));
  }
  const std::vector<T> x(xd.begin(), xd.end()), rois(rd.begin(), rd.end());
  const std::vector<double> xr(x.begin(), x.end()),
      rr(rois.begin(), rois.end());
  const std::vector<TI> bit(bi.begin(), bi.end());
  std::vector<T> y(size_t(p.num_rois * p.c * p.oh * p.ow) + 1, T(555));
  rt::roi_align(x.data(), rois.data(), bit.data(), y.data(), p.n, p.c, p.h, p.w,
                p.num_rois, p.oh, p.ow, p.ratio, p.scale, p.max_mode,
                p.half_pixel);
  ASSERT_EQ(y.back(), T(555));
  y.pop_back();
  if constexpr (std::is_same<T, float>::value) {
    // The channels-last kernel: the reference's results, bit for bit.
    std::vector<float> scratch(size_t(rt::roi_align_scratch_floats(p.n, p.c, p.h, p.w)) + 1,
                               555.f);
    std::vector<float> yc(y.size() + 1, 555.f);
    rt::roi_align_channels_last(x.data(), rois.data(), bit.data(), yc.data(), p.n, p.c, p.h,
                                p.w, p.num_rois, p.oh, p.ow, p.ratio, p.scale, p.max_mode,
                                p.half_pixel, scratch.data());
    ASSERT_EQ(yc.back(), 555.f);
    ASSERT_EQ(scratch.back(), 555.f);
    yc.pop_back();
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_EQ(yc[i], y[i]) << "channels-last at " << i << " c=" << p.c << " out=" << p.oh
                             << "x" << p.ow << " max=" << p.max_mode;
  }
  const auto want = naive(p, xr, rr, bi);
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_TRUE(near(double(y[i]), want[i], tol, tol))
        << "at " << i << " h=" << p.h << " w=" << p.w << " out=" << p.oh << "x"
        << p.ow << " ratio=" << p.ratio << " max=" << p.max_mode
        << " half=" << p.half_pixel;
}

} // namespace

TEST(RoiAlign, DebianOnnxCases) {
  const auto &cases = batch3_debian::roi_cases();
  ASSERT_EQ(cases.size(), 2u);
  for (const auto &c : cases) {
    std::vector<float> y(c.y.size());
    rt::roi_align(c.x.data(), c.rois.data(), c.batch_indices.data(), y.data(),
                  c.x_shape[0], c.x_shape[1], c.x_shape[2], c.x_shape[3],
                  c.num_rois, c.out_h, c.out_w, c.sampling_ratio,
                  c.spatial_scale, c.max_mode, c.half_pixel);
    // The expected values (4 decimals) were computed from inputs with more
    // digits than the 4 of the stored ones: up to 8.5e-5 apart (within the
    // rtol 1e-3 of ONNX's backend tests; float and double agree to 1e-7).
    EXPECT_TRUE(all_near(y, c.y, 0.0, 1.01e-4)) << c.name;
  }
}

TEST(RoiAlign, RandomAgainstNaive) {
  uint64_t seed = 11;
  for (bool max_mode : {false, true})
    for (bool half : {false, true})
      for (int64_t ratio : {0, 1, 2, 3})
        for (int64_t h : {1, 2, 7, 9})
          for (int64_t w : {1, 3, 8, 17}) {
            const int64_t oh = tail_sizes()[size_t(seed % 5)];
            const int64_t ow = tail_sizes()[size_t((seed / 3) % 7)];
            const float scale =
                seed % 3 == 0 ? 0.5f : (seed % 3 == 1 ? 1.f : 0.25f);
            const RoiP p{1 + int64_t(seed % 3),
                         1 + int64_t(seed % 2),
                         h,
                         w,
                         6,
                         oh,
                         ow,
                         ratio,
                         scale,
                         max_mode,
                         half};
            check_random<float, int64_t>(p, seed, 2e-5);
            check_random<double, int32_t>(p, seed + 99, 1e-10);
            ++seed;
          }
}

// Channel counts around the channels-last kernel's 64-channel blocks and
// bin counts past its 64-bin tiles (c = 1 and 2 run above).
TEST(RoiAlign, ChannelsLastBlocksAndTiles) {
  uint64_t seed = 500;
  for (int64_t c : {5, 64, 70, 130})
    for (bool max_mode : {false, true})
      for (int64_t ratio : {0, 2}) {
        const int64_t o = seed % 2 ? 9 : 7; // 81 bins: two tiles
        const RoiP p{2, c, 10, 13, 5, o, o - 2, ratio, 0.5f, max_mode, seed % 3 == 0};
        check_random<float, int64_t>(p, seed, 2e-5);
        ++seed;
      }
}

TEST(RoiAlign, HandComputedRamp) {
  // x[i][j] = j on 6x8; roi (1,1)-(5,5) in half_pixel mode starts at 0.5
  // with 2-wide bins; 2 samples per bin at 1,2 and 3,4.
  std::vector<float> x(48);
  for (int i = 0; i < 48; ++i)
    x[size_t(i)] = float(i % 8);
  const float rois[] = {1, 1, 5, 5, 1, 1, 5, 5};
  const int64_t bi[] = {0, 1}; // 1 is out of range: zeros
  float y[8];
  rt::roi_align(x.data(), rois, bi, y, 1, 1, 6, 8, 2, 2, 2, 2, 1.f, false,
                true);
  EXPECT_TRUE(all_near(std::vector<float>(y, y + 8),
                       {1.5f, 3.5f, 1.5f, 3.5f, 0, 0, 0, 0}, 1e-6, 1e-6));
  // max mode: the largest weighted tap; samples on integer columns put all
  // the weight on one tap, so it is the largest sample.
  rt::roi_align(x.data(), rois, bi, y, 1, 1, 6, 8, 2, 2, 2, 2, 1.f, true, true);
  EXPECT_TRUE(all_near(std::vector<float>(y, y + 4), {2, 4, 2, 4}, 1e-6, 1e-6));
  // output_half_pixel forces a degenerate roi to 1x1 around its corner.
  const float pt[] = {3, 2, 3, 2};
  rt::roi_align(x.data(), pt, bi, y, 1, 1, 6, 8, 1, 1, 1, 2, 1.f, false, false);
  EXPECT_NEAR(y[0], 3.5f, 1e-6);
  // A zero-sized input plane gives zeros.
  y[0] = 9.f;
  rt::roi_align(x.data(), pt, bi, y, 1, 1, 0, 8, 1, 1, 1, 2, 1.f, false, false);
  EXPECT_EQ(y[0], 0.f);
  // NaN / huge rois and an adaptive grid never read out of bounds.
  const float bad[] = {NAN,   0,     3, 3, -1e30f, -1e30f,
                       1e30f, 1e30f, 0, 0, NAN,    NAN};
  const int64_t b3[] = {0, 0, 0};
  float yb[3] = {7, 7, 7};
  rt::roi_align(x.data(), bad, b3, yb, 1, 1, 6, 8, 3, 1, 1, 1, 1.f, false,
                true);
  EXPECT_EQ(yb[1], 0.f); // its one sample is at (0, 0), where x is 0
  EXPECT_EQ(yb[2], 0.f); // NaN sample: no taps
}
