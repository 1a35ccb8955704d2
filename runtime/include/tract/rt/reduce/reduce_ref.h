// tract runtime: reference reductions (ONNX Reduce*, ArgMax/ArgMin, CumSum).
//
// A reducer is a struct with
//   template <class T> static T init();              // identity
//   template <class T> static T step(T acc, T x);
//   template <class T> static T finish(T acc, int64_t count);
// Accumulation is in T (wrapping for integers). ReduceLogSumExp is special-
// cased: it subtracts the per-output max first, so it takes two passes.
#pragma once

#include <cstring>

#include "tract/rt/common.h"

namespace tract {
namespace rt {

namespace op {

struct ReduceSum {
  template <class T> static T init() { return T(0); }
  template <class T> static T step(T acc, T x) {
    return rt::detail::wrap_add(acc, x);
  }
  template <class T> static T finish(T acc, int64_t) { return acc; }
};

// An empty ReduceMean gives 0 (the sum's identity) rather than 0/0.
struct ReduceMean {
  template <class T> static T init() { return T(0); }
  template <class T> static T step(T acc, T x) {
    return rt::detail::wrap_add(acc, x);
  }
  template <class T> static T finish(T acc, int64_t count) {
    if (count <= 0)
      return acc;
    if constexpr (std::is_floating_point<T>::value)
      return acc / static_cast<T>(count);
    else if constexpr (std::is_signed<T>::value)
      return static_cast<T>(static_cast<int64_t>(acc) / count);
    else
      return static_cast<T>(static_cast<uint64_t>(acc) /
                            static_cast<uint64_t>(count));
  }
};

// NaN-propagating, like numpy.
struct ReduceMax {
  template <class T> static T init() {
    return rt::detail::lowest_or_neg_inf<T>();
  }
  template <class T> static T step(T acc, T x) {
    return (acc < x || rt::detail::is_nan(x)) ? x : acc;
  }
  template <class T> static T finish(T acc, int64_t) { return acc; }
};

struct ReduceMin {
  template <class T> static T init() { return rt::detail::max_or_inf<T>(); }
  template <class T> static T step(T acc, T x) {
    return (x < acc || rt::detail::is_nan(x)) ? x : acc;
  }
  template <class T> static T finish(T acc, int64_t) { return acc; }
};

struct ReduceProd {
  template <class T> static T init() { return T(1); }
  template <class T> static T step(T acc, T x) {
    return rt::detail::wrap_mul(acc, x);
  }
  template <class T> static T finish(T acc, int64_t) { return acc; }
};

struct ReduceSumSquare {
  template <class T> static T init() { return T(0); }
  template <class T> static T step(T acc, T x) {
    return rt::detail::madd(acc, x, x);
  }
  template <class T> static T finish(T acc, int64_t) { return acc; }
};

struct ReduceL1 {
  template <class T> static T init() { return T(0); }
  template <class T> static T step(T acc, T x) {
    if constexpr (std::is_floating_point<T>::value)
      return acc + std::fabs(x);
    else if constexpr (std::is_signed<T>::value)
      return rt::detail::wrap_add(acc,
                                  x < T(0) ? rt::detail::wrap_sub(T(0), x) : x);
    else
      return rt::detail::wrap_add(acc, x);
  }
  template <class T> static T finish(T acc, int64_t) { return acc; }
};

struct ReduceL2 {
  template <class T> static T init() { return T(0); }
  template <class T> static T step(T acc, T x) {
    return rt::detail::madd(acc, x, x);
  }
  template <class T> static T finish(T acc, int64_t) {
    return rt::detail::via_float(acc, [](auto v) { return std::sqrt(v); });
  }
};

// log(sum x); an empty reduction gives log(0) = -inf.
struct ReduceLogSum {
  template <class T> static T init() { return T(0); }
  template <class T> static T step(T acc, T x) {
    return rt::detail::wrap_add(acc, x);
  }
  template <class T> static T finish(T acc, int64_t) {
    return rt::detail::via_float(acc, [](auto v) { return std::log(v); });
  }
};

// max + log(sum exp(x - max)); an empty reduction gives -inf. Only the
// interface is used by the two-pass path in reduce().
struct ReduceLogSumExp {
  template <class T> static T init() {
    return rt::detail::lowest_or_neg_inf<T>();
  }
  template <class T> static T step(T acc, T x) {
    return ReduceMax::step(acc, x);
  }
  template <class T> static T finish(T acc, int64_t) { return acc; }
};

} // namespace op

namespace detail {

// max + log(sum exp(x - max)) for each output, walking the reduced elements
// of one output with strided access.
template <class T>
inline void reduce_log_sum_exp(const T *x, const int64_t *in_shape, int rank,
                               uint32_t axes_mask, T *y) {
  int64_t xs[kMaxRank], kept[kMaxRank], red[kMaxRank];
  contiguous_strides(in_shape, rank, xs);
  for (int d = 0; d < rank; ++d) {
    const bool m = (axes_mask >> d) & 1u;
    kept[d] = m ? 1 : in_shape[d];
    red[d] = m ? in_shape[d] : 1;
  }
  const int64_t *st[1] = {xs};
  for_each_row<1>(
      kept, rank, st,
      [&](int64_t pos, const int64_t *off, int64_t len, const int64_t *inc) {
        for (int64_t i = 0; i < len; ++i) {
          const T *xb = x + off[0] + i * inc[0];
          T m = lowest_or_neg_inf<T>();
          bool any = false;
          for_each_row<1>(
              red, rank, st,
              [&](int64_t, const int64_t *o2, int64_t l2, const int64_t *i2) {
                any = true;
                for (int64_t j = 0; j < l2; ++j)
                  m = op::ReduceMax::step(m, xb[o2[0] + j * i2[0]]);
              });
          T r;
          if (!any || is_nan(m)) {
            r = m;
          } else if (std::isinf(static_cast<double>(m))) {
            r = m; // all -inf gives -inf; any +inf gives +inf
          } else {
            double s = 0.0;
            for_each_row<1>(
                red, rank, st,
                [&](int64_t, const int64_t *o2, int64_t l2, const int64_t *i2) {
                  for (int64_t j = 0; j < l2; ++j)
                    s += std::exp(static_cast<double>(xb[o2[0] + j * i2[0]]) -
                                  static_cast<double>(m));
                });
            r = via_float(m, [s](auto v) {
              return v + static_cast<decltype(v)>(std::log(s));
            });
          }
          y[pos + i] = r;
        }
      });
}

} // namespace detail

namespace detail {

// The float sum of n contiguous values (common.h's lane_sums: a global
// average pool over a 112x112 plane ran at 1.3 GFLOP/s as one running sum).
template <class T> inline T sum_in_lanes(const T *x, int64_t n) {
  T sum, squares;
  lane_sums(x, n, T(0), &sum, &squares);
  return sum;
}

} // namespace detail

// y has in_shape with the axes in axes_mask (bit d = axis d) set to 1.
// x is walked in memory order and folded into y.
template <class Op, class T>
void reduce(const T *x, const int64_t *in_shape, int rank, uint32_t axes_mask,
            T *y) {
  if (rank > kMaxRank)
    return;
  if (std::is_same<Op, op::ReduceLogSumExp>::value) {
    detail::reduce_log_sum_exp(x, in_shape, rank, axes_mask, y);
    return;
  }
  int64_t yshape[kMaxRank], ys[kMaxRank];
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    const bool m = (axes_mask >> d) & 1u;
    yshape[d] = m ? 1 : in_shape[d];
    if (m)
      count *= in_shape[d];
  }
  if constexpr (std::is_floating_point<T>::value &&
                (std::is_same<Op, op::ReduceSum>::value ||
                 std::is_same<Op, op::ReduceMean>::value)) {
    // The trailing dims reduced (a global average pool): each output is one
    // contiguous run of `count` values.
    int lead = rank;
    while (lead > 0 && ((axes_mask >> (lead - 1)) & 1u))
      --lead;
    if (lead < rank && (axes_mask & ((uint32_t(1) << lead) - 1u)) == 0) {
      const int64_t outer = num_elements(yshape, rank);
      for (int64_t o = 0; o < outer; ++o)
        y[o] = Op::finish(detail::sum_in_lanes(x + o * count, count), count);
      return;
    }
  }
  contiguous_strides(yshape, rank, ys);
  for (int d = 0; d < rank; ++d)
    if ((axes_mask >> d) & 1u)
      ys[d] = 0;
  const int64_t ny = num_elements(yshape, rank);
  for (int64_t i = 0; i < ny; ++i)
    y[i] = Op::template init<T>();
  const int64_t *st[1] = {ys};
  detail::for_each_row<1>(
      in_shape, rank, st,
      [&](int64_t pos, const int64_t *off, int64_t len, const int64_t *inc) {
        const T *xp = x + pos;
        T *yp = y + off[0];
        if constexpr (std::is_floating_point<T>::value &&
                      (std::is_same<Op, op::ReduceSum>::value ||
                       std::is_same<Op, op::ReduceMean>::value)) {
          if (inc[0] == 0) {
            *yp += detail::sum_in_lanes(xp, len);
            return;
          }
        }
        if (inc[0] == 0) {
          T acc = *yp;
          for (int64_t i = 0; i < len; ++i)
            acc = Op::step(acc, xp[i]);
          *yp = acc;
        } else {
          for (int64_t i = 0; i < len; ++i)
            yp[i * inc[0]] = Op::step(yp[i * inc[0]], xp[i]);
        }
      });
  for (int64_t i = 0; i < ny; ++i)
    y[i] = Op::finish(y[i], count);
}

// reduce() with the axes read at run time (n_axes entries of int32/int64;
// negative ones wrap once, ones still outside [0, rank) are ignored,
// repeats are harmless). No axes (n_axes <= 0 or axes == nullptr) reduces
// every axis, or with noop_with_empty_axes none: that is a copy for
// ReduceSum/Mean/Max/Min/Prod/LogSumExp and the reducer applied to each
// element on its own for the others (x*x, |x|, log x), like the ONNX
// reference for opset 18. y is in keepdims layout. rank > kMaxRank does
// nothing.
template <class Op, class T, class TA>
void reduce_dynamic(const T *x, const int64_t *in_shape, int rank,
                    const TA *axes, int64_t n_axes, bool noop_with_empty_axes,
                    T *y) {
  if (rank < 0 || rank > kMaxRank)
    return;
  uint32_t mask = 0;
  if (axes == nullptr || n_axes <= 0) {
    if (!noop_with_empty_axes)
      mask = (uint32_t(1) << rank) - 1u;
  } else {
    for (int64_t i = 0; i < n_axes; ++i) {
      int64_t a = static_cast<int64_t>(axes[i]);
      if (a < 0)
        a += rank;
      if (a >= 0 && a < rank)
        mask |= uint32_t(1) << a;
    }
  }
  reduce<Op>(x, in_shape, rank, mask, y);
}

// x [outer, axis_len, inner] -> y [outer, inner]: index of the max (is_max) or
// min along the axis; ties take the first index, or the last with
// select_last. An empty axis gives 0.
template <class T, class TI>
void arg_reduce(const T *x, TI *y, int64_t outer, int64_t axis_len,
                int64_t inner, bool is_max, bool select_last) {
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T *xp = x + o * axis_len * inner + i;
      int64_t best_i = 0;
      if (axis_len > 0) {
        T best = xp[0];
        for (int64_t j = 1; j < axis_len; ++j) {
          const T v = xp[j * inner];
          const bool better = is_max ? (select_last ? !(v < best) : best < v)
                                     : (select_last ? !(best < v) : v < best);
          if (better) {
            best = v;
            best_i = j;
          }
        }
      }
      y[o * inner + i] = static_cast<TI>(best_i);
    }
  }
}

// Inclusive (or exclusive) prefix sum along the axis of x [outer, axis_len,
// inner], optionally from the end. y's previous row is the running sum, so
// every pass is over contiguous rows of `inner` elements.
template <class T>
void cumsum(const T *x, T *y, int64_t outer, int64_t axis_len, int64_t inner,
            bool exclusive, bool reverse) {
  for (int64_t o = 0; o < outer; ++o) {
    const T *xb = x + o * axis_len * inner;
    T *yb = y + o * axis_len * inner;
    for (int64_t t = 0; t < axis_len; ++t) {
      const int64_t j = reverse ? axis_len - 1 - t : t;
      const int64_t prev = reverse ? j + 1 : j - 1;
      T *yr = yb + j * inner;
      if (t == 0) {
        for (int64_t i = 0; i < inner; ++i)
          yr[i] = exclusive ? T(0) : xb[j * inner + i];
      } else {
        const T *yp = yb + prev * inner;
        const T *xr = xb + (exclusive ? prev : j) * inner;
        for (int64_t i = 0; i < inner; ++i)
          yr[i] = detail::wrap_add(yp[i], xr[i]);
      }
    }
  }
}

// CumSum with the axis read at run time from the 0-d tensor `axis` (int32 or
// int64; negative wraps once). An axis still out of range (or rank 0) copies
// x to y. Same in-place rules as cumsum.
template <class T, class TA>
void cumsum_axis(const T *x, const TA *axis, T *y, const int64_t *shape,
                 int rank, bool exclusive, bool reverse) {
  if (rank < 0 || rank > kMaxRank)
    return;
  int64_t a = static_cast<int64_t>(*axis);
  if (a < 0)
    a += rank;
  if (a < 0 || a >= rank) {
    const int64_t n = num_elements(shape, rank);
    if (n > 0 && x != y)
      std::memmove(static_cast<void *>(y), static_cast<const void *>(x),
                   static_cast<size_t>(n) * sizeof(T));
    return;
  }
  const int ai = static_cast<int>(a);
  cumsum(x, y, num_elements(shape, ai), shape[ai],
         num_elements(shape + ai + 1, rank - ai - 1), exclusive, reverse);
}

} // namespace rt
} // namespace tract
