#include "tract/rt/nn/conv_ref.h"

#include "test_util.h"

using namespace tract_test;
namespace rt = tract::rt;

namespace {

struct ConvCase {
  int r; // spatial rank
  int64_t n, cin, cout, groups;
  Shape in, ker, stride, dil, pb, pe;
  bool bias;
};

rt::ConvParams params(const ConvCase &c, const Shape &out) {
  rt::ConvParams p{};
  p.spatial_rank = c.r;
  p.batch = c.n;
  p.in_channels = c.cin;
  p.out_channels = c.cout;
  p.groups = c.groups;
  for (int d = 0; d < c.r; ++d) {
    p.in_size[d] = c.in[size_t(d)];
    p.out_size[d] = out[size_t(d)];
    p.kernel[d] = c.ker[size_t(d)];
    p.stride[d] = c.stride[size_t(d)];
    p.dilation[d] = c.dil[size_t(d)];
    p.pad_begin[d] = c.pb[size_t(d)];
  }
  return p;
}

Shape conv_out(const ConvCase &c) {
  Shape o(size_t(c.r));
  for (size_t d = 0; d < o.size(); ++d)
    o[d] = (c.in[d] + c.pb[d] + c.pe[d] - c.dil[d] * (c.ker[d] - 1) - 1) /
               c.stride[d] +
           1;
  return o;
}

Shape convt_out(const ConvCase &c) {
  Shape o(size_t(c.r));
  for (size_t d = 0; d < o.size(); ++d)
    o[d] = c.stride[d] * (c.in[d] - 1) + c.dil[d] * (c.ker[d] - 1) + 1 -
           c.pb[d] - c.pe[d];
  return o;
}

// Direct definition: every output gathers over (ic, tap) with a bounds test.
std::vector<double> naive_conv(const ConvCase &c, const std::vector<double> &x,
                               const std::vector<double> &w,
                               const std::vector<double> &b, const Shape &out) {
  const int64_t cin_g = c.cin / c.groups, cout_g = c.cout / c.groups;
  const int64_t in_plane = numel(c.in), out_plane = numel(out),
                kv = numel(c.ker);
  std::vector<double> y(size_t(c.n * c.cout * out_plane));
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t oc = 0; oc < c.cout; ++oc)
      for (int64_t op = 0; op < out_plane; ++op) {
        const Shape o = unravel(op, out);
        double s = c.bias ? b[size_t(oc)] : 0.0;
        const int64_t g = oc / cout_g;
        for (int64_t icl = 0; icl < cin_g; ++icl)
          for (int64_t t = 0; t < kv; ++t) {
            const Shape k = unravel(t, c.ker);
            int64_t lin = 0;
            bool ok = true;
            for (int d = 0; d < c.r; ++d) {
              const int64_t i = o[size_t(d)] * c.stride[size_t(d)] +
                                k[size_t(d)] * c.dil[size_t(d)] -
                                c.pb[size_t(d)];
              ok = ok && i >= 0 && i < c.in[size_t(d)];
              lin = lin * c.in[size_t(d)] + i;
            }
            if (!ok)
              continue;
            const int64_t ic = g * cin_g + icl;
            s += x[size_t((n * c.cin + ic) * in_plane + lin)] *
                 w[size_t((oc * cin_g + icl) * kv + t)];
          }
        y[size_t((n * c.cout + oc) * out_plane + op)] = s;
      }
  return y;
}

// Transposed conv as a gather: output o receives x[i] through tap k when
// o + pad = i * stride + k * dil.
std::vector<double> naive_convt(const ConvCase &c, const std::vector<double> &x,
                                const std::vector<double> &w,
                                const std::vector<double> &b,
                                const Shape &out) {
  const int64_t cin_g = c.cin / c.groups, cout_g = c.cout / c.groups;
  const int64_t in_plane = numel(c.in), out_plane = numel(out),
                kv = numel(c.ker);
  std::vector<double> y(size_t(c.n * c.cout * out_plane));
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t oc = 0; oc < c.cout; ++oc)
      for (int64_t op = 0; op < out_plane; ++op) {
        const Shape o = unravel(op, out);
        double s = c.bias ? b[size_t(oc)] : 0.0;
        const int64_t g = oc / cout_g, ocl = oc % cout_g;
        for (int64_t icl = 0; icl < cin_g; ++icl)
          for (int64_t t = 0; t < kv; ++t) {
            const Shape k = unravel(t, c.ker);
            int64_t lin = 0;
            bool ok = true;
            for (int d = 0; d < c.r && ok; ++d) {
              const int64_t num = o[size_t(d)] + c.pb[size_t(d)] -
                                  k[size_t(d)] * c.dil[size_t(d)];
              ok = num >= 0 && num % c.stride[size_t(d)] == 0 &&
                   num / c.stride[size_t(d)] < c.in[size_t(d)];
              lin =
                  lin * c.in[size_t(d)] + (ok ? num / c.stride[size_t(d)] : 0);
            }
            if (!ok)
              continue;
            const int64_t ic = g * cin_g + icl;
            s += x[size_t((n * c.cin + ic) * in_plane + lin)] *
                 w[size_t((ic * cout_g + ocl) * kv + t)];
          }
        y[size_t((n * c.cout + oc) * out_plane + op)] = s;
      }
  return y;
}

template <class T>
void run_case(const ConvCase &c, bool transpose, uint64_t seed) {
  const Shape out = transpose ? convt_out(c) : conv_out(c);
  for (auto d : out)
    ASSERT_GT(d, 0);
  const int64_t kv = numel(c.ker);
  const int64_t wn = transpose ? c.cin * (c.cout / c.groups) * kv
                               : c.cout * (c.cin / c.groups) * kv;
  const auto xd = random_vec<double>(size_t(c.n * c.cin * numel(c.in)), seed);
  const auto wd = random_vec<double>(size_t(wn), seed + 1);
  const auto bd = random_vec<double>(size_t(c.cout), seed + 2);
  const std::vector<T> x(xd.begin(), xd.end()), w(wd.begin(), wd.end()),
      b(bd.begin(), bd.end());
  // Round the inputs through T so the double reference sees the same values.
  const std::vector<double> xr(x.begin(), x.end()), wr(w.begin(), w.end()),
      br(b.begin(), b.end());
  const int64_t ny = c.n * c.cout * numel(out);
  std::vector<T> y(size_t(ny) + 1, T(123));
  const rt::ConvParams p = params(c, out);
  if (transpose)
    rt::conv_transpose(x.data(), w.data(), c.bias ? b.data() : nullptr,
                       y.data(), p);
  else
    rt::conv(x.data(), w.data(), c.bias ? b.data() : nullptr, y.data(), p);
  ASSERT_EQ(y.back(), T(123)) << "wrote past the output";
  y.pop_back();
  const auto want = transpose ? naive_convt(c, xr, wr, br, out)
                              : naive_conv(c, xr, wr, br, out);
  std::vector<T> wantT(want.begin(), want.end());
  const double tol = std::is_same<T, float>::value ? 2e-5 : 1e-12;
  ASSERT_TRUE(all_near(y, wantT, tol, tol))
      << (transpose ? "convT" : "conv") << " r=" << c.r
      << " in=" << shape_str(c.in) << " k=" << shape_str(c.ker)
      << " s=" << shape_str(c.stride) << " d=" << shape_str(c.dil)
      << " pb=" << shape_str(c.pb) << " pe=" << shape_str(c.pe)
      << " g=" << c.groups;
}

ConvCase random_case(Rng &r, int rank, bool transpose) {
  static const int64_t sizes[] = {1, 3, 7, 8, 9, 17};
  for (;;) {
    ConvCase c;
    c.r = rank;
    c.n = r.range(1, 2);
    c.groups = r.range(1, 3);
    c.cin = c.groups * r.range(1, 3);
    c.cout = c.groups * r.range(1, 3);
    c.bias = r.range(0, 1) == 1;
    for (int d = 0; d < rank; ++d) {
      c.in.push_back(sizes[r.range(0, rank == 1 ? 5 : (rank == 2 ? 4 : 2))]);
      c.ker.push_back(r.range(1, 3));
      c.stride.push_back(r.range(1, 3));
      c.dil.push_back(r.range(1, 2));
      c.pb.push_back(r.range(0, 2));
      c.pe.push_back(r.range(0, 2));
    }
    if (transpose) {
      // ONNX requires pads < the effective kernel for ConvTranspose to be
      // meaningful.
      bool ok = true;
      for (int d = 0; d < rank; ++d)
        ok = ok && c.pb[size_t(d)] + c.pe[size_t(d)] <
                       c.dil[size_t(d)] * (c.ker[size_t(d)] - 1) + 1 +
                           c.stride[size_t(d)] * (c.in[size_t(d)] - 1);
      if (ok)
        return c;
    } else {
      bool ok = true;
      for (auto d : conv_out(c))
        ok = ok && d > 0;
      if (ok)
        return c;
    }
  }
}

} // namespace

TEST(Conv, RandomCases1d2d3d) {
  Rng r(2024);
  uint64_t seed = 1;
  for (int rank = 1; rank <= 3; ++rank)
    for (int t = 0; t < (rank == 3 ? 25 : 60); ++t) {
      const ConvCase c = random_case(r, rank, false);
      run_case<float>(c, false, seed++);
      if (t % 4 == 0)
        run_case<double>(c, false, seed++);
    }
}

TEST(ConvTranspose, RandomCases1d2d3d) {
  Rng r(4048);
  uint64_t seed = 1000;
  for (int rank = 1; rank <= 3; ++rank)
    for (int t = 0; t < (rank == 3 ? 25 : 60); ++t) {
      const ConvCase c = random_case(r, rank, true);
      run_case<float>(c, true, seed++);
      if (t % 4 == 0)
        run_case<double>(c, true, seed++);
    }
}

TEST(Conv, NamedShapes) {
  // Depthwise 3x3, stride 2, same padding, odd sizes.
  run_case<float>(
      {2, 1, 6, 6, 6, {9, 17}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true},
      false, 1);
  // Pointwise (1x1) conv with many channels: the contiguous fast path.
  run_case<float>(
      {2, 2, 33, 17, 1, {7, 9}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, false},
      false, 2);
  // Dilated 1d with asymmetric padding.
  run_case<float>({1, 1, 3, 4, 1, {33}, {3}, {1}, {4}, {5}, {2}, true}, false,
                  3);
  // Kernel larger than the input (all taps partly in padding).
  run_case<float>({1, 1, 2, 2, 2, {3}, {5}, {1}, {1}, {3}, {3}, true}, false,
                  4);
  // 4 spatial dims.
  run_case<float>({4,
                   1,
                   2,
                   2,
                   1,
                   {3, 4, 3, 5},
                   {2, 1, 2, 3},
                   {1, 2, 1, 2},
                   {1, 1, 2, 1},
                   {0, 1, 1, 1},
                   {1, 0, 0, 1},
                   true},
                  false, 5);
  // Transposed: stride 2 upsampling with output cropping, groups.
  run_case<float>(
      {2, 2, 4, 6, 2, {5, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {0, 1}, true},
      true, 6);
  run_case<double>({1, 1, 3, 2, 1, {9}, {4}, {3}, {2}, {0}, {0}, false}, true,
                   7);
}

TEST(Conv, HandComputed) {
  // 1d: x = [1 2 3 4], w = [1 0 -1], pad 1, stride 1 -> y[i] = x[i-1] - x[i+1]
  const float x[] = {1, 2, 3, 4};
  const float w[] = {1, 0, -1};
  const float b[] = {10};
  float y[4];
  rt::ConvParams p{1, 1, 1, 1, 1, {4}, {4}, {3}, {1}, {1}, {1}};
  rt::conv(x, w, b, y, p);
  EXPECT_EQ(y[0], 10 - 2);
  EXPECT_EQ(y[1], 10 + 1 - 3);
  EXPECT_EQ(y[2], 10 + 2 - 4);
  EXPECT_EQ(y[3], 10 + 3);
  // Transposed, stride 2, kernel [1 1]: each x spreads over two outputs.
  float yt[8];
  const float w2[] = {1, 2};
  rt::ConvParams pt{1, 1, 1, 1, 1, {4}, {8}, {2}, {2}, {1}, {0}};
  rt::conv_transpose(x, w2, nullptr, yt, pt);
  const float want[] = {1, 2, 2, 4, 3, 6, 4, 8};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(yt[i], want[i]);
}

TEST(Conv, ConstexprParams) {
  constexpr rt::ConvParams p{2,      1,      3,      8,      1,     {5, 5},
                             {3, 3}, {3, 3}, {1, 1}, {1, 1}, {0, 0}};
  static_assert(p.kernel[1] == 3, "aggregate is constexpr-initialisable");
  EXPECT_EQ(p.out_channels, 8);
}
