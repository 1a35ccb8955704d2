// Batch-3 kernels besides GridSample / RoiAlign / NMS (their own files):
// max_pool_with_indices (nn/pool_ref.h), max_unpool / max_unpool_nd
// (nn/max_unpool_ref.h), slice_dynamic (data/slice_ref.h) and
// reduce_dynamic (reduce/reduce_ref.h), against naive references and the
// Debian ONNX test data.
#include "tract/rt/data/slice_ref.h"
#include "tract/rt/nn/max_unpool_ref.h"
#include "tract/rt/nn/pool_ref.h"
#include "tract/rt/reduce/reduce_ref.h"
// The batch-3 kernels through the umbrella header too (instantiation test).
#include "tract/rt/all.h"

#include "batch3_debian_cases.h"
#include "test_util.h"

#include <algorithm>

using namespace tract_test;
namespace rt = tract::rt;

namespace {

// ---------------------------------------------------------------- max pool

struct MpCase {
  int r;
  int64_t bc;
  Shape in, ker, stride, dil, pb, pe;
};

Shape mp_out(const MpCase &c) {
  Shape o(size_t(c.r));
  for (size_t d = 0; d < o.size(); ++d)
    o[d] = (c.in[d] + c.pb[d] + c.pe[d] - c.dil[d] * (c.ker[d] - 1) - 1) /
               c.stride[d] +
           1;
  return o;
}

rt::PoolParams mp_params(const MpCase &c, const Shape &out) {
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
  return p;
}

// Taps in row-major kernel order, first strict maximum wins; the index is
// computed from the multi-index (row- or column-major spatial part).
void naive_mp(const MpCase &c, const std::vector<float> &x, const Shape &out,
              bool col, std::vector<float> *y, std::vector<int64_t> *ind) {
  const int64_t in_plane = numel(c.in), out_plane = numel(out);
  y->assign(size_t(c.bc * out_plane), 0.f);
  ind->assign(size_t(c.bc * out_plane), 0);
  for (int64_t b = 0; b < c.bc; ++b)
    for (int64_t op = 0; op < out_plane; ++op) {
      const Shape o = unravel(op, out);
      float best = -INFINITY;
      int64_t bi = -1;
      for (int64_t t = 0; t < numel(c.ker); ++t) {
        const Shape k = unravel(t, c.ker);
        Shape pos(size_t(c.r));
        bool inb = true;
        for (size_t d = 0; d < pos.size(); ++d) {
          pos[d] = o[d] * c.stride[d] + k[d] * c.dil[d] - c.pb[d];
          inb = inb && pos[d] >= 0 && pos[d] < c.in[d];
        }
        if (!inb)
          continue;
        int64_t rm = 0, cm = 0, mul = 1;
        for (size_t d = 0; d < pos.size(); ++d)
          rm = rm * c.in[d] + pos[d];
        for (size_t d = 0; d < pos.size(); ++d) {
          cm += pos[d] * mul;
          mul *= c.in[d];
        }
        const float v = x[size_t(b * in_plane + rm)];
        if (bi < 0 || v > best) {
          bi = b * in_plane + (col ? cm : rm);
          best = std::max(best, v);
        }
      }
      (*y)[size_t(b * out_plane + op)] = best;
      (*ind)[size_t(b * out_plane + op)] = bi;
    }
}

// ------------------------------------------------------------------- slice

// Python-style index list of one sliced axis (ONNX clamping, then an
// explicit walk).
std::vector<int64_t> axis_indices(int64_t dim, int64_t s, int64_t e,
                                  int64_t st) {
  std::vector<int64_t> r;
  if (st == 0)
    return r;
  if (s < 0)
    s += dim;
  if (e < 0)
    e += dim;
  if (st > 0) {
    s = std::clamp<int64_t>(s, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
    for (int64_t i = s; i < e; i += st) {
      r.push_back(i);
      if (st > dim)
        break;
    }
  } else {
    s = std::min<int64_t>(std::max<int64_t>(s, 0), dim - 1);
    e = std::min<int64_t>(std::max<int64_t>(e, -1), dim - 1);
    for (int64_t i = s; i > e; i += st) {
      r.push_back(i);
      if (st < -dim)
        break;
    }
  }
  return r;
}

template <class TI>
std::vector<float>
naive_slice(const std::vector<float> &x, const Shape &in,
            const std::vector<TI> &starts, const std::vector<TI> &ends,
            const std::vector<TI> *axes, const std::vector<TI> *steps,
            const Shape &out_shape) {
  const int rank = int(in.size());
  std::vector<std::vector<int64_t>> idx(in.size());
  for (int d = 0; d < rank; ++d)
    for (int64_t i = 0; i < in[size_t(d)]; ++i)
      idx[size_t(d)].push_back(i);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = axes ? int64_t((*axes)[i]) : int64_t(i);
    if (a < 0)
      a += rank;
    if (a < 0 || a >= rank)
      continue;
    idx[size_t(a)] =
        axis_indices(in[size_t(a)], int64_t(starts[i]), int64_t(ends[i]),
                     steps ? int64_t((*steps)[i]) : 1);
  }
  const Shape xs = strides_of(in);
  std::vector<float> y(size_t(numel(out_shape)), 0.f);
  for (int64_t o = 0; o < numel(out_shape); ++o) {
    const Shape oi = unravel(o, out_shape);
    int64_t off = 0;
    bool inside = true;
    for (int d = 0; d < rank; ++d) {
      const size_t s = size_t(d);
      if (oi[s] >= int64_t(idx[s].size())) {
        inside = false;
        break;
      }
      off += idx[s][size_t(oi[s])] * xs[s];
    }
    if (inside)
      y[size_t(o)] = x[size_t(off)];
  }
  return y;
}

std::vector<float> iota_f(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[size_t(i)] = float(i);
  return v;
}

} // namespace

// ================================================== max_pool_with_indices

TEST(MaxPoolWithIndices, DebianOnnxCases) {
  const auto &cases = batch3_debian::maxpool_cases();
  ASSERT_EQ(cases.size(), 2u);
  for (const auto &c : cases) {
    const int r = int(c.x_shape.size()) - 2;
    rt::PoolParams p{};
    p.spatial_rank = r;
    p.batch_channels = c.x_shape[0] * c.x_shape[1];
    for (int d = 0; d < r; ++d) {
      const size_t s = size_t(d);
      p.in_size[d] = c.x_shape[s + 2];
      p.out_size[d] = c.y_shape[s + 2];
      p.kernel[d] = c.kernel[s];
      p.stride[d] = c.strides[s];
      p.dilation[d] = 1;
      p.pad_begin[d] = c.pads[s];
      p.pad_end[d] = c.pads[s + size_t(r)];
    }
    std::vector<float> y(c.y.size());
    std::vector<int64_t> ind(c.indices.size());
    rt::max_pool_with_indices(c.x.data(), y.data(), ind.data(), p,
                              c.column_major);
    EXPECT_TRUE(all_equal(y, c.y)) << c.name;
    EXPECT_TRUE(all_equal(ind, c.indices)) << c.name;
  }
}

TEST(MaxPoolWithIndices, RandomAgainstNaive) {
  Rng r(17);
  int n_cases = 0;
  for (int rank = 1; rank <= 3; ++rank)
    for (int t = 0; t < 60; ++t) {
      MpCase c;
      c.r = rank;
      c.bc = r.range(1, 3);
      for (int d = 0; d < rank; ++d) {
        const int64_t k = r.range(1, 3), dil = r.range(1, 2);
        c.in.push_back(rank == 1 ? tail_sizes()[size_t(t % 11)]
                                 : r.range(1, 9));
        c.ker.push_back(k);
        c.stride.push_back(r.range(1, 3));
        c.dil.push_back(dil);
        c.pb.push_back(r.range(0, (k - 1) * dil));
        c.pe.push_back(r.range(0, (k - 1) * dil));
      }
      const Shape out = mp_out(c);
      bool ok = true;
      for (auto o : out)
        ok = ok && o > 0;
      if (!ok)
        continue;
      // Small integer values: plenty of ties.
      const auto xi =
          random_vec<int>(size_t(c.bc * numel(c.in)), r.next(), -3, 3);
      const std::vector<float> x(xi.begin(), xi.end());
      for (bool col : {false, true}) {
        std::vector<float> y(size_t(c.bc * numel(out)) + 1, 9.f), ym, wy;
        std::vector<int64_t> ind(y.size(), 99), wi;
        const rt::PoolParams p = mp_params(c, out);
        rt::max_pool_with_indices(x.data(), y.data(), ind.data(), p, col);
        ASSERT_EQ(y.back(), 9.f);
        ASSERT_EQ(ind.back(), 99);
        y.pop_back();
        ind.pop_back();
        naive_mp(c, x, out, col, &wy, &wi);
        ASSERT_TRUE(all_equal(y, wy)) << shape_str(c.in) << " col=" << col;
        ASSERT_TRUE(all_equal(ind, wi)) << shape_str(c.in) << " col=" << col;
        // y is exactly max_pool's.
        ym.assign(y.size(), 0.f);
        rt::max_pool(x.data(), ym.data(), p);
        ASSERT_TRUE(all_equal(y, ym));
        ++n_cases;
      }
    }
  EXPECT_GT(n_cases, 200);
}

TEST(MaxPoolWithIndices, RowAndColumnMajorHand) {
  // 1 x 2 channels of 2x3; one 2x2 window at (0,1) per channel.
  const float x[] = {0, 1, 9, 2, 3, 4, /**/ 5, 6, 7, 8, 9, 8};
  rt::PoolParams p{};
  p.spatial_rank = 2;
  p.batch_channels = 2;
  p.in_size[0] = 2;
  p.in_size[1] = 3;
  p.out_size[0] = 1;
  p.out_size[1] = 2;
  p.kernel[0] = p.kernel[1] = 2;
  p.stride[0] = p.stride[1] = 1;
  p.dilation[0] = p.dilation[1] = 1;
  float y[4];
  int64_t ind[4];
  rt::max_pool_with_indices(x, y, ind, p, false);
  EXPECT_TRUE(all_equal(std::vector<float>(y, y + 4), {3, 9, 9, 9}));
  // (1,1)=3 -> 4; (0,2)=9 -> 2; channel 1: (1,1) first 9 -> 6 + 4.
  EXPECT_TRUE(all_equal(std::vector<int64_t>(ind, ind + 4), {4, 2, 10, 10}));
  rt::max_pool_with_indices(x, y, ind, p, true);
  // column major: (h, w) -> h + 2 * w.
  EXPECT_TRUE(all_equal(std::vector<int64_t>(ind, ind + 4), {3, 4, 9, 9}));
  // A window entirely in the padding: -inf and index -1; all -inf: the
  // first tap.
  const float xm[] = {-INFINITY, -INFINITY};
  rt::PoolParams q{};
  q.spatial_rank = 1;
  q.batch_channels = 1;
  q.in_size[0] = 2;
  q.out_size[0] = 3;
  q.kernel[0] = 1;
  q.stride[0] = 1;
  q.dilation[0] = 1;
  q.pad_end[0] = 1;
  float ym[3];
  int64_t im[3];
  rt::max_pool_with_indices(xm, ym, im, q, false);
  EXPECT_EQ(ym[2], -INFINITY);
  EXPECT_TRUE(all_equal(std::vector<int64_t>(im, im + 3), {0, 1, -1}));
}

// ============================================================== max_unpool

TEST(MaxUnpool, DebianOnnxCases) {
  const auto &cases = batch3_debian::unpool_cases();
  ASSERT_EQ(cases.size(), 2u);
  for (const auto &c : cases) {
    std::vector<float> y(c.y.size(), 3.f);
    rt::max_unpool_nd(c.x.data(), c.indices.data(), y.data(),
                      int64_t(c.x.size()), c.idx_shape.data(), c.y_shape.data(),
                      int(c.y_shape.size()));
    EXPECT_TRUE(all_equal(y, c.y)) << c.name;
    if (c.idx_shape == c.y_shape) {
      std::fill(y.begin(), y.end(), 3.f);
      rt::max_unpool(c.x.data(), c.indices.data(), y.data(),
                     int64_t(c.x.size()), int64_t(y.size()));
      EXPECT_TRUE(all_equal(y, c.y)) << c.name;
    }
  }
}

TEST(MaxUnpool, FlatAgainstNaive) {
  for (int64_t n_y : tail_sizes())
    for (int64_t n_x : {int64_t(0), int64_t(1), n_y / 2 + 1, n_y + 3}) {
      const auto x = random_vec<float>(size_t(n_x), uint64_t(n_x * 31 + n_y));
      const auto i64 =
          random_vec<int64_t>(size_t(n_x), uint64_t(n_y), -3, double(n_y + 2));
      std::vector<float> want(size_t(n_y), 0.f);
      for (size_t i = 0; i < x.size(); ++i)
        if (i64[i] >= 0 && i64[i] < n_y)
          want[size_t(i64[i])] = x[i];
      std::vector<float> y(size_t(n_y) + 1, 5.f);
      rt::max_unpool(x.data(), i64.data(), y.data(), n_x, n_y);
      ASSERT_EQ(y.back(), 5.f);
      y.pop_back();
      ASSERT_TRUE(all_equal(y, want));
      const std::vector<int32_t> i32(i64.begin(), i64.end());
      std::vector<double> yd(size_t(n_y), 5.0);
      const std::vector<double> xd(x.begin(), x.end());
      rt::max_unpool(xd.data(), i32.data(), yd.data(), n_x, n_y);
      ASSERT_TRUE(all_equal(yd, std::vector<double>(want.begin(), want.end())));
      // Unsigned indices beyond int64 are ignored too.
      const std::vector<uint64_t> iu(i64.begin(), i64.end());
      std::fill(y.begin(), y.end(), 5.f);
      rt::max_unpool(x.data(), iu.data(), y.data(), n_x, n_y);
      ASSERT_TRUE(all_equal(y, want));
    }
}

TEST(MaxUnpool, NdReframesIndices) {
  // Indices into a [1,2,3,3] frame placed into [1,2,4,2]: coordinates
  // outside the output (column 2) are dropped.
  const Shape idx{1, 2, 3, 3}, ys{1, 2, 4, 2};
  const float x[] = {1, 2, 3, 4, 5, 6};
  const int64_t ind[] = {0, 2, 4, 9 + 7, 9 + 8, 18};
  std::vector<float> y(16, 7.f);
  rt::max_unpool_nd(x, ind, y.data(), 6, idx.data(), ys.data(), 4);
  std::vector<float> want(16, 0.f);
  want[0] = 1;             // (0,0,0,0)
  want[1 * 2 + 1] = 3;     // (0,0,1,1)
  want[8 + 2 * 2 + 1] = 4; // (0,1,2,1)
  EXPECT_TRUE(all_equal(y, want));
  // Negative dims leave y untouched.
  const Shape bad{1, -2, 3, 3};
  std::fill(y.begin(), y.end(), 7.f);
  rt::max_unpool_nd(x, ind, y.data(), 6, bad.data(), ys.data(), 4);
  EXPECT_EQ(y[0], 7.f);
}

// =========================================================== slice_dynamic

TEST(SliceDynamic, DebianOnnxCases) {
  const auto &cases = batch3_debian::slice_cases();
  ASSERT_EQ(cases.size(), 8u);
  for (const auto &c : cases) {
    const auto x = iota_f(numel(c.x_shape));
    std::vector<float> y(c.src.size() + 1, -5.f);
    rt::slice_dynamic(x.data(), y.data(), c.x_shape.data(),
                      int(c.x_shape.size()), c.starts.data(), c.ends.data(),
                      c.has_axes ? c.axes.data() : nullptr,
                      c.has_steps ? c.steps.data() : nullptr,
                      int64_t(c.starts.size()), c.y_shape.data());
    EXPECT_EQ(y.back(), -5.f) << c.name;
    y.pop_back();
    EXPECT_TRUE(all_equal(y, std::vector<float>(c.src.begin(), c.src.end())))
        << c.name;
  }
}

template <class TI> void slice_random(uint64_t seed) {
  Rng r(seed);
  const int64_t big = std::numeric_limits<TI>::max();
  const int64_t small = std::numeric_limits<TI>::lowest();
  for (int t = 0; t < 400; ++t) {
    const int rank = int(r.range(1, 4));
    Shape in;
    for (int d = 0; d < rank; ++d)
      in.push_back(d == rank - 1 ? tail_sizes()[size_t(r.range(0, 10))]
                                 : r.range(0, 5));
    const auto x = iota_f(numel(in));
    const int64_t n_axes = r.range(0, rank);
    // Distinct axes in random order, some written negative.
    std::vector<int64_t> perm(static_cast<size_t>(rank));
    for (int d = 0; d < rank; ++d)
      perm[size_t(d)] = d;
    for (int d = rank - 1; d > 0; --d)
      std::swap(perm[size_t(d)], perm[size_t(r.range(0, d))]);
    std::vector<TI> starts, ends, axes, steps;
    for (int64_t i = 0; i < n_axes; ++i) {
      const int64_t a = perm[size_t(i)];
      const int64_t dim = in[size_t(a)];
      axes.push_back(TI(r.next() % 2 ? a : a - rank));
      auto pick = [&]() -> int64_t {
        switch (r.range(0, 5)) {
        case 0:
          return big;
        case 1:
          return small;
        default:
          return r.range(-dim - 2, dim + 2);
        }
      };
      starts.push_back(TI(pick()));
      ends.push_back(TI(pick()));
      int64_t st = r.range(1, 3) * (r.next() % 2 ? 1 : -1);
      if (r.range(0, 20) == 0)
        st = r.next() % 2 ? big : small;
      steps.push_back(TI(st));
    }
    const bool default_axes = r.next() % 4 == 0;
    const bool default_steps = r.next() % 4 == 0;
    if (default_axes) // axes 0..n-1
      for (int64_t i = 0; i < n_axes; ++i)
        axes[size_t(i)] = TI(i);
    if (default_steps)
      for (auto &s : steps)
        s = TI(1);
    // The true output shape, then a static shape that is the same, larger
    // or smaller on some axis.
    Shape true_shape = in;
    for (int64_t i = 0; i < n_axes; ++i) {
      int64_t a = int64_t(axes[size_t(i)]);
      a = a < 0 ? a + rank : a;
      true_shape[size_t(a)] = int64_t(
          axis_indices(in[size_t(a)], int64_t(starts[size_t(i)]),
                       int64_t(ends[size_t(i)]), int64_t(steps[size_t(i)]))
              .size());
    }
    for (int variant = 0; variant < 3; ++variant) {
      Shape out = true_shape;
      if (variant > 0) {
        const size_t d = size_t(r.range(0, rank - 1));
        out[d] = std::max<int64_t>(0, out[d] + (variant == 1 ? 2 : -1));
      }
      const auto want =
          naive_slice<TI>(x, in, starts, ends, default_axes ? nullptr : &axes,
                          default_steps ? nullptr : &steps, out);
      std::vector<float> y(want.size() + 1, -9.f);
      rt::slice_dynamic(x.data(), y.data(), in.data(), rank, starts.data(),
                        ends.data(), default_axes ? nullptr : axes.data(),
                        default_steps ? nullptr : steps.data(), n_axes,
                        out.data());
      ASSERT_EQ(y.back(), -9.f);
      y.pop_back();
      ASSERT_TRUE(all_equal(y, want))
          << "in=" << shape_str(in) << " out=" << shape_str(out)
          << " n_axes=" << n_axes;
    }
  }
}

TEST(SliceDynamic, RandomAgainstNaive) {
  slice_random<int64_t>(1);
  slice_random<int32_t>(2);
}

TEST(SliceDynamic, EdgeCases) {
  const Shape in{4, 3};
  const auto x = iota_f(12);
  float y[6];
  // Step 0 (invalid): an empty window, zeros.
  const int64_t s0[] = {0}, e0[] = {4}, a0[] = {0}, st0[] = {0};
  const Shape o0{2, 3};
  rt::slice_dynamic(x.data(), y, in.data(), 2, s0, e0, a0, st0, 1, o0.data());
  EXPECT_TRUE(
      all_equal(std::vector<float>(y, y + 6), std::vector<float>(6, 0.f)));
  // An axis out of range is ignored; a repeated axis: the last one wins.
  const int64_t s1[] = {1, 0, 2}, e1[] = {3, 4, 4}, a1[] = {5, 0, 0};
  const Shape o1{2, 3};
  rt::slice_dynamic(x.data(), y, in.data(), 2, s1, e1, a1,
                    static_cast<const int64_t *>(nullptr), 3, o1.data());
  EXPECT_TRUE(all_equal(std::vector<float>(y, y + 6), {6, 7, 8, 9, 10, 11}));
  // Reversing with INT64_MIN end and -1 step.
  const int64_t s2[] = {-1}, e2[] = {std::numeric_limits<int64_t>::min()},
                a2[] = {-1}, st2[] = {-1};
  const Shape o2{4, 3};
  float yr[12];
  rt::slice_dynamic(x.data(), yr, in.data(), 2, s2, e2, a2, st2, 1, o2.data());
  EXPECT_TRUE(all_equal(std::vector<float>(yr, yr + 12),
                        {2, 1, 0, 5, 4, 3, 8, 7, 6, 11, 10, 9}));
  // Rank 0: a copy.
  float s = 0.f;
  const float one = 3.f;
  rt::slice_dynamic(&one, &s, static_cast<const int64_t *>(nullptr), 0,
                    static_cast<const int64_t *>(nullptr),
                    static_cast<const int64_t *>(nullptr),
                    static_cast<const int64_t *>(nullptr),
                    static_cast<const int64_t *>(nullptr), 0,
                    static_cast<const int64_t *>(nullptr));
  EXPECT_EQ(s, 3.f);
}

// ========================================================== reduce_dynamic

TEST(ReduceDynamic, DebianOnnxCases) {
  const auto &cases = batch3_debian::reduce_sum_cases();
  ASSERT_EQ(cases.size(), 10u);
  for (const auto &c : cases) {
    std::vector<float> y(c.y.size() + 1, -1.f);
    rt::reduce_dynamic<rt::op::ReduceSum>(
        c.x.data(), c.x_shape.data(), int(c.x_shape.size()), c.axes.data(),
        int64_t(c.axes.size()), c.noop_with_empty_axes, y.data());
    EXPECT_EQ(y.back(), -1.f) << c.name;
    y.pop_back();
    EXPECT_TRUE(all_near(y, c.y, 1e-6, 1e-6)) << c.name;
  }
}

template <class Op, class TA>
void reduce_dynamic_case(const Shape &in, const std::vector<TA> &axes,
                         bool noop, uint64_t seed) {
  const int rank = int(in.size());
  const auto x = random_vec<double>(size_t(numel(in)), seed, 0.5, 2.0);
  uint32_t mask = 0;
  bool any = false;
  for (TA a : axes) {
    int64_t v = int64_t(a);
    v = v < 0 ? v + rank : v;
    if (v >= 0 && v < rank) {
      mask |= 1u << v;
    }
    any = true;
  }
  if (!any && !noop)
    mask = (1u << rank) - 1u;
  Shape ys = in;
  for (int d = 0; d < rank; ++d)
    if ((mask >> d) & 1u)
      ys[size_t(d)] = 1;
  // Naive: sum over the masked axes by division.
  std::vector<double> want(size_t(numel(ys)), 0.0);
  for (int64_t i = 0; i < numel(in); ++i) {
    Shape idx = unravel(i, in);
    for (int d = 0; d < rank; ++d)
      if ((mask >> d) & 1u)
        idx[size_t(d)] = 0;
    int64_t o = 0;
    for (int d = 0; d < rank; ++d)
      o = o * ys[size_t(d)] + idx[size_t(d)];
    if (std::is_same<Op, rt::op::ReduceSumSquare>::value)
      want[size_t(o)] += x[size_t(i)] * x[size_t(i)];
    else
      want[size_t(o)] += x[size_t(i)];
  }
  std::vector<double> y(want.size() + 1, -3.0);
  rt::reduce_dynamic<Op>(x.data(), in.data(), rank,
                         axes.empty() ? nullptr : axes.data(),
                         int64_t(axes.size()), noop, y.data());
  ASSERT_EQ(y.back(), -3.0);
  y.pop_back();
  ASSERT_TRUE(all_near(y, want, 1e-12, 1e-12))
      << shape_str(in) << " mask=" << mask << " noop=" << noop;
}

TEST(ReduceDynamic, AgainstNaive) {
  uint64_t seed = 5;
  for (int64_t last : tail_sizes())
    for (const Shape &in : {Shape{last}, Shape{3, last}, Shape{2, 3, last},
                            Shape{2, 1, 3, last}}) {
      const int rank = int(in.size());
      for (bool noop : {false, true}) {
        reduce_dynamic_case<rt::op::ReduceSum, int64_t>(in, {}, noop, seed++);
        reduce_dynamic_case<rt::op::ReduceSumSquare, int32_t>(in, {}, noop,
                                                              seed++);
        reduce_dynamic_case<rt::op::ReduceSum, int64_t>(in, {int64_t(-1)}, noop,
                                                        seed++);
        reduce_dynamic_case<rt::op::ReduceSum, int32_t>(
            in, {0, int32_t(rank - 1)}, noop, seed++);
        // Out-of-range axes are ignored, repeats are harmless.
        reduce_dynamic_case<rt::op::ReduceSum, int64_t>(
            in, {int64_t(rank), int64_t(-rank - 1), int64_t(-rank), 0}, noop,
            seed++);
      }
    }
}

TEST(ReduceDynamic, NoopAppliesTheReducerPerElement) {
  const Shape in{2, 2};
  const float x[] = {-1, 2, -3, 4};
  float y[4];
  rt::reduce_dynamic<rt::op::ReduceMax>(
      x, in.data(), 2, static_cast<const int64_t *>(nullptr), 0, true, y);
  EXPECT_TRUE(all_equal(std::vector<float>(y, y + 4), {-1, 2, -3, 4}));
  rt::reduce_dynamic<rt::op::ReduceL1>(
      x, in.data(), 2, static_cast<const int64_t *>(nullptr), 0, true, y);
  EXPECT_TRUE(all_equal(std::vector<float>(y, y + 4), {1, 2, 3, 4}));
  rt::reduce_dynamic<rt::op::ReduceSumSquare>(
      x, in.data(), 2, static_cast<const int64_t *>(nullptr), 0, true, y);
  EXPECT_TRUE(all_equal(std::vector<float>(y, y + 4), {1, 4, 9, 16}));
  rt::reduce_dynamic<rt::op::ReduceLogSumExp>(
      x, in.data(), 2, static_cast<const int64_t *>(nullptr), 0, true, y);
  EXPECT_TRUE(all_near(std::vector<float>(y, y + 4), {-1, 2, -3, 4}));
  // Without noop, no axes reduce everything.
  rt::reduce_dynamic<rt::op::ReduceMin>(
      x, in.data(), 2, static_cast<const int64_t *>(nullptr), 0, false, y);
  EXPECT_EQ(y[0], -3.f);
  // Integer elements and int32 axes.
  const int32_t xi[] = {1, 2, 3, 4, 5, 6};
  const Shape in2{2, 3};
  const int32_t ax[] = {-2};
  int32_t yi[3];
  rt::reduce_dynamic<rt::op::ReduceProd>(xi, in2.data(), 2, ax, 1, false, yi);
  EXPECT_TRUE(all_equal(std::vector<int32_t>(yi, yi + 3), {4, 10, 18}));
}
