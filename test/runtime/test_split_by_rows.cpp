// Parallel::by_rows: the lane kernels and depthwise convs split by output
// rows, the same rows for each (row_share), as the compiler asks of a small
// model (compiler/Emit/ThreadChoice.h). Each kernel runs on the same data on
// one thread and by rows over 2 and 3 tasks: on a thread pool, and in turn
// in reverse task order (a hook may run tasks in any order: a depthwise conv
// in place that read a neighbour's rows after that neighbour wrote them
// would fail there). The outputs must match the one-thread run bit for bit,
// and the depthwise conv is also checked against the reference conv. Built
// once more per x86 instruction set (CMakeLists.txt).
#include "tract/rt/io/thread_pool.h"
#include "tract/rt/nn/conv_depthwise.h"
#include "tract/rt/nn/conv_lanes.h"
#include "tract/rt/nn/conv_ref.h"

#include "test_util.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace rt = tract::rt;
using tract_test::random_vec;

namespace {

struct Relu {
  void operator()(float *v, int64_t, int64_t n) const {
    for (int64_t i = 0; i < n; ++i)
      v[i] = v[i] > 0 ? v[i] : 0;
  }
};

void in_reverse_turn(void *, int64_t count, tract_task_fn task, void *ctx) {
  for (int64_t i = count - 1; i >= 0; --i)
    task(ctx, i);
}

rt::ConvParams conv2d(int64_t cin, int64_t cout, int64_t groups, int64_t h, int64_t w, int64_t k,
                      int64_t stride, int64_t pad, int64_t dil) {
  rt::ConvParams p{};
  p.spatial_rank = 2;
  p.batch = 1;
  p.in_channels = cin;
  p.out_channels = cout;
  p.groups = groups;
  for (int d = 0; d < 2; ++d) {
    p.in_size[d] = d == 0 ? h : w;
    p.kernel[d] = k;
    p.stride[d] = stride;
    p.dilation[d] = dil;
    p.pad_begin[d] = pad;
    p.out_size[d] = (p.in_size[d] + 2 * pad - dil * (k - 1) - 1) / stride + 1;
  }
  return p;
}

bool same_bits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(float) * a.size()) == 0;
}

// Runs `run(x, y, scratch, par)` (y may be x: `in_place`) on one thread, then
// by rows at 2 and 3 tasks on a pool and in reverse turn; each output must
// equal the first bit for bit. Returns the one-thread output.
template <class Run>
std::vector<float> check_by_rows(const std::vector<float> &x, size_t out_floats,
                                 int64_t scratch_floats, bool in_place, const Run &run) {
  auto once = [&](const rt::Parallel &par, std::vector<float> &scratch) {
    std::vector<float> xy = x;
    std::vector<float> y(in_place ? 0 : out_floats, -7.0f);
    run(xy.data(), in_place ? xy.data() : y.data(), scratch.data(), par);
    return in_place ? xy : y;
  };
  std::vector<float> scratch(size_t(scratch_floats * 3));
  const std::vector<float> serial = once(rt::Parallel{}, scratch);
  rt::ThreadPool pool(3);
  for (int threads : {2, 3})
    for (bool pooled : {true, false}) {
      SCOPED_TRACE(::testing::Message() << threads << " tasks " << (pooled ? "on a pool" : "in reverse turn"));
      std::vector<float> s(size_t(scratch_floats * threads));
      rt::Parallel par{pooled ? rt::ThreadPool::parallel_for : in_reverse_turn, &pool, threads,
                       s.data() + scratch_floats, scratch_floats, true};
      EXPECT_TRUE(same_bits(once(par, s), serial));
    }
  return serial;
}

} // namespace

// Stripes are whole rows, task t's rows row_share(t): a 25 x 10 map over 3
// tasks is rows [0, 8), [8, 16), [16, 25); a map of fewer rows than tasks
// gives each row a task.
TEST(SplitByRows, LaneStripesAreTheTasksRows) {
  rt::Parallel par{[](void *, int64_t, tract_task_fn, void *) {}, nullptr, 3};
  par.by_rows = true;
  const rt::detail::LanesSplit s = rt::detail::lanes_split(par, 1 << 30, 1, 250, 10, 4, false);
  EXPECT_EQ(s.tasks, 3);
  EXPECT_EQ(s.groups, 1);
  const int64_t want[][2] = {{0, 80}, {80, 160}, {160, 250}};
  for (int64_t u = 0; u < 3; ++u) {
    const rt::detail::LanesUnit e = rt::detail::lanes_unit(s, u, 250, 4);
    EXPECT_EQ(e.i0, want[u][0]);
    EXPECT_EQ(e.i1, want[u][1]);
    EXPECT_EQ(e.o0, 0);
    EXPECT_EQ(e.o1, 4);
  }
  EXPECT_EQ(rt::detail::lanes_split(par, 1 << 30, 1, 14, 7, 4, true).tasks, 2);
  // Two images: each kernel's own split, as without by_rows.
  par.by_rows = false;
  const rt::detail::LanesSplit own = rt::detail::lanes_split(par, 1 << 30, 2, 250, 10, 4, false);
  par.by_rows = true;
  const rt::detail::LanesSplit two = rt::detail::lanes_split(par, 1 << 30, 2, 250, 10, 4, false);
  EXPECT_EQ(two.row_w, 0);
  EXPECT_EQ(two.units, own.units);
  EXPECT_EQ(two.groups, own.groups);
}

// 1x1 convs into lane layout (from NCHW and from lane layout) and out of it,
// on maps whose row splits are not whole register tiles (25 x 10, 23 x 11,
// 17 x 19), each with work enough to split (kMinParallelWork).
TEST(SplitByRows, PointwiseLaneConvs) {
  struct Case {
    int64_t cin, cout, h, w;
  };
  for (const Case &c : {Case{64, 64, 25, 10}, Case{32, 48, 23, 11}, Case{48, 16, 17, 19}}) {
    SCOPED_TRACE(::testing::Message() << c.cin << " -> " << c.cout << " on " << c.h << " x " << c.w);
    const rt::ConvParams p = conv2d(c.cin, c.cout, 1, c.h, c.w, 1, 1, 0, 1);
    const int64_t plane = c.h * c.w;
    const auto x = random_vec<float>(size_t(c.cin * plane), 3);
    const auto w = random_vec<float>(size_t(c.cout * c.cin), 4);
    const auto bias = random_vec<float>(size_t(c.cout), 5);
    std::vector<float> packed(size_t(rt::lane_weight_floats(c.cout, c.cin)));
    rt::pack_lane_weights(w.data(), c.cout, c.cin, packed.data());
    const size_t out = size_t(c.cout * plane);
    check_by_rows(x, out, 1, false, [&](const float *in, float *y, float *, const rt::Parallel &par) {
      rt::conv_pointwise_to_lanes<false>(in, packed.data(), bias.data(), y, p, Relu{}, par);
    });
    check_by_rows(x, out, 1, false, [&](const float *in, float *y, float *, const rt::Parallel &par) {
      rt::conv_pointwise_to_lanes<true>(in, packed.data(), bias.data(), y, p, Relu{}, par);
    });
    check_by_rows(x, out, rt::from_lanes_scratch_floats(), false,
                  [&](const float *in, float *y, float *s, const rt::Parallel &par) {
                    rt::conv_pointwise_from_lanes(in, packed.data(), bias.data(), y, p, Relu{}, s,
                                                  par);
                  });
  }
}

// Depthwise convs by rows, in place (each task's halo rows copied first) and
// not, from and into lane layout, against the reference conv too: 3x3 on a
// keyword spotter's 25 x 10 map, 5x5, dilation 2 (two halo rows each side),
// stride 2 (not in place); each with work enough to split.
TEST(SplitByRows, DepthwiseConvs) {
  struct Case {
    int64_t c, h, w, k, stride, pad, dil;
  };
  for (const Case &g : {Case{64, 25, 10, 3, 1, 1, 1}, Case{32, 14, 9, 5, 1, 2, 1},
                        Case{32, 21, 14, 3, 1, 2, 2}, Case{64, 29, 21, 3, 2, 1, 1}}) {
    SCOPED_TRACE(::testing::Message() << g.c << " channels " << g.h << " x " << g.w << " k "
                                      << g.k << " stride " << g.stride << " dil " << g.dil);
    const rt::ConvParams p = conv2d(g.c, g.c, g.c, g.h, g.w, g.k, g.stride, g.pad, g.dil);
    ASSERT_TRUE(rt::conv_depthwise_lanes_fits(p));
    const int64_t in_plane = g.h * g.w, out_plane = p.out_size[0] * p.out_size[1];
    const auto x = random_vec<float>(size_t(g.c * in_plane), 6);
    const auto w = random_vec<float>(size_t(g.c * g.k * g.k), 7);
    const auto bias = random_vec<float>(size_t(g.c), 8);
    const int64_t per = rt::depthwise_scratch_floats(p);
    const size_t out = size_t(g.c * out_plane);
    // The reference, in NCHW.
    std::vector<float> want(out);
    rt::conv(x.data(), w.data(), bias.data(), want.data(), p);
    Relu{}(want.data(), 0, int64_t(out));
    const std::vector<float> nchw_out =
        check_by_rows(x, out, per, false, [&](const float *in, float *y, float *s,
                                              const rt::Parallel &par) {
          rt::conv_depthwise<false, false>(in, w.data(), bias.data(), y, p, Relu{}, s, par);
        });
    for (size_t i = 0; i < out; ++i)
      ASSERT_NEAR(nchw_out[i], want[i], 1e-4f * (1 + std::abs(want[i]))) << i;
    // Lane layout in and out (the values' positions do not matter here: a
    // lane-layout run is compared with its own one-thread run).
    check_by_rows(x, out, per, false, [&](const float *in, float *y, float *s,
                                          const rt::Parallel &par) {
      rt::conv_depthwise<true, true>(in, w.data(), bias.data(), y, p, Relu{}, s, par);
    });
    if (rt::conv_depthwise_in_place_fits(p)) {
      ASSERT_GT(rt::depthwise_halo_floats(p), 0);
      const std::vector<float> in_place =
          check_by_rows(x, out, per, true, [&](const float *, float *xy, float *s,
                                               const rt::Parallel &par) {
            rt::conv_depthwise<true, true>(xy, w.data(), bias.data(), xy, p, Relu{}, s, par);
          });
      std::vector<float> apart(out);
      std::vector<float> s(static_cast<size_t>(per));
      rt::conv_depthwise<true, true>(x.data(), w.data(), bias.data(), apart.data(), p, Relu{},
                                     s.data());
      EXPECT_TRUE(same_bits(in_place, apart));
    }
  }
}
