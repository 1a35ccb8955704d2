// tract runtime: ONNX NonMaxSuppression (opset 10-11), after onnxruntime.
//
// For every batch and class, boxes are visited by decreasing score (ties:
// lower box index first); with has_score_threshold only scores strictly
// greater than score_threshold are candidates, and NaN scores never are. A
// candidate is kept unless its IoU with a box already kept for that class is
// strictly greater than iou_threshold (boxes with an empty intersection or a
// non-positive area never suppress), until max_per_class boxes are kept.
// Boxes are [y1, x1, y2, x2] with either corner first, or with
// center_point_box [x_center, y_center, width, height]. IoU is computed in T.
//
// No scratch memory: the next candidate is the best box after the previous
// one in (score desc, index asc) order (O(spatial) per step), and the boxes
// kept for the current class are read back from `selected` itself. Rows are
// [batch, class, box]; at most max_rows are written (selection stops when
// they are full, leaving a prefix of ONNX's result), the rest of the
// max_rows rows are set to -1, and the number of rows written is returned.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

namespace detail {

template <class T> struct NmsBox { T x_min, y_min, x_max, y_max; };

template <class T> inline NmsBox<T> nms_box(const T *b, bool center) {
  NmsBox<T> r;
  if (center) {
    const T hw = b[2] / T(2), hh = b[3] / T(2);
    r.x_min = b[0] - hw;
    r.x_max = b[0] + hw;
    r.y_min = b[1] - hh;
    r.y_max = b[1] + hh;
  } else {
    r.x_min = b[1] < b[3] ? b[1] : b[3];
    r.x_max = b[1] < b[3] ? b[3] : b[1];
    r.y_min = b[0] < b[2] ? b[0] : b[2];
    r.y_max = b[0] < b[2] ? b[2] : b[0];
  }
  return r;
}

// onnxruntime's SuppressByIOU: true when IoU(a, b) > threshold.
template <class T>
inline bool nms_suppress(const T *a, const T *b, bool center, T threshold) {
  const NmsBox<T> p = nms_box(a, center), q = nms_box(b, center);
  const T ix_min = p.x_min < q.x_min ? q.x_min : p.x_min;
  const T ix_max = p.x_max < q.x_max ? p.x_max : q.x_max;
  if (!(ix_min < ix_max))
    return false;
  const T iy_min = p.y_min < q.y_min ? q.y_min : p.y_min;
  const T iy_max = p.y_max < q.y_max ? p.y_max : q.y_max;
  if (!(iy_min < iy_max))
    return false;
  const T inter = (ix_max - ix_min) * (iy_max - iy_min);
  if (!(inter > T(0)))
    return false;
  const T area_p = (p.x_max - p.x_min) * (p.y_max - p.y_min);
  const T area_q = (q.x_max - q.x_min) * (q.y_max - q.y_min);
  const T uni = area_p + area_q - inter;
  if (!(area_p > T(0)) || !(area_q > T(0)) || !(uni > T(0)))
    return false;
  return inter / uni > threshold;
}

// Row `count` of `selected` is [b, c, box].
inline void nms_put_row(int64_t *selected, int64_t count, int64_t b, int64_t c, int64_t box) {
  selected[3 * count] = b;
  selected[3 * count + 1] = c;
  selected[3 * count + 2] = box;
}

// Rows [count, max_rows) of `selected` as padding; returns count.
inline int64_t nms_pad_rows(int64_t *selected, int64_t count, int64_t max_rows) {
  for (int64_t k = 3 * count; k < 3 * max_rows; ++k)
    selected[k] = kPaddingIndex;
  return count;
}

} // namespace detail

template <class T>
int64_t non_max_suppression(const T *boxes /*[batches,spatial,4]*/,
                            const T *scores /*[batches,classes,spatial]*/,
                            int64_t *selected /*[max_rows,3]*/,
                            int64_t max_rows, int64_t batches, int64_t classes,
                            int64_t spatial, int64_t max_per_class,
                            float iou_threshold, float score_threshold,
                            bool has_score_threshold, bool center_point_box) {
  if (max_rows < 0)
    max_rows = 0;
  const T iou_thr = static_cast<T>(iou_threshold);
  const T score_thr = static_cast<T>(score_threshold);
  int64_t count = 0;
  bool full = max_rows == 0;
  if (max_per_class > 0 && spatial > 0)
    for (int64_t b = 0; b < batches && !full; ++b) {
      const T *bx = boxes + b * spatial * 4;
      for (int64_t c = 0; c < classes && !full; ++c) {
        const T *sc = scores + (b * classes + c) * spatial;
        const int64_t first = count; // rows [first, count) kept for (b, c)
        bool have_prev = false;
        T prev_s = T(0);
        int64_t prev_i = 0;
        while (count - first < max_per_class) {
          int64_t best = -1;
          T best_s = T(0);
          for (int64_t i = 0; i < spatial; ++i) {
            const T s = sc[i];
            if (!(s == s))
              continue; // NaN
            if (has_score_threshold && !(s > score_thr))
              continue;
            if (have_prev && !(s < prev_s || (s == prev_s && i > prev_i)))
              continue;
            if (best < 0 || best_s < s) {
              best = i;
              best_s = s;
            }
          }
          if (best < 0)
            break;
          have_prev = true;
          prev_s = best_s;
          prev_i = best;
          bool suppressed = false;
          for (int64_t k = first; k < count && !suppressed; ++k)
            suppressed =
                detail::nms_suppress(bx + 4 * selected[3 * k + 2],
                                     bx + 4 * best, center_point_box, iou_thr);
          if (suppressed)
            continue;
          if (count >= max_rows) {
            full = true;
            break;
          }
          detail::nms_put_row(selected, count++, b, c, best);
        }
      }
    }
  return detail::nms_pad_rows(selected, count, max_rows);
}

} // namespace rt
} // namespace tract
