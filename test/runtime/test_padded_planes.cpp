// Padded planes: NCHW tensors whose channel planes lie a stride of whole
// cache lines apart (ConvParams / PoolParams in_plane_stride and
// out_plane_stride, sum_rows' stride). Each kernel that honours the strides
// runs on the same data dense and padded, at one and two threads: the padded
// output must hold the dense output's floats bit for bit, read nothing of the
// input's padding (NaN there) and leave the output's padding untouched.
// Built once more per x86 instruction set (CMakeLists.txt), so the AVX-512
// pool and GEMM paths are checked too.
#include "tract/rt/io/thread_pool.h"
#include "tract/rt/nn/conv_gemm.h"
#include "tract/rt/nn/conv_lanes.h"
#include "tract/rt/nn/conv_row_taps_pool.h"
#include "tract/rt/nn/conv_winograd.h"
#include "tract/rt/nn/pool_ref.h"
#include "tract/rt/reduce/reduce_rows.h"

#include "test_util.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace rt = tract::rt;
namespace gm = tract::rt::gemm;
using tract_test::random_vec;

namespace {

constexpr float kOutputPad = -12345.0f;

int64_t padded(int64_t plane) { return (plane + 15) / 16 * 16 + 16; }

// `planes` planes of `plane` floats, `stride` apart, the gaps NaN.
std::vector<float> pad_planes(const std::vector<float> &dense, int64_t planes, int64_t plane,
                              int64_t stride) {
  std::vector<float> out(size_t(planes * stride), std::nanf(""));
  for (int64_t c = 0; c < planes; ++c)
    std::memcpy(out.data() + c * stride, dense.data() + c * plane, sizeof(float) * plane);
  return out;
}

// Checks that `got` (planes `stride` apart) holds `want` (dense) bit for bit
// and that every float of its padding is still kOutputPad.
void expect_padded_equal(const std::vector<float> &got, const std::vector<float> &want,
                         int64_t planes, int64_t plane, int64_t stride) {
  ASSERT_EQ(got.size(), size_t(planes * stride));
  int64_t wrong = 0, touched = 0;
  for (int64_t c = 0; c < planes; ++c) {
    for (int64_t i = 0; i < plane; ++i)
      wrong += std::memcmp(&got[size_t(c * stride + i)], &want[size_t(c * plane + i)],
                           sizeof(float)) != 0;
    for (int64_t i = plane; i < stride; ++i)
      touched += got[size_t(c * stride + i)] != kOutputPad;
  }
  EXPECT_EQ(wrong, 0) << "floats that differ from the dense run";
  EXPECT_EQ(touched, 0) << "floats of the output's padding written";
}

rt::ConvParams conv2d(int64_t cin, int64_t cout, int64_t h, int64_t w, int64_t k, int64_t pad) {
  rt::ConvParams p{};
  p.spatial_rank = 2;
  p.batch = 1;
  p.in_channels = cin;
  p.out_channels = cout;
  p.groups = 1;
  for (int d = 0; d < 2; ++d) {
    p.in_size[d] = d == 0 ? h : w;
    p.kernel[d] = k;
    p.stride[d] = 1;
    p.dilation[d] = 1;
    p.pad_begin[d] = pad;
    p.out_size[d] = p.in_size[d] + 2 * pad - k + 1;
  }
  return p;
}

struct Relu {
  void operator()(float *v, int64_t, int64_t n) const {
    for (int64_t i = 0; i < n; ++i)
      v[i] = v[i] > 0 ? v[i] : 0;
  }
};

// Runs `run(p, x, y, par)` dense and with padded planes at 1 and 2 threads.
template <class Run>
void check_conv(rt::ConvParams p, int64_t scratch_floats, const Run &run) {
  const int64_t in_plane = p.in_size[0] * p.in_size[1], out_plane = p.out_size[0] * p.out_size[1];
  const int64_t cin = p.batch * p.in_channels, cout = p.batch * p.out_channels;
  const auto x = random_vec<float>(size_t(cin * in_plane), 7);
  rt::ThreadPool pool(2);
  for (int threads = 1; threads <= 2; ++threads) {
    SCOPED_TRACE(::testing::Message() << "threads " << threads);
    std::vector<float> scratch(size_t(scratch_floats * threads) + 16);
    rt::Parallel par{rt::ThreadPool::parallel_for, &pool, threads,
                     scratch.data() + scratch_floats, scratch_floats};
    std::vector<float> dense(size_t(cout * out_plane));
    run(p, x.data(), dense.data(), scratch.data(), par);
    rt::ConvParams q = p;
    q.in_plane_stride = padded(in_plane);
    q.out_plane_stride = padded(out_plane);
    const auto xp = pad_planes(x, cin, in_plane, q.in_plane_stride);
    std::vector<float> got(size_t(cout * q.out_plane_stride), kOutputPad);
    run(q, xp.data(), got.data(), scratch.data(), par);
    expect_padded_equal(got, dense, cout, out_plane, q.out_plane_stride);
  }
}

} // namespace

TEST(PaddedPlanes, PointwiseConvOnEachBSource) {
  // (SqueezeNet 1.1's squeeze and classifier shapes, a few planes' worth.)
  struct Case {
    int64_t cin, cout, h, w;
  };
  for (const Case &c : {Case{64, 16, 13, 13}, Case{24, 40, 27, 27}, Case{16, 8, 7, 7},
                        Case{32, 64, 3, 5}, Case{40, 24, 55, 9}}) {
    const rt::ConvParams p = conv2d(c.cin, c.cout, c.h, c.w, 1, 0);
    SCOPED_TRACE(::testing::Message() << c.cin << " -> " << c.cout << " on " << c.h << " x " << c.w);
    const auto w = random_vec<float>(size_t(c.cout * c.cin), 8);
    const auto bias = random_vec<float>(size_t(c.cout), 9);
    std::vector<float> packed(size_t(gm::packed_conv_weight_floats(c.cout, 1, c.cin)));
    gm::pack_conv_weights(w.data(), c.cout, 1, c.cin, packed.data());
    // (Room to pack B whichever source conv_b_source would pick.)
    const int64_t scratch = gm::scratch_floats(c.cout, c.h * c.w, c.cin, false, true);
    for (gm::ConvB source : {gm::ConvB::InPlace, gm::ConvB::Packed}) {
      SCOPED_TRACE(source == gm::ConvB::InPlace ? "B in place" : "B packed");
      check_conv(p, scratch,
                 [&](const rt::ConvParams &q, const float *x, float *y, float *s,
                     const rt::Parallel &par) {
                   if (source == gm::ConvB::InPlace)
                     gm::conv_gemm_as<true, gm::ConvB::InPlace>(x, packed.data(), bias.data(), y,
                                                                q, Relu{}, s, par);
                   else
                     gm::conv_gemm_as<true, gm::ConvB::Packed>(x, packed.data(), bias.data(), y,
                                                               q, Relu{}, s, par);
                 });
    }
  }
}

TEST(PaddedPlanes, Im2colConv) {
  const rt::ConvParams p = conv2d(6, 20, 13, 11, 3, 1);
  const auto w = random_vec<float>(size_t(20 * 6 * 9), 10);
  check_conv(p, gm::conv_scratch_floats(p, false),
             [&](const rt::ConvParams &q, const float *x, float *y, float *s,
                 const rt::Parallel &par) {
               gm::conv_gemm_as<false, gm::ConvB::Im2col>(x, w.data(), nullptr, y, q,
                                                          gm::NoEpilogue{}, s, par);
             });
}

template <int M> void check_winograd_padded(int64_t cin, int64_t cout, int64_t h, int64_t w) {
  const rt::ConvParams p = conv2d(cin, cout, h, w, 3, 1);
  SCOPED_TRACE(::testing::Message() << "F(" << M << "x" << M << ") " << cin << " -> " << cout
                                    << " on " << h << " x " << w);
  ASSERT_TRUE(rt::winograd::conv_fits(p));
  const auto wt = random_vec<float>(size_t(cout * cin * 9), 11);
  const auto bias = random_vec<float>(size_t(cout), 12);
  std::vector<float> u(size_t(rt::winograd::transformed_weight_floats<M>(p)));
  rt::winograd::transform_weights<M>(wt.data(), p, u.data());
  auto run = [&](const auto &epi) {
    check_conv(p, rt::winograd::scratch_floats<M>(p),
               [&](const rt::ConvParams &q, const float *x, float *y, float *s,
                   const rt::Parallel &par) {
                 rt::winograd::conv_winograd<M>(x, u.data(), bias.data(), y, q, epi, s, par);
               });
  };
  {
    SCOPED_TRACE("a ReLU pass over the output");
    run(Relu{});
  }
  {
    SCOPED_TRACE("ReLU6 in the tiles");
    run(rt::ClipEpilogue{0.0f, 6.0f});
  }
}

TEST(PaddedPlanes, WinogradConv) {
  // Enough work to split by tile rows (13 x 13, 27 x 27) and too little (5 x 7).
  check_winograd_padded<4>(16, 32, 13, 13);
  check_winograd_padded<4>(8, 24, 27, 27);
  check_winograd_padded<2>(16, 32, 13, 13);
  check_winograd_padded<2>(4, 8, 5, 7);
}

TEST(PaddedPlanes, MaxAndAveragePools) {
  struct Case {
    int64_t h, w, k, s, pad;
  };
  // 3x3 stride 2 (the rows-s2 kernel on wide rows, the narrow one on short
  // rows), 2x2 stride 2, 3x3 stride 1 with padding, a small plane (lanes).
  for (const Case &c : {Case{55, 55, 3, 2, 0}, Case{27, 27, 3, 2, 0}, Case{13, 13, 3, 2, 0},
                        Case{40, 34, 2, 2, 0}, Case{9, 11, 3, 1, 1}, Case{6, 6, 3, 2, 1}}) {
    rt::PoolParams p{};
    p.spatial_rank = 2;
    p.batch_channels = 37;
    for (int d = 0; d < 2; ++d) {
      p.in_size[d] = d == 0 ? c.h : c.w;
      p.kernel[d] = c.k;
      p.stride[d] = c.s;
      p.dilation[d] = 1;
      p.pad_begin[d] = p.pad_end[d] = c.pad;
      p.out_size[d] = (p.in_size[d] + 2 * c.pad - c.k) / c.s + 1;
    }
    p.count_include_pad = false;
    SCOPED_TRACE(::testing::Message() << c.k << "x" << c.k << " stride " << c.s << " on " << c.h
                                      << " x " << c.w);
    const int64_t in_plane = c.h * c.w, out_plane = p.out_size[0] * p.out_size[1];
    const auto x = random_vec<float>(size_t(p.batch_channels * in_plane), 13);
    rt::ThreadPool pool(2);
    for (int threads = 1; threads <= 2; ++threads) {
      rt::Parallel par{rt::ThreadPool::parallel_for, &pool, threads, nullptr, 0};
      for (bool max : {true, false}) {
        SCOPED_TRACE(::testing::Message() << (max ? "max" : "average") << ", threads " << threads);
        auto pool_of = [&](const rt::PoolParams &q, const float *in, float *out) {
          if (max)
            rt::max_pool(in, out, q, par);
          else
            rt::avg_pool(in, out, q, par);
        };
        std::vector<float> dense(size_t(p.batch_channels * out_plane));
        pool_of(p, x.data(), dense.data());
        rt::PoolParams q = p;
        q.in_plane_stride = padded(in_plane);
        q.out_plane_stride = padded(out_plane);
        const auto xp = pad_planes(x, p.batch_channels, in_plane, q.in_plane_stride);
        std::vector<float> got(size_t(p.batch_channels * q.out_plane_stride), kOutputPad);
        pool_of(q, xp.data(), got.data());
        expect_padded_equal(got, dense, p.batch_channels, out_plane, q.out_plane_stride);
      }
    }
  }
}

TEST(PaddedPlanes, RowTapsConvWithMaxPool) {
  // A stem: 3 -> 24 channels, 7x7 stride 2, then a 3x3 stride-2 max pool.
  rt::ConvParams p = conv2d(3, 24, 40, 38, 7, 3);
  for (int d = 0; d < 2; ++d) {
    p.stride[d] = 2;
    p.out_size[d] = (p.in_size[d] + 6 - 7) / 2 + 1;
  }
  rt::PoolParams pp{};
  pp.spatial_rank = 2;
  pp.batch_channels = 24;
  for (int d = 0; d < 2; ++d) {
    pp.in_size[d] = p.out_size[d];
    pp.kernel[d] = 3;
    pp.stride[d] = 2;
    pp.dilation[d] = 1;
    pp.pad_begin[d] = pp.pad_end[d] = 1;
    pp.out_size[d] = (pp.in_size[d] + 2 - 3) / 2 + 1;
  }
  ASSERT_TRUE(rt::conv_row_taps_max_pool_fits(p, pp));
  const auto x = random_vec<float>(size_t(3 * 40 * 38), 14);
  const auto w = random_vec<float>(size_t(24 * 3 * 49), 15);
  const int64_t out_plane = pp.out_size[0] * pp.out_size[1];
  const int64_t per = rt::conv_row_taps_max_pool_scratch_floats(p, pp);
  rt::ThreadPool pool(2);
  for (int threads = 1; threads <= 2; ++threads) {
    SCOPED_TRACE(::testing::Message() << "threads " << threads);
    std::vector<float> scratch(size_t(per * threads) + 16);
    rt::Parallel par{rt::ThreadPool::parallel_for, &pool, threads, scratch.data() + per, per};
    auto run = [&](const rt::PoolParams &q, float *y) {
      rt::conv_row_taps_max_pool(x.data(), w.data(), nullptr, y, p, q, rt::ClipEpilogue{0.0f, 6.0f},
                                 Relu{}, scratch.data(), par);
    };
    std::vector<float> dense(size_t(24 * out_plane));
    run(pp, dense.data());
    rt::PoolParams q = pp;
    q.out_plane_stride = padded(out_plane);
    std::vector<float> got(size_t(24 * q.out_plane_stride), kOutputPad);
    run(q, got.data());
    expect_padded_equal(got, dense, 24, out_plane, q.out_plane_stride);
  }
}

TEST(PaddedPlanes, SumRowsWithAStride) {
  const int64_t rows = 50, len = 169, stride = padded(len);
  const auto x = random_vec<float>(size_t(rows * len), 16);
  const auto xp = pad_planes(x, rows, len, stride);
  rt::ThreadPool pool(2);
  for (int threads = 1; threads <= 2; ++threads) {
    rt::Parallel par{rt::ThreadPool::parallel_for, &pool, threads, nullptr, 0};
    std::vector<float> dense(static_cast<size_t>(rows)), got(static_cast<size_t>(rows));
    rt::sum_rows<true>(x.data(), rows, len, dense.data(), par);
    rt::sum_rows<true>(xp.data(), rows, len, got.data(), par, stride);
    EXPECT_EQ(got, dense) << "threads " << threads;
  }
}

TEST(PaddedPlanes, PointwiseIntoAndOutOfLanes) {
  // MobileNetV2's 14 x 14 stage: an expand reading NCHW into 16-channel
  // lanes, a projection out of lanes into NCHW (16 -> 24: a partial block).
  for (int64_t c : {16, 24}) {
    const rt::ConvParams p = conv2d(32, c, 14, 14, 1, 0);
    SCOPED_TRACE(::testing::Message() << "32 <-> " << c << " channels");
    const int64_t plane = 14 * 14, stride = padded(plane);
    const auto w = random_vec<float>(size_t(32 * c), 17);
    const auto bias = random_vec<float>(size_t(32), 18);
    rt::ThreadPool pool(2);
    for (int threads = 1; threads <= 2; ++threads) {
      const int64_t per = rt::from_lanes_scratch_floats();
      std::vector<float> scratch(size_t(per * threads));
      rt::Parallel par{rt::ThreadPool::parallel_for, &pool, threads, scratch.data() + per, per};
      for (bool clip_in_tiles : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "threads " << threads
                                          << (clip_in_tiles ? ", ReLU6 in the tiles" : ", ReLU"));
        auto run_epi = [&](auto &&run) {
          if (clip_in_tiles)
            run(rt::ClipEpilogue{0.0f, 6.0f});
          else
            run(Relu{});
        };
        {
          // NCHW (c channels) into lanes (32): the input padded.
          rt::ConvParams q = conv2d(c, 32, 14, 14, 1, 0);
          std::vector<float> pw(size_t(rt::lane_weight_floats(32, c)));
          rt::pack_lane_weights(w.data(), 32, c, pw.data());
          const auto x = random_vec<float>(size_t(c * plane), 19);
          std::vector<float> dense(size_t(32 * plane)), got(dense.size());
          run_epi([&](const auto &epi) {
            rt::conv_pointwise_to_lanes(x.data(), pw.data(), bias.data(), dense.data(), q, epi,
                                        par);
          });
          q.in_plane_stride = stride;
          const auto xp = pad_planes(x, c, plane, stride);
          run_epi([&](const auto &epi) {
            rt::conv_pointwise_to_lanes(xp.data(), pw.data(), bias.data(), got.data(), q, epi,
                                        par);
          });
          EXPECT_EQ(std::memcmp(got.data(), dense.data(), sizeof(float) * got.size()), 0)
              << "into lanes";
        }
        {
          // Lanes (32 channels) out into NCHW (c): the output padded.
          rt::ConvParams q = p;
          std::vector<float> pw(size_t(rt::lane_weight_floats(c, 32)));
          rt::pack_lane_weights(w.data(), c, 32, pw.data());
          const auto x = random_vec<float>(size_t(32 * plane), 20);
          std::vector<float> dense(size_t(c * plane));
          run_epi([&](const auto &epi) {
            rt::conv_pointwise_from_lanes(x.data(), pw.data(), bias.data(), dense.data(), q, epi,
                                          scratch.data(), par);
          });
          q.out_plane_stride = stride;
          std::vector<float> got(size_t(c * stride), kOutputPad);
          run_epi([&](const auto &epi) {
            rt::conv_pointwise_from_lanes(x.data(), pw.data(), bias.data(), got.data(), q, epi,
                                          scratch.data(), par);
          });
          expect_padded_equal(got, dense, c, plane, stride);
        }
      }
    }
  }
}
