// tract runtime: ONNX string tensors.
//
// Generated code stores a string tensor as an array of fixed-size slots
// (`fixed_string<N>`): UTF-8 text of at most N-1 bytes, NUL-terminated and
// NUL-padded. Slots are plain bytes, so the generic data-movement kernels
// (copy, transpose, gather, concat, ...) move them like any other element.
//
// This header provides Cast to and from strings (overloads of `cast` that are
// more specialised than the generic one in data/cast_ref.h, so a deduced call
// `cast(x, y, n)` picks them) and StringNormalizer. It uses <charconv>
// (std::from_chars / std::to_chars, locale-independent, no heap) in addition
// to the usual kernel headers.
#pragma once

#include <charconv>
#include <cstring>

#include "tract/rt/common.h"
#include "tract/rt/data/cast_ref.h"
#include "tract/rt/half.h"

namespace tract {
namespace rt {

// One string element: UTF-8 bytes, NUL-terminated, the rest NUL-padded.
template <size_t N> struct fixed_string {
  static_assert(N >= 2, "a string slot needs room for one byte and the NUL");
  char bytes[N];
};

namespace detail {

// Length of the text in a slot: up to the first NUL (all N bytes if a
// malformed slot has none, so nothing reads past the slot).
inline size_t slot_len(const char *b, size_t n) {
  const void *z = std::memchr(b, 0, n);
  return z ? static_cast<size_t>(static_cast<const char *>(z) - b) : n;
}

// Copies len bytes into a slot of n bytes (caller guarantees len < n) and
// NUL-pads the rest, so slots compare and hash bytewise.
inline void slot_store(char *slot, size_t n, const char *src, size_t len) {
  std::memmove(slot, src, len);
  std::memset(slot + len, 0, n - len);
}

// ---------------------------------------------------------------- UTF-8 ---

// Decodes one code point from [s, s + len), len >= 1. On success returns it
// and sets *adv to its byte length. On ill-formed input returns -1 and sets
// *adv to the length of the maximal ill-formed subpart (>= 1): the unit that
// Unicode's recommended practice (and Python's errors='replace') turns into
// one U+FFFD. Overlong forms, surrogates and values above U+10FFFF are
// ill-formed.
inline int32_t utf8_decode(const unsigned char *s, size_t len, size_t *adv) {
  const unsigned c = s[0];
  *adv = 1;
  if (c < 0x80)
    return static_cast<int32_t>(c);
  size_t need;
  uint32_t cp;
  unsigned lo = 0x80, hi = 0xBF; // allowed range of the next byte
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
    cp = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    cp = c & 0x0Fu;
    if (c == 0xE0)
      lo = 0xA0; // no overlongs
    if (c == 0xED)
      hi = 0x9F; // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    cp = c & 0x07u;
    if (c == 0xF0)
      lo = 0x90; // no overlongs
    if (c == 0xF4)
      hi = 0x8F; // nothing above U+10FFFF
  } else {
    return -1; // continuation byte, C0/C1, F5..FF
  }
  for (size_t k = 1; k <= need; ++k) {
    if (k >= len || s[k] < lo || s[k] > hi)
      return -1; // *adv = k: the lead and the k-1 good continuations
    cp = (cp << 6) | (s[k] & 0x3Fu);
    lo = 0x80;
    hi = 0xBF;
    *adv = k + 1;
  }
  return static_cast<int32_t>(cp);
}

// Encodes a code point (<= U+10FFFF) into out[0..4); returns its length.
inline size_t utf8_encode(uint32_t cp, char *out) {
  auto byte = [](uint32_t v) {
    return static_cast<char>(static_cast<unsigned char>(v));
  };
  if (cp < 0x80) {
    out[0] = byte(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = byte(0xC0 | (cp >> 6));
    out[1] = byte(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = byte(0xE0 | (cp >> 12));
    out[1] = byte(0x80 | ((cp >> 6) & 0x3F));
    out[2] = byte(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = byte(0xF0 | (cp >> 18));
  out[1] = byte(0x80 | ((cp >> 12) & 0x3F));
  out[2] = byte(0x80 | ((cp >> 6) & 0x3F));
  out[3] = byte(0x80 | (cp & 0x3F));
  return 4;
}

// Longest prefix of [s, s + len) that fits in cap bytes without splitting a
// UTF-8 character: a cut in front of a continuation byte backs off to the
// character's lead (at most 3 bytes; a longer run of continuation bytes is
// ill-formed anyway and is cut where it is).
inline size_t utf8_fit(const char *s, size_t len, size_t cap) {
  if (len <= cap)
    return len;
  size_t cut = cap;
  for (int back = 0; back < 3 && cut > 0; ++back) {
    if ((static_cast<unsigned char>(s[cut]) & 0xC0u) != 0x80u)
      return cut;
    --cut;
  }
  return (static_cast<unsigned char>(s[cut]) & 0xC0u) != 0x80u ? cut : cap;
}

// ---------------------------------------------------------- case mapping ---
//
// Firmware has no locale database, so StringNormalizer's case change is a
// fixed, locale-independent simple (1:1) mapping over the scripts a model's
// vocabulary is most likely to use; the ONNX `locale` attribute is ignored.
// Mapped, both ways:
//   ASCII             A-Z <-> a-z
//   Latin-1           U+00C0-U+00DE <-> U+00E0-U+00FE, except U+00D7 (x) and
//                     U+00F7 (/); U+00DF (sharp s) and U+00FF (y diaeresis),
//                     whose case partners are multi-char or outside Latin-1,
//                     stay unchanged
//   Latin Extended-A  the regular upper/lower pairs of U+0100-U+017F;
//                     U+0130, U+0131 (dotted/dotless i), U+0138, U+0149,
//                     U+0178 and U+017F are irregular and stay unchanged
//   Greek             U+0391-U+03A9 <-> U+03B1-U+03C9 (U+03A2 is unassigned;
//                     final sigma U+03C2 uppercases to U+03A3)
//   Cyrillic          U+0410-U+042F <-> U+0430-U+044F and
//                     U+0400-U+040F <-> U+0450-U+045F
// Every mapping keeps the UTF-8 length; everything else is unchanged.

// Latin Extended-A (U+0100-U+017F) is mostly runs of (upper, lower) pairs.
// Returns the first code point (an upper-case letter) of c's run, or 0 for
// the irregular letters, which stay unchanged.
inline uint32_t latin_ext_a_run(uint32_t c) {
  if (c <= 0x012F)
    return 0x0100;
  if (c >= 0x0132 && c <= 0x0137)
    return 0x0132;
  if (c >= 0x0139 && c <= 0x0148)
    return 0x0139;
  if (c >= 0x014A && c <= 0x0177)
    return 0x014A;
  if (c >= 0x0179 && c <= 0x017E)
    return 0x0179;
  return 0;
}

inline uint32_t to_lower_cp(uint32_t c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7))
    return c + 32;
  if (c >= 0x0100 && c <= 0x017F) {
    const uint32_t first = latin_ext_a_run(c);
    return first && (c - first) % 2 == 0 ? c + 1 : c;
  }
  if (c >= 0x0391 && c <= 0x03A9 && c != 0x03A2)
    return c + 32;
  if (c >= 0x0410 && c <= 0x042F)
    return c + 32;
  if (c >= 0x0400 && c <= 0x040F)
    return c + 80;
  return c;
}

inline uint32_t to_upper_cp(uint32_t c) {
  if ((c >= 'a' && c <= 'z') || (c >= 0xE0 && c <= 0xFE && c != 0xF7))
    return c - 32;
  if (c >= 0x0100 && c <= 0x017F) {
    const uint32_t first = latin_ext_a_run(c);
    return first && (c - first) % 2 == 1 ? c - 1 : c;
  }
  if (c == 0x03C2)
    return 0x03A3;
  if (c >= 0x03B1 && c <= 0x03C9)
    return c - 32;
  if (c >= 0x0430 && c <= 0x044F)
    return c - 32;
  if (c >= 0x0450 && c <= 0x045F)
    return c - 80;
  return c;
}

// case_change of StringNormalizer: 0 NONE, 1 LOWER, 2 UPPER.
inline uint32_t change_case_cp(uint32_t c, int mode) {
  return mode == 1 ? to_lower_cp(c) : mode == 2 ? to_upper_cp(c) : c;
}

// Writes [s, s + len) case-mapped to out, at most cap bytes and only whole
// characters; ill-formed bytes are copied unchanged. Returns bytes written.
// out may equal s: mapped characters keep their length, so no write
// overtakes the read position.
inline size_t utf8_change_case(const char *s, size_t len, char *out, size_t cap,
                               int mode) {
  const unsigned char *u = reinterpret_cast<const unsigned char *>(s);
  size_t i = 0, o = 0;
  while (i < len) {
    size_t adv;
    const int32_t cp = utf8_decode(u + i, len - i, &adv);
    char enc[4];
    size_t n = adv;
    const char *src = s + i;
    if (cp >= 0) {
      n = utf8_encode(change_case_cp(static_cast<uint32_t>(cp), mode), enc);
      src = enc;
    }
    if (o + n > cap)
      break;
    std::memmove(out + o, src, n);
    o += n;
    i += adv;
  }
  return o;
}

// a == b after lower-casing both (ill-formed bytes compare as themselves).
inline bool utf8_equal_folded(const char *a, size_t alen, const char *b,
                              size_t blen) {
  const unsigned char *ua = reinterpret_cast<const unsigned char *>(a);
  const unsigned char *ub = reinterpret_cast<const unsigned char *>(b);
  size_t i = 0, j = 0;
  while (i < alen && j < blen) {
    size_t na, nb;
    const int32_t ca = utf8_decode(ua + i, alen - i, &na);
    const int32_t cb = utf8_decode(ub + j, blen - j, &nb);
    if (ca < 0 || cb < 0) {
      if (ca >= 0 || cb >= 0 || na != nb || std::memcmp(a + i, b + j, na) != 0)
        return false;
    } else if (to_lower_cp(static_cast<uint32_t>(ca)) !=
               to_lower_cp(static_cast<uint32_t>(cb))) {
      return false;
    }
    i += na;
    j += nb;
  }
  return i == alen && j == blen;
}

// ------------------------------------------------------ string -> number ---

inline bool is_ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

// Case-insensitive ASCII compare of [s, e) with the lower-case word w.
inline bool ascii_iequal(const char *s, const char *e, const char *w) {
  for (; s < e; ++s, ++w) {
    if (!*w)
      return false;
    const char c = (*s >= 'A' && *s <= 'Z') ? static_cast<char>(*s + 32) : *s;
    if (c != *w)
      return false;
  }
  return *w == '\0';
}

// For text std::from_chars rejected as out of range: true when the decimal
// value's magnitude is >= 1 (so it overflowed to infinity), false when it is
// tiny (underflowed to zero). [s, e) is an unsigned decimal float.
inline bool decimal_is_huge(const char *s, const char *e) {
  int64_t int_digits = 0, lead_frac_zeros = 0;
  bool nonzero = false, in_frac = false;
  for (; s < e && *s != 'e' && *s != 'E'; ++s) {
    if (*s == '.') {
      in_frac = true;
    } else if (!nonzero) {
      if (*s != '0') {
        nonzero = true;
        if (!in_frac)
          int_digits = 1;
      } else if (in_frac) {
        ++lead_frac_zeros;
      }
    } else if (!in_frac && int_digits < (int64_t(1) << 40)) {
      ++int_digits;
    }
  }
  int64_t exp = 0;
  bool neg = false;
  if (s < e) { // exponent
    ++s;
    if (s < e && (*s == '+' || *s == '-'))
      neg = *s++ == '-';
    for (; s < e && *s >= '0' && *s <= '9'; ++s)
      exp = exp < (int64_t(1) << 40) ? exp * 10 + (*s - '0') : exp;
  }
  if (neg)
    exp = -exp;
  // value = 0.d... * 10^(mag + 1): magnitude exponent of the first digit.
  const int64_t mag =
      (int_digits > 0 ? int_digits - 1 : -(lead_frac_zeros + 1)) + exp;
  return mag >= 0;
}

// Parses the whole of [s, e) (already trimmed) as a float/double: optional
// '+' or '-', then a decimal number or (any case) "inf", "infinity", "nan".
// Out-of-range values become +-inf or +-0 as strtod would give. Returns false
// for anything else.
template <class F>
inline bool parse_floating(const char *s, const char *e, F *out) {
  bool neg = false;
  if (s < e && (*s == '+' || *s == '-'))
    neg = *s++ == '-';
  if (s == e)
    return false;
  F v;
  if (ascii_iequal(s, e, "inf") || ascii_iequal(s, e, "infinity")) {
    v = std::numeric_limits<F>::infinity();
  } else if (ascii_iequal(s, e, "nan")) {
    v = std::numeric_limits<F>::quiet_NaN();
  } else {
    if (!((*s >= '0' && *s <= '9') || *s == '.'))
      return false; // from_chars would also take "nan(...)", a 2nd sign, ...
    const std::from_chars_result r = std::from_chars(s, e, v);
    if (r.ptr != e)
      return false;
    if (r.ec == std::errc::result_out_of_range)
      v = decimal_is_huge(s, e) ? std::numeric_limits<F>::infinity() : F(0);
    else if (r.ec != std::errc())
      return false;
  }
  *out = neg ? -v : v;
  return true;
}

// One string -> one element of type TO. Text that does not parse gives NaN
// for floating types and 0 / false for integers and bool: kernels have no
// error channel.
template <class TO> inline TO parse_one(const char *s, size_t len) {
  const char *e = s + len;
  while (s < e && is_ascii_space(*s))
    ++s;
  while (e > s && is_ascii_space(e[-1]))
    --e;
  if constexpr (std::is_same<TO, float>::value ||
                std::is_same<TO, double>::value) {
    TO v;
    return parse_floating(s, e, &v) ? v : std::numeric_limits<TO>::quiet_NaN();
  } else if constexpr (std::is_same<TO, half>::value ||
                       std::is_same<TO, bfloat16>::value) {
    return cast_one<TO>(parse_one<float>(s, static_cast<size_t>(e - s)));
  } else if constexpr (std::is_same<TO, bool>::value) {
    if (ascii_iequal(s, e, "true"))
      return true;
    if (ascii_iequal(s, e, "false"))
      return false;
    double v;
    return parse_floating(s, e, &v) ? cast_one<bool>(v) : false;
  } else if constexpr (is_int_v<TO>) {
    // Plain integers exactly (int64 beyond 2^53 too); anything else through
    // double with cast_ref's float -> int rule (truncate, saturate, NaN -> 0).
    const char *t = s;
    if (t < e && *t == '+' && e - t > 1 && t[1] != '-')
      ++t;
    TO v;
    const std::from_chars_result r = std::from_chars(t, e, v, 10);
    if (t < e && r.ec == std::errc() && r.ptr == e)
      return v;
    double d;
    return parse_floating(s, e, &d) ? cast_one<TO>(d) : TO(0);
  } else {
    static_assert(!std::is_same<TO, TO>::value,
                  "cast from string: unsupported element type");
    return TO();
  }
}

// ------------------------------------------------------ number -> string ---

// Prints v into buf (>= 48 bytes); returns the length. Floating values use
// the shortest text that reads back to the same value (std::to_chars without
// a format), which is numpy's str() for float32/float64 in most cases;
// infinities and NaN are spelt "INF", "-INF", "NaN" as ONNX Runtime does.
// half/bfloat16 print their float value; bool prints "1"/"0" (ONNX Runtime).
template <class TI> inline size_t print_one(TI v, char *buf, size_t cap) {
  if constexpr (std::is_same<TI, half>::value) {
    return print_one(half_to_float(v), buf, cap);
  } else if constexpr (std::is_same<TI, bfloat16>::value) {
    return print_one(bfloat16_to_float(v), buf, cap);
  } else if constexpr (std::is_same<TI, bool>::value) {
    buf[0] = v ? '1' : '0';
    return 1;
  } else if constexpr (std::is_same<TI, float>::value ||
                       std::is_same<TI, double>::value) {
    const char *special = std::isnan(v)   ? "NaN"
                          : std::isinf(v) ? (v < 0 ? "-INF" : "INF")
                                          : nullptr;
    if (special) {
      const size_t n = std::strlen(special);
      std::memcpy(buf, special, n);
      return n;
    }
    const std::to_chars_result r = std::to_chars(buf, buf + cap, v);
    return r.ec == std::errc() ? static_cast<size_t>(r.ptr - buf) : 0;
  } else if constexpr (is_int_v<TI>) {
    const std::to_chars_result r = std::to_chars(buf, buf + cap, v);
    return r.ec == std::errc() ? static_cast<size_t>(r.ptr - buf) : 0;
  } else {
    static_assert(!std::is_same<TI, TI>::value,
                  "cast to string: unsupported element type");
    return 0;
  }
}

} // namespace detail

// ------------------------------------------------------------------ Cast ---

// string -> number (parse). See detail::parse_one: leading/trailing ASCII
// whitespace and a leading '+' are accepted; "inf", "infinity", "nan" in any
// case (ONNX writes "INF", "-INF", "NaN"); integers also accept float text and
// convert it like the generic double -> int cast; bool accepts "true"/"false"
// (any case) or a number. Unparsable text -> NaN (floating) or 0 (integers,
// bool): there is no error channel in a kernel.
template <size_t N, class TO>
void cast(const fixed_string<N> *x, TO *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = detail::parse_one<TO>(x[i].bytes, detail::slot_len(x[i].bytes, N));
}

// number -> string (print). Text longer than N-1 bytes is truncated (the
// compiler picks N >= 32 for numeric casts, which always fits).
template <class TI, size_t N>
void cast(const TI *x, fixed_string<N> *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    char buf[64];
    size_t len = detail::print_one(x[i], buf, sizeof buf);
    if (len > N - 1)
      len = N - 1; // ASCII only: any cut is a character boundary
    detail::slot_store(y[i].bytes, N, buf, len);
  }
}

// string -> string (slot size change). Narrowing truncates at a UTF-8
// character boundary; x and y may be the same array when N == M.
template <size_t N, size_t M>
void cast(const fixed_string<N> *x, fixed_string<M> *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const size_t len = detail::slot_len(x[i].bytes, N);
    detail::slot_store(y[i].bytes, M, x[i].bytes,
                       detail::utf8_fit(x[i].bytes, len, M - 1));
  }
}

// ------------------------------------------------------ StringNormalizer ---

// ONNX StringNormalizer over x[0..count): drops the strings equal to one of
// the stopwords (bytewise when case_sensitive, else after lower-casing both
// sides with the mapping above), applies case_change (0 NONE, 1 LOWER,
// 2 UPPER) to the rest and writes them in order to y[0..out_len). Kept strings
// beyond out_len are dropped. If nothing is kept, y[0] is the empty string
// and 1 is returned (ONNX: "the output is one empty string"). Slots from the
// returned count on are all NUL. Returns the number of strings written.
// A case-mapped string that would exceed N-1 bytes stops at its last whole
// character (cannot happen with the length-preserving mapping above).
// y may be x (in place).
template <size_t N>
int64_t string_normalizer(const fixed_string<N> *x, int64_t count,
                          fixed_string<N> *y, int64_t out_len, int case_change,
                          bool case_sensitive, const char *const *stopwords,
                          int64_t num_stopwords) {
  int64_t written = 0;
  for (int64_t i = 0; i < count && written < out_len; ++i) {
    const size_t len = detail::slot_len(x[i].bytes, N);
    bool stop = false;
    for (int64_t s = 0; s < num_stopwords && !stop; ++s) {
      const char *w = stopwords[s];
      const size_t wl = w ? std::strlen(w) : 0;
      stop = case_sensitive ? wl == len && std::memcmp(w, x[i].bytes, len) == 0
                            : detail::utf8_equal_folded(x[i].bytes, len, w, wl);
    }
    if (stop)
      continue;
    // written <= i, and the mapping never moves bytes forward: safe in place.
    char *out = y[written].bytes;
    const size_t m =
        detail::utf8_change_case(x[i].bytes, len, out, N - 1, case_change);
    std::memset(out + m, 0, N - m);
    ++written;
  }
  if (written == 0 && out_len > 0) {
    std::memset(y[0].bytes, 0, N);
    written = 1;
  }
  for (int64_t k = written; k < out_len; ++k)
    std::memset(y[k].bytes, 0, N);
  return written;
}

} // namespace rt
} // namespace tract
