// Shared helpers for the runtime kernel tests: deterministic data, naive
// index arithmetic (deliberately by division, unlike the kernels) and
// tolerant comparisons.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <unistd.h>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace tract_test {

using Shape = std::vector<int64_t>;

// Sizes that hit the scalar tails of 4/8/16-wide vector loops.
inline const std::vector<int64_t> &tail_sizes() {
  static const std::vector<int64_t> s = {1, 2, 3, 7, 8, 9, 15, 16, 17, 33, 65};
  return s;
}

// Small deterministic generator (xorshift64*), independent of <random>'s
// distribution implementations.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 2654435761u + 0x9E3779B97F4A7C15ull) {}
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ull;
  }
  // Uniform in [lo, hi).
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(next() >> 11) *
                    (1.0 / 9007199254740992.0);
  }
  int64_t range(int64_t lo, int64_t hi) { // [lo, hi]
    return lo +
           static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
};

template <class T>
std::vector<T> random_vec(size_t n, uint64_t seed, double lo = -2.0,
                          double hi = 2.0) {
  Rng r(seed);
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same<T, bool>::value)
      v[i] = (r.next() & 1) != 0;
    else if constexpr (std::is_floating_point<T>::value)
      v[i] = static_cast<T>(r.uniform(lo, hi));
    else
      v[i] = static_cast<T>(
          r.range(static_cast<int64_t>(lo), static_cast<int64_t>(hi)));
  }
  return v;
}

inline int64_t numel(const Shape &s) {
  int64_t n = 1;
  for (auto d : s)
    n *= d;
  return n;
}

inline Shape strides_of(const Shape &s) {
  Shape st(s.size());
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    acc *= s[i];
  }
  return st;
}

// Multi-index of linear position `lin` in shape `s`, by division.
inline Shape unravel(int64_t lin, const Shape &s) {
  Shape idx(s.size());
  for (size_t i = s.size(); i-- > 0;) {
    idx[i] = s[i] ? lin % s[i] : 0;
    lin = s[i] ? lin / s[i] : 0;
  }
  return idx;
}

inline std::string shape_str(const Shape &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

// Relative + absolute tolerance comparison that treats NaN == NaN.
template <class T>
::testing::AssertionResult near(T got, T want, double rtol, double atol) {
  const double g = static_cast<double>(got), w = static_cast<double>(want);
  if (std::isnan(g) && std::isnan(w))
    return ::testing::AssertionSuccess();
  if (g == w)
    return ::testing::AssertionSuccess();
  if (std::fabs(g - w) <= atol + rtol * std::fabs(w))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << g << " want " << w;
}

template <class T>
::testing::AssertionResult all_near(const std::vector<T> &got,
                                    const std::vector<T> &want,
                                    double rtol = 1e-5, double atol = 1e-5) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure()
           << "size " << got.size() << " vs " << want.size();
  for (size_t i = 0; i < got.size(); ++i) {
    auto r = near(got[i], want[i], rtol, atol);
    if (!r)
      return ::testing::AssertionFailure() << "at " << i << ": " << r.message();
  }
  return ::testing::AssertionSuccess();
}

template <class T>
::testing::AssertionResult all_equal(const std::vector<T> &got,
                                     const std::vector<T> &want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure()
           << "size " << got.size() << " vs " << want.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == want[i]))
      return ::testing::AssertionFailure()
             << "at " << i << ": got " << +got[i] << " want " << +want[i];
  return ::testing::AssertionSuccess();
}

// The bytes of a version 1.0 .npy file: magic, the header dict `dict` padded
// to a multiple of 64 bytes, then `body` (for hand-written, possibly broken,
// files).
inline std::string npy_v1(const std::string &dict, const std::string &body) {
  std::string h = dict;
  while ((10 + h.size() + 1) % 64)
    h += ' ';
  h += '\n';
  std::string out = std::string("\x93NUMPY\x01\x00", 8);
  out += char(h.size() & 0xff);
  out += char(h.size() >> 8);
  return out + h + body;
}

// A fresh directory per test (dir_), removed afterwards.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tract-rt-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    if (!dir_.empty()) {
      const int rc = std::system(("rm -rf '" + dir_ + "'").c_str());
      (void)rc;
    }
  }
  std::string path(const std::string &name) const { return dir_ + "/" + name; }
  std::string dir_;
};

} // namespace tract_test
