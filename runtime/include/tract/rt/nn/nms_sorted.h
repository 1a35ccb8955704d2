// tract runtime: f32 NonMaxSuppression on sorted candidates.
//
// The reference (nms_ref.h) needs no scratch, so it finds each next
// candidate by scanning every score again: O(boxes^2) when most boxes are
// visited (torchvision's detectors run one NMS over all classes' boxes at
// once, max_per_class unbounded: RetinaNet's 4405 boxes took 27 ms). Here the
// candidates of a class are sorted once (score descending, index ascending:
// the reference's order), and the boxes kept so far are held as columns
// (corners and area), so the IoU test of a candidate against all of them is
// one vectorisable pass, 32 kept boxes at a time. The IoU arithmetic is
// nms_suppress's, operand for operand (the kept box first): the result is
// the reference's, row for row.
#pragma once

#include "tract/rt/nn/nms_ref.h"

#include <algorithm>
#include <cstring>

namespace tract {
namespace rt {

// Scratch floats non_max_suppression_sorted needs: candidate indices (one
// 32-bit slot each) and five columns of kept boxes.
constexpr int64_t nms_sorted_scratch_floats(int64_t spatial) { return 6 * spatial; }

namespace detail {

// The kept boxes as columns.
struct NmsKept {
  float *x_min, *y_min, *x_max, *y_max, *area;
};

// nms_suppress(kept k, q) for any of kept boxes [k0, k1), without branches.
inline bool nms_any_suppresses(const NmsKept &kept, int64_t k0, int64_t k1,
                               const NmsBox<float> &q, float area_q, float threshold) {
  int hit = 0;
  for (int64_t k = k0; k < k1; ++k) {
    const float ix_min = kept.x_min[k] < q.x_min ? q.x_min : kept.x_min[k];
    const float ix_max = kept.x_max[k] < q.x_max ? kept.x_max[k] : q.x_max;
    const float iy_min = kept.y_min[k] < q.y_min ? q.y_min : kept.y_min[k];
    const float iy_max = kept.y_max[k] < q.y_max ? kept.y_max[k] : q.y_max;
    const float inter = (ix_max - ix_min) * (iy_max - iy_min);
    const float area_p = kept.area[k];
    const float uni = area_p + area_q - inter;
    // (inter / uni is computed for every pair: where a test fails it may be
    // inf or NaN, and is not used.)
    hit |= (ix_min < ix_max) & (iy_min < iy_max) & (inter > 0.0f) & (area_p > 0.0f) &
           (area_q > 0.0f) & (uni > 0.0f) & (inter / uni > threshold);
  }
  return hit != 0;
}

} // namespace detail

// Same contract as non_max_suppression<float> (nms_ref.h), with `scratch`
// of nms_sorted_scratch_floats(spatial) floats.
inline int64_t non_max_suppression_sorted(const float *boxes, const float *scores,
                                          int64_t *selected, int64_t max_rows, int64_t batches,
                                          int64_t classes, int64_t spatial,
                                          int64_t max_per_class, float iou_threshold,
                                          float score_threshold, bool has_score_threshold,
                                          bool center_point_box, float *scratch) {
  if (max_rows < 0)
    max_rows = 0;
  int32_t *order = reinterpret_cast<int32_t *>(scratch);
  const detail::NmsKept kept{scratch + spatial, scratch + 2 * spatial, scratch + 3 * spatial,
                             scratch + 4 * spatial, scratch + 5 * spatial};
  constexpr int64_t kChunk = 32; // kept boxes tested per pass before an early exit
  int64_t count = 0;
  bool full = max_rows == 0;
  if (max_per_class > 0 && spatial > 0)
    for (int64_t b = 0; b < batches && !full; ++b) {
      const float *bx = boxes + b * spatial * 4;
      for (int64_t c = 0; c < classes && !full; ++c) {
        const float *sc = scores + (b * classes + c) * spatial;
        int64_t n = 0;
        for (int64_t i = 0; i < spatial; ++i) {
          const float s = sc[i];
          if (s == s && (!has_score_threshold || s > score_threshold))
            order[n++] = static_cast<int32_t>(i);
        }
        std::sort(order, order + n, [sc](int32_t i, int32_t j) {
          return sc[i] > sc[j] || (sc[i] == sc[j] && i < j);
        });
        int64_t nk = 0;
        for (int64_t o = 0; o < n && nk < max_per_class; ++o) {
          const int64_t i = order[o];
          const detail::NmsBox<float> q = detail::nms_box(bx + 4 * i, center_point_box);
          const float area_q = (q.x_max - q.x_min) * (q.y_max - q.y_min);
          bool suppressed = false;
          for (int64_t k0 = 0; k0 < nk && !suppressed; k0 += kChunk)
            suppressed = detail::nms_any_suppresses(kept, k0, k0 + kChunk < nk ? k0 + kChunk : nk,
                                                    q, area_q, iou_threshold);
          if (suppressed)
            continue;
          if (count >= max_rows) {
            full = true;
            break;
          }
          detail::nms_put_row(selected, count++, b, c, i);
          kept.x_min[nk] = q.x_min;
          kept.y_min[nk] = q.y_min;
          kept.x_max[nk] = q.x_max;
          kept.y_max[nk] = q.y_max;
          kept.area[nk] = area_q;
          ++nk;
        }
      }
    }
  return detail::nms_pad_rows(selected, count, max_rows);
}

} // namespace rt
} // namespace tract
