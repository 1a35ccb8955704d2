// Tests for ONNX string tensors: text/strings.h (Cast to and from strings,
// StringNormalizer) and the string readers/writers of io/npy.h.
#include "tract/rt/data/cast_ref.h"
#include "tract/rt/io/npy.h"
#include "tract/rt/text/strings.h"

#include "test_util.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <unistd.h>

namespace rt = tract::rt;
using tract_test::Rng;

namespace {

static_assert(std::is_trivially_copyable<rt::fixed_string<32>>::value,
              "generic copy kernels move slots bytewise");
static_assert(sizeof(rt::fixed_string<32>) == 32, "a slot is its bytes");

// A slot holding `s`, NUL-padded.
template <size_t N> rt::fixed_string<N> fs(const std::string &s) {
  EXPECT_LT(s.size(), N) << "test string too long for its slot: " << s;
  rt::fixed_string<N> r;
  std::memset(r.bytes, 0, N);
  std::memcpy(r.bytes, s.data(), s.size() < N ? s.size() : N - 1);
  return r;
}
template <size_t N>
std::vector<rt::fixed_string<N>> fsv(const std::vector<std::string> &v) {
  std::vector<rt::fixed_string<N>> r;
  for (const std::string &s : v)
    r.push_back(fs<N>(s));
  return r;
}
// The text of a slot, up to its first NUL.
template <size_t N> std::string str(const rt::fixed_string<N> &f) {
  return std::string(f.bytes, strnlen(f.bytes, N));
}
// True when everything after the text is NUL.
template <size_t N> bool padded(const rt::fixed_string<N> &f) {
  for (size_t i = strnlen(f.bytes, N); i < N; ++i)
    if (f.bytes[i] != '\0')
      return false;
  return true;
}

template <class T> uint64_t bits_of(T v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}

// Parses one string with the string -> TO cast.
template <class TO> TO parse(const std::string &s) {
  const rt::fixed_string<64> x = fs<64>(s);
  TO y;
  rt::cast(&x, &y, 1);
  return y;
}
// Prints one value with the TI -> string cast (also checks the padding).
template <class TI, size_t N = 32> std::string print(TI v) {
  rt::fixed_string<N> y;
  std::memset(y.bytes, 'Z', N);
  rt::cast(&v, &y, 1);
  EXPECT_TRUE(padded(y)) << str(y);
  return str(y);
}

} // namespace

// ------------------------------------------------------------------ Cast ---

TEST(StringCast, ParseFloatSpellings) {
  // numpy's str() of float32 values reads back to the same bits.
  EXPECT_EQ(bits_of(parse<float>("0.039187793")), bits_of(0.039187793f));
  EXPECT_EQ(parse<float>("1e+20"), 1e20f);
  EXPECT_EQ(parse<float>("0.5"), 0.5f);
  EXPECT_EQ(parse<float>("  +1.5\t\n"), 1.5f);
  EXPECT_EQ(parse<float>("-2"), -2.f);
  EXPECT_EQ(parse<float>(".25"), 0.25f);
  EXPECT_EQ(parse<float>("3."), 3.f);
  EXPECT_EQ(parse<float>("1E3"), 1000.f);
  EXPECT_EQ(parse<double>("0.1"), 0.1);
  EXPECT_EQ(parse<double>("-1.7976931348623157e308"),
            -std::numeric_limits<double>::max());
  const float inf = std::numeric_limits<float>::infinity();
  for (const char *s : {"INF", "inf", "+inf", "Infinity", "+INFINITY", " inf "})
    EXPECT_EQ(parse<float>(s), inf) << s;
  for (const char *s : {"-INF", "-inf", "-Infinity"})
    EXPECT_EQ(parse<float>(s), -inf) << s;
  for (const char *s : {"NaN", "nan", "NAN", "-nan", "+NaN"})
    EXPECT_TRUE(std::isnan(parse<float>(s))) << s;
  EXPECT_EQ(parse<double>("-INF"), -std::numeric_limits<double>::infinity());
  // Out of range: like strtod, to +-inf or +-0.
  EXPECT_EQ(parse<float>("1e39"), inf);
  EXPECT_EQ(parse<float>("-3.5e38"), -inf);
  EXPECT_EQ(parse<float>("3.4028235e38"), std::numeric_limits<float>::max());
  EXPECT_EQ(parse<double>("1e400"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(parse<double>("123456789e999999999999"),
            std::numeric_limits<double>::infinity());
  EXPECT_EQ(bits_of(parse<float>("1e-50")), 0u);
  EXPECT_EQ(bits_of(parse<double>("-0.0000001e-400")), bits_of(-0.0));
  EXPECT_EQ(parse<float>("1e-45"), std::numeric_limits<float>::denorm_min());
  // Garbage -> NaN (there is no error channel).
  for (const char *s :
       {"", "   ", "abc", "1.5x", "--1", "+-1", "-+1", "0x10", "1e", "1,5",
        "in", "infinit", "nan(1)", "1 2", "+", "."})
    EXPECT_TRUE(std::isnan(parse<float>(s))) << '"' << s << '"';
  EXPECT_TRUE(std::isnan(parse<double>("true")));
}

TEST(StringCast, ParseHalfAndBfloat16) {
  EXPECT_EQ(parse<rt::half>("1.5").bits, 0x3E00);
  EXPECT_EQ(parse<rt::half>("-2").bits, 0xC000);
  EXPECT_EQ(parse<rt::half>("65504").bits, 0x7BFF);
  EXPECT_EQ(parse<rt::half>("1e6").bits, 0x7C00);
  EXPECT_EQ(parse<rt::half>("-INF").bits, 0xFC00);
  EXPECT_TRUE(std::isnan(rt::half_to_float(parse<rt::half>("NaN"))));
  EXPECT_TRUE(std::isnan(rt::half_to_float(parse<rt::half>("oops"))));
  EXPECT_EQ(parse<rt::bfloat16>("1.5").bits, 0x3FC0);
  EXPECT_EQ(parse<rt::bfloat16>("inf").bits, 0x7F80);
  EXPECT_TRUE(std::isnan(rt::bfloat16_to_float(parse<rt::bfloat16>(""))));
}

template <class T> void check_parse_int() {
  SCOPED_TRACE(sizeof(T));
  using L = std::numeric_limits<T>;
  EXPECT_EQ(parse<T>("42"), T(42));
  EXPECT_EQ(parse<T>(" +42 "), T(42));
  EXPECT_EQ(parse<T>("007"), T(7));
  EXPECT_EQ(parse<T>("3.7"), T(3)); // float text: truncates like the cast
  EXPECT_EQ(parse<T>("1e2"), T(100));
  EXPECT_EQ(parse<T>("garbage"), T(0));
  EXPECT_EQ(parse<T>(""), T(0));
  EXPECT_EQ(parse<T>("12abc"), T(0));
  EXPECT_EQ(parse<T>("+-3"), T(0));
  EXPECT_EQ(parse<T>("NaN"), T(0));
  EXPECT_EQ(parse<T>("inf"), L::max()); // saturates like double -> int
  EXPECT_EQ(parse<T>("1e30"), L::max());
  EXPECT_EQ(parse<T>(std::to_string(+L::max())), L::max());
  EXPECT_EQ(parse<T>(std::to_string(+L::min())), L::min());
  if (std::is_signed<T>::value) {
    EXPECT_EQ(parse<T>("-7"), T(-7));
    EXPECT_EQ(parse<T>("\t-3.7"), T(-3));
    EXPECT_EQ(parse<T>("-1e30"), L::min());
  } else {
    EXPECT_EQ(parse<T>("-7"), T(0)); // negative: saturates to 0
  }
  if (sizeof(T) < 8) {
    EXPECT_EQ(parse<T>("100000000000"), L::max()); // out of range saturates
  }
}

TEST(StringCast, ParseIntegers) {
  check_parse_int<int8_t>();
  check_parse_int<int16_t>();
  check_parse_int<int32_t>();
  check_parse_int<int64_t>();
  check_parse_int<uint8_t>();
  check_parse_int<uint16_t>();
  check_parse_int<uint32_t>();
  check_parse_int<uint64_t>();
  // 64-bit values beyond 2^53 are read exactly, not through double.
  EXPECT_EQ(parse<int64_t>("9007199254740993"), int64_t(9007199254740993));
  EXPECT_EQ(parse<int64_t>("-9223372036854775808"),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(parse<uint64_t>("18446744073709551615"),
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(parse<int64_t>("9223372036854775808"),
            std::numeric_limits<int64_t>::max());
}

TEST(StringCast, ParseBool) {
  for (const char *s : {"true", "TRUE", " True ", "1", "-1", "2.5", "1e-9"})
    EXPECT_TRUE(parse<bool>(s)) << s;
  for (const char *s :
       {"false", "FALSE", "0", "0.0", "-0", "", "garbage", "truex", "yes"})
    EXPECT_FALSE(parse<bool>(s)) << s;
}

TEST(StringCast, PrintNumbers) {
  // Shortest round trip, numpy's str() of float32 / float64 for these.
  EXPECT_EQ(print(0.039187793f), "0.039187793");
  EXPECT_EQ(print(1e20f), "1e+20");
  EXPECT_EQ(print(0.5f), "0.5");
  EXPECT_EQ(print(-1.25f), "-1.25");
  EXPECT_EQ(print(1e-5f), "1e-05");
  EXPECT_EQ(print(3.4028235e38f), "3.4028235e+38");
  EXPECT_EQ(print(0.1), "0.1");
  EXPECT_EQ(print(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(print(5e-324), "5e-324");
  // ONNX Runtime's spelling of the non-finite values.
  EXPECT_EQ(print(std::numeric_limits<float>::infinity()), "INF");
  EXPECT_EQ(print(-std::numeric_limits<float>::infinity()), "-INF");
  EXPECT_EQ(print(std::numeric_limits<float>::quiet_NaN()), "NaN");
  EXPECT_EQ(print(-std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(print(-std::numeric_limits<double>::infinity()), "-INF");
  // half / bfloat16 print their float value.
  EXPECT_EQ(print(rt::half{0x3E00}), "1.5");
  EXPECT_EQ(print(rt::half{0x7C00}), "INF");
  EXPECT_EQ(print(rt::half{0x2E66}), "0.099975586"); // half(0.1)
  EXPECT_EQ(print(rt::bfloat16{0xC020}), "-2.5");
  EXPECT_EQ(print(rt::bfloat16{0x7FC0}), "NaN");
  // Integers in decimal, bool as 1/0 (ONNX Runtime).
  EXPECT_EQ(print(int8_t(-128)), "-128");
  EXPECT_EQ(print(uint8_t(255)), "255");
  EXPECT_EQ(print(int16_t(-32768)), "-32768");
  EXPECT_EQ(print(uint16_t(65535)), "65535");
  EXPECT_EQ(print(int32_t(-2147483647 - 1)), "-2147483648");
  EXPECT_EQ(print(uint32_t(4294967295u)), "4294967295");
  EXPECT_EQ(print(std::numeric_limits<int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(print(std::numeric_limits<uint64_t>::max()),
            "18446744073709551615");
  EXPECT_EQ(print(true), "1");
  EXPECT_EQ(print(false), "0");
}

TEST(StringCast, PrintTruncatesAndPads) {
  EXPECT_EQ((print<int32_t, 4>(123456)), "123");
  EXPECT_EQ((print<float, 4>(-0.5f)), "-0.");
  EXPECT_EQ((print<float, 4>(-std::numeric_limits<float>::infinity())), "-IN");
  EXPECT_EQ((print<bool, 2>(true)), "1");
  EXPECT_EQ((print<uint64_t, 2>(99)), "9");
  // Vectors: every slot NUL-padded after its text.
  const std::vector<int16_t> x = {1, -22, 333, 0};
  std::vector<rt::fixed_string<8>> y(x.size());
  std::memset(y.data(), 'Z', y.size() * 8);
  rt::cast(x.data(), y.data(), int64_t(x.size()));
  EXPECT_EQ(str(y[0]), "1");
  EXPECT_EQ(str(y[1]), "-22");
  EXPECT_EQ(str(y[2]), "333");
  EXPECT_EQ(str(y[3]), "0");
  for (const auto &s : y)
    EXPECT_TRUE(padded(s));
}

// Random finite values survive number -> string -> number bit for bit.
template <class F, class U> void check_round_trip(uint64_t seed) {
  Rng r(seed);
  const int n = 4000;
  std::vector<F> x;
  while (int(x.size()) < n) {
    const U b = static_cast<U>(r.next());
    F v;
    std::memcpy(&v, &b, sizeof v);
    if (std::isfinite(v))
      x.push_back(v);
  }
  x.push_back(std::numeric_limits<F>::denorm_min());
  x.push_back(-std::numeric_limits<F>::max());
  x.push_back(F(-0.0));
  std::vector<rt::fixed_string<32>> s(x.size());
  std::vector<F> back(x.size());
  rt::cast(x.data(), s.data(), int64_t(x.size()));
  rt::cast(s.data(), back.data(), int64_t(x.size()));
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(bits_of(back[i]), bits_of(x[i])) << str(s[i]);
}

TEST(StringCast, RoundTripFloatBits) {
  check_round_trip<float, uint32_t>(1);
  check_round_trip<double, uint64_t>(2);
  // half and bfloat16: every finite bit pattern.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const rt::half h{static_cast<uint16_t>(b)};
    const rt::bfloat16 g{static_cast<uint16_t>(b)};
    if (std::isfinite(rt::half_to_float(h))) {
      ASSERT_EQ(parse<rt::half>(print(h)).bits, h.bits) << print(h);
    }
    if (std::isfinite(rt::bfloat16_to_float(g))) {
      ASSERT_EQ(parse<rt::bfloat16>(print(g)).bits, g.bits) << print(g);
    }
  }
}

template <class T> void check_int_round_trip(uint64_t seed) {
  Rng r(seed);
  std::vector<T> x = {std::numeric_limits<T>::min(),
                      std::numeric_limits<T>::max(), T(0)};
  for (int i = 0; i < 500; ++i)
    x.push_back(static_cast<T>(r.next()));
  std::vector<rt::fixed_string<24>> s(x.size());
  std::vector<T> back(x.size());
  rt::cast(x.data(), s.data(), int64_t(x.size()));
  rt::cast(s.data(), back.data(), int64_t(x.size()));
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(back[i], x[i]) << str(s[i]);
}

TEST(StringCast, RoundTripIntegersAndBool) {
  check_int_round_trip<int8_t>(3);
  check_int_round_trip<int16_t>(4);
  check_int_round_trip<int32_t>(5);
  check_int_round_trip<int64_t>(6);
  check_int_round_trip<uint8_t>(7);
  check_int_round_trip<uint16_t>(8);
  check_int_round_trip<uint32_t>(9);
  check_int_round_trip<uint64_t>(10);
  const bool b[2] = {true, false};
  rt::fixed_string<2> s[2];
  bool back[2] = {false, true};
  rt::cast(b, s, 2);
  rt::cast(s, back, 2);
  EXPECT_TRUE(back[0]);
  EXPECT_FALSE(back[1]);
}

TEST(StringCast, GenericCastStillApplies) {
  // The string overloads do not disturb the generic numeric cast.
  const double x[2] = {2.9, -1e300};
  int32_t y[2];
  rt::cast(x, y, 2);
  EXPECT_EQ(y[0], 2);
  EXPECT_EQ(y[1], std::numeric_limits<int32_t>::min());
}

TEST(StringCast, StringToString) {
  // "héllo" is 6 bytes; 3 bytes hold "hé" (é is 2 bytes).
  auto x = fsv<12>({"héllo", "日本語", "abc", "", "ab\xc3"});
  std::vector<rt::fixed_string<4>> y(x.size());
  std::memset(y.data(), 'Z', y.size() * 4);
  rt::cast(x.data(), y.data(), int64_t(x.size()));
  EXPECT_EQ(str(y[0]), "h\xc3\xa9");
  EXPECT_EQ(str(y[1]), "日"); // 3 of 9 bytes: one whole character
  EXPECT_EQ(str(y[2]), "abc");
  EXPECT_EQ(str(y[3]), "");
  EXPECT_EQ(str(y[4]), "ab\xc3"); // fits: copied as is, even ill-formed
  for (const auto &s : y)
    EXPECT_TRUE(padded(s));
  std::vector<rt::fixed_string<3>> z(x.size());
  rt::cast(x.data(), z.data(), int64_t(x.size()));
  EXPECT_EQ(str(z[0]), "h"); // cut before é's lead byte
  EXPECT_EQ(str(z[1]), "");
  std::vector<rt::fixed_string<6>> w(2);
  rt::cast(x.data() + 1, w.data(), 2);
  EXPECT_EQ(str(w[0]), "日"); // 9 bytes into 5: one character
  EXPECT_EQ(str(w[1]), "abc");
  // A 4-byte character cut at each of its bytes.
  const auto emoji = fs<16>("a\xf0\x9f\x98\x80"
                            "b");
  rt::fixed_string<3> e3;
  rt::fixed_string<4> e4;
  rt::fixed_string<5> e5;
  rt::fixed_string<6> e6;
  rt::cast(&emoji, &e3, 1);
  rt::cast(&emoji, &e4, 1);
  rt::cast(&emoji, &e5, 1);
  rt::cast(&emoji, &e6, 1);
  EXPECT_EQ(str(e3), "a");
  EXPECT_EQ(str(e4), "a");
  EXPECT_EQ(str(e5), "a");
  EXPECT_EQ(str(e6), "a\xf0\x9f\x98\x80");
  // Widening pads; same size may run in place.
  std::vector<rt::fixed_string<32>> wide(x.size());
  rt::cast(x.data(), wide.data(), int64_t(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(str(wide[i]), str(x[i]));
    EXPECT_TRUE(padded(wide[i]));
  }
  rt::cast(x.data(), x.data(), int64_t(x.size()));
  EXPECT_EQ(str(x[1]), "日本語");
}

// ------------------------------------------------------ StringNormalizer ---

namespace {

// Runs string_normalizer on `in` with out_len slots; returns the written
// strings (count = return value) and checks the padding of every slot.
std::vector<std::string> normalize(const std::vector<std::string> &in,
                                   int case_change, bool case_sensitive,
                                   const std::vector<const char *> &stop,
                                   int64_t out_len = -1) {
  auto x = fsv<64>(in);
  if (out_len < 0)
    out_len = int64_t(in.size());
  std::vector<rt::fixed_string<64>> y(size_t(out_len > 0 ? out_len : 1));
  std::memset(y.data(), 'Z', y.size() * 64);
  const int64_t n = rt::string_normalizer(x.data(), int64_t(x.size()), y.data(),
                                          out_len, case_change, case_sensitive,
                                          stop.empty() ? nullptr : stop.data(),
                                          int64_t(stop.size()));
  std::vector<std::string> r;
  for (int64_t k = 0; k < out_len; ++k) {
    EXPECT_TRUE(padded(y[size_t(k)])) << k;
    if (k < n)
      r.push_back(str(y[size_t(k)]));
    else
      EXPECT_EQ(str(y[size_t(k)]), "") << "slot " << k << " past the count";
  }
  EXPECT_LE(n, out_len);
  return r;
}

using Strs = std::vector<std::string>;

} // namespace

// The six cases of ONNX's StringNormalizer tests.
TEST(StringNormalizer, OnnxCases) {
  const Strs days = {"monday", "tuesday", "wednesday", "thursday"};
  EXPECT_EQ(normalize(days, 1, true, {"monday"}),
            (Strs{"tuesday", "wednesday", "thursday"}));
  EXPECT_EQ(normalize(days, 0, true, {"monday"}),
            (Strs{"tuesday", "wednesday", "thursday"}));
  EXPECT_EQ(normalize(days, 2, true, {"monday"}),
            (Strs{"TUESDAY", "WEDNESDAY", "THURSDAY"}));
  // All removed: one empty string.
  EXPECT_EQ(normalize({"monday", "monday"}, 2, true, {"monday"}, 1),
            (Strs{""}));
  // Case-insensitive stopwords (input [1, 6]).
  EXPECT_EQ(normalize({"Monday", "tuesday", "wednesday", "Monday", "tuesday",
                       "wednesday"},
                      2, false, {"monday"}, 4),
            (Strs{"TUESDAY", "WEDNESDAY", "TUESDAY", "WEDNESDAY"}));
  EXPECT_EQ(normalize({"monday", "tuesday"}, 0, true, {}),
            (Strs{"monday", "tuesday"}));
}

TEST(StringNormalizer, StopwordsAndCounts) {
  // Case-sensitive: "Monday" is not "monday".
  EXPECT_EQ(normalize({"Monday", "monday"}, 0, true, {"monday"}, 1),
            (Strs{"Monday"}));
  // Several stopwords, empty strings are ordinary strings.
  EXPECT_EQ(normalize({"a", "", "b", "c", ""}, 0, true, {"b", ""}, 2),
            (Strs{"a", "c"}));
  EXPECT_EQ(normalize({"a", "", "b"}, 0, true, {"b"}, 2), (Strs{"a", ""}));
  // out_len limits what is written; the rest of y is empty.
  EXPECT_EQ(normalize({"a", "b", "c", "d"}, 2, true, {"b"}, 2),
            (Strs{"A", "C"}));
  EXPECT_EQ(normalize({"a", "b"}, 0, true, {}, 5), (Strs{"a", "b"}));
  EXPECT_EQ(normalize({"x"}, 0, true, {"x"}, 3), (Strs{""}));
  // out_len 0 writes nothing.
  rt::fixed_string<4> x = fs<4>("abc"), y = fs<4>("zzz");
  EXPECT_EQ(rt::string_normalizer(&x, 1, &y, 0, 1, true, nullptr, 0), 0);
  EXPECT_EQ(str(y), "zzz");
  // Empty input: one empty string.
  EXPECT_EQ(rt::string_normalizer(&x, 0, &y, 1, 1, true, nullptr, 0), 1);
  EXPECT_EQ(str(y), "");
  // In place.
  auto v = fsv<16>({"Stop", "Keep", "Me"});
  const char *const stop[] = {"STOP"};
  EXPECT_EQ(rt::string_normalizer(v.data(), 3, v.data(), 3, 2, false, stop, 1),
            2);
  EXPECT_EQ(str(v[0]), "KEEP");
  EXPECT_EQ(str(v[1]), "ME");
  EXPECT_EQ(str(v[2]), "");
  EXPECT_TRUE(padded(v[2]));
}

TEST(StringNormalizer, NonAsciiCaseMapping) {
  // ß has no one-character upper case: unchanged.
  EXPECT_EQ(normalize({"Ärger straße"}, 2, true, {}), (Strs{"ÄRGER STRAßE"}));
  EXPECT_EQ(normalize({"ÄRGER STRAẞE"}, 1, true, {}), (Strs{"ärger straẞe"}));
  // Latin-1: × ÷ and ÿ stay; Þ <-> þ, À <-> à.
  EXPECT_EQ(normalize({"àéîõü ×÷ þÿ ð"}, 2, true, {}), (Strs{"ÀÉÎÕÜ ×÷ Þÿ Ð"}));
  EXPECT_EQ(normalize({"ÀÉÎÕÜ ×÷ Þ Ð"}, 1, true, {}), (Strs{"àéîõü ×÷ þ ð"}));
  // Latin Extended-A pairs; İ ı ĸ ŉ Ÿ ſ are irregular and stay.
  EXPECT_EQ(normalize({"łódź ąĉđ ĳ ňŋ žſ İıĸŉŸ"}, 2, true, {}),
            (Strs{"ŁÓDŹ ĄĈĐ Ĳ ŇŊ Žſ İıĸŉŸ"}));
  EXPECT_EQ(normalize({"ŁÓDŹ ĄĈĐ Ĳ ŇŊ Ž İıĸŉŸ"}, 1, true, {}),
            (Strs{"łódź ąĉđ ĳ ňŋ ž İıĸŉŸ"}));
  // Greek (final sigma uppercases to Σ; accented letters are outside the
  // mapped block) and Cyrillic, including Ѐ-Џ / ѐ-џ.
  EXPECT_EQ(normalize({"αβγ ωσς άλφα"}, 2, true, {}), (Strs{"ΑΒΓ ΩΣΣ άΛΦΑ"}));
  EXPECT_EQ(normalize({"ΑΒΓ ΩΣ"}, 1, true, {}), (Strs{"αβγ ωσ"}));
  EXPECT_EQ(normalize({"Привет, Ёжик! Џ"}, 2, true, {}),
            (Strs{"ПРИВЕТ, ЁЖИК! Џ"}));
  EXPECT_EQ(normalize({"Привет, Ёжик! Џ"}, 1, true, {}),
            (Strs{"привет, ёжик! џ"}));
  // Other scripts and ill-formed bytes are copied unchanged.
  EXPECT_EQ(normalize({"日本 ab \xff\xc3 x\xe6\x97"}, 2, true, {}),
            (Strs{"日本 AB \xff\xc3 X\xe6\x97"}));
  // Case-insensitive stopwords compare with the same mapping.
  EXPECT_EQ(normalize({"STRAßE", "Ärger", "ärger", "ΟΔΟΣ", "keep"}, 0, false,
                      {"straße", "äRGER", "οδοσ"}, 1),
            (Strs{"keep"}));
  EXPECT_EQ(normalize({"\xff", "\xfe"}, 0, false, {"\xff"}, 1), (Strs{"\xfe"}));
}

TEST(StringNormalizer, MappingAgreesWithUnicodeWhereItMaps) {
  // Spot checks of the simple case pairs the header documents (Unicode's
  // UnicodeData.txt simple mappings): each mapped letter maps back.
  const uint32_t uppers[] = {'A',   'Z',   0xC0,  0xD6,  0xD8,  0xDE,
                             0x100, 0x12E, 0x132, 0x136, 0x139, 0x147,
                             0x14A, 0x176, 0x179, 0x17D, 0x391, 0x3A1,
                             0x3A3, 0x3A9, 0x400, 0x40F, 0x410, 0x42F};
  for (uint32_t u : uppers) {
    const uint32_t l = rt::detail::to_lower_cp(u);
    EXPECT_NE(l, u) << std::hex << u;
    EXPECT_EQ(rt::detail::to_upper_cp(l), u) << std::hex << u;
    EXPECT_EQ(rt::detail::to_lower_cp(l), l) << std::hex << u;
  }
  for (uint32_t c : {0xD7u, 0xF7u, 0xDFu, 0xFFu, 0x130u, 0x131u, 0x138u, 0x149u,
                     0x178u, 0x17Fu, 0x3A2u, 0xB5u, 0x2160u})
    EXPECT_TRUE(rt::detail::to_lower_cp(c) == c &&
                rt::detail::to_upper_cp(c) == c)
        << std::hex << c;
}

// ------------------------------------------------------- .npy of strings ---

namespace {

// Pickles numpy 1.24 wrote for object arrays (generated with /usr/bin/python3
// by a one-off script; the header line is what np.save wrote before them).
// np.save(f, np.array([[s, s, ''], ['Grüße', '日本語', s]], dtype=object)), s =
// 'ab' (numpy 1.24 pickles with protocol 3; the repeated s is a BINGET) header:
// {'descr': '|O', 'fortran_order': False, 'shape': (2, 3), }
const unsigned char kObjProto3[] = {
    0x80, 0x03, 0x63, 0x6e, 0x75, 0x6d, 0x70, 0x79, 0x2e, 0x63, 0x6f, 0x72,
    0x65, 0x2e, 0x6d, 0x75, 0x6c, 0x74, 0x69, 0x61, 0x72, 0x72, 0x61, 0x79,
    0x0a, 0x5f, 0x72, 0x65, 0x63, 0x6f, 0x6e, 0x73, 0x74, 0x72, 0x75, 0x63,
    0x74, 0x0a, 0x71, 0x00, 0x63, 0x6e, 0x75, 0x6d, 0x70, 0x79, 0x0a, 0x6e,
    0x64, 0x61, 0x72, 0x72, 0x61, 0x79, 0x0a, 0x71, 0x01, 0x4b, 0x00, 0x85,
    0x71, 0x02, 0x43, 0x01, 0x62, 0x71, 0x03, 0x87, 0x71, 0x04, 0x52, 0x71,
    0x05, 0x28, 0x4b, 0x01, 0x4b, 0x02, 0x4b, 0x03, 0x86, 0x71, 0x06, 0x63,
    0x6e, 0x75, 0x6d, 0x70, 0x79, 0x0a, 0x64, 0x74, 0x79, 0x70, 0x65, 0x0a,
    0x71, 0x07, 0x58, 0x02, 0x00, 0x00, 0x00, 0x4f, 0x38, 0x71, 0x08, 0x89,
    0x88, 0x87, 0x71, 0x09, 0x52, 0x71, 0x0a, 0x28, 0x4b, 0x03, 0x58, 0x01,
    0x00, 0x00, 0x00, 0x7c, 0x71, 0x0b, 0x4e, 0x4e, 0x4e, 0x4a, 0xff, 0xff,
    0xff, 0xff, 0x4a, 0xff, 0xff, 0xff, 0xff, 0x4b, 0x3f, 0x74, 0x71, 0x0c,
    0x62, 0x89, 0x5d, 0x71, 0x0d, 0x28, 0x58, 0x02, 0x00, 0x00, 0x00, 0x61,
    0x62, 0x71, 0x0e, 0x68, 0x0e, 0x58, 0x00, 0x00, 0x00, 0x00, 0x71, 0x0f,
    0x58, 0x07, 0x00, 0x00, 0x00, 0x47, 0x72, 0xc3, 0xbc, 0xc3, 0x9f, 0x65,
    0x71, 0x10, 0x58, 0x09, 0x00, 0x00, 0x00, 0xe6, 0x97, 0xa5, 0xe6, 0x9c,
    0xac, 0xe8, 0xaa, 0x9e, 0x71, 0x11, 0x68, 0x0e, 0x65, 0x74, 0x71, 0x12,
    0x62, 0x2e,
};

// pickle.dumps(np.array(['x', 'ab', 'x', 'Ελλάδα'], dtype=object), protocol=4)
// (FRAME, SHORT_BINUNICODE, STACK_GLOBAL, MEMOIZE; the second 'x' is a BINGET)
// header: {'descr': '|O', 'fortran_order': False, 'shape': (4,), }
const unsigned char kObjProto4[] = {
    0x80, 0x04, 0x95, 0xa3, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x8c,
    0x15, 0x6e, 0x75, 0x6d, 0x70, 0x79, 0x2e, 0x63, 0x6f, 0x72, 0x65, 0x2e,
    0x6d, 0x75, 0x6c, 0x74, 0x69, 0x61, 0x72, 0x72, 0x61, 0x79, 0x94, 0x8c,
    0x0c, 0x5f, 0x72, 0x65, 0x63, 0x6f, 0x6e, 0x73, 0x74, 0x72, 0x75, 0x63,
    0x74, 0x94, 0x93, 0x94, 0x8c, 0x05, 0x6e, 0x75, 0x6d, 0x70, 0x79, 0x94,
    0x8c, 0x07, 0x6e, 0x64, 0x61, 0x72, 0x72, 0x61, 0x79, 0x94, 0x93, 0x94,
    0x4b, 0x00, 0x85, 0x94, 0x43, 0x01, 0x62, 0x94, 0x87, 0x94, 0x52, 0x94,
    0x28, 0x4b, 0x01, 0x4b, 0x04, 0x85, 0x94, 0x68, 0x03, 0x8c, 0x05, 0x64,
    0x74, 0x79, 0x70, 0x65, 0x94, 0x93, 0x94, 0x8c, 0x02, 0x4f, 0x38, 0x94,
    0x89, 0x88, 0x87, 0x94, 0x52, 0x94, 0x28, 0x4b, 0x03, 0x8c, 0x01, 0x7c,
    0x94, 0x4e, 0x4e, 0x4e, 0x4a, 0xff, 0xff, 0xff, 0xff, 0x4a, 0xff, 0xff,
    0xff, 0xff, 0x4b, 0x3f, 0x74, 0x94, 0x62, 0x89, 0x5d, 0x94, 0x28, 0x8c,
    0x01, 0x78, 0x94, 0x8c, 0x02, 0x61, 0x62, 0x94, 0x68, 0x13, 0x8c, 0x0c,
    0xce, 0x95, 0xce, 0xbb, 0xce, 0xbb, 0xce, 0xac, 0xce, 0xb4, 0xce, 0xb1,
    0x94, 0x65, 0x74, 0x94, 0x62, 0x2e,
};

// pickle.dumps(np.array('only', dtype=object), protocol=5): 0-d, EMPTY_TUPLE
// shape, one APPEND header: {'descr': '|O', 'fortran_order': False, 'shape':
// (), }
const unsigned char kObjProto5Scalar[] = {
    0x80, 0x05, 0x95, 0x8c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x8c,
    0x15, 0x6e, 0x75, 0x6d, 0x70, 0x79, 0x2e, 0x63, 0x6f, 0x72, 0x65, 0x2e,
    0x6d, 0x75, 0x6c, 0x74, 0x69, 0x61, 0x72, 0x72, 0x61, 0x79, 0x94, 0x8c,
    0x0c, 0x5f, 0x72, 0x65, 0x63, 0x6f, 0x6e, 0x73, 0x74, 0x72, 0x75, 0x63,
    0x74, 0x94, 0x93, 0x94, 0x8c, 0x05, 0x6e, 0x75, 0x6d, 0x70, 0x79, 0x94,
    0x8c, 0x07, 0x6e, 0x64, 0x61, 0x72, 0x72, 0x61, 0x79, 0x94, 0x93, 0x94,
    0x4b, 0x00, 0x85, 0x94, 0x43, 0x01, 0x62, 0x94, 0x87, 0x94, 0x52, 0x94,
    0x28, 0x4b, 0x01, 0x29, 0x68, 0x03, 0x8c, 0x05, 0x64, 0x74, 0x79, 0x70,
    0x65, 0x94, 0x93, 0x94, 0x8c, 0x02, 0x4f, 0x38, 0x94, 0x89, 0x88, 0x87,
    0x94, 0x52, 0x94, 0x28, 0x4b, 0x03, 0x8c, 0x01, 0x7c, 0x94, 0x4e, 0x4e,
    0x4e, 0x4a, 0xff, 0xff, 0xff, 0xff, 0x4a, 0xff, 0xff, 0xff, 0xff, 0x4b,
    0x3f, 0x74, 0x94, 0x62, 0x89, 0x5d, 0x94, 0x8c, 0x04, 0x6f, 0x6e, 0x6c,
    0x79, 0x94, 0x61, 0x74, 0x94, 0x62, 0x2e,
};

// pickle.dumps(np.array(['|', 'O8', 'z'], dtype=object), protocol=2)
// (the element '|' is a BINGET of the dtype state's own '|')
// header: {'descr': '|O', 'fortran_order': False, 'shape': (3,), }
const unsigned char kObjProto2[] = {
    0x80, 0x02, 0x63, 0x6e, 0x75, 0x6d, 0x70, 0x79, 0x2e, 0x63, 0x6f, 0x72,
    0x65, 0x2e, 0x6d, 0x75, 0x6c, 0x74, 0x69, 0x61, 0x72, 0x72, 0x61, 0x79,
    0x0a, 0x5f, 0x72, 0x65, 0x63, 0x6f, 0x6e, 0x73, 0x74, 0x72, 0x75, 0x63,
    0x74, 0x0a, 0x71, 0x00, 0x63, 0x6e, 0x75, 0x6d, 0x70, 0x79, 0x0a, 0x6e,
    0x64, 0x61, 0x72, 0x72, 0x61, 0x79, 0x0a, 0x71, 0x01, 0x4b, 0x00, 0x85,
    0x71, 0x02, 0x63, 0x5f, 0x63, 0x6f, 0x64, 0x65, 0x63, 0x73, 0x0a, 0x65,
    0x6e, 0x63, 0x6f, 0x64, 0x65, 0x0a, 0x71, 0x03, 0x58, 0x01, 0x00, 0x00,
    0x00, 0x62, 0x71, 0x04, 0x58, 0x06, 0x00, 0x00, 0x00, 0x6c, 0x61, 0x74,
    0x69, 0x6e, 0x31, 0x71, 0x05, 0x86, 0x71, 0x06, 0x52, 0x71, 0x07, 0x87,
    0x71, 0x08, 0x52, 0x71, 0x09, 0x28, 0x4b, 0x01, 0x4b, 0x03, 0x85, 0x71,
    0x0a, 0x63, 0x6e, 0x75, 0x6d, 0x70, 0x79, 0x0a, 0x64, 0x74, 0x79, 0x70,
    0x65, 0x0a, 0x71, 0x0b, 0x58, 0x02, 0x00, 0x00, 0x00, 0x4f, 0x38, 0x71,
    0x0c, 0x89, 0x88, 0x87, 0x71, 0x0d, 0x52, 0x71, 0x0e, 0x28, 0x4b, 0x03,
    0x58, 0x01, 0x00, 0x00, 0x00, 0x7c, 0x71, 0x0f, 0x4e, 0x4e, 0x4e, 0x4a,
    0xff, 0xff, 0xff, 0xff, 0x4a, 0xff, 0xff, 0xff, 0xff, 0x4b, 0x3f, 0x74,
    0x71, 0x10, 0x62, 0x89, 0x5d, 0x71, 0x11, 0x28, 0x68, 0x0f, 0x58, 0x02,
    0x00, 0x00, 0x00, 0x4f, 0x38, 0x71, 0x12, 0x58, 0x01, 0x00, 0x00, 0x00,
    0x7a, 0x71, 0x13, 0x65, 0x74, 0x71, 0x14, 0x62, 0x2e,
};

// np.save(f, np.array(['|', b'raw\xff'], dtype=object)): a bytes element
// (SHORT_BINBYTES) header: {'descr': '|O', 'fortran_order': False, 'shape':
// (2,), }
const unsigned char kObjBytes[] = {
    0x80, 0x03, 0x63, 0x6e, 0x75, 0x6d, 0x70, 0x79, 0x2e, 0x63, 0x6f, 0x72,
    0x65, 0x2e, 0x6d, 0x75, 0x6c, 0x74, 0x69, 0x61, 0x72, 0x72, 0x61, 0x79,
    0x0a, 0x5f, 0x72, 0x65, 0x63, 0x6f, 0x6e, 0x73, 0x74, 0x72, 0x75, 0x63,
    0x74, 0x0a, 0x71, 0x00, 0x63, 0x6e, 0x75, 0x6d, 0x70, 0x79, 0x0a, 0x6e,
    0x64, 0x61, 0x72, 0x72, 0x61, 0x79, 0x0a, 0x71, 0x01, 0x4b, 0x00, 0x85,
    0x71, 0x02, 0x43, 0x01, 0x62, 0x71, 0x03, 0x87, 0x71, 0x04, 0x52, 0x71,
    0x05, 0x28, 0x4b, 0x01, 0x4b, 0x02, 0x85, 0x71, 0x06, 0x63, 0x6e, 0x75,
    0x6d, 0x70, 0x79, 0x0a, 0x64, 0x74, 0x79, 0x70, 0x65, 0x0a, 0x71, 0x07,
    0x58, 0x02, 0x00, 0x00, 0x00, 0x4f, 0x38, 0x71, 0x08, 0x89, 0x88, 0x87,
    0x71, 0x09, 0x52, 0x71, 0x0a, 0x28, 0x4b, 0x03, 0x58, 0x01, 0x00, 0x00,
    0x00, 0x7c, 0x71, 0x0b, 0x4e, 0x4e, 0x4e, 0x4a, 0xff, 0xff, 0xff, 0xff,
    0x4a, 0xff, 0xff, 0xff, 0xff, 0x4b, 0x3f, 0x74, 0x71, 0x0c, 0x62, 0x89,
    0x5d, 0x71, 0x0d, 0x28, 0x68, 0x0b, 0x43, 0x04, 0x72, 0x61, 0x77, 0xff,
    0x71, 0x0e, 0x65, 0x74, 0x71, 0x0f, 0x62, 0x2e,
};

const char *kPython = "/usr/bin/python3";

// A hand-written pickle, for cases numpy does not produce.
struct Pickle {
  std::string b;
  Pickle &op(unsigned char c) {
    b += static_cast<char>(c);
    return *this;
  }
  Pickle &le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      b += static_cast<char>((v >> (8 * i)) & 0xff);
    return *this;
  }
  Pickle &raw(const std::string &s) {
    b += s;
    return *this;
  }
  // BINUNICODE
  Pickle &str(const std::string &s) { return op('X').le(s.size(), 4).raw(s); }
};

class NpyStrings : public tract_test::TempDirTest {
protected:

  // Writes a version 1.0 .npy with header dict `dict` and then `body`.
  std::string write_npy(const std::string &name, const std::string &dict,
                        const std::string &body) const {
    std::ofstream(path(name), std::ios::binary) << tract_test::npy_v1(dict, body);
    return path(name);
  }
  std::string write_obj(const std::string &name, const std::string &shape,
                        const std::string &pickle) const {
    return write_npy(
        name,
        "{'descr': '|O', 'fortran_order': False, 'shape': " + shape + ", }",
        pickle);
  }
  template <size_t K>
  std::string write_obj(const std::string &name, const std::string &shape,
                        const unsigned char (&pickle)[K]) const {
    return write_obj(name, shape,
                     std::string(reinterpret_cast<const char *>(pickle), K));
  }

  // Reads with npy_read_strings; on success returns the slots' texts and
  // checks the NUL padding.
  bool read(const std::string &file, size_t slot, std::vector<std::string> *v,
            rt::NpyArray *a = nullptr) {
    rt::NpyArray tmp;
    rt::NpyArray *arr = a ? a : &tmp;
    err_[0] = '\0';
    if (!rt::npy_read_strings(file.c_str(), slot, arr, err_, sizeof err_)) {
      EXPECT_EQ(arr->data, nullptr);
      return false;
    }
    EXPECT_STREQ(arr->dtype, "str");
    const char *d = static_cast<const char *>(arr->data);
    EXPECT_EQ(arr->bytes % slot, 0u);
    v->clear();
    for (size_t i = 0; i < arr->bytes / slot; ++i) {
      const char *s = d + i * slot;
      const size_t len = strnlen(s, slot);
      EXPECT_LT(len, slot);
      for (size_t k = len; k < slot; ++k)
        EXPECT_EQ(s[k], '\0');
      v->push_back(std::string(s, len));
    }
    if (!a)
      rt::npy_free(arr);
    return true;
  }
  // Expects a failure whose message contains `part`.
  void expect_error(const std::string &file, size_t slot,
                    const std::string &part) {
    std::vector<std::string> v;
    EXPECT_FALSE(read(file, slot, &v)) << file;
    EXPECT_NE(std::string(err_).find(part), std::string::npos)
        << "error: " << err_ << "\nwanted: " << part;
  }

  static bool have_numpy() {
    static const int ok = std::system(
        (std::string(kPython) + " -c 'import numpy' >/dev/null 2>&1").c_str());
    return ok == 0;
  }
  int python(const std::string &code) const {
    const std::string script = path("script.py");
    std::ofstream(script) << "import numpy as np, os, io, pickle\nos.chdir("
                          << '"' << dir_ << '"' << ")\n"
                          << code << "\n";
    return std::system((std::string(kPython) + " '" + script + "'").c_str());
  }
  std::string file_text(const std::string &file) const {
    std::ifstream f(file, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)),
                       std::istreambuf_iterator<char>());
  }

  char err_[512] = "";
};

// UCS-4 little-endian bytes of code points.
std::string ucs4(const std::vector<uint32_t> &cps) {
  std::string r;
  for (uint32_t c : cps)
    for (int i = 0; i < 4; ++i)
      r += static_cast<char>((c >> (8 * i)) & 0xff);
  return r;
}

} // namespace

TEST_F(NpyStrings, ReadsObjectPickles) {
  std::vector<std::string> v;
  rt::NpyArray a;
  ASSERT_TRUE(read(write_obj("p3.npy", "(2, 3)", kObjProto3), 16, &v, &a))
      << err_;
  EXPECT_EQ(a.rank, 2);
  EXPECT_EQ(a.shape[0], 2);
  EXPECT_EQ(a.shape[1], 3);
  EXPECT_EQ(a.bytes, 6 * 16u);
  rt::npy_free(&a);
  EXPECT_EQ(v, (Strs{"ab", "ab", "", "Grüße", "日本語", "ab"}));

  ASSERT_TRUE(read(write_obj("p4.npy", "(4,)", kObjProto4), 16, &v)) << err_;
  EXPECT_EQ(v, (Strs{"x", "ab", "x", "Ελλάδα"}));

  ASSERT_TRUE(read(write_obj("p5.npy", "()", kObjProto5Scalar), 8, &v, &a))
      << err_;
  EXPECT_EQ(a.rank, 0);
  rt::npy_free(&a);
  EXPECT_EQ(v, (Strs{"only"}));

  ASSERT_TRUE(read(write_obj("p2.npy", "(3,)", kObjProto2), 4, &v)) << err_;
  EXPECT_EQ(v, (Strs{"|", "O8", "z"}));

  ASSERT_TRUE(read(write_obj("pb.npy", "(2,)", kObjBytes), 5, &v)) << err_;
  EXPECT_EQ(v, (Strs{"|", "raw\xff"}));
}

TEST_F(NpyStrings, ReadsHandWrittenPickles) {
  std::vector<std::string> v;
  // 2501 elements as pickle batches them: MARK + 1000 + APPENDS (twice),
  // then 500 and a last single APPEND; LONG_BINPUT / LONG_BINGET past 255
  // memo entries and repeats fetched from the memo.
  Pickle p;
  p.op(0x80).op(3).op(']').op('q').le(0, 1);
  Strs want;
  std::vector<uint32_t> key_of; // memo index holding element i's string
  uint32_t memo = 1;            // 0 is the list
  for (int i = 0; i < 2501; ++i) {
    if (i % 1000 == 0 && i < 2500)
      p.op('(');
    if (i % 3 == 2) { // a repeat of element i / 2, fetched from the memo
      const size_t j = size_t(i) / 2;
      const uint32_t k = key_of[j];
      if (k < 256)
        p.op('h').le(k, 1);
      else
        p.op('j').le(k, 4);
      want.push_back(want[j]);
      key_of.push_back(k);
    } else {
      want.push_back("s" + std::to_string(i));
      p.str(want.back());
      if (memo < 256)
        p.op('q').le(memo, 1);
      else
        p.op('r').le(memo, 4);
      key_of.push_back(memo++);
    }
    if (i < 2500 && (i % 1000 == 999 || i == 2499))
      p.op('e');
    if (i == 2500)
      p.op('a');
  }
  p.op('.');
  ASSERT_TRUE(read(write_obj("batch.npy", "(2501,)", p.b), 8, &v)) << err_;
  EXPECT_EQ(v, want);

  // Protocol 4 details: FRAME, MEMOIZE, BINUNICODE8, SHORT_BINBYTES,
  // BINBYTES, BININT2, NEWTRUE around the list.
  Pickle q;
  q.op(0x80).op(4).op(0x95).le(0, 8);
  q.op('M').le(513, 2).op(0x88).op(0x86).op(0x94); // (513, True)
  q.op(']').op(0x94).op('(');
  q.op(0x8d).le(3, 8).raw("abc").op(0x94);
  q.op('C').le(2, 1).raw("\x01\x02").op(0x94);
  q.op('B').le(1, 4).raw("z").op(0x94);
  q.op('h').le(2, 1); // "abc" is memo 2 (0: tuple, 1: list)
  q.op('e').op('.');
  ASSERT_TRUE(read(write_obj("p4x.npy", "(2, 2)", q.b), 8, &v)) << err_;
  EXPECT_EQ(v, (Strs{"abc", "\x01\x02", "z", "abc"}));

  // An empty object array.
  rt::NpyArray a;
  Pickle e;
  e.op(0x80).op(3).op(']').op('q').le(0, 1).op('.');
  ASSERT_TRUE(read(write_obj("empty.npy", "(0, 3)", e.b), 8, &v, &a)) << err_;
  EXPECT_EQ(a.bytes, 0u);
  EXPECT_NE(a.data, nullptr);
  rt::npy_free(&a);
}

TEST_F(NpyStrings, RejectsBadPickles) {
  const std::string good(reinterpret_cast<const char *>(kObjProto3),
                         sizeof kObjProto3);
  // Every truncation fails cleanly.
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<std::string> v;
    const std::string f = write_obj("t.npy", "(2, 3)", good.substr(0, n));
    EXPECT_FALSE(read(f, 16, &v)) << n;
    EXPECT_TRUE(std::strstr(err_, "truncated pickle") ||
                std::strstr(err_, "no element list"))
        << n << ": " << err_;
  }
  expect_error(write_obj("t.npy", "(2, 3)", good.substr(0, 155)), 16,
               "truncated pickle: opcode 0x58 at byte 150 runs past the end");
  expect_error(write_obj("t.npy", "(2, 3)", good.substr(0, 205)), 16,
               "truncated pickle: no STOP opcode");
  // An opcode numpy does not write (BINFLOAT in place of a NONE).
  ASSERT_EQ(good[126], 'N');
  std::string bad = good;
  bad[126] = 'G';
  expect_error(write_obj("u.npy", "(2, 3)", bad), 16,
               "unsupported pickle opcode 0x47 at byte 126");
  bad = good;
  bad[0 + 1] = 6; // PROTO 6
  expect_error(write_obj("u.npy", "(2, 3)", bad), 16,
               "unsupported pickle protocol 6");
  // The header's shape disagrees with the pickle's element count.
  expect_error(write_obj("c.npy", "(3, 3)", good), 16,
               "the pickle holds 6 strings but the header's shape has 9 "
               "elements");
  expect_error(write_obj("c.npy", "(5,)", good), 16, "holds 6 strings");
  // Too long for the slots (element 3 is "Grüße", 7 bytes).
  expect_error(write_obj("l.npy", "(2, 3)", good), 7,
               "string element 3 has 7 bytes of UTF-8; the model's string "
               "slots hold at most 6");
  // Elements that are not strings.
  Pickle p;
  p.op(0x80).op(3).op(']').op('(').str("a").op('N').op('e').op('.');
  expect_error(write_obj("n.npy", "(2,)", p.b), 8,
               "object array element 1 is not a str (opcode 0x4e at byte 10)");
  Pickle t; // a 2-tuple element would otherwise count as two strings
  t.op(0x80).op(3).op(']').op('(').str("a").str("b").op(0x86).op('e').op('.');
  expect_error(write_obj("t2.npy", "(2,)", t.b), 8,
               "object array element 2 is not a str");
  Pickle l; // a nested list
  l.op(0x80).op(3).op(']').op(']').op('a').op('.');
  expect_error(write_obj("l2.npy", "(1,)", l.b), 8,
               "object array element 0 is not a str");
  Pickle g; // BINGET of an index never stored
  g.op(0x80).op(3).op(']').op('h').le(7, 1).op('a').op('.');
  expect_error(write_obj("g.npy", "(1,)", g.b), 8,
               "BINGET of unset memo index 7");
  Pickle m; // APPENDS without MARK
  m.op(0x80).op(3).op(']').str("a").str("b").op('e').op('.');
  expect_error(write_obj("m.npy", "(2,)", m.b), 8,
               "malformed pickle element list");
  Pickle big; // a BINUNICODE length past the end
  big.op(0x80).op(3).op(']').op('X').le(0xffffffffu, 4).raw("ab");
  expect_error(write_obj("big.npy", "(1,)", big.b), 8,
               "truncated pickle: opcode 0x58 at byte 3");
  Pickle fr; // a FRAME longer than the rest of the file
  fr.op(0x80).op(4).op(0x95).le(1000, 8).op(']').op('.');
  expect_error(write_obj("fr.npy", "(0,)", fr.b), 8,
               "opcode 0x95 at byte 2 runs past the end");
  Pickle nl; // no list at all
  nl.op(0x80).op(3).op('N').op('.');
  expect_error(write_obj("nl.npy", "(0,)", nl.b), 8, "no element list");
}

TEST_F(NpyStrings, ReadsUnicodeAndBytes) {
  std::vector<std::string> v;
  rt::NpyArray a;
  // '<U4': trailing NULs are padding; astral characters; a lone surrogate
  // becomes U+FFFD.
  const std::string u = ucs4({'a', 'b', 0, 0}) + ucs4({0, 0, 0, 0}) +
                        ucs4({'G', 'r', 0xFC, 0xDF}) +
                        ucs4({0x1F600, 'x', 0, 0}) + ucs4({0xD800, 'y', 0, 0}) +
                        ucs4({0x65E5, 0x672C, 0x8A9E, '!'});
  ASSERT_TRUE(read(write_npy("u.npy",
                             "{'descr': '<U4', 'fortran_order': False, "
                             "'shape': (3, 2), }",
                             u),
                   16, &v, &a))
      << err_;
  EXPECT_EQ(a.rank, 2);
  EXPECT_EQ(a.shape[0], 3);
  EXPECT_EQ(a.bytes, 6 * 16u);
  rt::npy_free(&a);
  EXPECT_EQ(v, (Strs{"ab", "", "Grüß", "😀x", "\xef\xbf\xbdy", "日本語!"}));
  // Exactly full slots are fine; one byte more is not.
  ASSERT_TRUE(read(path("u.npy"), 11, &v)) << err_;
  expect_error(path("u.npy"), 10,
               "string element 5 has 10 bytes of UTF-8; the model's string "
               "slots hold at most 9");
  // The message the driver shows for a long input.
  std::string longu;
  for (int i = 0; i < 4; ++i)
    longu += ucs4(std::vector<uint32_t>(80, i == 3 ? 'x' : 0));
  expect_error(write_npy("long.npy",
                         "{'descr': '<U80', 'fortran_order': False, "
                         "'shape': (4,), }",
                         longu),
               64,
               "string element 3 has 80 bytes of UTF-8; the model's string "
               "slots hold at most 63");
  // '|S3': bytes, NUL-padded.
  ASSERT_TRUE(read(write_npy("s.npy",
                             "{'descr': '|S3', 'fortran_order': False, "
                             "'shape': (4,), }",
                             std::string("ab\0\0\0\0xyz\xc3\xa9\0", 12)),
                   4, &v))
      << err_;
  EXPECT_EQ(v, (Strs{"ab", "", "xyz", "é"}));
  expect_error(path("s.npy"), 3, "string element 2 has 3 bytes");
  // 0-d and empty.
  ASSERT_TRUE(read(write_npy("u0.npy",
                             "{'descr': '<U2', 'fortran_order': False, "
                             "'shape': (), }",
                             ucs4({'h', 'i'})),
                   4, &v, &a))
      << err_;
  EXPECT_EQ(a.rank, 0);
  rt::npy_free(&a);
  EXPECT_EQ(v, (Strs{"hi"}));
  ASSERT_TRUE(read(write_npy("e.npy",
                             "{'descr': '<U2', 'fortran_order': False, "
                             "'shape': (0,), }",
                             ""),
                   4, &v, &a))
      << err_;
  EXPECT_EQ(a.bytes, 0u);
  EXPECT_NE(a.data, nullptr);
  rt::npy_free(&a);
  // Errors: truncated data, Fortran order, not strings, big-endian, tiny
  // slots.
  expect_error(write_npy("tr.npy",
                         "{'descr': '<U2', 'fortran_order': False, "
                         "'shape': (3,), }",
                         ucs4({'a', 'b', 'c'})),
               4, "truncated data");
  expect_error(write_npy("fo.npy",
                         "{'descr': '<U1', 'fortran_order': True, "
                         "'shape': (2, 2), }",
                         ucs4({'a', 'b', 'c', 'd'})),
               4, "fortran");
  ASSERT_TRUE(read(write_npy("fo1.npy",
                             "{'descr': '<U1', 'fortran_order': True, "
                             "'shape': (1, 2), }",
                             ucs4({'a', 'b'})),
                   4, &v))
      << err_; // the same layout as C order
  EXPECT_EQ(v, (Strs{"a", "b"}));
  expect_error(write_npy("f.npy",
                         "{'descr': '<f4', 'fortran_order': False, "
                         "'shape': (1,), }",
                         std::string(4, '\0')),
               4, "not a string array (descr 'f4'");
  expect_error(write_npy("be.npy",
                         "{'descr': '>U1', 'fortran_order': False, "
                         "'shape': (1,), }",
                         std::string(4, '\0')),
               4, "big-endian");
  expect_error(path("u0.npy"), 1, "at least 2 bytes");
  expect_error(path("missing.npy"), 4, "cannot open");
  // npy_read itself still refuses object arrays.
  rt::NpyArray o;
  EXPECT_FALSE(rt::npy_read(write_obj("o.npy", "(2, 3)", kObjProto3).c_str(),
                            &o, err_, sizeof err_));
  EXPECT_NE(std::strstr(err_, "unsupported 'descr'"), nullptr) << err_;
}

TEST_F(NpyStrings, WriteThenRead) {
  const auto x = fsv<16>(
      {"ab", "", "Grüße", "日本語", "\xff\xfeok", "😀", "x\xe2\x82", "q"});
  const int64_t shape[] = {2, 4};
  const std::string f = path("w.npy");
  ASSERT_TRUE(rt::npy_write_strings(f.c_str(), 2, shape, x.data(), 16));
  const std::string text = file_text(f);
  // Most code points: "Grüße" 5; "\xff\xfeok" decodes to 4 (two U+FFFD).
  EXPECT_NE(text.find("{'descr': '<U5', 'fortran_order': False, 'shape': "
                      "(2, 4), }"),
            std::string::npos)
      << text.substr(0, 80);
  EXPECT_EQ((text.size() - 8 * 5 * 4) % 64, 0u);
  std::vector<std::string> v;
  rt::NpyArray a;
  ASSERT_TRUE(read(f, 16, &v, &a)) << err_;
  EXPECT_EQ(a.rank, 2);
  EXPECT_EQ(a.shape[1], 4);
  rt::npy_free(&a);
  // Ill-formed bytes come back as U+FFFD (one per maximal subpart: the
  // truncated 3-byte sequence E2 82 is one).
  EXPECT_EQ(v, (Strs{"ab", "", "Grüße", "日本語", "\xef\xbf\xbd\xef\xbf\xbdok",
                     "😀", "x\xef\xbf\xbd", "q"}));
  // Empty and 0-d arrays; descr at least '<U1'.
  ASSERT_TRUE(rt::npy_write_strings(
      path("e.npy").c_str(), 1, std::vector<int64_t>{0}.data(), nullptr, 8));
  EXPECT_NE(file_text(path("e.npy")).find("'descr': '<U1'"), std::string::npos);
  ASSERT_TRUE(read(path("e.npy"), 8, &v)) << err_;
  EXPECT_TRUE(v.empty());
  const auto one = fs<8>("");
  ASSERT_TRUE(
      rt::npy_write_strings(path("s.npy").c_str(), 0, nullptr, &one, 8));
  EXPECT_NE(file_text(path("s.npy"))
                .find("'descr': '<U1', 'fortran_order': "
                      "False, 'shape': ()"),
            std::string::npos);
  ASSERT_TRUE(read(path("s.npy"), 8, &v)) << err_;
  EXPECT_EQ(v, (Strs{""}));
  // Argument checks.
  EXPECT_FALSE(rt::npy_write_strings(nullptr, 0, nullptr, &one, 8));
  EXPECT_FALSE(rt::npy_write_strings(path("x.npy").c_str(), 9, shape, &one, 8));
  EXPECT_FALSE(
      rt::npy_write_strings(path("x.npy").c_str(), 2, shape, nullptr, 16));
}

TEST_F(NpyStrings, ReadsWhatNumpyWrites) {
  if (!have_numpy())
    GTEST_SKIP() << "no numpy for " << kPython;
  ASSERT_EQ(
      python(
          "from numpy.lib import format as F\n"
          "np.save('u.npy', np.array([['ab', ''], ['Grüße', '日本語😀']]))\n"
          "np.save('s.npy', np.array([b'ab', b'', b'xyz']))\n"
          "pool = ['w%d' % k for k in range(700)]\n"
          "words = [pool[i % 700] for i in range(2500)]  # repeats: BINGET\n"
          "words[7] = ''\n"
          "np.save('o.npy', np.array(words, dtype=object).reshape(50, 50))\n"
          "for proto in (2, 4, 5):\n"
          "    a = np.array(words, dtype=object)\n"
          "    with open('o%d.npy' % proto, 'wb') as f:\n"
          "        F._write_array_header(f, F.header_data_from_array_1_0(a), "
          "(1, 0))\n"
          "        f.write(pickle.dumps(a, protocol=proto))\n"
          "np.save('o0.npy', np.array('Ελλάδα', dtype=object))\n"
          "np.save('uf.npy', np.asfortranarray(np.array([['a', 'b'], ['c', "
          "'d']])))\n"),
      0);
  Strs words;
  for (int i = 0; i < 2500; ++i)
    words.push_back("w" + std::to_string(i % 700));
  words[7] = "";
  std::vector<std::string> v;
  ASSERT_TRUE(read(path("u.npy"), 32, &v)) << err_;
  EXPECT_EQ(v, (Strs{"ab", "", "Grüße", "日本語😀"}));
  ASSERT_TRUE(read(path("s.npy"), 4, &v)) << err_;
  EXPECT_EQ(v, (Strs{"ab", "", "xyz"}));
  rt::NpyArray a;
  ASSERT_TRUE(read(path("o.npy"), 8, &v, &a)) << err_;
  EXPECT_EQ(a.rank, 2);
  EXPECT_EQ(a.shape[1], 50);
  rt::npy_free(&a);
  EXPECT_EQ(v, words);
  for (const char *f : {"o2.npy", "o4.npy", "o5.npy"}) {
    ASSERT_TRUE(read(path(f), 8, &v)) << f << ": " << err_;
    EXPECT_EQ(v, words) << f;
  }
  ASSERT_TRUE(read(path("o0.npy"), 16, &v)) << err_;
  EXPECT_EQ(v, (Strs{"Ελλάδα"}));
  expect_error(path("uf.npy"), 4, "fortran");
  expect_error(path("o.npy"), 3, "string element 10 has 3 bytes");
}

TEST_F(NpyStrings, NumpyReadsWhatWeWrite) {
  if (!have_numpy())
    GTEST_SKIP() << "no numpy for " << kPython;
  const auto x = fsv<24>({"ab", "", "Grüße", "日本語😀", "\xffok", "Ελλάδα"});
  const int64_t shape[] = {3, 2};
  ASSERT_TRUE(
      rt::npy_write_strings(path("w.npy").c_str(), 2, shape, x.data(), 24));
  EXPECT_EQ(python("a = np.load('w.npy')\n"
                   "assert a.dtype == np.dtype('<U6'), a.dtype\n"
                   "assert a.shape == (3, 2), a.shape\n"
                   "assert a.ravel().tolist() == ['ab', '', 'Grüße', "
                   "'日本語😀', '\\ufffdok', 'Ελλάδα'], a.tolist()\n"),
            0);
}
