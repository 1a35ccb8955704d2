// NonMaxSuppression (nn/nms_ref.h) against a naive reference (onnxruntime's
// algorithm with a sorted candidate list and an explicit kept list), the
// ONNX examples from the Debian test data, truncation to max_rows and
// degenerate scores.
#include "tract/rt/nn/nms_ref.h"
#include "tract/rt/nn/nms_sorted.h"

#include "batch3_debian_cases.h"
#include "test_util.h"

#include <algorithm>

using namespace tract_test;
namespace rt = tract::rt;

namespace {

struct NmsP {
  int64_t batches, classes, spatial, max_per_class;
  float iou, score_thr;
  bool has_thr, center;
};

template <class T> double iou(const T *a, const T *b, bool center) {
  auto corners = [center](const T *p, double *c) { // x0 y0 x1 y1
    if (center) {
      c[0] = double(p[0]) - double(p[2]) / 2;
      c[2] = double(p[0]) + double(p[2]) / 2;
      c[1] = double(p[1]) - double(p[3]) / 2;
      c[3] = double(p[1]) + double(p[3]) / 2;
    } else {
      c[0] = std::min(double(p[1]), double(p[3]));
      c[2] = std::max(double(p[1]), double(p[3]));
      c[1] = std::min(double(p[0]), double(p[2]));
      c[3] = std::max(double(p[0]), double(p[2]));
    }
  };
  double p[4], q[4];
  corners(a, p);
  corners(b, q);
  const double iw = std::min(p[2], q[2]) - std::max(p[0], q[0]);
  const double ih = std::min(p[3], q[3]) - std::max(p[1], q[1]);
  if (iw <= 0 || ih <= 0)
    return 0.0;
  const double inter = iw * ih;
  const double ap = (p[2] - p[0]) * (p[3] - p[1]),
               aq = (q[2] - q[0]) * (q[3] - q[1]);
  if (ap <= 0 || aq <= 0)
    return 0.0;
  return inter / (ap + aq - inter);
}

template <class T>
std::vector<int64_t> naive(const NmsP &p, const std::vector<T> &boxes,
                           const std::vector<T> &scores) {
  std::vector<int64_t> out;
  for (int64_t b = 0; b < p.batches; ++b)
    for (int64_t c = 0; c < p.classes; ++c) {
      const T *sc = &scores[size_t((b * p.classes + c) * p.spatial)];
      std::vector<int64_t> cand;
      for (int64_t i = 0; i < p.spatial; ++i)
        if (!std::isnan(double(sc[i])) &&
            (!p.has_thr || double(sc[i]) > double(T(p.score_thr))))
          cand.push_back(i);
      std::sort(cand.begin(), cand.end(), [&](int64_t i, int64_t j) {
        return sc[i] > sc[j] || (sc[i] == sc[j] && i < j);
      });
      std::vector<int64_t> kept;
      for (int64_t i : cand) {
        if (int64_t(kept.size()) >= p.max_per_class)
          break;
        bool sup = false;
        for (int64_t k : kept)
          sup = sup || iou(&boxes[size_t((b * p.spatial + k) * 4)],
                           &boxes[size_t((b * p.spatial + i) * 4)],
                           p.center) > double(p.iou);
        if (!sup)
          kept.push_back(i);
      }
      for (int64_t k : kept)
        out.insert(out.end(), {b, c, k});
    }
  return out;
}

template <class T> void check_random(const NmsP &p, uint64_t seed) {
  Rng r(seed);
  std::vector<T> boxes, scores;
  for (int64_t i = 0; i < p.batches * p.spatial; ++i) {
    // Boxes on a coarse grid so that many overlap; some flipped, some empty.
    const double a = double(r.range(0, 6)), b = double(r.range(0, 6));
    const double h = double(r.range(0, 4)), w = double(r.range(0, 4));
    if (p.center)
      boxes.insert(boxes.end(), {T(a), T(b), T(w), T(h)});
    else if (r.next() % 4 == 0)
      boxes.insert(boxes.end(), {T(a + h), T(b + w), T(a), T(b)});
    else
      boxes.insert(boxes.end(), {T(a), T(b), T(a + h), T(b + w)});
  }
  for (int64_t i = 0; i < p.batches * p.classes * p.spatial; ++i)
    scores.push_back(T(double(r.range(0, 8)) / 8.0)); // many ties
  const auto want = naive(p, boxes, scores);
  const int64_t n = int64_t(want.size()) / 3;
  // Exactly enough rows, more rows (filled with the padding index), and too
  // few rows (a prefix of the result).
  for (int64_t max_rows : {n, n + 3, n / 2}) {
    std::vector<int64_t> sel(size_t(3 * max_rows) + 1, 12345);
    const int64_t got = rt::non_max_suppression(
        boxes.data(), scores.data(), sel.data(), max_rows, p.batches, p.classes,
        p.spatial, p.max_per_class, p.iou, p.score_thr, p.has_thr, p.center);
    ASSERT_EQ(sel.back(), 12345);
    sel.pop_back();
    const int64_t m = std::min(n, max_rows);
    ASSERT_EQ(got, m) << "spatial=" << p.spatial << " max_rows=" << max_rows;
    std::vector<int64_t> w(want.begin(), want.begin() + 3 * m);
    w.resize(size_t(3 * max_rows), rt::kPaddingIndex);
    ASSERT_TRUE(all_equal(sel, w))
        << "spatial=" << p.spatial << " classes=" << p.classes
        << " iou=" << p.iou << " thr=" << p.has_thr << ":" << p.score_thr
        << " center=" << p.center << " max_rows=" << max_rows;
    if constexpr (std::is_same<T, float>::value) {
      // The sorted kernel: the same rows and count.
      std::vector<float> scratch(size_t(rt::nms_sorted_scratch_floats(p.spatial)) + 1, 555.f);
      std::vector<int64_t> sel2(size_t(3 * max_rows) + 1, 12345);
      const int64_t got2 = rt::non_max_suppression_sorted(
          boxes.data(), scores.data(), sel2.data(), max_rows, p.batches, p.classes, p.spatial,
          p.max_per_class, p.iou, p.score_thr, p.has_thr, p.center, scratch.data());
      ASSERT_EQ(sel2.back(), 12345);
      ASSERT_EQ(scratch.back(), 555.f);
      sel2.pop_back();
      ASSERT_EQ(got2, m);
      ASSERT_TRUE(all_equal(sel2, w)) << "sorted: spatial=" << p.spatial << " iou=" << p.iou;
    }
  }
}

} // namespace

TEST(Nms, DebianOnnxCases) {
  const auto &cases = batch3_debian::nms_cases();
  ASSERT_EQ(cases.size(), 9u);
  for (const auto &c : cases) {
    const int64_t rows = int64_t(c.selected.size()) / 3;
    // A buffer with two spare rows: the count is exact, spares are padding.
    std::vector<int64_t> sel(size_t(3 * (rows + 2)), 77);
    const int64_t got = rt::non_max_suppression(
        c.boxes.data(), c.scores.data(), sel.data(), rows + 2, c.batches,
        c.classes, c.spatial, c.max_per_class, c.iou_threshold,
        c.score_threshold, c.has_score_threshold, c.center_point_box);
    EXPECT_EQ(got, rows) << c.name;
    std::vector<int64_t> want = c.selected;
    want.resize(sel.size(), rt::kPaddingIndex);
    EXPECT_TRUE(all_equal(sel, want)) << c.name;
  }
}

TEST(Nms, RandomAgainstNaive) {
  uint64_t seed = 3;
  for (int64_t spatial : {1, 2, 3, 7, 8, 9, 16, 17, 33, 65})
    for (int64_t classes : {1, 3})
      for (int64_t mpc : {0, 1, 2, 5, 1000})
        for (float iou : {0.f, 0.3f, 0.5f, 1.f})
          for (int variant = 0; variant < 3; ++variant) {
            const NmsP p{
                1 + int64_t(seed % 2),     classes,      spatial,     mpc, iou,
                variant == 1 ? 0.4f : 0.f, variant != 0, variant == 2};
            check_random<float>(p, seed);
            if (seed % 4 == 0)
              check_random<double>(p, seed + 1);
            ++seed;
          }
}

// Hundreds of boxes kept per class (the sorted kernel tests them 32 at a
// time), scores with ties and NaNs, center boxes: the sorted kernel's rows
// are the reference's.
TEST(Nms, SortedMatchesReferenceWithManyKept) {
  Rng r(77);
  for (int t = 0; t < 6; ++t) {
    const int64_t spatial = 300 + t * 37, classes = 1 + t % 2;
    const bool center = t % 3 == 2;
    std::vector<float> boxes, scores;
    for (int64_t i = 0; i < spatial; ++i) {
      const float a = float(r.uniform(0, 100)), b = float(r.uniform(0, 100));
      const float h = float(r.uniform(0, 10)), w = float(r.uniform(0, 10));
      if (center)
        boxes.insert(boxes.end(), {a, b, w, h});
      else
        boxes.insert(boxes.end(), {a, b, a + h, b + w});
    }
    for (int64_t i = 0; i < classes * spatial; ++i)
      scores.push_back(i % 29 == 0 ? NAN : float(r.range(0, 50)) / 50.f);
    const int64_t rows = classes * spatial;
    std::vector<int64_t> want(size_t(3 * rows)), got(size_t(3 * rows));
    std::vector<float> scratch(size_t(rt::nms_sorted_scratch_floats(spatial)));
    const float iou = t % 2 ? 0.3f : 0.7f;
    const int64_t n_ref = rt::non_max_suppression(boxes.data(), scores.data(), want.data(), rows,
                                                  1, classes, spatial, spatial, iou, 0.1f, t > 2,
                                                  center);
    const int64_t n = rt::non_max_suppression_sorted(boxes.data(), scores.data(), got.data(),
                                                     rows, 1, classes, spatial, spatial, iou,
                                                     0.1f, t > 2, center, scratch.data());
    EXPECT_GT(n_ref, 64 * classes) << "too few kept to cross the 32-box passes";
    ASSERT_EQ(n, n_ref);
    ASSERT_TRUE(all_equal(got, want)) << "case " << t;
  }
}

TEST(Nms, DegenerateScoresAndBuffers) {
  // NaN scores are never selected; -inf is without a threshold.
  const float boxes[] = {0, 0, 1, 1, 5, 5, 6, 6, 10, 10, 11, 11};
  const float scores[] = {NAN, -INFINITY, 0.5f};
  int64_t sel[9];
  int64_t n = rt::non_max_suppression(boxes, scores, sel, 3, 1, 1, 3, 10, 0.5f,
                                      0.f, false, false);
  EXPECT_EQ(n, 2);
  EXPECT_TRUE(all_equal(std::vector<int64_t>(sel, sel + 9),
                        {0, 0, 2, 0, 0, 1, rt::kPaddingIndex, rt::kPaddingIndex,
                         rt::kPaddingIndex}));
  // The score threshold is strict.
  n = rt::non_max_suppression(boxes, scores, sel, 3, 1, 1, 3, 10, 0.5f, 0.5f,
                              true, false);
  EXPECT_EQ(n, 0);
  EXPECT_TRUE(all_equal(std::vector<int64_t>(sel, sel + 9),
                        std::vector<int64_t>(9, rt::kPaddingIndex)));
  // max_rows 0 writes nothing; negative max_per_class selects nothing.
  sel[0] = 42;
  EXPECT_EQ(rt::non_max_suppression(boxes, scores, sel, 0, 1, 1, 3, 10, 0.5f,
                                    0.f, false, false),
            0);
  EXPECT_EQ(sel[0], 42);
  EXPECT_EQ(rt::non_max_suppression(boxes, scores, sel, 3, 1, 1, 3, -1, 0.5f,
                                    0.f, false, false),
            0);
  // IoU exactly at the threshold does not suppress (strict >): two unit
  // boxes overlapping by half have IoU 1/3.
  const float b2[] = {0, 0, 1, 1, 0, 0.5f, 1, 1.5f};
  const float s2[] = {0.9f, 0.8f};
  int64_t sel2[6];
  EXPECT_EQ(rt::non_max_suppression(b2, s2, sel2, 2, 1, 1, 2, 10, 1.f / 3.f,
                                    0.f, false, false),
            2);
  EXPECT_EQ(rt::non_max_suppression(b2, s2, sel2, 2, 1, 1, 2, 10, 0.33f, 0.f,
                                    false, false),
            1);
}
