// tract runtime: element-wise unary kernel and the ONNX unary functors.
//
// Float/double math goes through the std:: overloads for T. Integer inputs
// of the transcendental functors are evaluated in double and converted back
// with truncation and saturation (NaN -> 0), so no input ever traps.
#pragma once

#include "tract/rt/common.h"
#include "tract/rt/elementwise/vmath.h"

namespace tract {
namespace rt {

// y[i] = f(x[i]) for i in [0, n).
template <class TI, class TO, class F>
void unary(const TI *x, TO *y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<TO>(f(x[i]));
}

namespace op {

namespace detail_u {
using rt::detail::via_float;

template <class T> constexpr bool is_flt = std::is_floating_point<T>::value;

// Math type for parameterised functors: T for float/double, double otherwise.
template <class T>
using math_t = typename std::conditional<is_flt<T>, T, double>::type;

template <class T> inline bool is_neg(T x) {
  if constexpr (std::is_signed<T>::value)
    return x < T(0);
  else
    return false;
}
} // namespace detail_u

// Defines a functor whose float form is `expr` over `v` (v has type T for
// float/double and double for integers).
#define TRACT_RT_FLOAT_UNARY(Name, expr)                                       \
  struct Name {                                                                \
    template <class T> TRACT_RT_INLINE T operator()(T x) const {                               \
      return detail_u::via_float(x, [](auto v) TRACT_RT_LAMBDA_INLINE {        \
        using V = decltype(v);                                                 \
        (void)sizeof(V);                                                       \
        return expr;                                                           \
      });                                                                      \
    }                                                                          \
  };

TRACT_RT_FLOAT_UNARY(Sqrt, std::sqrt(v))
TRACT_RT_FLOAT_UNARY(Exp, vm::exp(v))
TRACT_RT_FLOAT_UNARY(Log, std::log(v))
TRACT_RT_FLOAT_UNARY(Erf, vm::erf(v))
TRACT_RT_FLOAT_UNARY(Tanh, vm::tanh(v))
TRACT_RT_FLOAT_UNARY(Sin, std::sin(v))
TRACT_RT_FLOAT_UNARY(Cos, std::cos(v))
TRACT_RT_FLOAT_UNARY(Tan, std::tan(v))
TRACT_RT_FLOAT_UNARY(Asin, std::asin(v))
TRACT_RT_FLOAT_UNARY(Acos, std::acos(v))
TRACT_RT_FLOAT_UNARY(Atan, std::atan(v))
TRACT_RT_FLOAT_UNARY(Sinh, std::sinh(v))
TRACT_RT_FLOAT_UNARY(Cosh, std::cosh(v))
TRACT_RT_FLOAT_UNARY(Asinh, std::asinh(v))
TRACT_RT_FLOAT_UNARY(Acosh, std::acosh(v))
TRACT_RT_FLOAT_UNARY(Atanh, std::atanh(v))
// vmath.h: vectorisable float forms, libm for double.
TRACT_RT_FLOAT_UNARY(Sigmoid, vm::sigmoid(v))
// log(1 + e^v) without overflow for large v.
TRACT_RT_FLOAT_UNARY(Softplus, v > V(0) ? v + std::log1p(std::exp(-v))
                                        : std::log1p(std::exp(v)))
TRACT_RT_FLOAT_UNARY(Softsign, v / (V(1) + std::fabs(v)))
// tanh(softplus(v)) * v, with the overflow-free softplus.
TRACT_RT_FLOAT_UNARY(Mish, std::tanh(v > V(0) ? v + std::log1p(std::exp(-v))
                                              : std::log1p(std::exp(v))) *
                               v)
TRACT_RT_FLOAT_UNARY(Silu, vm::silu(v))
TRACT_RT_FLOAT_UNARY(Gelu, V(0.5) * v *
                               (V(1) + vm::erf(v * V(0.70710678118654752440))))
// Gelu with approximate="tanh" (not in API.md; an addition).
TRACT_RT_FLOAT_UNARY(GeluTanh,
                     V(0.5) * v *
                         (V(1) + vm::tanh(V(0.79788456080286535588) *
                                           (v + V(0.044715) * v * v * v))))
#undef TRACT_RT_FLOAT_UNARY

// v * clamp(alpha * v + 0.5, 0, 1), alpha = 1/6 rounded to V, as ONNX
// defines HardSwish; written as a choice between three products, the
// choice last. As max(0, min(1, t)) * v (or with v / 6), GCC 12 moved the
// product into the branches of the clamp and left the GEMM epilogue's
// loop scalar, with branches: a 672-channel 1x1 conv with it fused
// (MobileNetV3's) took 2.2x the conv's time alone on Zen 5 (7x in the
// model); as here, 1.15x, about SiLU's cost. NaN and the infinities give
// what the clamp gives (-inf: -inf * 0, NaN).
struct HardSwish {
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    return detail_u::via_float(x, [](auto v) TRACT_RT_LAMBDA_INLINE {
      using V = decltype(v);
      const V t = v * (V(1) / V(6)) + V(0.5);
      const V gated = v * t, zero = v * V(0);
      return t <= V(0) ? zero : (t < V(1) ? gated : v);
    });
  }
};

struct Neg {
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    if constexpr (std::is_integral<T>::value)
      return rt::detail::wrap_sub(T(0), x); // -INT_MIN wraps to INT_MIN
    else
      return -x;
  }
};

struct Abs {
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    if constexpr (std::is_integral<T>::value)
      return detail_u::is_neg(x) ? rt::detail::wrap_sub(T(0), x) : x;
    else
      return std::fabs(x);
  }
};

struct Relu {
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    return detail_u::is_neg(x) ? T(0) : x; // NaN stays NaN
  }
};

struct Floor {
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    if constexpr (detail_u::is_flt<T>)
      return std::floor(x);
    else
      return x;
  }
};

struct Ceil {
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    if constexpr (detail_u::is_flt<T>)
      return std::ceil(x);
    else
      return x;
  }
};

// Half to even under the default rounding mode (ONNX Round).
struct Round {
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    if constexpr (detail_u::is_flt<T>)
      return std::nearbyint(x);
    else
      return x;
  }
};

// 1/x; for integers 1/0 -> 0 (never traps).
struct Reciprocal {
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    if constexpr (detail_u::is_flt<T>)
      return T(1) / x;
    else if constexpr (std::is_same<T, bool>::value)
      return x;
    else
      return x == T(0) ? T(0) : static_cast<T>(T(1) / x);
  }
};

// -1, 0 or 1; NaN stays NaN.
struct Sign {
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    if (rt::detail::is_nan(x))
      return x;
    if (detail_u::is_neg(x))
      return static_cast<T>(-1);
    return x > T(0) ? T(1) : T(0);
  }
};

struct Not {
  TRACT_RT_INLINE bool operator()(bool x) const { return !x; }
};

struct IsNaN {
  template <class T> TRACT_RT_INLINE bool operator()(T x) const {
    return rt::detail::is_nan(x);
  }
};

struct IsInf {
  bool detect_pos = true;
  bool detect_neg = true;
  template <class T> TRACT_RT_INLINE bool operator()(T x) const {
    if constexpr (detail_u::is_flt<T>) {
      if (!std::isinf(x))
        return false;
      return x > T(0) ? detect_pos : detect_neg;
    } else {
      (void)x;
      return false;
    }
  }
};

// --- parameterised functors (float members, ONNX defaults) -----------------

struct LeakyRelu {
  float alpha = 0.01f;
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    using M = detail_u::math_t<T>;
    return detail_u::via_float(
        x, [a = M(alpha)](M v) { return v < M(0) ? a * v : v; });
  }
};

struct HardSigmoid {
  float alpha = 0.2f;
  float beta = 0.5f;
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    using M = detail_u::math_t<T>;
    return detail_u::via_float(x, [a = M(alpha), b = M(beta)](M v) TRACT_RT_LAMBDA_INLINE {
      return rt::detail::max_(M(0), rt::detail::min_(M(1), a * v + b));
    });
  }
};

// Clip to [lo, hi]; NaN passes through.
template <class T> struct Clip {
  T lo = std::numeric_limits<T>::lowest();
  T hi = std::numeric_limits<T>::max();
  // Both comparisons always run (no short circuit), so with the default
  // -ftrapping-math compilers may still if-convert and vectorise it.
  TRACT_RT_INLINE T operator()(T x) const {
    const T y = x < lo ? lo : x; // NaN stays NaN
    return hi < y ? hi : y;
  }
};

struct Elu {
  float alpha = 1.0f;
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    using M = detail_u::math_t<T>;
    return detail_u::via_float(
        x, [a = M(alpha)](M v) { return v < M(0) ? a * std::expm1(v) : v; });
  }
};

struct Selu {
  float alpha = 1.67326319217681884765625f;
  float gamma = 1.05070102214813232421875f;
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    using M = detail_u::math_t<T>;
    return detail_u::via_float(x, [a = M(alpha), g = M(gamma)](M v) TRACT_RT_LAMBDA_INLINE {
      return v > M(0) ? g * v : g * (a * std::exp(v) - a);
    });
  }
};

struct Celu {
  float alpha = 1.0f;
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    using M = detail_u::math_t<T>;
    return detail_u::via_float(x, [a = M(alpha)](M v) TRACT_RT_LAMBDA_INLINE {
      return v > M(0) ? v : a * std::expm1(v / a);
    });
  }
};

struct ThresholdedRelu {
  float alpha = 1.0f;
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    using M = detail_u::math_t<T>;
    return detail_u::via_float(
        x, [a = M(alpha)](M v) { return v > a ? v : M(0); });
  }
};

struct Shrink {
  float bias = 0.0f;
  float lambd = 0.5f;
  template <class T> TRACT_RT_INLINE T operator()(T x) const {
    using M = detail_u::math_t<T>;
    return detail_u::via_float(x, [b = M(bias), l = M(lambd)](M v) TRACT_RT_LAMBDA_INLINE {
      return v < -l ? v + b : (v > l ? v - b : M(0));
    });
  }
};

} // namespace op
} // namespace rt
} // namespace tract
