#include "tract/rt/nn/norm_ref.h"

#include "test_util.h"

using namespace tract_test;
namespace rt = tract::rt;

namespace {

// mean and variance of n values at stride `st`, computed in double.
void moments(const double *x, int64_t n, int64_t st, double *mean,
             double *var) {
  double s = 0, s2 = 0;
  for (int64_t i = 0; i < n; ++i)
    s += x[i * st];
  *mean = s / double(n);
  for (int64_t i = 0; i < n; ++i)
    s2 += (x[i * st] - *mean) * (x[i * st] - *mean);
  *var = s2 / double(n);
}

} // namespace

TEST(Norm, LayerNorm) {
  uint64_t seed = 1;
  for (int64_t n : tail_sizes())
    for (bool with_bias : {false, true}) {
      const int64_t outer = 3;
      const auto xd = random_vec<double>(size_t(outer * n), seed++, -3, 5);
      const auto sd = random_vec<double>(size_t(n), seed++, 0.5, 2);
      const auto bd = random_vec<double>(size_t(n), seed++);
      const std::vector<float> x(xd.begin(), xd.end()), s(sd.begin(), sd.end()),
          b(bd.begin(), bd.end());
      const std::vector<double> xr(x.begin(), x.end());
      std::vector<float> y(x.size());
      rt::layer_norm(x.data(), s.data(), with_bias ? b.data() : nullptr,
                     y.data(), outer, n, 1e-5f);
      std::vector<float> want(x.size());
      for (int64_t o = 0; o < outer; ++o) {
        double m, v;
        moments(xr.data() + o * n, n, 1, &m, &v);
        for (int64_t i = 0; i < n; ++i)
          want[size_t(o * n + i)] =
              float((xr[size_t(o * n + i)] - m) / std::sqrt(v + double(1e-5f)) *
                        s[size_t(i)] +
                    (with_bias ? b[size_t(i)] : 0.f));
      }
      ASSERT_TRUE(all_near(y, want, 1e-4, 1e-4)) << n;
    }
}

TEST(Norm, InstanceNorm) {
  uint64_t seed = 50;
  for (int64_t sp : tail_sizes()) {
    const int64_t n = 2, c = 3;
    const auto xd = random_vec<double>(size_t(n * c * sp), seed++, -1, 3);
    const std::vector<double> scale = {1.0, 0.5, -2.0}, bias = {0.0, 1.0, -1.0};
    std::vector<double> y(xd.size());
    rt::instance_norm(xd.data(), scale.data(), bias.data(), y.data(), n, c, sp,
                      1e-3f);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ch = 0; ch < c; ++ch) {
        double m, v;
        moments(xd.data() + (b * c + ch) * sp, sp, 1, &m, &v);
        for (int64_t i = 0; i < sp; ++i) {
          const size_t k = size_t((b * c + ch) * sp + i);
          const double want =
              (xd[k] - m) / std::sqrt(v + double(1e-3f)) * scale[size_t(ch)] +
              bias[size_t(ch)];
          ASSERT_NEAR(y[k], want, 1e-10) << sp;
        }
      }
  }
}

TEST(Norm, Lrn) {
  uint64_t seed = 90;
  for (int64_t c : {int64_t(1), int64_t(3), int64_t(8), int64_t(9)})
    for (int64_t size : {int64_t(1), int64_t(2), int64_t(3), int64_t(5)}) {
      const int64_t n = 2, sp = 7;
      const auto xd = random_vec<double>(size_t(n * c * sp), seed++);
      const std::vector<float> x(xd.begin(), xd.end());
      std::vector<float> y(x.size());
      const float alpha = 1e-2f, beta = 0.75f, bias = 1.5f;
      rt::lrn(x.data(), y.data(), n, c, sp, size, alpha, beta, bias);
      for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t i = 0; i < sp; ++i) {
            double sq = 0;
            // ONNX: [c - floor((size-1)/2), c + ceil((size-1)/2)]
            const int64_t lo = ch - (size - 1) / 2,
                          hi = ch + (size - 1 + 1) / 2;
            for (int64_t cc = lo; cc <= hi; ++cc)
              if (cc >= 0 && cc < c) {
                const double v = x[size_t((b * c + cc) * sp + i)];
                sq += v * v;
              }
            const size_t k = size_t((b * c + ch) * sp + i);
            const double want =
                x[k] /
                std::pow(double(bias) + double(alpha) / double(size) * sq,
                         double(beta));
            ASSERT_NEAR(y[k], want, 1e-5) << c << " " << size;
          }
    }
}

// One-pass statistics stay accurate when the mean is large against the
// spread (values 1000 +- 1: a naive sum of squares would cancel).
TEST(Norm, LayerNormLargeMeanSmallSpread) {
  for (int64_t n : {int64_t(7), int64_t(256), int64_t(1000)}) {
    auto xd = random_vec<double>(size_t(n), 5 + uint64_t(n), -1, 1);
    for (double &v : xd)
      v += 1000.0;
    const std::vector<float> x(xd.begin(), xd.end()), s(size_t(n), 1.0f), b(size_t(n), 0.0f);
    const std::vector<double> xr(x.begin(), x.end());
    std::vector<float> y(x.size());
    rt::layer_norm(x.data(), s.data(), b.data(), y.data(), 1, n, 1e-5f);
    double m, v;
    moments(xr.data(), n, 1, &m, &v);
    std::vector<float> want(x.size());
    for (int64_t i = 0; i < n; ++i)
      want[size_t(i)] = float((xr[size_t(i)] - m) / std::sqrt(v + double(1e-5f)));
    ASSERT_TRUE(all_near(y, want, 1e-3, 1e-3)) << n;
  }
}
