#include "tract/rt/linalg/matmul_ref.h"

#include "test_util.h"

using namespace tract_test;
namespace rt = tract::rt;

namespace {

// Layout of one operand matrix inside its buffer.
enum class Layout { RowMajor, ColMajor, Padded };

struct Mat {
  int64_t rs, cs, size; // strides and elements per matrix
};

Mat layout(Layout l, int64_t rows, int64_t cols) {
  switch (l) {
  case Layout::RowMajor:
    return {cols, 1, rows * cols};
  case Layout::ColMajor:
    return {1, rows, rows * cols};
  case Layout::Padded: // row stride > cols, column stride 2
    return {2 * cols + 3, 2, rows * (2 * cols + 3)};
  }
  return {0, 0, 0};
}

// Naive reference in double (or int64 for integers), one dot per output.
template <class T>
std::vector<T> naive_mm(const std::vector<T> &a, const std::vector<T> &b,
                        const Shape &batch, const Shape &a_bst,
                        const Shape &b_bst, int64_t m, int64_t n, int64_t k,
                        Mat A, Mat B) {
  std::vector<T> c(size_t(numel(batch) * m * n));
  for (int64_t bi = 0; bi < numel(batch); ++bi) {
    const Shape idx = unravel(bi, batch);
    int64_t ao = 0, bo = 0;
    for (size_t d = 0; d < batch.size(); ++d) {
      ao += idx[d] * a_bst[d];
      bo += idx[d] * b_bst[d];
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        if constexpr (std::is_floating_point<T>::value) {
          double s = 0;
          for (int64_t p = 0; p < k; ++p)
            s += double(a[size_t(ao + i * A.rs + p * A.cs)]) *
                 double(b[size_t(bo + p * B.rs + j * B.cs)]);
          c[size_t((bi * m + i) * n + j)] = T(s);
        } else {
          uint64_t s = 0;
          for (int64_t p = 0; p < k; ++p)
            s += uint64_t(int64_t(a[size_t(ao + i * A.rs + p * A.cs)])) *
                 uint64_t(int64_t(b[size_t(bo + p * B.rs + j * B.cs)]));
          c[size_t((bi * m + i) * n + j)] = T(s);
        }
      }
  }
  return c;
}

template <class T>
void check_mm(int64_t m, int64_t n, int64_t k, Layout la, Layout lb,
              const Shape &batch, const Shape &a_bcast, const Shape &b_bcast,
              uint64_t seed, double tol) {
  const Mat A = layout(la, m, k), B = layout(lb, k, n);
  // Batch strides over each operand's own (possibly broadcast) batch shape.
  Shape a_bst(batch.size()), b_bst(batch.size());
  int64_t an = A.size, bn = B.size;
  for (size_t d = batch.size(); d-- > 0;) {
    a_bst[d] = a_bcast[d] ? 0 : an;
    b_bst[d] = b_bcast[d] ? 0 : bn;
    an *= a_bcast[d] ? 1 : batch[d];
    bn *= b_bcast[d] ? 1 : batch[d];
  }
  const auto a = random_vec<T>(size_t(an), seed, -3, 3);
  const auto b = random_vec<T>(size_t(bn), seed + 1, -3, 3);
  std::vector<T> c(size_t(numel(batch) * m * n), T(-77));
  rt::matmul(a.data(), b.data(), c.data(), int(batch.size()), batch.data(),
             a_bst.data(), b_bst.data(), m, n, k, A.rs, A.cs, B.rs, B.cs);
  const auto want = naive_mm(a, b, batch, a_bst, b_bst, m, n, k, A, B);
  ASSERT_TRUE(all_near(c, want, tol, tol))
      << "m=" << m << " n=" << n << " k=" << k << " la=" << int(la)
      << " lb=" << int(lb) << " batch=" << shape_str(batch);
}

} // namespace

TEST(MatMul, TailSizesAllLayouts) {
  const int64_t sizes[] = {1, 3, 7, 8, 9, 17, 33, 65, 70};
  const Layout ls[] = {Layout::RowMajor, Layout::ColMajor, Layout::Padded};
  uint64_t seed = 1;
  for (int64_t m : {int64_t(1), int64_t(3), int64_t(9)})
    for (int64_t n : sizes)
      for (int64_t k : {int64_t(1), int64_t(8), int64_t(17)})
        for (Layout la : ls)
          for (Layout lb : ls)
            check_mm<float>(m, n, k, la, lb, {}, {}, {}, seed++, 1e-4);
  for (int64_t m : sizes)
    check_mm<double>(m, 5, 33, Layout::RowMajor, Layout::RowMajor, {}, {}, {},
                     seed++, 1e-12);
}

TEST(MatMul, BatchedWithBroadcast) {
  uint64_t seed = 100;
  check_mm<float>(3, 4, 5, Layout::RowMajor, Layout::RowMajor, {2}, {0}, {0},
                  seed++, 1e-4);
  check_mm<float>(3, 4, 5, Layout::RowMajor, Layout::ColMajor, {2, 3}, {0, 1},
                  {1, 0}, seed++, 1e-4);
  check_mm<float>(7, 9, 2, Layout::ColMajor, Layout::RowMajor, {3, 1, 2},
                  {1, 0, 0}, {0, 0, 1}, seed++, 1e-4);
  check_mm<double>(1, 17, 8, Layout::Padded, Layout::Padded, {4}, {0}, {1},
                   seed++, 1e-12);
  check_mm<int32_t>(5, 6, 7, Layout::RowMajor, Layout::ColMajor, {2, 2}, {0, 1},
                    {0, 0}, seed++, 0);
}

TEST(MatMul, Integers) {
  uint64_t seed = 200;
  for (int64_t n : tail_sizes()) {
    check_mm<int8_t>(3, n, 9, Layout::RowMajor, Layout::RowMajor, {}, {}, {},
                     seed++, 0);
    check_mm<uint8_t>(2, n, 4, Layout::RowMajor, Layout::ColMajor, {}, {}, {},
                      seed++, 0);
    check_mm<int64_t>(4, n, 3, Layout::ColMajor, Layout::RowMajor, {}, {}, {},
                      seed++, 0);
  }
  // Wrapping accumulation of large int32 values matches modular arithmetic.
  const int32_t a[2] = {INT32_MAX, INT32_MAX};
  const int32_t b[2] = {2, 2};
  int32_t c = 0;
  rt::matmul(a, b, &c, 0, nullptr, nullptr, nullptr, 1, 1, 2, 2, 1, 1, 1);
  EXPECT_EQ(c, int32_t(uint32_t(INT32_MAX) * 4u));
}

TEST(MatMul, DegenerateSizes) {
  // k == 0 gives zeros; m or n == 0 writes nothing.
  std::vector<float> c(6, 5.f);
  rt::matmul<float>(nullptr, nullptr, c.data(), 0, nullptr, nullptr, nullptr, 2,
                    3, 0, 0, 1, 3, 1);
  EXPECT_EQ(c, std::vector<float>(6, 0.f));
  std::vector<float> d(1, 5.f);
  rt::matmul<float>(nullptr, nullptr, d.data(), 0, nullptr, nullptr, nullptr, 0,
                    3, 4, 4, 1, 3, 1);
  EXPECT_EQ(d[0], 5.f);
  const Shape batch = {2, 0};
  const Shape z = {0, 0};
  rt::matmul<float>(nullptr, nullptr, d.data(), 2, batch.data(), z.data(),
                    z.data(), 1, 1, 1, 1, 1, 1, 1);
  EXPECT_EQ(d[0], 5.f);
}

TEST(MatMul, HandComputed) {
  // [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]]
  const float a[] = {1, 2, 3, 4, 5, 6};
  const float b[] = {7, 8, 9, 10, 11, 12};
  float c[4];
  rt::matmul(a, b, c, 0, nullptr, nullptr, nullptr, 2, 2, 3, 3, 1, 2, 1);
  EXPECT_EQ(c[0], 58);
  EXPECT_EQ(c[1], 64);
  EXPECT_EQ(c[2], 139);
  EXPECT_EQ(c[3], 154);
}
