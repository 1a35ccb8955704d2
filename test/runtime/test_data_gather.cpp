#include "tract/rt/data/gather_ref.h"
#include "tract/rt/data/trilu_ref.h"

#include "test_util.h"

using namespace tract_test;
namespace rt = tract::rt;

TEST(Gather, NegativeWrapAndOutOfRangeZero) {
  for (int64_t inner : {int64_t(1), int64_t(3), int64_t(8), int64_t(17)})
    for (int64_t axis : {int64_t(1), int64_t(5)}) {
      const int64_t outer = 3;
      const auto x = random_vec<float>(size_t(outer * axis * inner),
                                       uint64_t(inner * 7 + axis));
      const std::vector<int64_t> idx = {0, axis - 1,  -1,      -axis,
                                        2, -axis - 3, axis + 4,
                                        rt::kPaddingIndex};
      const int64_t ni = int64_t(idx.size());
      std::vector<float> y(size_t(outer * ni * inner));
      rt::gather(x.data(), idx.data(), y.data(), outer, axis, inner, ni);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < ni; ++j) {
          int64_t k = idx[size_t(j)];
          if (k < 0)
            k += axis;
          const bool in_range = k >= 0 && k < axis;
          for (int64_t i = 0; i < inner; ++i)
            ASSERT_EQ(y[size_t((o * ni + j) * inner + i)],
                      in_range ? x[size_t((o * axis + k) * inner + i)] : 0.f);
        }
      // 32-bit indices too.
      // 32-bit indices too (the padding index cast to int32 stays out of range).
      const std::vector<int32_t> idx32 = {-1, 0,
                                          static_cast<int32_t>(rt::kPaddingIndex)};
      std::vector<float> y2(size_t(outer * 3 * inner));
      rt::gather(x.data(), idx32.data(), y2.data(), outer, axis, inner, 3);
      ASSERT_EQ(y2[0], x[size_t((axis - 1) * inner)]);
      ASSERT_EQ(y2[size_t(2 * inner)], 0.f);
    }
  // Empty axis: filled with T() instead of reading anything.
  const int64_t idx = 0;
  float y[2] = {5, 5};
  rt::gather(static_cast<const float *>(nullptr), &idx, y, 1, 0, 2, 1);
  EXPECT_EQ(y[0], 0.f);
}

TEST(GatherElements, AllAxes) {
  Rng r(8);
  for (int rank = 1; rank <= 4; ++rank)
    for (int axis = 0; axis < rank; ++axis)
      for (int t = 0; t < 10; ++t) {
        Shape xs(static_cast<size_t>(rank)), is(static_cast<size_t>(rank));
        for (int d = 0; d < rank; ++d) {
          xs[size_t(d)] = r.range(1, 5);
          is[size_t(d)] = d == axis ? r.range(1, 7) : r.range(1, xs[size_t(d)]);
        }
        const auto x =
            random_vec<int32_t>(size_t(numel(xs)), r.next(), -100, 100);
        std::vector<int64_t> idx(size_t(numel(is)));
        for (auto &v : idx)
          v = r.range(-xs[size_t(axis)], xs[size_t(axis)] - 1);
        std::vector<int32_t> y(idx.size());
        rt::gather_elements(x.data(), idx.data(), y.data(), xs.data(),
                            is.data(), rank, axis);
        for (int64_t k = 0; k < numel(is); ++k) {
          Shape p = unravel(k, is);
          int64_t j = idx[size_t(k)];
          p[size_t(axis)] = j < 0 ? j + xs[size_t(axis)] : j;
          int64_t lin = 0;
          for (int d = 0; d < rank; ++d)
            lin = lin * xs[size_t(d)] + p[size_t(d)];
          ASSERT_EQ(y[size_t(k)], x[size_t(lin)]);
        }
      }
  // ONNX doc example: axis = 1.
  const float x[] = {1, 2, 3, 4};
  const int64_t idx[] = {0, 0, 1, 0};
  const int64_t s[] = {2, 2};
  float y[4];
  rt::gather_elements(x, idx, y, s, s, 2, 1);
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{1, 1, 4, 3}));
}

TEST(Trilu, UpperLowerAllDiagonals) {
  for (int64_t rows : {int64_t(1), int64_t(3), int64_t(8), int64_t(9)})
    for (int64_t cols : {int64_t(1), int64_t(4), int64_t(17)})
      for (int64_t k = -10; k <= 18; k += 2)
        for (bool upper : {false, true}) {
          const int64_t batch = 2;
          const auto x = random_vec<float>(size_t(batch * rows * cols),
                                           uint64_t(rows * cols), 1, 2);
          std::vector<float> y(x.size(), -1.f);
          rt::trilu(x.data(), y.data(), batch, rows, cols, k, upper);
          for (int64_t b = 0; b < batch; ++b)
            for (int64_t i = 0; i < rows; ++i)
              for (int64_t j = 0; j < cols; ++j) {
                const size_t p = size_t((b * rows + i) * cols + j);
                const bool keep = upper ? j - i >= k : j - i <= k;
                ASSERT_EQ(y[p], keep ? x[p] : 0.f)
                    << rows << "x" << cols << " k=" << k << " upper=" << upper;
              }
        }
}
