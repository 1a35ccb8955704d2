// GridSample (nn/grid_sample.h, nn/grid_sample_ref.h) against a naive
// double-precision reference (reflection by repeated folding, bicubic by the
// Keys kernel of the distance), the ONNX examples from the Debian test data,
// and degenerate inputs (NaN / huge grids, empty planes); the float blocks
// against the scalar reference, bit for bit.
#include "tract/rt/io/thread_pool.h"
#include "tract/rt/nn/grid_sample.h"

#include "batch3_debian_cases.h"
#include "test_util.h"

using namespace tract_test;
namespace rt = tract::rt;

namespace {

struct GsRef {
  int64_t n, c, h, w, oh, ow;
  rt::GridSampleMode mode;
  rt::GridSamplePadding pad;
  bool align;
};

double unnorm(double g, int64_t size, bool align) {
  return align ? (g + 1.0) * 0.5 * double(size - 1)
               : ((g + 1.0) * double(size) - 1.0) * 0.5;
}

// Folds v into [lo, hi] by mirroring (|v| stays small in these tests).
double fold(double v, double lo, double hi) {
  if (lo == hi)
    return 0.0;
  for (int i = 0; i < 1000 && (v < lo || v > hi); ++i)
    v = v < lo ? 2.0 * lo - v : 2.0 * hi - v;
  return v;
}

double pad_coord(double v, int64_t size, rt::GridSamplePadding pad,
                 bool align) {
  const double hi = double(size - 1);
  if (pad == rt::GridSamplePadding::Border)
    return std::min(hi, std::max(v, 0.0));
  if (pad == rt::GridSamplePadding::Reflection) {
    v = align ? fold(v, 0.0, hi) : fold(v, -0.5, double(size) - 0.5);
    return std::min(hi, std::max(v, 0.0));
  }
  return v;
}

double keys(double d) { // cubic convolution, A = -0.75
  const double a = -0.75;
  d = std::fabs(d);
  if (d <= 1.0)
    return (a + 2.0) * d * d * d - (a + 3.0) * d * d + 1.0;
  if (d < 2.0)
    return a * d * d * d - 5.0 * a * d * d + 8.0 * a * d - 4.0 * a;
  return 0.0;
}

// Sets *skip when a nearest-mode coordinate is within 1e-3 of a rounding
// tie (float and double may round differently there).
std::vector<double> naive(const GsRef &p, const std::vector<double> &x,
                          const std::vector<double> &g,
                          std::vector<bool> *skip) {
  std::vector<double> y(size_t(p.n * p.c * p.oh * p.ow));
  skip->assign(y.size(), false);
  for (int64_t b = 0; b < p.n; ++b)
    for (int64_t i = 0; i < p.oh; ++i)
      for (int64_t j = 0; j < p.ow; ++j) {
        const size_t gi = size_t(((b * p.oh + i) * p.ow + j) * 2);
        const double fx = unnorm(g[gi], p.w, p.align);
        const double fy = unnorm(g[gi + 1], p.h, p.align);
        for (int64_t ch = 0; ch < p.c; ++ch) {
          auto at = [&](int64_t yy, int64_t xx) {
            if (yy < 0 || yy >= p.h || xx < 0 || xx >= p.w)
              return 0.0;
            return x[size_t(((b * p.c + ch) * p.h + yy) * p.w + xx)];
          };
          double v = 0.0;
          bool sk = false;
          if (p.mode == rt::GridSampleMode::Bicubic) {
            const double x0 = std::floor(fx), y0 = std::floor(fy);
            for (int r = -1; r <= 2; ++r)
              for (int k = -1; k <= 2; ++k) {
                const double tx = pad_coord(x0 + k, p.w, p.pad, p.align);
                const double ty = pad_coord(y0 + r, p.h, p.pad, p.align);
                v += keys(fx - (x0 + k)) * keys(fy - (y0 + r)) *
                     at(int64_t(ty), int64_t(tx));
              }
          } else {
            const double px = pad_coord(fx, p.w, p.pad, p.align);
            const double py = pad_coord(fy, p.h, p.pad, p.align);
            if (p.mode == rt::GridSampleMode::Nearest) {
              for (double c : {px, py}) {
                const double f = c - std::floor(c);
                sk = sk || std::fabs(f - 0.5) < 1e-3;
              }
              v = at(int64_t(std::nearbyint(py)), int64_t(std::nearbyint(px)));
            } else {
              const double x0 = std::floor(px), y0 = std::floor(py);
              const double lx = px - x0, ly = py - y0;
              const int64_t xi = int64_t(x0), yi = int64_t(y0);
              v = (1 - lx) * (1 - ly) * at(yi, xi) +
                  lx * (1 - ly) * at(yi, xi + 1) +
                  (1 - lx) * ly * at(yi + 1, xi) + lx * ly * at(yi + 1, xi + 1);
            }
          }
          const size_t yi = size_t(((b * p.c + ch) * p.oh + i) * p.ow + j);
          y[yi] = v;
          (*skip)[yi] = sk;
        }
      }
  return y;
}

template <class T>
void check_random(const GsRef &p, uint64_t seed, double gmin, double gmax,
                  double tol) {
  const auto xd =
      random_vec<double>(size_t(p.n * p.c * p.h * p.w), seed, -3.0, 3.0);
  const auto gd =
      random_vec<double>(size_t(p.n * p.oh * p.ow * 2), seed + 7, gmin, gmax);
  const std::vector<T> x(xd.begin(), xd.end()), g(gd.begin(), gd.end());
  const std::vector<double> xr(x.begin(), x.end()), gr(g.begin(), g.end());
  std::vector<T> y(size_t(p.n * p.c * p.oh * p.ow) + 1, T(777));
  const rt::GridSampleParams gp{p.n,  p.c,    p.h,   p.w,    p.oh,
                                p.ow, p.mode, p.pad, p.align};
  rt::grid_sample(x.data(), g.data(), y.data(), gp);
  ASSERT_EQ(y.back(), T(777));
  std::vector<bool> skip;
  const auto want = naive(p, xr, gr, &skip);
  for (size_t i = 0; i < want.size(); ++i) {
    if (skip[i])
      continue;
    ASSERT_TRUE(near(double(y[i]), want[i], tol, tol))
        << "at " << i << " mode=" << int(p.mode) << " pad=" << int(p.pad)
        << " align=" << p.align << " in=" << p.h << "x" << p.w
        << " out=" << p.oh << "x" << p.ow;
  }
}

const rt::GridSampleMode kModes[] = {rt::GridSampleMode::Bilinear,
                                     rt::GridSampleMode::Nearest,
                                     rt::GridSampleMode::Bicubic};
const rt::GridSamplePadding kPads[] = {rt::GridSamplePadding::Zeros,
                                       rt::GridSamplePadding::Border,
                                       rt::GridSamplePadding::Reflection};

} // namespace

TEST(GridSample, DebianOnnxCases) {
  const auto &cases = batch3_debian::grid_cases();
  ASSERT_EQ(cases.size(), 8u);
  for (const auto &c : cases) {
    const rt::GridSampleParams p{c.x_shape[0],
                                 c.x_shape[1],
                                 c.x_shape[2],
                                 c.x_shape[3],
                                 c.grid_shape[1],
                                 c.grid_shape[2],
                                 static_cast<rt::GridSampleMode>(c.mode),
                                 static_cast<rt::GridSamplePadding>(c.padding),
                                 c.align_corners};
    std::vector<float> y(c.y.size());
    rt::grid_sample(c.x.data(), c.grid.data(), y.data(), p);
    // The expected values are PyTorch's, rounded to 4 decimals.
    EXPECT_TRUE(all_near(y, c.y, 1e-4, 1e-4)) << c.name;
  }
}

TEST(GridSample, RandomAgainstNaive) {
  uint64_t seed = 1;
  for (auto mode : kModes)
    for (auto pad : kPads)
      for (bool align : {false, true})
        for (int64_t h : {1, 2, 3, 7})
          for (int64_t w : {1, 2, 5, 9, 17}) {
            const int64_t oh = (h * 3 + w) % 5 + 1;
            const int64_t ow = tail_sizes()[size_t(seed % 9)];
            const GsRef p{1 + int64_t(seed % 2),
                          1 + int64_t(seed % 3),
                          h,
                          w,
                          oh,
                          ow,
                          mode,
                          pad,
                          align};
            // Mostly inside [-1, 1], with excursions well outside.
            check_random<float>(p, seed, -1.6, 1.6, 2e-4);
            check_random<double>(p, seed + 1000, -3.5, 3.5, 1e-9);
            ++seed;
          }
}

TEST(GridSample, HandComputed) {
  // 2x3 input, align_corners: grid (-1,-1) is pixel (0,0), (1,1) is (1,2).
  const float x[] = {1, 2, 3, 4, 5, 6};
  const float g[] = {-1, -1, 1, 1, 0, 0, 0, 1, -1, 0};
  float y[5];
  rt::GridSampleParams p{1,
                         1,
                         2,
                         3,
                         1,
                         5,
                         rt::GridSampleMode::Bilinear,
                         rt::GridSamplePadding::Zeros,
                         true};
  rt::grid_sample(x, g, y, p);
  EXPECT_TRUE(all_near(std::vector<float>(y, y + 5), {1, 6, 3.5f, 5, 2.5f}));
  // Without align_corners the corners are pixel edges: (-1,-1) is (-0.5,
  // -0.5), a quarter of pixel (0,0) with zero padding, all of it with
  // border padding, and reflection mirrors it back onto (0,0) too.
  p.align_corners = false;
  rt::grid_sample(x, g, y, p);
  EXPECT_NEAR(y[0], 0.25f, 1e-6);
  EXPECT_NEAR(y[1], 6.f * 0.25f, 1e-6);
  p.padding = rt::GridSamplePadding::Border;
  rt::grid_sample(x, g, y, p);
  EXPECT_NEAR(y[0], 1.f, 1e-6);
  EXPECT_NEAR(y[1], 6.f, 1e-6);
  p.padding = rt::GridSamplePadding::Reflection;
  rt::grid_sample(x, g, y, p);
  EXPECT_NEAR(y[0], 1.f, 1e-6);
  EXPECT_NEAR(y[1], 6.f, 1e-6);
  // Nearest rounds half to even: x = 0.5 -> 0, 1.5 -> 2.
  p.mode = rt::GridSampleMode::Nearest;
  p.padding = rt::GridSamplePadding::Zeros;
  const float x8[] = {1, 2, 3, 4, 5, 6, 7, 8}; // 2x4
  const float gn[] = {-0.5f, -0.5f, 0.f, -0.5f};
  rt::grid_sample(
      x8, gn, y,
      rt::GridSampleParams{1, 1, 2, 4, 1, 2, p.mode, p.padding, false});
  EXPECT_EQ(y[0], 1.f);
  EXPECT_EQ(y[1], 3.f);
  // Bicubic reproduces a constant inside the input with border padding.
  const float c7[] = {7, 7, 7, 7, 7, 7};
  const float gc[] = {-0.3f, 0.2f, 0.9f, -0.9f};
  rt::grid_sample(c7, gc, y,
                  rt::GridSampleParams{1, 1, 2, 3, 1, 2,
                                       rt::GridSampleMode::Bicubic,
                                       rt::GridSamplePadding::Border, false});
  EXPECT_NEAR(y[0], 7.f, 1e-5);
  EXPECT_NEAR(y[1], 7.f, 1e-5);
}

TEST(GridSample, DegenerateInputsStayInBounds) {
  const float x[] = {1, 2, 3, 4};
  const float big = 3e38f, inf = INFINITY, nan = NAN;
  const float g[] = {nan, 0,   0,    nan,  inf,   0,      -inf,   0,
                     big, big, -big, -big, 1e10f, -1e10f, 2.5e9f, 0};
  for (auto mode : kModes)
    for (auto pad : kPads)
      for (bool align : {false, true}) {
        float y[8 + 1];
        y[8] = 99.f;
        rt::grid_sample(
            x, g, y, rt::GridSampleParams{1, 1, 2, 2, 1, 8, mode, pad, align});
        EXPECT_EQ(y[8], 99.f);
        // Zero padding never invents values; far-away points read 0.
        if (pad == rt::GridSamplePadding::Zeros &&
            mode != rt::GridSampleMode::Bicubic) {
          for (int i = 4; i < 8; ++i) {
            EXPECT_EQ(y[i], 0.f) << i;
          }
        }
        // Border padding clamps finite far-away points onto the input.
        if (pad == rt::GridSamplePadding::Border &&
            mode == rt::GridSampleMode::Nearest) {
          EXPECT_EQ(y[4], 4.f);
          EXPECT_EQ(y[5], 1.f);
        }
      }
  // Empty input planes give zeros; an empty output writes nothing.
  float y[4] = {5, 5, 5, 5};
  const float g2[] = {0, 0, 0.5f, 0.5f};
  rt::grid_sample(x, g2, y,
                  rt::GridSampleParams{1, 2, 0, 3, 1, 2,
                                       rt::GridSampleMode::Bilinear,
                                       rt::GridSamplePadding::Border, false});
  EXPECT_TRUE(all_equal(std::vector<float>(y, y + 4), {0, 0, 0, 0}));
  y[0] = 5;
  rt::grid_sample(x, g2, y,
                  rt::GridSampleParams{1, 1, 2, 2, 0, 2,
                                       rt::GridSampleMode::Bilinear,
                                       rt::GridSamplePadding::Border, false});
  EXPECT_EQ(y[0], 5.f);
}

// The float blocks (grid_sample.h) give the scalar reference's outputs bit
// for bit: every padding, both alignments, bilinear and nearest, blocks cut
// short (7x7 = 49 samples, 11x13 = 143), one channel (RAFT's lookups) and
// several, on 1 and 3 threads (256 images of 2 channels: split), with grid points on pixel centres, on
// rounding ties, outside the input, huge, infinite and NaN, and inputs with
// infinities and NaNs (an outside tap must add nothing, not 0 * NaN).
TEST(GridSample, BlocksMatchReferenceBitForBit) {
  struct Shape {
    int64_t n, c, h, w, oh, ow;
  };
  const Shape shapes[] = {{3, 1, 16, 16, 7, 7}, {2, 3, 5, 9, 11, 13}, {1, 2, 1, 1, 1, 70},
                          {2, 1, 2, 2, 8, 8}, {256, 2, 8, 8, 7, 7}};
  const float specials[] = {-1.f, 0.f, 1.f, 0.5f, -0.5f, 1.0f / 3.0f, NAN, INFINITY,
                            -INFINITY, 3e38f, -2.5e9f, 1.0001f, -1.0001f, 0.75f};
  uint64_t seed = 11;
  rt::ThreadPool pool(3);
  for (const Shape &s : shapes)
    for (auto mode : {rt::GridSampleMode::Bilinear, rt::GridSampleMode::Nearest})
      for (auto pad : kPads)
        for (bool align : {false, true})
          for (int threads : {1, 3}) {
            const rt::GridSampleParams p{s.n, s.c, s.h, s.w, s.oh, s.ow, mode, pad, align};
            ASSERT_TRUE(rt::grid_sample_blocks_fit(p));
            auto xd = random_vec<double>(size_t(s.n * s.c * s.h * s.w), seed, -3.0, 3.0);
            auto gd = random_vec<double>(size_t(s.n * s.oh * s.ow * 2), seed + 1, -1.3, 1.3);
            std::vector<float> x(xd.begin(), xd.end()), g(gd.begin(), gd.end());
            for (size_t i = 0; i < g.size(); i += 5)
              g[i] = specials[(i / 5 + seed) % (sizeof specials / sizeof *specials)];
            if (x.size() > 4) {
              x[1] = NAN;
              x[x.size() - 2] = INFINITY;
            }
            const size_t ny = size_t(s.n * s.c * s.oh * s.ow);
            std::vector<float> want(ny), got(ny + 1, 321.f);
            rt::grid_sample_ref(x.data(), g.data(), want.data(), p);
            const rt::Parallel par{threads > 1 ? rt::ThreadPool::parallel_for : nullptr, &pool,
                                   threads};
            // (Only the last shape is past the threads' work threshold.)
            rt::grid_sample(x.data(), g.data(), got.data(), p, par);
            ASSERT_EQ(got[ny], 321.f);
            for (size_t i = 0; i < ny; ++i)
              ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(float)), 0)
                  << "at " << i << ": " << got[i] << " vs " << want[i] << " mode=" << int(mode)
                  << " pad=" << int(pad) << " align=" << align << " threads=" << threads;
            ++seed;
          }
}
