// Batch-4 kernels: NonZero (data/nonzero_ref.h), Compress
// (data/compress_ref.h), Unique (data/unique_ref.h), DFT (signal/dft_ref.h)
// and STFT (signal/stft_ref.h), against naive references over tail sizes
// and the Debian ONNX test data (batch4_debian_cases.h).
#include "tract/rt/data/compress_ref.h"
#include "tract/rt/data/nonzero_ref.h"
#include "tract/rt/data/unique_ref.h"
#include "tract/rt/signal/dft_ref.h"
#include "tract/rt/signal/stft_ref.h"
// Through the umbrella header too (instantiation test).
#include "tract/rt/all.h"

#include "batch4_debian_cases.h"
#include "test_util.h"

#include <algorithm>
#include <complex>
#include <memory>
#include <numeric>

using namespace tract_test;
namespace rt = tract::rt;

namespace {

constexpr size_t kGuard = 16;

// A heap copy of v (std::vector<bool> has no data()).
template <class T> struct Arr {
  std::unique_ptr<T[]> p;
  explicit Arr(const std::vector<T> &v) : p(new T[v.size() + 1]) {
    for (size_t i = 0; i < v.size(); ++i)
      p[i] = v[i];
  }
  const T *data() const { return p.get(); }
};

// A buffer of n elements followed by kGuard canaries, to catch writes past
// the end.
template <class T> struct Guarded {
  size_t n;
  std::unique_ptr<T[]> p;
  T canary;
  Guarded(size_t n_, T c) : n(n_), p(new T[n_ + kGuard]), canary(c) {
    for (size_t i = 0; i < n + kGuard; ++i)
      p[i] = c;
  }
  T *data() { return p.get(); }
  std::vector<T> body() const { return std::vector<T>(p.get(), p.get() + n); }
  bool intact() const {
    for (size_t i = n; i < n + kGuard; ++i)
      if (std::memcmp(&p[i], &canary, sizeof(T)) != 0)
        return false;
    return true;
  }
};

std::unique_ptr<bool[]> to_bool(const std::vector<uint8_t> &v) {
  std::unique_ptr<bool[]> b(new bool[v.size() + 1]);
  for (size_t i = 0; i < v.size(); ++i)
    b[i] = v[i] != 0;
  return b;
}

// Values with many repeats; floats include NaN, -0.0 and 0.0.
template <class T> std::vector<T> repeating(size_t n, uint64_t seed, int k) {
  Rng r(seed);
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t q = r.range(0, k);
    if constexpr (std::is_same<T, bool>::value) {
      v[i] = (q & 1) != 0;
    } else if constexpr (std::is_floating_point<T>::value) {
      if (q == 0)
        v[i] = std::numeric_limits<T>::quiet_NaN();
      else if (q == 1)
        v[i] = T(-0.0);
      else
        v[i] = T(q - 3) * T(0.5);
    } else {
      v[i] = static_cast<T>(q - 2);
    }
  }
  return v;
}

template <class T> double as_double(T v) {
  if constexpr (std::is_same<T, rt::half>::value)
    return double(rt::half_to_float(v));
  else
    return double(v);
}

// ------------------------------------------------------------------ NonZero

template <class T>
void check_nonzero(const std::vector<T> &x, const Shape &shape,
                   int64_t max_count) {
  const int rank = int(shape.size());
  // Naive: unravel by division.
  std::vector<Shape> cols;
  for (int64_t e = 0; e < numel(shape); ++e) {
    const double v = as_double(x[size_t(e)]);
    if (v != 0.0 || std::isnan(v))
      cols.push_back(unravel(e, shape));
  }
  const int64_t want_count = std::min<int64_t>(int64_t(cols.size()), max_count);
  std::vector<int64_t> want(size_t(rank * max_count), rt::kPaddingIndex);
  for (int64_t k = 0; k < want_count; ++k)
    for (int d = 0; d < rank; ++d)
      want[size_t(d * max_count + k)] = cols[size_t(k)][size_t(d)];
  Guarded<int64_t> y(size_t(rank * max_count), 777);
  const int64_t got =
      rt::nonzero(Arr<T>(x).data(), shape.data(), rank, y.data(), max_count);
  EXPECT_EQ(got, want_count) << shape_str(shape) << " max " << max_count;
  EXPECT_TRUE(all_equal(y.body(), want)) << shape_str(shape);
  EXPECT_TRUE(y.intact());
}

template <class T> void nonzero_sweep(uint64_t seed) {
  const std::vector<Shape> shapes = {
      {}, {1}, {0}, {3, 0, 2}, {2, 3, 4}, {1, 1, 7}, {2, 1, 3, 2, 2}};
  std::vector<Shape> all = shapes;
  for (int64_t n : tail_sizes()) {
    all.push_back({n});
    all.push_back({2, n});
    all.push_back({n, 3});
  }
  for (const Shape &s : all) {
    const int64_t n = numel(s);
    const auto x = repeating<T>(size_t(n), seed++, 4);
    int64_t nz = 0;
    for (const T &v : x)
      nz += (as_double(v) != 0.0 || std::isnan(as_double(v))) ? 1 : 0;
    for (int64_t mc : {nz, nz + 3, nz > 0 ? nz - 1 : 0, int64_t(1)})
      check_nonzero(x, s, mc);
  }
}

TEST(Batch4NonZero, Float) { nonzero_sweep<float>(1); }
TEST(Batch4NonZero, Double) { nonzero_sweep<double>(2); }
TEST(Batch4NonZero, Int32) { nonzero_sweep<int32_t>(3); }
TEST(Batch4NonZero, UInt8) { nonzero_sweep<uint8_t>(4); }
TEST(Batch4NonZero, Int64) { nonzero_sweep<int64_t>(5); }
TEST(Batch4NonZero, Bool) { nonzero_sweep<bool>(6); }

TEST(Batch4NonZero, Half) {
  // +-0 are zero, NaN and subnormals are not.
  const std::vector<rt::half> x = {{0x0000}, {0x8000}, {0x0001}, {0x7e00},
                                   {0x3c00}, {0x0000}, {0xbc00}};
  check_nonzero(x, {7}, 7);
  check_nonzero(x, {7}, 2);
  const std::vector<rt::bfloat16> b = {{0x8000}, {0x3f80}, {0x0000}};
  int64_t y[1] = {0};
  const int64_t s = 3;
  EXPECT_EQ(rt::nonzero(b.data(), &s, 1, y, 1), 1);
  EXPECT_EQ(y[0], 1);
}

TEST(Batch4NonZero, RankZeroAndEmptyBound) {
  const float one = 1.f, zero = 0.f;
  int64_t y[1] = {42};
  EXPECT_EQ(rt::nonzero(&one, nullptr, 0, y, 1), 1);
  EXPECT_EQ(rt::nonzero(&zero, nullptr, 0, y, 1), 0);
  EXPECT_EQ(y[0], 42); // no rows: nothing written
  const int64_t s = 2;
  const float x[2] = {1.f, 2.f};
  EXPECT_EQ(rt::nonzero(x, &s, 1, y, 0), 0);
  EXPECT_EQ(y[0], 42);
}

TEST(Batch4NonZero, Debian) {
  for (const auto &c : batch4_debian::nonzero_cases()) {
    const auto x = to_bool(c.x);
    const int rank = int(c.x_shape.size());
    std::vector<int64_t> y(size_t(rank * c.count));
    EXPECT_EQ(rt::nonzero(x.get(), c.x_shape.data(), rank, y.data(), c.count),
              c.count)
        << c.name;
    EXPECT_TRUE(all_equal(y, c.y)) << c.name;
    // A larger static bound: same prefix, the padding index after.
    const int64_t mc = c.count + 2;
    std::vector<int64_t> y2(size_t(rank * mc));
    EXPECT_EQ(rt::nonzero(x.get(), c.x_shape.data(), rank, y2.data(), mc),
              c.count);
    for (int d = 0; d < rank; ++d)
      for (int64_t k = 0; k < mc; ++k)
        EXPECT_EQ(y2[size_t(d * mc + k)],
                  k < c.count ? c.y[size_t(d * c.count + k)] : rt::kPaddingIndex);
  }
}

// ----------------------------------------------------------------- Compress

template <class T, class TC>
void check_compress(int64_t outer, int64_t axis_len, int64_t inner,
                    int64_t cond_len, int64_t max_sel, uint64_t seed) {
  const auto x = random_vec<T>(size_t(outer * axis_len * inner), seed, -50, 50);
  Rng r(seed + 99);
  std::unique_ptr<TC[]> cond(new TC[size_t(cond_len) + 1]);
  std::vector<int64_t> sel;
  for (int64_t i = 0; i < cond_len; ++i) {
    const bool on = (r.next() % 3) != 0;
    cond[size_t(i)] = on ? TC(1) : TC(0);
    if (on && i < axis_len)
      sel.push_back(i);
  }
  const int64_t count = std::min<int64_t>(int64_t(sel.size()), max_sel);
  std::vector<T> want(size_t(outer * max_sel * inner), T());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < count; ++k)
      for (int64_t j = 0; j < inner; ++j)
        want[size_t((o * max_sel + k) * inner + j)] =
            x[size_t((o * axis_len + sel[size_t(k)]) * inner + j)];
  Guarded<T> y(want.size(), T(7));
  EXPECT_EQ(rt::compress(x.data(), cond.get(), cond_len, y.data(), outer,
                         axis_len, inner, max_sel),
            count);
  EXPECT_TRUE(all_equal(y.body(), want))
      << outer << "x" << axis_len << "x" << inner << " cond " << cond_len
      << " max " << max_sel;
  EXPECT_TRUE(y.intact());
}

TEST(Batch4Compress, Sweep) {
  uint64_t seed = 10;
  for (int64_t n : tail_sizes())
    for (int64_t outer : {1, 3})
      for (int64_t inner : {1, 2, 5})
        for (int64_t cl : {n, n > 1 ? n - 2 : 0, n + 3}) {
          for (int64_t ms : {n, n / 2, int64_t(1)}) {
            check_compress<float, bool>(outer, n, inner, cl, ms, seed++);
            check_compress<int64_t, bool>(outer, n, inner, cl, ms, seed++);
          }
          check_compress<uint8_t, uint8_t>(outer, n, inner, cl, n, seed++);
          check_compress<double, float>(outer, n, inner, cl, n + 1, seed++);
        }
  check_compress<float, bool>(0, 4, 3, 4, 4, 1);
  check_compress<float, bool>(2, 4, 0, 4, 4, 2);
  check_compress<float, bool>(2, 0, 3, 0, 2, 3);
}

TEST(Batch4Compress, Debian) {
  for (const auto &c : batch4_debian::compress_cases()) {
    const auto cond = to_bool(c.cond);
    std::vector<float> y(c.y.size());
    EXPECT_EQ(rt::compress(c.x.data(), cond.get(), int64_t(c.cond.size()),
                           y.data(), c.outer, c.axis_len, c.inner, c.selected),
              c.selected)
        << c.name;
    EXPECT_TRUE(all_equal(y, c.y)) << c.name;
  }
}

// ------------------------------------------------------------------- Unique

struct UniqueResult {
  int64_t count = 0;
  std::vector<int64_t> first, inverse, counts;
};

// Naive: slices as vectors of (is_nan, value) keys, then std::sort.
template <class T>
UniqueResult naive_unique(const std::vector<T> &x, int64_t outer,
                          int64_t axis_len, int64_t inner, bool sorted) {
  using Key = std::vector<std::pair<int, double>>;
  std::vector<Key> keys(static_cast<size_t>(axis_len));
  for (int64_t i = 0; i < axis_len; ++i)
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < inner; ++j) {
        const double v = as_double(x[size_t((o * axis_len + i) * inner + j)]);
        keys[size_t(i)].push_back(std::isnan(v) ? std::make_pair(1, 0.0)
                                                : std::make_pair(0, v));
      }
  UniqueResult r;
  for (int64_t i = 0; i < axis_len; ++i) {
    bool seen = false;
    for (int64_t f : r.first)
      seen = seen || keys[size_t(f)] == keys[size_t(i)];
    if (!seen)
      r.first.push_back(i);
  }
  if (sorted)
    std::sort(r.first.begin(), r.first.end(), [&](int64_t a, int64_t b) {
      return keys[size_t(a)] < keys[size_t(b)];
    });
  r.count = int64_t(r.first.size());
  r.inverse.resize(size_t(axis_len));
  r.counts.assign(r.first.size(), 0);
  for (int64_t i = 0; i < axis_len; ++i)
    for (size_t u = 0; u < r.first.size(); ++u)
      if (keys[size_t(r.first[u])] == keys[size_t(i)]) {
        r.inverse[size_t(i)] = int64_t(u);
        ++r.counts[u];
      }
  return r;
}

template <class T>
void check_unique(const std::vector<T> &x, int64_t outer, int64_t axis_len,
                  int64_t inner, bool sorted, int64_t max_u) {
  const UniqueResult w = naive_unique(x, outer, axis_len, inner, sorted);
  const Arr<T> xa(x);
  const int64_t count = std::min(w.count, max_u);
  std::vector<T> want_y(size_t(outer * max_u * inner), T());
  std::vector<int64_t> want_idx(size_t(max_u), rt::kPaddingIndex),
      want_cnt(size_t(max_u), 0);
  for (int64_t k = 0; k < count; ++k) {
    want_idx[size_t(k)] = w.first[size_t(k)];
    want_cnt[size_t(k)] = w.counts[size_t(k)];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < inner; ++j)
        want_y[size_t((o * max_u + k) * inner + j)] =
            xa.data()[(o * axis_len + w.first[size_t(k)]) * inner + j];
  }
  const std::string what = std::to_string(outer) + "x" +
                           std::to_string(axis_len) + "x" +
                           std::to_string(inner) + (sorted ? " sorted" : "") +
                           " max " + std::to_string(max_u);
  Guarded<T> y(want_y.size(), T(9));
  Guarded<int64_t> idx(size_t(max_u), 555), inv(size_t(axis_len), 555),
      cnt(size_t(max_u), 555);
  EXPECT_EQ(rt::unique(xa.data(), outer, axis_len, inner, sorted, y.data(),
                       idx.data(), inv.data(), cnt.data(), max_u),
            count)
      << what;
  // y compared bitwise-ish: NaN == NaN.
  EXPECT_TRUE(all_near(y.body(), want_y, 0.0, 0.0)) << what;
  EXPECT_TRUE(all_equal(idx.body(), want_idx)) << what;
  EXPECT_TRUE(all_equal(inv.body(), w.inverse)) << what;
  EXPECT_TRUE(all_equal(cnt.body(), want_cnt)) << what;
  EXPECT_TRUE(y.intact() && idx.intact() && inv.intact() && cnt.intact());
  // Optional outputs left out, one at a time and all at once.
  Guarded<T> y2(want_y.size(), T(9));
  Guarded<int64_t> inv2(size_t(axis_len), 555);
  EXPECT_EQ(rt::unique(xa.data(), outer, axis_len, inner, sorted, y2.data(),
                       nullptr, inv2.data(), nullptr, max_u),
            count);
  EXPECT_TRUE(all_near(y2.body(), want_y, 0.0, 0.0)) << what;
  EXPECT_TRUE(all_equal(inv2.body(), w.inverse)) << what;
  Guarded<T> y3(want_y.size(), T(9));
  EXPECT_EQ(rt::unique(xa.data(), outer, axis_len, inner, sorted, y3.data(),
                       nullptr, nullptr, nullptr, max_u),
            count);
  EXPECT_TRUE(all_near(y3.body(), want_y, 0.0, 0.0)) << what;
  EXPECT_TRUE(y2.intact() && inv2.intact() && y3.intact());
}

template <class T> void unique_sweep(uint64_t seed) {
  for (int64_t n : tail_sizes())
    for (int64_t outer : {1, 2})
      for (int64_t inner : {1, 3})
        for (bool sorted : {true, false}) {
          // Few distinct values per element so that slices repeat.
          const int k = (outer * inner > 1) ? 2 : 6;
          const auto x = repeating<T>(size_t(outer * n * inner), seed++, k);
          const UniqueResult w = naive_unique(x, outer, n, inner, sorted);
          for (int64_t mu : {w.count, w.count + 2, w.count / 2, int64_t(1)})
            check_unique(x, outer, n, inner, sorted, mu);
        }
}

TEST(Batch4Unique, Float) { unique_sweep<float>(100); }
TEST(Batch4Unique, Double) { unique_sweep<double>(200); }
TEST(Batch4Unique, Int64) { unique_sweep<int64_t>(300); }
TEST(Batch4Unique, Int8) { unique_sweep<int8_t>(400); }
TEST(Batch4Unique, Bool) { unique_sweep<bool>(500); }

TEST(Batch4Unique, Half) {
  // 2, NaN, -0, 1, NaN, 0, 2 -> sorted: -0(=0), 1, 2, NaN.
  const std::vector<rt::half> x = {{0x4000}, {0x7e00}, {0x8000}, {0x3c00},
                                   {0x7e01}, {0x0000}, {0x4000}};
  std::vector<rt::half> y(4);
  std::vector<int64_t> idx(4), inv(7), cnt(4);
  EXPECT_EQ(rt::unique(x.data(), 1, 7, 1, true, y.data(), idx.data(),
                       inv.data(), cnt.data(), 4),
            4);
  EXPECT_TRUE(all_equal(idx, {2, 3, 0, 1}));
  EXPECT_TRUE(all_equal(inv, {2, 3, 0, 1, 3, 0, 2}));
  EXPECT_TRUE(all_equal(cnt, {2, 1, 2, 2}));
  EXPECT_EQ(y[1].bits, 0x3c00);
}

TEST(Batch4Unique, Degenerate) {
  int64_t idx[2] = {9, 9}, cnt[2] = {9, 9}, inv[3] = {9, 9, 9};
  float y[2] = {9.f, 9.f};
  // Empty axis: nothing unique.
  EXPECT_EQ(rt::unique(y, 1, 0, 1, true, y, idx, inv, cnt, 2), 0);
  EXPECT_EQ(idx[0], rt::kPaddingIndex);
  EXPECT_EQ(cnt[1], 0);
  EXPECT_EQ(y[0], 0.f);
  // Empty slices (inner 0) are all equal.
  const float x[1] = {1.f};
  EXPECT_EQ(rt::unique(x, 1, 3, 0, false, y, idx, inv, cnt, 2), 1);
  EXPECT_TRUE(all_equal(std::vector<int64_t>(inv, inv + 3), {0, 0, 0}));
  EXPECT_EQ(cnt[0], 3);
  EXPECT_EQ(idx[1], rt::kPaddingIndex);
  // Truncated bound: inverse keeps ONNX's values.
  const float z[3] = {3.f, 1.f, 2.f};
  EXPECT_EQ(rt::unique(z, 1, 3, 1, true, y, idx, inv, cnt, 1), 1);
  EXPECT_EQ(y[0], 1.f);
  EXPECT_TRUE(all_equal(std::vector<int64_t>(inv, inv + 3), {2, 0, 1}));
}

TEST(Batch4Unique, Debian) {
  for (const auto &c : batch4_debian::unique_cases()) {
    const int64_t mu = c.n_unique;
    std::vector<float> y(size_t(c.outer * mu * c.inner));
    std::vector<int64_t> idx(static_cast<size_t>(mu)),
        inv(static_cast<size_t>(c.axis_len)), cnt(static_cast<size_t>(mu));
    EXPECT_EQ(rt::unique(c.x.data(), c.outer, c.axis_len, c.inner, c.sorted,
                         y.data(), idx.data(), inv.data(), cnt.data(), mu),
              mu)
        << c.name;
    EXPECT_TRUE(all_equal(y, c.y)) << c.name;
    EXPECT_TRUE(all_equal(idx, c.indices)) << c.name;
    EXPECT_TRUE(all_equal(inv, c.inverse)) << c.name;
    EXPECT_TRUE(all_equal(cnt, c.counts)) << c.name;
    // And the naive reference agrees with ONNX.
    const UniqueResult w =
        naive_unique(c.x, c.outer, c.axis_len, c.inner, c.sorted);
    EXPECT_TRUE(all_equal(w.first, c.indices)) << c.name;
  }
}

// ---------------------------------------------------------------------- DFT

using cld = std::complex<long double>;

// Direct sum in long double, angles reduced exactly (jk mod L).
std::vector<cld> naive_dft_line(const std::vector<cld> &x, int64_t len,
                                bool inverse) {
  const long double two_pi = 6.283185307179586476925286766559L;
  std::vector<cld> tw(static_cast<size_t>(len));
  for (int64_t m = 0; m < len; ++m) {
    const long double a = two_pi * (long double)m / (long double)len;
    tw[size_t(m)] = cld(std::cos(a), inverse ? std::sin(a) : -std::sin(a));
  }
  std::vector<cld> y(static_cast<size_t>(len));
  for (int64_t k = 0; k < len; ++k) {
    cld acc = 0;
    for (int64_t j = 0; j < std::min<int64_t>(int64_t(x.size()), len); ++j)
      acc += x[size_t(j)] * tw[size_t((j * k) % len)];
    y[size_t(k)] = inverse ? acc / (long double)len : acc;
  }
  return y;
}

template <class T>
std::vector<T> naive_dft(const std::vector<T> &x, int64_t outer, int64_t n,
                         int64_t inner, int64_t comps, int64_t len,
                         bool inverse, bool onesided) {
  const int64_t bins = onesided ? len / 2 + 1 : len;
  std::vector<T> y(size_t(outer * bins * inner * 2));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<cld> line(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) {
        const T *v = &x[size_t(((o * n + j) * inner + i) * comps)];
        line[size_t(j)] = cld(v[0], comps > 1 ? v[1] : T(0));
      }
      const auto f = naive_dft_line(line, len, inverse);
      for (int64_t k = 0; k < bins; ++k) {
        const size_t at = size_t(((o * bins + k) * inner + i) * 2);
        y[at] = T(f[size_t(k)].real());
        y[at + 1] = T(f[size_t(k)].imag());
      }
    }
  return y;
}

template <class T> double max_abs(const std::vector<T> &v) {
  double m = 0;
  for (T e : v)
    m = std::max(m, std::fabs(double(e)));
  return m;
}

template <class T>
void check_dft(int64_t outer, int64_t n, int64_t inner, int64_t comps,
               int64_t len, bool inverse, bool onesided, uint64_t seed) {
  const auto x = random_vec<T>(size_t(outer * n * inner * comps), seed);
  const auto want =
      naive_dft(x, outer, n, inner, comps, len, inverse, onesided);
  Guarded<T> y(want.size(), T(-99));
  rt::dft(x.data(), y.data(), outer, n, inner, comps, len, inverse, onesided);
  const double tol = std::is_same<T, float>::value ? 2e-6 : 1e-13;
  EXPECT_TRUE(all_near(y.body(), want, tol, tol * (1.0 + max_abs(want))))
      << outer << "x" << n << "x" << inner << "x" << comps << " L " << len
      << (inverse ? " inverse" : "") << (onesided ? " onesided" : "");
  EXPECT_TRUE(y.intact());
}

template <class T> void dft_sweep(uint64_t seed) {
  for (int64_t n : tail_sizes())
    for (int64_t len : {n, n + 3, n > 2 ? n - 2 : int64_t(1)})
      for (int64_t comps : {1, 2})
        for (bool inv : {false, true})
          for (bool one : {false, true}) {
            check_dft<T>(1, n, 1, comps, len, inv, one, seed++);
            check_dft<T>(2, n, 3, comps, len, inv, one, seed++);
          }
}

TEST(Batch4Dft, Float) { dft_sweep<float>(1000); }
TEST(Batch4Dft, Double) { dft_sweep<double>(2000); }

TEST(Batch4Dft, BeyondTwiddleTable) {
  const int64_t big = rt::detail::kDftTwiddleTable;
  check_dft<double>(1, big, 1, 2, big, false, false, 1);
  check_dft<double>(1, big + 1, 2, 1, big + 1, false, true, 2);
  check_dft<double>(1, 700, 1, 2, 731, true, false, 3);
  check_dft<float>(2, 600, 1, 1, 600, false, false, 4);
}

TEST(Batch4Dft, RoundTrip) {
  for (int64_t n : tail_sizes()) {
    const auto x = random_vec<double>(size_t(3 * n * 2 * 2), uint64_t(n));
    std::vector<double> f(x.size()), b(x.size());
    rt::dft(x.data(), f.data(), 3, n, 2, 2, n, false, false);
    rt::dft(f.data(), b.data(), 3, n, 2, 2, n, true, false);
    EXPECT_TRUE(all_near(b, x, 1e-12, 1e-12)) << n;
  }
}

TEST(Batch4Dft, Degenerate) {
  float y[4] = {5.f, 5.f, 5.f, 5.f};
  const float x[1] = {1.f};
  // n = 0: zero padded to the length, all bins 0.
  rt::dft(x, y, 1, 0, 1, 1, 2, false, false);
  EXPECT_TRUE(all_equal(std::vector<float>(y, y + 4), {0.f, 0.f, 0.f, 0.f}));
  // Length 1: the identity.
  rt::dft(x, y, 1, 1, 1, 1, 1, true, true);
  EXPECT_EQ(y[0], 1.f);
  EXPECT_EQ(y[1], 0.f);
}

TEST(Batch4Dft, Debian) {
  for (const auto &c : batch4_debian::dft_cases()) {
    const int64_t bins = c.onesided ? c.dft_length / 2 + 1 : c.dft_length;
    std::vector<float> y(size_t(c.outer * bins * c.inner * 2));
    ASSERT_EQ(y.size(), c.y.size()) << c.name;
    rt::dft(c.x.data(), y.data(), c.outer, c.n, c.inner, c.in_components,
            c.dft_length, c.inverse, c.onesided);
    EXPECT_TRUE(all_near(y, c.y, 1e-5, 1e-5 * (1.0 + max_abs(c.y)))) << c.name;
  }
}

// --------------------------------------------------------------------- STFT

template <class T>
std::vector<T> naive_stft(const std::vector<T> &sig, const T *window,
                          int64_t batch, int64_t length, int64_t comps,
                          int64_t step, int64_t flen, int64_t frames,
                          bool onesided) {
  const int64_t bins = onesided ? flen / 2 + 1 : flen;
  std::vector<T> y(size_t(batch * frames * bins * 2));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t f = 0; f < frames; ++f) {
      std::vector<cld> frame(static_cast<size_t>(flen));
      for (int64_t j = 0; j < flen; ++j) {
        const int64_t t = f * step + j;
        if (t >= length)
          continue;
        const T *v = &sig[size_t((b * length + t) * comps)];
        const long double w = window ? window[j] : T(1);
        frame[size_t(j)] = cld(v[0] * w, comps > 1 ? v[1] * w : 0.0L);
      }
      const auto fr = naive_dft_line(frame, flen, false);
      for (int64_t k = 0; k < bins; ++k) {
        const size_t at = size_t(((b * frames + f) * bins + k) * 2);
        y[at] = T(fr[size_t(k)].real());
        y[at + 1] = T(fr[size_t(k)].imag());
      }
    }
  return y;
}

template <class T>
void check_stft(int64_t batch, int64_t length, int64_t comps, int64_t step,
                int64_t flen, int64_t frames, bool windowed, bool onesided,
                uint64_t seed) {
  const auto sig = random_vec<T>(size_t(batch * length * comps), seed);
  const auto win = random_vec<T>(size_t(flen), seed + 7, 0.0, 1.0);
  const T *w = windowed ? win.data() : nullptr;
  const auto want =
      naive_stft(sig, w, batch, length, comps, step, flen, frames, onesided);
  Guarded<T> y(want.size(), T(-99));
  rt::stft(sig.data(), w, y.data(), batch, length, comps, step, flen, frames,
           onesided);
  const double tol = std::is_same<T, float>::value ? 2e-6 : 1e-13;
  EXPECT_TRUE(all_near(y.body(), want, tol, tol * (1.0 + max_abs(want))))
      << batch << "x" << length << "x" << comps << " step " << step << " flen "
      << flen << " frames " << frames << (windowed ? " win" : "")
      << (onesided ? " onesided" : "");
  EXPECT_TRUE(y.intact());
}

template <class T> void stft_sweep(uint64_t seed) {
  for (int64_t flen : tail_sizes())
    for (int64_t step : {int64_t(1), flen / 2 + 1, flen + 2})
      for (int64_t comps : {1, 2})
        for (bool win : {false, true})
          for (bool one : {true, false}) {
            const int64_t length = 3 * flen + 5;
            const int64_t frames = (length - flen) / step + 1;
            check_stft<T>(2, length, comps, step, flen, frames, win, one,
                          seed++);
            // Frames running past the signal read zeros.
            check_stft<T>(1, length, comps, step, flen, frames + 2, win, one,
                          seed++);
          }
}

TEST(Batch4Stft, Float) { stft_sweep<float>(5000); }
TEST(Batch4Stft, Double) { stft_sweep<double>(6000); }

TEST(Batch4Stft, Debian) {
  for (const auto &c : batch4_debian::stft_cases()) {
    const int64_t bins = c.onesided ? c.frame_length / 2 + 1 : c.frame_length;
    std::vector<float> y(size_t(c.batch * c.frames * bins * 2));
    ASSERT_EQ(y.size(), c.y.size()) << c.name;
    rt::stft(c.signal.data(), c.window.empty() ? nullptr : c.window.data(),
             y.data(), c.batch, c.length, c.components, c.frame_step,
             c.frame_length, c.frames, c.onesided);
    EXPECT_TRUE(all_near(y, c.y, 1e-5, 1e-5 * (1.0 + max_abs(c.y)))) << c.name;
  }
}

} // namespace
