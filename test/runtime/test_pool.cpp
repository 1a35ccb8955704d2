#include "tract/rt/io/thread_pool.h"
#include "tract/rt/nn/pool_ref.h"

#include "test_util.h"

#include <cmath>
#include <cstring>

using namespace tract_test;
namespace rt = tract::rt;

namespace {

struct PoolCase {
  int r;
  int64_t bc;
  Shape in, ker, stride, dil, pb, pe;
  bool ceil_mode;
  bool include_pad;
};

Shape pool_out(const PoolCase &c) {
  Shape o(size_t(c.r));
  for (size_t d = 0; d < o.size(); ++d) {
    const int64_t span =
        c.in[d] + c.pb[d] + c.pe[d] - c.dil[d] * (c.ker[d] - 1) - 1;
    o[d] = (c.ceil_mode ? (span + c.stride[d] - 1) / c.stride[d]
                        : span / c.stride[d]) +
           1;
    // ONNX ceil mode: drop a last window that starts in the end padding.
    if (c.ceil_mode && (o[d] - 1) * c.stride[d] >= c.in[d] + c.pb[d])
      --o[d];
  }
  return o;
}

rt::PoolParams params(const PoolCase &c, const Shape &out) {
  rt::PoolParams p{};
  p.spatial_rank = c.r;
  p.batch_channels = c.bc;
  for (int d = 0; d < c.r; ++d) {
    const size_t s = size_t(d);
    p.in_size[d] = c.in[s];
    p.out_size[d] = out[s];
    p.kernel[d] = c.ker[s];
    p.stride[d] = c.stride[s];
    p.dilation[d] = c.dil[s];
    p.pad_begin[d] = c.pb[s];
    p.pad_end[d] = c.pe[s];
  }
  p.count_include_pad = c.include_pad;
  return p;
}

enum class Kind { Max, Avg, Lp1, Lp2, Lp3 };

// Direct definition over each window's taps with explicit bound tests.
std::vector<double> naive_pool(const PoolCase &c, const std::vector<double> &x,
                               const Shape &out, Kind kind) {
  const int64_t in_plane = numel(c.in), out_plane = numel(out),
                kv = numel(c.ker);
  std::vector<double> y(size_t(c.bc * out_plane));
  for (int64_t b = 0; b < c.bc; ++b)
    for (int64_t op = 0; op < out_plane; ++op) {
      const Shape o = unravel(op, out);
      double acc = kind == Kind::Max ? -INFINITY : 0.0;
      int64_t inb = 0, padded = 0;
      for (int64_t t = 0; t < kv; ++t) {
        const Shape k = unravel(t, c.ker);
        bool in_bounds = true, in_padded = true;
        int64_t lin = 0;
        for (int d = 0; d < c.r; ++d) {
          const size_t s = size_t(d);
          const int64_t i = o[s] * c.stride[s] + k[s] * c.dil[s] - c.pb[s];
          in_bounds = in_bounds && i >= 0 && i < c.in[s];
          in_padded = in_padded && i >= -c.pb[s] && i < c.in[s] + c.pe[s];
          lin = lin * c.in[s] + i;
        }
        padded += in_padded;
        if (!in_bounds)
          continue;
        ++inb;
        const double v = x[size_t(b * in_plane + lin)];
        switch (kind) {
        case Kind::Max:
          acc = std::max(acc, v);
          break;
        case Kind::Avg:
          acc += v;
          break;
        case Kind::Lp1:
          acc += std::fabs(v);
          break;
        case Kind::Lp2:
          acc += v * v;
          break;
        case Kind::Lp3:
          acc += std::pow(std::fabs(v), 3.0);
          break;
        }
      }
      if (kind == Kind::Avg) {
        const int64_t div = c.include_pad ? padded : inb;
        acc = div ? acc / double(div) : 0.0;
      } else if (kind == Kind::Lp2) {
        acc = std::sqrt(acc);
      } else if (kind == Kind::Lp3) {
        acc = std::cbrt(acc);
      }
      y[size_t(b * out_plane + op)] = acc;
    }
  return y;
}

// `threads` > 1: max and average pools split their planes over a pool.
void run_case(const PoolCase &c, Kind kind, uint64_t seed, int threads = 1) {
  rt::ThreadPool pool(threads);
  const rt::Parallel par{threads > 1 ? rt::ThreadPool::parallel_for : nullptr, &pool, threads};
  const Shape out = pool_out(c);
  const auto xd = random_vec<double>(size_t(c.bc * numel(c.in)), seed);
  const std::vector<float> x(xd.begin(), xd.end());
  const std::vector<double> xr(x.begin(), x.end());
  std::vector<float> y(size_t(c.bc * numel(out)) + 1, 321.f);
  const rt::PoolParams p = params(c, out);
  switch (kind) {
  case Kind::Max:
    rt::max_pool(x.data(), y.data(), p, par);
    break;
  case Kind::Avg:
    rt::avg_pool(x.data(), y.data(), p, par);
    break;
  case Kind::Lp1:
    rt::lp_pool(x.data(), y.data(), p, 1);
    break;
  case Kind::Lp2:
    rt::lp_pool(x.data(), y.data(), p, 2);
    break;
  case Kind::Lp3:
    rt::lp_pool(x.data(), y.data(), p, 3);
    break;
  }
  ASSERT_EQ(y.back(), 321.f);
  y.pop_back();
  const auto want = naive_pool(c, xr, out, kind);
  const std::vector<float> wantf(want.begin(), want.end());
  ASSERT_TRUE(all_near(y, wantf, 1e-5, 1e-5))
      << "kind=" << int(kind) << " in=" << shape_str(c.in)
      << " k=" << shape_str(c.ker) << " s=" << shape_str(c.stride)
      << " d=" << shape_str(c.dil) << " pb=" << shape_str(c.pb)
      << " pe=" << shape_str(c.pe) << " ceil=" << c.ceil_mode
      << " incl=" << c.include_pad;
}

// Case t of the small-plane tests: 1-d or 2-d planes of at most 16 x 16,
// 8, 21 or 40 planes (a partial last block of 16), random small windows,
// strides, dilations, pads and ceil mode; false where the window would not
// fit the padded input.
bool random_small_planes_case(Rng &r, int t, PoolCase *c) {
  static const int64_t sizes[] = {1, 2, 4, 7, 13, 16};
  c->r = t % 4 == 0 ? 1 : 2;
  c->bc = t % 3 == 0 ? 8 : (t % 3 == 1 ? 21 : 40);
  c->ceil_mode = r.range(0, 1) == 1;
  c->include_pad = false;
  bool ok = true;
  for (int d = 0; d < c->r; ++d) {
    c->in.push_back(sizes[r.range(0, 5)]);
    c->ker.push_back(r.range(1, 3));
    c->stride.push_back(r.range(1, 2));
    c->dil.push_back(r.range(1, 2));
    c->pb.push_back(r.range(0, c->ker.back() - 1));
    c->pe.push_back(r.range(0, c->ker.back() - 1));
    ok = ok && c->in.back() + c->pb.back() + c->pe.back() >= c->dil.back() * (c->ker.back() - 1) + 1;
  }
  return ok;
}

} // namespace

TEST(Pool, RandomCasesAllKinds) {
  Rng r(77);
  static const int64_t sizes[] = {1, 3, 7, 8, 9, 17};
  uint64_t seed = 1;
  for (int rank = 1; rank <= 3; ++rank)
    for (int t = 0; t < 60; ++t) {
      PoolCase c;
      c.r = rank;
      c.bc = r.range(1, 3);
      c.ceil_mode = r.range(0, 1) == 1;
      c.include_pad = r.range(0, 1) == 1;
      bool ok = true;
      for (int d = 0; d < rank; ++d) {
        c.in.push_back(sizes[r.range(0, rank == 3 ? 3 : 5)]);
        c.ker.push_back(r.range(1, 3));
        c.stride.push_back(r.range(1, 3));
        c.dil.push_back(r.range(1, 2));
        // ONNX: pads smaller than the kernel.
        c.pb.push_back(r.range(0, c.ker.back() - 1));
        c.pe.push_back(r.range(0, c.ker.back() - 1));
        ok = ok && c.in.back() + c.pb.back() + c.pe.back() >=
                       c.dil.back() * (c.ker.back() - 1) + 1;
      }
      if (!ok)
        continue;
      for (Kind k : {Kind::Max, Kind::Avg, Kind::Lp1, Kind::Lp2, Kind::Lp3})
        run_case(c, k, seed++);
    }
}

// Max pools of 8 planes or more whose planes have at most 256 pixels run 16
// planes at a time in lane layout on AVX-512 (tract-isa-tests-avx512): random
// small 2-d and 1-d windows, strides, dilations, pads and ceil mode, plane
// counts that leave a partial last block of 16, one and two threads.
TEST(Pool, SmallPlanesMaxPool) {
  Rng r(91);
  uint64_t seed = 500;
  for (int t = 0; t < 60; ++t) {
    PoolCase c;
    if (random_small_planes_case(r, t, &c))
      run_case(c, Kind::Max, seed++, 1 + t % 2);
  }
  // SqueezeNet 1.0's and GoogLeNet's at a 64 x 64 input.
  run_case({2, 40, {14, 14}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, true, false}, Kind::Max, 600);
  run_case({2, 33, {4, 4}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false, false}, Kind::Max, 601, 2);
}

// Average pools of such planes run 16 planes at a time in lane layout too:
// random cases against the naive pool (padding counted or not), then the
// same planes one at a time (the row kernel: fewer than 8 planes), which
// must give the same floats bit for bit, since how threads split the
// planes decides which kernel takes which. Inception-v3's 3x3 stride-1
// pools on 6 x 6 maps after a zero Pad, and with the padding in the pool.
TEST(Pool, SmallPlanesAveragePool) {
  Rng r(93);
  uint64_t seed = 700;
  auto same_as_one_plane_at_a_time = [](const PoolCase &c, uint64_t s) {
    const Shape out = pool_out(c);
    const auto xd = random_vec<double>(size_t(c.bc * numel(c.in)), s);
    const std::vector<float> x(xd.begin(), xd.end());
    std::vector<float> all(size_t(c.bc * numel(out))), one(all.size());
    rt::avg_pool(x.data(), all.data(), params(c, out));
    PoolCase single = c;
    single.bc = 1;
    for (int64_t b = 0; b < c.bc; ++b)
      rt::avg_pool(x.data() + b * numel(c.in), one.data() + b * numel(out), params(single, out));
    for (size_t i = 0; i < all.size(); ++i)
      ASSERT_EQ(std::memcmp(&all[i], &one[i], sizeof(float)), 0)
          << i << ": " << all[i] << " vs " << one[i] << " in=" << shape_str(c.in)
          << " incl=" << c.include_pad;
  };
  for (int t = 0; t < 60; ++t) {
    PoolCase c;
    if (!random_small_planes_case(r, t, &c))
      continue;
    c.include_pad = t % 5 < 2;
    run_case(c, Kind::Avg, seed, 1 + t % 2);
    same_as_one_plane_at_a_time(c, seed++);
  }
  const PoolCase inception[] = {
      {2, 48, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, false, false},
      {2, 48, {4, 4}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false, true},
  };
  for (const PoolCase &c : inception) {
    run_case(c, Kind::Avg, seed, 2);
    same_as_one_plane_at_a_time(c, seed++);
  }
}

#if defined(TRACT_RT_POOL_LANES)
namespace {
// A vector max pool kernel (detail::, over case c's planes) against the row
// kernel, bit for bit, on an input of NaN, infinities and zeros of both
// signs between values below -1: NaN never wins, infinities always do, and
// zeros of both signs often tie for a window's max, where the one kept
// shows the order of the fold (the first seen stays).
void expect_row_kernel_floats(const PoolCase &c, uint64_t seed,
                              void (*kernel)(const float *, float *, const rt::detail::Pool4 &,
                                             int64_t)) {
  const Shape out = pool_out(c);
  const rt::detail::Pool4 q = rt::detail::pool4(params(c, out));
  auto x = random_vec<float>(size_t(c.bc * numel(c.in)), seed);
  const float specials[] = {std::nanf(""), 0.0f, -0.0f, 0.0f, -0.0f, INFINITY, -INFINITY};
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = i % 2 ? -1.0f - std::fabs(x[i]) : specials[(i / 2 + i / 7) % 7];
  std::vector<float> got(size_t(c.bc * numel(out))), rows(got.size());
  kernel(x.data(), got.data(), q, c.bc);
  rt::detail::max_pool_rows_floats(x.data(), rows.data(), q, c.bc);
  for (size_t i = 0; i < rows.size(); ++i)
    ASSERT_EQ(std::memcmp(&got[i], &rows[i], sizeof(float)), 0)
        << i << ": " << got[i] << " vs " << rows[i] << " in=" << shape_str(c.in);
}
} // namespace
#endif

// Max pools whose rows fit two AVX-512 registers with their padding, on
// planes too large for lane layout or too few of them, fold in registers
// (detail::max_pool_narrow_rows): against the naive pool, and against the
// row kernel bit for bit (expect_row_kernel_floats).
TEST(Pool, NarrowRowsMaxPool) {
  const PoolCase cases[] = {
      {2, 20, {29, 29}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, true, false},  // SqueezeNet 1.0
      {2, 9, {27, 27}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, true, false},   // SqueezeNet 1.1
      {2, 3, {40, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false, false},  // padded, 14 out
      {2, 2, {30, 20}, {2, 5}, {1, 2}, {1, 2}, {0, 2}, {1, 2}, true, false},   // dilated row taps
      {2, 4, {17, 31}, {3, 2}, {2, 2}, {1, 1}, {1, 1}, {1, 0}, false, false},  // 31 + 1 padding
      {1, 5, {28}, {4}, {2}, {1}, {1}, {2}, true, false},                      // 1-d
  };
  uint64_t seed = 800;
  for (const PoolCase &c : cases) {
    for (int threads : {1, 2})
      run_case(c, Kind::Max, seed, threads);
#if defined(TRACT_RT_POOL_LANES)
    const rt::detail::Pool4 q = rt::detail::pool4(params(c, pool_out(c)));
    ASSERT_TRUE(rt::detail::max_pool_narrow_rows_fit(q)) << shape_str(c.in);
    expect_row_kernel_floats(c, seed, rt::detail::max_pool_narrow_rows);
#endif
    ++seed;
  }
}

// Rows of 16 outputs or more at stride 2, 2 or 3 column taps
// (detail::max_pool_rows_s2): against the naive pool (one and two
// threads), and against the row kernel bit for bit
// (expect_row_kernel_floats). Windows of three rows inside the plane
// and at its borders, of two rows, of five; pads on either side of the
// row; rows whose last 16 outputs overlap the ones before, and exactly 16
// and 32 outputs.
TEST(Pool, StrideTwoRowsMaxPool) {
  const PoolCase cases[] = {
      {2, 12, {55, 55}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, true, false},   // SqueezeNet 1.1
      {2, 3, {112, 112}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, false, false}, // ResNet's stem
      {2, 2, {147, 147}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, false, false}, // Inception-v3
      {2, 4, {64, 64}, {2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, false, false},   // VGG, 2 taps
      {2, 3, {33, 33}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, false, false},   // 16 outputs
      {2, 3, {20, 65}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, false, false},   // 32 outputs
      {2, 3, {21, 40}, {5, 3}, {2, 2}, {1, 1}, {2, 0}, {2, 2}, true, false},    // 5 rows, pad right
      {2, 3, {9, 37}, {2, 3}, {1, 2}, {1, 1}, {1, 2}, {0, 1}, false, false},    // pad left
      {2, 2, {31, 50}, {3, 2}, {3, 2}, {2, 1}, {1, 1}, {1, 1}, true, false},    // dilated rows
      {1, 5, {70}, {3}, {2}, {1}, {1}, {1}, false, false},                      // 1-d
  };
  uint64_t seed = 900;
  for (const PoolCase &c : cases) {
    for (int threads : {1, 2})
      run_case(c, Kind::Max, seed, threads);
#if defined(TRACT_RT_POOL_LANES)
    const rt::detail::Pool4 q = rt::detail::pool4(params(c, pool_out(c)));
    ASSERT_TRUE(rt::detail::max_pool_rows_s2_fit(q)) << shape_str(c.in);
    ASSERT_FALSE(rt::detail::max_pool_narrow_rows_fit(q)) << shape_str(c.in);
    expect_row_kernel_floats(c, seed, rt::detail::max_pool_rows_s2);
#endif
    ++seed;
  }
}

TEST(Pool, NamedShapes) {
  // 3x3 stride 2 pad 1 on 17x9 (typical ResNet stem), both divisor modes.
  for (bool incl : {false, true}) {
    const PoolCase c{2,      3,      {17, 9}, {3, 3}, {2, 2},
                     {1, 1}, {1, 1}, {1, 1},  false,  incl};
    run_case(c, Kind::Max, 1);
    run_case(c, Kind::Avg, 2);
  }
  // Rows wider than the two-pass kernel's row buffer (256) fold each tap
  // from the input rows.
  run_case({2, 2, {3, 1500}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true, false}, Kind::Max, 7);
  run_case({1, 2, {2100}, {3}, {1}, {1}, {1}, {1}, false, false}, Kind::Max, 8);
  // Float rows of 16 or more take the vector row kernel: SqueezeNet's 3x3
  // stride 2 in ceil mode (rows of 111 -> 55, overlapping last vectors), 2x2
  // stride 2 onto exactly 16 outputs, stride 1 with dilation 2 along the
  // row and padding 2, output rows under 16 (13; 8 with padding).
  run_case({2, 3, {111, 111}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, true, false}, Kind::Max, 9);
  run_case({2, 2, {9, 32}, {2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, false, false}, Kind::Max, 10);
  run_case({2, 2, {20, 40}, {3, 3}, {1, 1}, {1, 2}, {1, 2}, {1, 2}, false, false}, Kind::Max, 11);
  run_case({2, 2, {27, 27}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, true, false}, Kind::Max, 12);
  run_case({2, 2, {18, 16}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, false, false}, Kind::Max, 13);
  // Input rows narrower than a vector, staged with masked loads on AVX-512:
  // SqueezeNet 1.0's 14x14 -> 7x7 in ceil mode (a window past the end), 15
  // wide with padding, one column.
  run_case({2, 5, {14, 14}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, true, false}, Kind::Max, 14);
  run_case({2, 3, {6, 15}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false, false}, Kind::Max, 15);
  run_case({2, 3, {9, 1}, {2, 1}, {2, 1}, {1, 1}, {0, 0}, {0, 0}, true, false}, Kind::Max, 16);
  // Global average pool over 7x7.
  run_case({2, 4, {7, 7}, {7, 7}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, false, false},
           Kind::Avg, 3);
  // Ceil mode with a partial last window.
  run_case({1, 2, {8}, {3}, {2}, {1}, {0}, {0}, true, false}, Kind::Avg, 4);
  run_case({1, 2, {8}, {3}, {2}, {1}, {0}, {0}, true, true}, Kind::Avg, 5);
  // 4 spatial dims.
  run_case({4,
            1,
            {3, 4, 5, 3},
            {2, 2, 3, 1},
            {1, 2, 2, 1},
            {1, 1, 1, 2},
            {1, 0, 1, 0},
            {0, 1, 1, 0},
            false,
            true},
           Kind::Avg, 6);
}

// Float 1-d and 2-d average pools run avg_pool_rows_floats (the random
// cases above take it too, for their 1-d and 2-d shapes): the shapes of
// Inception-v3 (3x3 stride 1 pad 1 over 35x35, padding counted),
// DenseNet's transitions (2x2 stride 2), GoogLeNet-style ceil mode with
// padding excluded, a dilated window, a stride 3 that skips input columns,
// windows past the end of the row; split over 2 and 3 threads too. Rows
// wider than the staged row take the reference walk.
TEST(Pool, AverageRows) {
  const PoolCase cases[] = {
      {2, 6, {35, 35}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false, true},
      {2, 6, {35, 35}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false, false},
      {2, 5, {56, 56}, {2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, false, false},
      {2, 4, {28, 27}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, true, false},
      {2, 3, {17, 19}, {3, 3}, {1, 3}, {2, 2}, {2, 2}, {1, 2}, false, true},
      {2, 3, {16, 31}, {2, 3}, {2, 3}, {1, 1}, {1, 0}, {1, 2}, true, false},
      {1, 4, {200}, {5}, {1}, {1}, {2}, {2}, false, false},
      {2, 2, {3, 700}, {2, 3}, {1, 2}, {1, 1}, {0, 1}, {0, 1}, false, true},
  };
  uint64_t seed = 100;
  for (const PoolCase &c : cases)
    for (int threads : {1, 2, 3})
      run_case(c, Kind::Avg, seed++, threads);
}

// Max pools split over 2 and 3 threads (by planes): the vector row kernel
// (SqueezeNet's first pool), rows wider than the staged row (the scalar row
// kernel), many channels on a 9x9 map.
TEST(Pool, MaxSplitOverThreads) {
  const PoolCase cases[] = {
      {2, 8, {111, 111}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, true, false},
      {2, 4, {40, 300}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, false, false},
      {2, 300, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false, false},
  };
  uint64_t seed = 200;
  for (const PoolCase &c : cases)
    for (int threads : {2, 3})
      run_case(c, Kind::Max, seed++, threads);
}

TEST(Pool, HandComputed) {
  // 1d, k=2, s=2, pad_end=1 on [1 5 2 8 3]: windows {1,5} {2,8} {3,pad}.
  const float x[] = {1, 5, 2, 8, 3};
  float y[3];
  rt::PoolParams p{1, 1, {5}, {3}, {2}, {2}, {1}, {0}, {1}, false};
  rt::max_pool(x, y, p);
  EXPECT_EQ(y[0], 5);
  EXPECT_EQ(y[1], 8);
  EXPECT_EQ(y[2], 3);
  rt::avg_pool(x, y, p);
  EXPECT_EQ(y[2], 3); // padding excluded
  p.count_include_pad = true;
  rt::avg_pool(x, y, p);
  EXPECT_EQ(y[0], 3);
  EXPECT_EQ(y[2], 1.5f); // padding counted
  // Integer max pool (ONNX allows int8/uint8).
  const int8_t xi[] = {-5, -3, -9, -1};
  int8_t yi[2];
  rt::PoolParams pi{1, 1, {4}, {2}, {2}, {2}, {1}, {0}, {0}, false};
  rt::max_pool(xi, yi, pi);
  EXPECT_EQ(yi[0], -3);
  EXPECT_EQ(yi[1], -1);
}
