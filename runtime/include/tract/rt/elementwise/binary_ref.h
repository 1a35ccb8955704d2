// tract runtime: element-wise binary / ternary kernels with N-d broadcasting,
// and the ONNX binary functors.
//
// Integer functors never trap: +,-,* wrap (two's complement), division or
// modulo by zero gives 0, INT_MIN / -1 gives INT_MIN and INT_MIN % -1 gives 0,
// shifts by >= the bit width give 0.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

// y[i] = f(a[i], b[i]) for i in [0, n).
template <class TA, class TB, class TO, class F>
void binary_flat(const TA *a, const TB *b, TO *y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<TO>(f(a[i], b[i]));
}

// y (contiguous, shape y_shape) = f(a, b) with a and b read through per-dim
// strides (0 = broadcast).
template <class TA, class TB, class TO, class F>
void binary_bcast(const TA *a, const int64_t *a_strides, const TB *b,
                  const int64_t *b_strides, TO *y, const int64_t *y_shape,
                  int rank, F f) {
  const int64_t *st[2] = {a_strides, b_strides};
  detail::for_each_row<2>(
      y_shape, rank, st,
      [&](int64_t pos, const int64_t *off, int64_t len, const int64_t *inc) {
        const TA *ap = a + off[0];
        const TB *bp = b + off[1];
        TO *yp = y + pos;
        // The common layouts get their own loop so they vectorise.
        if (inc[0] == 1 && inc[1] == 1) {
          for (int64_t i = 0; i < len; ++i)
            yp[i] = static_cast<TO>(f(ap[i], bp[i]));
        } else if (inc[0] == 1 && inc[1] == 0) {
          const TB bv = *bp;
          for (int64_t i = 0; i < len; ++i)
            yp[i] = static_cast<TO>(f(ap[i], bv));
        } else if (inc[0] == 0 && inc[1] == 1) {
          const TA av = *ap;
          for (int64_t i = 0; i < len; ++i)
            yp[i] = static_cast<TO>(f(av, bp[i]));
        } else {
          for (int64_t i = 0; i < len; ++i)
            yp[i] = static_cast<TO>(f(ap[i * inc[0]], bp[i * inc[1]]));
        }
      });
}

// y = cond ? a : b, all three broadcast to y_shape.
template <class TC, class T>
void select_bcast(const TC *cond, const int64_t *c_strides, const T *a,
                  const int64_t *a_strides, const T *b,
                  const int64_t *b_strides, T *y, const int64_t *y_shape,
                  int rank) {
  const int64_t *st[3] = {c_strides, a_strides, b_strides};
  detail::for_each_row<3>(
      y_shape, rank, st,
      [&](int64_t pos, const int64_t *off, int64_t len, const int64_t *inc) {
        const TC *cp = cond + off[0];
        const T *ap = a + off[1];
        const T *bp = b + off[2];
        T *yp = y + pos;
        if (inc[0] == 1 && inc[1] == 1 && inc[2] == 1) {
          for (int64_t i = 0; i < len; ++i)
            yp[i] = cp[i] ? ap[i] : bp[i];
        } else {
          for (int64_t i = 0; i < len; ++i)
            yp[i] = cp[i * inc[0]] ? ap[i * inc[1]] : bp[i * inc[2]];
        }
      });
}

// ONNX Expand: y (contiguous, shape y_shape) = x read through x_strides.
template <class T>
void broadcast(const T *x, const int64_t *x_strides, T *y,
               const int64_t *y_shape, int rank) {
  const int64_t *st[1] = {x_strides};
  detail::for_each_row<1>(
      y_shape, rank, st,
      [&](int64_t pos, const int64_t *off, int64_t len, const int64_t *inc) {
        const T *xp = x + off[0];
        T *yp = y + pos;
        if (inc[0] == 0) {
          const T v = *xp;
          for (int64_t i = 0; i < len; ++i)
            yp[i] = v;
        } else {
          for (int64_t i = 0; i < len; ++i)
            yp[i] = xp[i * inc[0]];
        }
      });
}

namespace op {

namespace detail_b {
template <class T> constexpr bool is_flt = std::is_floating_point<T>::value;

// Integer power by squaring, wrapping. e < 0 gives the truncated real result:
// 1 for base 1, +-1 for base -1, 0 otherwise (including base 0).
template <class T> inline T ipow(T base, int64_t e) {
  if (e < 0) {
    if (base == T(1))
      return T(1);
    if constexpr (std::is_signed<T>::value) {
      if (base == T(-1))
        return (e % 2 != 0) ? T(-1) : T(1);
    }
    return T(0);
  }
  using U = rt::detail::wrap_uint_t<T>;
  U r = 1, b = static_cast<U>(base);
  uint64_t ue = static_cast<uint64_t>(e);
  while (ue) {
    if (ue & 1u)
      r = static_cast<U>(r * b);
    b = static_cast<U>(b * b);
    ue >>= 1;
  }
  return static_cast<T>(r);
}

template <class T> inline int64_t to_i64_exp(T e) {
  if constexpr (std::is_unsigned<T>::value && sizeof(T) >= sizeof(int64_t))
    return e > static_cast<T>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(e);
  else
    return static_cast<int64_t>(e);
}
} // namespace detail_b

struct Add {
  template <class T> TRACT_RT_INLINE auto operator()(T a, T b) const {
    return rt::detail::wrap_add(a, b);
  }
};
struct Sub {
  template <class T> TRACT_RT_INLINE auto operator()(T a, T b) const {
    return rt::detail::wrap_sub(a, b);
  }
};
struct Mul {
  template <class T> TRACT_RT_INLINE auto operator()(T a, T b) const {
    return rt::detail::wrap_mul(a, b);
  }
};

// Integer division truncates (C); x / 0 -> 0; INT_MIN / -1 -> INT_MIN.
struct Div {
  template <class T> TRACT_RT_INLINE auto operator()(T a, T b) const {
    if constexpr (detail_b::is_flt<T>) {
      return a / b;
    } else {
      if (b == T(0))
        return T(0);
      if constexpr (std::is_signed<T>::value) {
        if (b == T(-1))
          return rt::detail::wrap_sub(T(0), a);
      }
      return static_cast<T>(a / b);
    }
  }
};

// Pow: std::pow for floats; integers by repeated multiplication (wrapping).
// The mixed-type overload (ONNX T1/T2) returns the base's type.
struct Pow {
  template <class T> TRACT_RT_INLINE auto operator()(T a, T b) const {
    if constexpr (detail_b::is_flt<T>)
      return static_cast<T>(std::pow(a, b));
    else
      return detail_b::ipow(a, detail_b::to_i64_exp(b));
  }
  template <class T, class E> TRACT_RT_INLINE T operator()(T a, E b) const {
    if constexpr (detail_b::is_flt<T>)
      return static_cast<T>(std::pow(a, static_cast<T>(b)));
    else if constexpr (detail_b::is_flt<E>)
      return rt::detail::float_to_int<T>(
          std::pow(static_cast<double>(a), static_cast<double>(b)));
    else
      return detail_b::ipow(a, detail_b::to_i64_exp(b));
  }
};

// NaN-propagating like numpy.maximum / numpy.minimum.
struct Max {
  template <class T> TRACT_RT_INLINE auto operator()(T a, T b) const {
    if (rt::detail::is_nan(a))
      return a;
    if (rt::detail::is_nan(b))
      return b;
    return a < b ? b : a;
  }
};
struct Min {
  template <class T> TRACT_RT_INLINE auto operator()(T a, T b) const {
    if (rt::detail::is_nan(a))
      return a;
    if (rt::detail::is_nan(b))
      return b;
    return b < a ? b : a;
  }
};

// ONNX Mod with fmod=0: the result has the sign of the divisor (Python %).
// Integer x % 0 -> 0.
struct Mod {
  template <class T> TRACT_RT_INLINE auto operator()(T a, T b) const {
    if constexpr (detail_b::is_flt<T>) {
      T r = std::fmod(a, b);
      if (r != T(0) && ((r < T(0)) != (b < T(0))))
        r += b;
      return r;
    } else {
      if (b == T(0))
        return T(0);
      if constexpr (std::is_signed<T>::value) {
        if (b == T(-1))
          return T(0);
        T r = static_cast<T>(a % b);
        if (r != T(0) && ((r < T(0)) != (b < T(0))))
          r = static_cast<T>(r + b); // opposite signs: cannot overflow
        return r;
      } else {
        return static_cast<T>(a % b);
      }
    }
  }
};

// ONNX Mod with fmod=1: the result has the sign of the dividend (C fmod / %).
struct FMod {
  template <class T> TRACT_RT_INLINE auto operator()(T a, T b) const {
    if constexpr (detail_b::is_flt<T>) {
      return static_cast<T>(std::fmod(a, b));
    } else {
      if (b == T(0))
        return T(0);
      if constexpr (std::is_signed<T>::value) {
        if (b == T(-1))
          return T(0);
      }
      return static_cast<T>(a % b);
    }
  }
};

struct Equal {
  template <class T> TRACT_RT_INLINE bool operator()(T a, T b) const { return a == b; }
};
struct Less {
  template <class T> TRACT_RT_INLINE bool operator()(T a, T b) const { return a < b; }
};
struct Greater {
  template <class T> TRACT_RT_INLINE bool operator()(T a, T b) const { return b < a; }
};
struct LessOrEqual {
  template <class T> TRACT_RT_INLINE bool operator()(T a, T b) const { return a <= b; }
};
struct GreaterOrEqual {
  template <class T> TRACT_RT_INLINE bool operator()(T a, T b) const { return a >= b; }
};

struct And {
  template <class T> TRACT_RT_INLINE bool operator()(T a, T b) const {
    return static_cast<bool>(a) && static_cast<bool>(b);
  }
};
struct Or {
  template <class T> TRACT_RT_INLINE bool operator()(T a, T b) const {
    return static_cast<bool>(a) || static_cast<bool>(b);
  }
};
struct Xor {
  template <class T> TRACT_RT_INLINE bool operator()(T a, T b) const {
    return static_cast<bool>(a) != static_cast<bool>(b);
  }
};

// Shifts by >= the bit width (or a negative amount) give 0.
struct BitShiftLeft {
  template <class T> TRACT_RT_INLINE auto operator()(T a, T b) const {
    using U = rt::detail::wrap_uint_t<T>;
    if (detail_b::to_i64_exp(b) < 0 ||
        detail_b::to_i64_exp(b) >= int64_t(sizeof(T) * 8))
      return T(0);
    return static_cast<T>(static_cast<U>(a) << static_cast<unsigned>(b));
  }
};
struct BitShiftRight {
  template <class T> TRACT_RT_INLINE auto operator()(T a, T b) const {
    using U = rt::detail::wrap_uint_t<T>;
    if (detail_b::to_i64_exp(b) < 0 ||
        detail_b::to_i64_exp(b) >= int64_t(sizeof(T) * 8))
      return T(0);
    // Shift the value's own-width bit pattern (logical shift).
    using UT = typename std::make_unsigned<T>::type;
    return static_cast<T>(static_cast<U>(static_cast<UT>(a)) >>
                          static_cast<unsigned>(b));
  }
};

// ONNX 18 bitwise ops (additions to API.md).
struct BitwiseAnd {
  template <class T> TRACT_RT_INLINE auto operator()(T a, T b) const {
    return static_cast<T>(a & b);
  }
};
struct BitwiseOr {
  template <class T> TRACT_RT_INLINE auto operator()(T a, T b) const {
    return static_cast<T>(a | b);
  }
};
struct BitwiseXor {
  template <class T> TRACT_RT_INLINE auto operator()(T a, T b) const {
    return static_cast<T>(a ^ b);
  }
};
struct BitwiseNot {
  template <class T> TRACT_RT_INLINE T operator()(T a) const { return static_cast<T>(~a); }
};

// x < 0 ? x * slope : x
struct PRelu {
  template <class T> TRACT_RT_INLINE auto operator()(T x, T slope) const {
    if constexpr (std::is_signed<T>::value)
      return x < T(0) ? rt::detail::wrap_mul(x, slope) : x;
    else
      return x;
  }
};

} // namespace op
} // namespace rt
} // namespace tract
