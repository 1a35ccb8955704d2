// tract runtime: shared definitions and helpers for the reference kernels.
//
// Header-only, C++17, no heap, no exceptions, no RTTI, no static constructors.
// Shapes and strides are `const int64_t*` with an explicit rank; strides are in
// elements and a stride of 0 broadcasts that dimension.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace tract {
namespace rt {

// Bumped whenever a kernel signature in API.md changes incompatibly.
constexpr int kAbiVersion = 1;
// Largest rank the N-d kernels accept (larger ranks are a no-op).
constexpr int kMaxRank = 8;

// The index in the slots of a data-dependent result past its run-time count
// (NonZero, NonMaxSuppression, Unique, TopK with k past the axis): out of
// range for every axis, so a Gather reading through it reads zero and a
// Scatter writing through it writes nothing (a model's "select these rows,
// process them, put them back" keeps its padding out of the real rows). Not
// -1, which is a valid index (the last). -(2^40 + 2^31): it stays out of
// range after the arithmetic models do on indices (an offset, a small
// factor) and cast to int32 it is INT32_MIN.
constexpr int64_t kPaddingIndex = -(int64_t(1) << 40) - (int64_t(1) << 31);

inline int64_t num_elements(const int64_t *shape, int rank) {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i)
    n *= shape[i];
  return n;
}

// Row-major (C order) strides of `shape`, in elements.
inline void contiguous_strides(const int64_t *shape, int rank,
                               int64_t *strides) {
  int64_t s = 1;
  for (int i = rank - 1; i >= 0; --i) {
    strides[i] = s;
    s *= shape[i];
  }
}

// Advances the row-major index `idx` over `shape` by one element. Returns
// false (with idx back at all zeros) after the last element.
inline bool next_index(int64_t *idx, const int64_t *shape, int rank) {
  for (int d = rank - 1; d >= 0; --d) {
    if (++idx[d] < shape[d])
      return true;
    idx[d] = 0;
  }
  return false;
}

namespace detail {

// Blocks template argument deduction, so optional pointer arguments (bias,
// scale) accept a bare `nullptr` while T is deduced from the others.
template <class T> struct type_identity { using type = T; };
template <class T> using nodeduce_t = typename type_identity<T>::type;

template <class T> constexpr T min_(T a, T b) { return b < a ? b : a; }
template <class T> constexpr T max_(T a, T b) { return a < b ? b : a; }

// Floor / ceil division for a positive divisor (C++ `/` truncates).
constexpr int64_t floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
constexpr int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

// For `dst = src * stride + k * dil - pad`, the range [lo, hi) of src in
// [0, src_n) whose dst lands in [0, dst_n).
inline void tap_range(int64_t src_n, int64_t dst_n, int64_t stride, int64_t off,
                      int64_t *lo, int64_t *hi) {
  // 0 <= src*stride + off < dst_n
  *lo = max_(int64_t(0), ceil_div(-off, stride));
  *hi = min_(src_n, floor_div(dst_n - 1 - off, stride) + 1);
}

template <class T>
constexpr bool is_int_v =
    std::is_integral<T>::value && !std::is_same<T, bool>::value;

// Unsigned type at least as wide as `unsigned int`, used for wrapping integer
// arithmetic without signed overflow (UB) or promotion to signed int.
template <class T, bool = std::is_integral<T>::value> struct wrap_uint {
  using type = T; // not an integer type; never used for arithmetic
};
template <class T> struct wrap_uint<T, true> {
  using U = typename std::make_unsigned<typename std::conditional<
      std::is_same<T, bool>::value, unsigned char, T>::type>::type;
  using type = typename std::conditional<(sizeof(U) < sizeof(unsigned)),
                                         unsigned, U>::type;
};
template <class T> using wrap_uint_t = typename wrap_uint<T>::type;

template <class T> inline T wrap_add(T a, T b) {
  if constexpr (std::is_integral<T>::value) {
    using U = wrap_uint_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <class T> inline T wrap_sub(T a, T b) {
  if constexpr (std::is_integral<T>::value) {
    using U = wrap_uint_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <class T> inline T wrap_mul(T a, T b) {
  if constexpr (std::is_integral<T>::value) {
    using U = wrap_uint_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}
// acc + a * b, wrapping for integers.
template <class T> inline T madd(T acc, T a, T b) {
  if constexpr (std::is_integral<T>::value)
    return wrap_add(acc, wrap_mul(a, b));
  else
    return acc + a * b;
}

// For the small per-element functions (vmath, the op:: functors) that
// kernel loops must inline to vectorise. A generated model.cpp is one large
// translation unit, where GCC's inliner stops at its unit-growth limit and
// leaves calls in those loops: a BERT encoder's softmax ran 4x slower in its
// model.cpp than alone.
#if defined(__GNUC__)
#define TRACT_RT_INLINE inline __attribute__((always_inline))
// The same for a lambda (after its parameter list): at -O2 GCC left the
// functors' math lambdas (GELU's erf) as calls inside the GEMM epilogue.
#define TRACT_RT_LAMBDA_INLINE __attribute__((always_inline))
#else
#define TRACT_RT_INLINE inline
#define TRACT_RT_LAMBDA_INLINE
#endif

// Complete unrolling of a loop over a register tile (accumulators indexed by
// the loop variable). GCC unrolls such loops by itself at -O3 only; at -O2
// and -Os, the flags firmware builds use, the accumulator array stayed in
// memory: the AVX-512 GEMM ran at 56 GFLOP/s instead of 145 (bench/run-gemm.sh,
// Intel Xeon). (clang reads the same pragma.)
#if defined(__GNUC__)
#define TRACT_PRAGMA(x) _Pragma(#x)
#define TRACT_UNROLL(n) TRACT_PRAGMA(GCC unroll n)
#else
#define TRACT_UNROLL(n)
#endif

// A loop whose iterations are independent although the compiler cannot
// prove it: generated element-wise loops, which write element i of a buffer
// that may be one of their inputs (in place), read at i before. The
// vectoriser then needs neither run-time overlap checks nor a scalar
// fallback. (DenseNet-121's BatchNorm + ReLU on 128 x 16 x 16 ran scalar
// inlined into the model's run, 36 us against 4 alone: what fixed it was
// reading the per-channel operands once per row, KernelCalls.cpp loopRow;
// this keeps such loops from depending on the alias analysis at all.)
#if defined(__clang__)
#define TRACT_IVDEP TRACT_PRAGMA(clang loop vectorize(assume_safety))
#elif defined(__GNUC__)
#define TRACT_IVDEP TRACT_PRAGMA(GCC ivdep)
#else
#define TRACT_IVDEP
#endif

// A register tile kept out of line: inlined into a caller with its own live
// values, GCC 12 spilled some of the tile's accumulators (conv_row_taps'
// tiles inlined into its row loop: 0.41 -> 0.43 ms on SqueezeNet's stem).
#if defined(__GNUC__)
#define TRACT_NOINLINE __attribute__((noinline))
#else
#define TRACT_NOINLINE
#endif

// `n`, hidden from the optimiser. GCC completely unrolls loops of a known
// count up to 16 before its loop vectoriser runs, and the straight-line code
// left is vectorised only when it has no conditionals: a fused epilogue's
// ReLU or clip would run as 16 scalar branches. With a run-time count the
// epilogue loop is if-converted and vectorised.
inline int64_t opaque(int64_t n) {
#if defined(__GNUC__)
  __asm__("" : "+r"(n));
#endif
  return n;
}

// Over n contiguous values: *s1 = sum of d = x - shift, *s2 = sum of d^2,
// in 16 independent lanes (one running sum is a serial chain of adds) kept
// in vector registers (lanes in an array would go through memory every
// step). The order of the additions differs from a plain loop's.
template <class T>
inline void lane_sums(const T *x, int64_t n, T shift, T *s1, T *s2) {
  constexpr int64_t L = 16;
  const int64_t body = n / L * L;
  T a1 = T(0), a2 = T(0);
#if defined(__GNUC__)
  typedef T V __attribute__((vector_size(L * sizeof(T))));
  V v1 = {}, v2 = {};
  const V vs = V{} + shift;
  for (int64_t j = 0; j < body; j += L) {
    V v;
    std::memcpy(&v, x + j, sizeof v);
    v -= vs;
    v1 += v;
    v2 += v * v;
  }
  for (int64_t l = 0; l < L; ++l) {
    a1 += v1[l];
    a2 += v2[l];
  }
#else
  for (int64_t j = 0; j < body; ++j) {
    const T d = x[j] - shift;
    a1 += d;
    a2 += d * d;
  }
#endif
  for (int64_t j = body; j < n; ++j) {
    const T d = x[j] - shift;
    a1 += d;
    a2 += d * d;
  }
  *s1 = a1;
  *s2 = a2;
}

template <class T> inline bool is_nan(T x) {
  if constexpr (std::is_floating_point<T>::value)
    return std::isnan(x);
  else
    return false;
}

constexpr double pow2(int e) {
  double r = 1.0;
  for (int i = 0; i < e; ++i)
    r *= 2.0;
  return r;
}

// Floating -> integer conversion that never invokes UB: truncates toward zero,
// NaN -> 0, out-of-range saturates. For bool: `v != 0` (NaN is true).
template <class T> inline T float_to_int(double v) {
  if constexpr (std::is_same<T, bool>::value) {
    return v != 0.0;
  } else {
    constexpr double hi = pow2(std::numeric_limits<T>::digits);
    if (std::isnan(v))
      return T(0);
    if (v >= hi)
      return std::numeric_limits<T>::max();
    if constexpr (std::is_signed<T>::value) {
      if (v <= -hi)
        return std::numeric_limits<T>::lowest();
    } else {
      if (v <= 0.0)
        return T(0);
    }
    return static_cast<T>(v);
  }
}

// Applies a floating-point function `g` to x: directly for float/double, and
// through double with a saturating conversion back for integer types.
template <class T, class G> TRACT_RT_INLINE T via_float(T x, G g) {
  if constexpr (std::is_floating_point<T>::value)
    return static_cast<T>(g(x));
  else
    return float_to_int<T>(static_cast<double>(g(static_cast<double>(x))));
}

template <class T> constexpr T lowest_or_neg_inf() {
  if constexpr (std::numeric_limits<T>::has_infinity)
    return -std::numeric_limits<T>::infinity();
  else
    return std::numeric_limits<T>::lowest();
}
template <class T> constexpr T max_or_inf() {
  if constexpr (std::numeric_limits<T>::has_infinity)
    return std::numeric_limits<T>::infinity();
  else
    return std::numeric_limits<T>::max();
}

// Walks the row-major iteration space `shape` (rank <= kMaxRank) with K
// strided operands, calling
//   f(pos, off, len, inc)
// once per innermost row, where `pos` is the row-major linear index of the
// row's first element (the offset into any contiguous operand of that shape),
// off[k] the offset of operand k, len the row length and inc[k] operand k's
// stride along the row. Size-1 dimensions are dropped and dimensions that are
// contiguous for every operand are merged, so rows are as long as possible and
// outer indices step incrementally (no division per element). An empty shape
// makes no call; rank 0 makes one call with len 1.
template <int K, class F>
inline void for_each_row(const int64_t *shape, int rank,
                         const int64_t *const *strides, F &&f) {
  for (int d = 0; d < rank; ++d)
    if (shape[d] <= 0)
      return;
  // Coalesced dims, stored innermost first.
  int64_t cshape[kMaxRank];
  int64_t cstr[K > 0 ? size_t(K) : 1u][kMaxRank];
  int r = 0;
  for (int d = rank - 1; d >= 0; --d) {
    if (shape[d] == 1)
      continue;
    if (r > 0) {
      bool merge = true;
      for (int k = 0; k < K; ++k)
        merge = merge && strides[k][d] == cstr[k][r - 1] * cshape[r - 1];
      if (merge) {
        // The merged dim keeps the inner stride; only its extent grows.
        cshape[r - 1] *= shape[d];
        continue;
      }
    }
    if (r == kMaxRank)
      return;
    cshape[r] = shape[d];
    for (int k = 0; k < K; ++k)
      cstr[k][r] = strides[k][d];
    ++r;
  }
  int64_t off[K > 0 ? size_t(K) : 1u] = {};
  int64_t inc[K > 0 ? size_t(K) : 1u] = {};
  if (r == 0) {
    f(int64_t(0), static_cast<const int64_t *>(off), int64_t(1),
      static_cast<const int64_t *>(inc));
    return;
  }
  const int64_t len = cshape[0];
  for (int k = 0; k < K; ++k)
    inc[k] = cstr[k][0];
  int64_t idx[kMaxRank] = {};
  int64_t pos = 0;
  for (;;) {
    f(pos, static_cast<const int64_t *>(off), len,
      static_cast<const int64_t *>(inc));
    pos += len;
    int d = 1;
    for (; d < r; ++d) {
      if (++idx[d] < cshape[d]) {
        for (int k = 0; k < K; ++k)
          off[k] += cstr[k][d];
        break;
      }
      idx[d] = 0;
      for (int k = 0; k < K; ++k)
        off[k] -= cstr[k][d] * (cshape[d] - 1);
    }
    if (d == r)
      return;
  }
}

} // namespace detail
} // namespace rt
} // namespace tract
