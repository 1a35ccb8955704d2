// GatherND (data/gather_nd_ref.h), ScatterElements and ScatterND
// (data/scatter_ref.h) against naive per-element references (index
// arithmetic by division) and the ONNX documentation examples.
#include "tract/rt/data/gather_nd_ref.h"
#include "tract/rt/data/scatter_ref.h"

#include "test_util.h"

#include <algorithm>

using namespace tract_test;
namespace rt = tract::rt;

namespace {

// Wrapped index, or -1 out of range (the tuple then reads zero).
int64_t wrap(int64_t i, int64_t n) {
  if (i < 0)
    i += n;
  return i < 0 || i >= n ? -1 : i;
}

// Naive GatherND.
template <class T>
std::vector<T> naive_gather_nd(const std::vector<T> &x, const Shape &xs,
                               const std::vector<int64_t> &idx,
                               const Shape &is, int b) {
  const int64_t q = is.back();
  Shape os(is.begin(), is.end() - 1);
  for (size_t d = size_t(b + q); d < xs.size(); ++d)
    os.push_back(xs[d]);
  std::vector<T> y(static_cast<size_t>(numel(os)));
  const Shape xst = strides_of(xs);
  const Shape ist = strides_of(is);
  for (int64_t k = 0; k < numel(os); ++k) {
    const Shape o = unravel(k, os);
    // o = [batch..., tuple..., slice...]
    int64_t ioff = 0;
    for (size_t d = 0; d + 1 < is.size(); ++d)
      ioff += o[d] * ist[d];
    int64_t xoff = 0;
    bool out_of_range = false;
    for (int d = 0; d < b; ++d)
      xoff += o[size_t(d)] * xst[size_t(d)];
    for (int64_t j = 0; j < q; ++j) {
      const int64_t i = wrap(idx[size_t(ioff + j)], xs[size_t(b + j)]);
      out_of_range = out_of_range || i < 0;
      xoff += i * xst[size_t(b + j)];
    }
    for (size_t d = size_t(b + q); d < xs.size(); ++d)
      xoff += o[is.size() - 1 + (d - size_t(b + q))] * xst[d];
    y[size_t(k)] = out_of_range ? T() : x[size_t(xoff)];
  }
  return y;
}

template <class T> T apply(rt::ScatterReduction r, T a, T b) {
  switch (r) {
  case rt::ScatterReduction::None:
    return b;
  case rt::ScatterReduction::Add:
    return T(a + b);
  case rt::ScatterReduction::Mul:
    return T(a * b);
  case rt::ScatterReduction::Max:
    return std::isnan(double(b)) ? b : std::max(a, b);
  case rt::ScatterReduction::Min:
    return std::isnan(double(b)) ? b : std::min(a, b);
  }
  return b;
}

const rt::ScatterReduction kReds[] = {
    rt::ScatterReduction::None, rt::ScatterReduction::Add,
    rt::ScatterReduction::Mul, rt::ScatterReduction::Max,
    rt::ScatterReduction::Min};

} // namespace

TEST(GatherND, OnnxExamples) {
  {
    const int32_t x[] = {0, 1, 2, 3};
    const int64_t xs[] = {2, 2}, idx[] = {0, 0, 1, 1}, is[] = {2, 2};
    int32_t y[2];
    rt::gather_nd(x, idx, y, xs, 2, is, 2, 0);
    EXPECT_EQ(std::vector<int32_t>(y, y + 2), (std::vector<int32_t>{0, 3}));
  }
  {
    const float x[] = {0, 1, 2, 3, 4, 5, 6, 7};
    const int64_t xs[] = {2, 2, 2}, idx[] = {0, 1, 1, 0}, is[] = {2, 1, 2};
    float y[4];
    rt::gather_nd(x, idx, y, xs, 3, is, 3, 0);
    EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{2, 3, 4, 5}));
  }
  {
    const int32_t x[] = {0, 1, 2, 3, 4, 5, 6, 7};
    const int64_t xs[] = {2, 2, 2}, idx[] = {1, 0}, is[] = {2, 1};
    int32_t y[4];
    rt::gather_nd(x, idx, y, xs, 3, is, 2, 1);
    EXPECT_EQ(std::vector<int32_t>(y, y + 4),
              (std::vector<int32_t>{2, 3, 4, 5}));
  }
}

TEST(GatherND, RandomShapesBatchDimsWrapClamp) {
  Rng r(31);
  int cases = 0;
  for (int xr = 1; xr <= 5; ++xr)
    for (int b = 0; b < xr; ++b)
      for (int q = 1; q <= xr - b; ++q)
        for (int t = 0; t < 4; ++t) {
          Shape xs(static_cast<size_t>(xr));
          for (auto &d : xs)
            d = r.range(1, 4);
          // Tail-hitting slice lengths in the last dim.
          if (t == 3)
            xs.back() = tail_sizes()[size_t(r.range(0, 10))];
          Shape is(xs.begin(), xs.begin() + b);
          const int extra = int(r.range(0, 2));
          for (int e = 0; e < extra; ++e)
            is.push_back(r.range(1, 3));
          is.push_back(q);
          const auto x =
              random_vec<int32_t>(size_t(numel(xs)), r.next(), -1000, 1000);
          std::vector<int64_t> idx(static_cast<size_t>(numel(is)));
          for (size_t k = 0; k < idx.size(); ++k) {
            const int64_t len = xs[size_t(b) + k % size_t(q)];
            idx[k] = r.range(-len - 2, len + 2); // some out of range
          }
          const auto want = naive_gather_nd(x, xs, idx, is, b);
          std::vector<int32_t> y(want.size(), 12345);
          rt::gather_nd(x.data(), idx.data(), y.data(), xs.data(), xr,
                        is.data(), int(is.size()), b);
          ASSERT_TRUE(all_equal(y, want))
              << shape_str(xs) << " idx " << shape_str(is) << " b=" << b;
          // 32-bit indices give the same.
          std::vector<int32_t> idx32(idx.begin(), idx.end());
          std::vector<int32_t> y32(want.size());
          rt::gather_nd(x.data(), idx32.data(), y32.data(), xs.data(), xr,
                        is.data(), int(is.size()), b);
          ASSERT_TRUE(all_equal(y32, want));
          ++cases;
        }
  EXPECT_GT(cases, 100);
}

TEST(GatherND, InvalidShapesDoNothing) {
  const float x[4] = {1, 2, 3, 4};
  const int64_t xs[] = {2, 2}, idx[] = {0, 0, 0};
  float y[4] = {9, 9, 9, 9};
  const int64_t is_bad_q[] = {1, 3}; // q = 3 > rank 2
  rt::gather_nd(x, idx, y, xs, 2, is_bad_q, 2, 0);
  EXPECT_EQ(y[0], 9.f);
  const int64_t is_bad_b[] = {3, 1}; // batch dim 3 != 2
  rt::gather_nd(x, idx, y, xs, 2, is_bad_b, 2, 1);
  EXPECT_EQ(y[0], 9.f);
  // Zero-sized indexed dim: T().
  const int64_t xs0[] = {0, 2}, is1[] = {1, 1};
  rt::gather_nd(static_cast<const float *>(nullptr), idx, y, xs0, 2, is1, 2, 0);
  EXPECT_EQ(y[0], 0.f);
  EXPECT_EQ(y[1], 0.f);
}

TEST(ScatterElements, OnnxExamples) {
  {
    const float x[9] = {};
    const int64_t idx[] = {1, 0, 2, 0, 2, 1};
    const float upd[] = {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f};
    const int64_t xs[] = {3, 3}, is[] = {2, 3};
    float y[9];
    rt::scatter_elements(x, idx, upd, y, xs, is, 2, 0,
                         rt::ScatterReduction::None);
    EXPECT_EQ(std::vector<float>(y, y + 9),
              (std::vector<float>{2.0f, 1.1f, 0, 1.0f, 0, 2.2f, 0, 2.1f,
                                  1.2f}));
  }
  const float x[] = {1, 2, 3, 4, 5};
  const int64_t xs[] = {1, 5}, is[] = {1, 2};
  const float upd[] = {1.1f, 2.1f};
  float y[5];
  {
    const int64_t idx[] = {1, 3};
    rt::scatter_elements(x, idx, upd, y, xs, is, 2, 1,
                         rt::ScatterReduction::None);
    EXPECT_EQ(std::vector<float>(y, y + 5),
              (std::vector<float>{1, 1.1f, 3, 2.1f, 5}));
  }
  {
    const int64_t idx[] = {1, -3};
    rt::scatter_elements(x, idx, upd, y, xs, is, 2, 1,
                         rt::ScatterReduction::None);
    EXPECT_EQ(std::vector<float>(y, y + 5),
              (std::vector<float>{1, 1.1f, 2.1f, 4, 5}));
  }
  {
    const int64_t idx[] = {1, 1};
    rt::scatter_elements(x, idx, upd, y, xs, is, 2, 1,
                         rt::ScatterReduction::Add);
    EXPECT_EQ(std::vector<float>(y, y + 5),
              (std::vector<float>{1, 2 + 1.1f + 2.1f, 3, 4, 5}));
    rt::scatter_elements(x, idx, upd, y, xs, is, 2, 1,
                         rt::ScatterReduction::Max);
    EXPECT_EQ(y[1], 2.1f);
    rt::scatter_elements(x, idx, upd, y, xs, is, 2, 1,
                         rt::ScatterReduction::Min);
    EXPECT_EQ(y[1], 1.1f);
    rt::scatter_elements(x, idx, upd, y, xs, is, 2, 1,
                         rt::ScatterReduction::Mul);
    EXPECT_EQ(y[1], 2 * 1.1f * 2.1f);
  }
}

template <class T> void scatter_elements_random(uint64_t seed) {
  Rng r(seed);
  for (int rank = 1; rank <= 4; ++rank)
    for (int axis = 0; axis < rank; ++axis)
      for (auto red : kReds)
        for (int t = 0; t < 6; ++t) {
          Shape xs(static_cast<size_t>(rank)), is(static_cast<size_t>(rank));
          for (int d = 0; d < rank; ++d) {
            xs[size_t(d)] = r.range(1, 5);
            is[size_t(d)] =
                d == axis ? r.range(1, 7) : r.range(1, xs[size_t(d)]);
          }
          if (t == 5) { // long rows
            xs.back() = tail_sizes()[size_t(r.range(0, 10))];
            if (axis != rank - 1)
              is.back() = xs.back();
          }
          const auto x = random_vec<T>(size_t(numel(xs)), r.next(), -5, 5);
          const auto upd = random_vec<T>(size_t(numel(is)), r.next(), -5, 5);
          std::vector<int64_t> idx(static_cast<size_t>(numel(is)));
          const int64_t al = xs[size_t(axis)];
          for (auto &v : idx)
            v = r.range(-al - 1, al); // duplicates, negatives, out of range
          // Naive: in row-major order over idx.
          std::vector<T> want = x;
          const Shape xst = strides_of(xs);
          for (int64_t k = 0; k < numel(is); ++k) {
            Shape p = unravel(k, is);
            int64_t j = idx[size_t(k)];
            if (j < 0)
              j += al;
            if (j < 0 || j >= al)
              continue;
            p[size_t(axis)] = j;
            int64_t lin = 0;
            for (int d = 0; d < rank; ++d)
              lin += p[size_t(d)] * xst[size_t(d)];
            want[size_t(lin)] = apply(red, want[size_t(lin)], upd[size_t(k)]);
          }
          std::vector<T> y(x.size());
          rt::scatter_elements(x.data(), idx.data(), upd.data(), y.data(),
                               xs.data(), is.data(), rank, axis, red);
          ASSERT_TRUE(all_equal(y, want))
              << shape_str(xs) << " idx " << shape_str(is) << " axis "
              << axis << " red " << int(red);
          // In place (y == x) gives the same.
          std::vector<T> z = x;
          rt::scatter_elements(z.data(), idx.data(), upd.data(), z.data(),
                               xs.data(), is.data(), rank, axis, red);
          ASSERT_TRUE(all_equal(z, want));
        }
}

TEST(ScatterElements, RandomAllReductions) {
  scatter_elements_random<float>(1);
  scatter_elements_random<int32_t>(2);
  scatter_elements_random<int64_t>(3);
  scatter_elements_random<double>(4);
}

TEST(ScatterElements, NaNAndBool) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float x[] = {1, nan, 3};
  const int64_t xs[] = {3}, is[] = {3}, idx[] = {0, 1, 2};
  const float upd[] = {nan, 5, 2};
  float y[3];
  rt::scatter_elements(x, idx, upd, y, xs, is, 1, 0,
                       rt::ScatterReduction::Max);
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[2], 3.f);
  rt::scatter_elements(x, idx, upd, y, xs, is, 1, 0,
                       rt::ScatterReduction::Min);
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[2], 2.f);
  const bool bx[] = {false, true, true};
  const bool bu[] = {true, false, false};
  bool by[3];
  rt::scatter_elements(bx, idx, bu, by, xs, is, 1, 0,
                       rt::ScatterReduction::Add); // or
  EXPECT_EQ(std::vector<bool>(by, by + 3), (std::vector<bool>{1, 1, 1}));
  rt::scatter_elements(bx, idx, bu, by, xs, is, 1, 0,
                       rt::ScatterReduction::Mul); // and
  EXPECT_EQ(std::vector<bool>(by, by + 3), (std::vector<bool>{0, 0, 0}));
}

TEST(ScatterND, OnnxExamples) {
  const float data[64] = {1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1,
                          1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1,
                          8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8,
                          8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8};
  float upd[32];
  for (int i = 0; i < 16; ++i) {
    upd[i] = float(5 + i / 4);
    upd[16 + i] = float(1 + i / 4);
  }
  const int64_t xs[] = {4, 4, 4}, is[] = {2, 1};
  float y[64];
  {
    const int64_t idx[] = {0, 2};
    rt::scatter_nd(data, idx, upd, y, xs, 3, is, 2,
                   rt::ScatterReduction::None);
    std::vector<float> want(data, data + 64);
    for (int i = 0; i < 16; ++i) {
      want[size_t(i)] = upd[i];
      want[size_t(32 + i)] = upd[16 + i];
    }
    EXPECT_TRUE(all_equal(std::vector<float>(y, y + 64), want));
  }
  {
    const int64_t idx[] = {0, 0};
    rt::scatter_nd(data, idx, upd, y, xs, 3, is, 2,
                   rt::ScatterReduction::Add);
    const float row0[16] = {7,  8,  9,  10, 13, 14, 15, 16,
                            18, 17, 16, 15, 16, 15, 14, 13};
    EXPECT_TRUE(all_equal(std::vector<float>(y, y + 16),
                          std::vector<float>(row0, row0 + 16)));
    EXPECT_TRUE(all_equal(std::vector<float>(y + 16, y + 64),
                          std::vector<float>(data + 16, data + 64)));
  }
  // ONNX ScatterND doc example 1: 1-D data, scalar updates.
  {
    const float d1[] = {1, 2, 3, 4, 5, 6, 7, 8};
    const int64_t xs1[] = {8}, is1[] = {4, 1}, idx1[] = {4, 3, 1, 7};
    const float u1[] = {9, 10, 11, 12};
    float y1[8];
    rt::scatter_nd(d1, idx1, u1, y1, xs1, 1, is1, 2,
                   rt::ScatterReduction::None);
    EXPECT_EQ(std::vector<float>(y1, y1 + 8),
              (std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12}));
  }
}

template <class T> void scatter_nd_random(uint64_t seed) {
  Rng r(seed);
  for (int xr = 1; xr <= 4; ++xr)
    for (int q = 1; q <= xr; ++q)
      for (auto red : kReds)
        for (int t = 0; t < 5; ++t) {
          Shape xs(static_cast<size_t>(xr));
          for (auto &d : xs)
            d = r.range(1, 4);
          if (t == 4)
            xs.back() = tail_sizes()[size_t(r.range(0, 10))];
          Shape is;
          const int extra = int(r.range(1, 2));
          for (int e = 0; e < extra; ++e)
            is.push_back(r.range(1, 4));
          is.push_back(q);
          Shape us(is.begin(), is.end() - 1);
          for (size_t d = size_t(q); d < xs.size(); ++d)
            us.push_back(xs[d]);
          const auto x = random_vec<T>(size_t(numel(xs)), r.next(), -5, 5);
          const auto upd = random_vec<T>(size_t(numel(us)), r.next(), -5, 5);
          std::vector<int64_t> idx(static_cast<size_t>(numel(is)));
          for (size_t k = 0; k < idx.size(); ++k) {
            const int64_t len = xs[k % size_t(q)];
            idx[k] = r.range(-len - 1, len);
          }
          const int64_t nt = numel(is) / q;
          const int64_t slice = numel(us) / nt;
          const Shape xst = strides_of(xs);
          std::vector<T> want = x;
          for (int64_t t2 = 0; t2 < nt; ++t2) {
            int64_t off = 0;
            bool ok = true;
            for (int k = 0; k < q; ++k) {
              int64_t j = idx[size_t(t2 * q + k)];
              if (j < 0)
                j += xs[size_t(k)];
              if (j < 0 || j >= xs[size_t(k)])
                ok = false;
              off += j * xst[size_t(k)];
            }
            if (!ok)
              continue;
            for (int64_t s = 0; s < slice; ++s)
              want[size_t(off + s)] = apply(red, want[size_t(off + s)],
                                            upd[size_t(t2 * slice + s)]);
          }
          std::vector<T> y(x.size());
          rt::scatter_nd(x.data(), idx.data(), upd.data(), y.data(),
                         xs.data(), xr, is.data(), int(is.size()), red);
          ASSERT_TRUE(all_equal(y, want))
              << shape_str(xs) << " idx " << shape_str(is) << " red "
              << int(red);
        }
}

TEST(ScatterND, RandomAllReductions) {
  scatter_nd_random<float>(11);
  scatter_nd_random<int32_t>(12);
  scatter_nd_random<uint8_t>(13);
}

TEST(ScatterND, InvalidQOnlyCopies) {
  const float x[] = {1, 2, 3, 4};
  const int64_t xs[] = {4}, is[] = {1, 2}, idx[] = {0, 0};
  const float u[] = {9};
  float y[4] = {};
  rt::scatter_nd(x, idx, u, y, xs, 1, is, 2, rt::ScatterReduction::None);
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{1, 2, 3, 4}));
}
