// tract runtime: minimal NumPy .npy reader / writer (format versions 1.0, 2.0
// and 3.0) for the optional `--main` driver of generated code.
//
// Unlike the kernel headers this one uses <cstdio>, <cstdlib> and the heap
// (npy_read mallocs the data; release it with npy_free). Only little-endian
// ('<') or byte-order-free ('|') data in C order is read; the host is assumed
// to be little-endian. Fortran order is accepted only where it is the same
// layout (rank <= 1 or at most one dim > 1).
//
// String tensors (npy_read_strings / npy_write_strings) are converted to and
// from the generated code's fixed slots (see text/strings.h): unicode ('<U'),
// bytes ('|S') and object arrays of str ('|O', a pickle after the header, read
// by a small strict opcode walker, never executed) are read; '<U' is written.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tract/rt/io/npy_array.h"
#include "tract/rt/text/strings.h"

namespace tract {
namespace rt {

namespace detail {

inline bool npy_fail(char *err, size_t err_len, const char *msg,
                     const char *path) {
  if (err && err_len > 0)
    std::snprintf(err, err_len, "%s: %s", path ? path : "(null)", msg);
  return false;
}

inline const char *npy_skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    ++p;
  return p;
}

// Finds the value following the dict key 'key' (or "key") in the header.
inline const char *npy_find_key(const char *h, const char *end,
                                const char *key) {
  const size_t kl = std::strlen(key);
  for (const char *p = h; p + kl + 2 <= end; ++p) {
    if ((*p == '\'' || *p == '"') && p[kl + 1] == *p &&
        std::memcmp(p + 1, key, kl) == 0) {
      const char *q = npy_skip_ws(p + kl + 2, end);
      if (q < end && *q == ':')
        return npy_skip_ws(q + 1, end);
      return nullptr;
    }
  }
  return nullptr;
}

// Bytes per element of a descr without byte order ("f4" -> 4, "b1" -> 1).
inline size_t npy_itemsize(const char *dtype) {
  if (!dtype[0] || !dtype[1])
    return 0;
  size_t n = 0;
  for (const char *p = dtype + 1; *p; ++p) {
    if (*p < '0' || *p > '9')
      return 0;
    n = n * 10 + static_cast<size_t>(*p - '0');
    if (n > (size_t(1) << 20))
      return 0;
  }
  return dtype[0] == 'U' ? 4 * n : n; // 'U' counts UCS-4 characters
}

// Parses the header dict text [h, end) into out (dtype, rank, shape).
// allow_object admits descr '|O' (object arrays, itemsize 0 here: their data
// is a pickle, only npy_read_strings reads it).
inline bool npy_parse_header(const char *h, const char *end, NpyArray *out,
                             char *err, size_t err_len, const char *path,
                             bool allow_object = false) {
  const char *d = npy_find_key(h, end, "descr");
  if (!d || (*d != '\'' && *d != '"'))
    return npy_fail(err, err_len, "header has no 'descr' string", path);
  const char quote = *d++;
  const char *dend = d;
  while (dend < end && *dend != quote)
    ++dend;
  if (dend >= end)
    return npy_fail(err, err_len, "unterminated 'descr'", path);
  const char *t = d;
  char order = '=';
  if (t < dend && (*t == '<' || *t == '|' || *t == '=' || *t == '>'))
    order = *t++;
  const size_t tl = static_cast<size_t>(dend - t);
  if (tl == 0 || tl >= sizeof(out->dtype))
    return npy_fail(err, err_len,
                    "unsupported 'descr' (structured or too long)", path);
  std::memcpy(out->dtype, t, tl);
  out->dtype[tl] = '\0';
  const size_t isz = npy_itemsize(out->dtype);
  const bool object = allow_object && std::strcmp(out->dtype, "O") == 0;
  if (isz == 0 && !object)
    return npy_fail(err, err_len, "unsupported 'descr'", path);
  if (order == '>' && isz > 1)
    return npy_fail(err, err_len, "big-endian data is not supported", path);

  bool fortran = false;
  const char *f = npy_find_key(h, end, "fortran_order");
  if (!f)
    return npy_fail(err, err_len, "header has no 'fortran_order'", path);
  if (end - f >= 4 && std::memcmp(f, "True", 4) == 0)
    fortran = true;
  else if (!(end - f >= 5 && std::memcmp(f, "False", 5) == 0))
    return npy_fail(err, err_len, "bad 'fortran_order'", path);

  const char *s = npy_find_key(h, end, "shape");
  if (!s || *s != '(')
    return npy_fail(err, err_len, "header has no 'shape' tuple", path);
  ++s;
  out->rank = 0;
  for (;;) {
    s = npy_skip_ws(s, end);
    if (s >= end)
      return npy_fail(err, err_len, "unterminated 'shape'", path);
    if (*s == ')')
      break;
    if (*s < '0' || *s > '9')
      return npy_fail(err, err_len, "bad 'shape'", path);
    int64_t v = 0;
    while (s < end && *s >= '0' && *s <= '9') {
      if (v > (INT64_MAX - 9) / 10)
        return npy_fail(err, err_len, "dimension too large", path);
      v = v * 10 + (*s - '0');
      ++s;
    }
    if (out->rank >= 8)
      return npy_fail(err, err_len, "rank above 8", path);
    out->shape[out->rank++] = v;
    s = npy_skip_ws(s, end);
    if (s < end && *s == ',')
      ++s;
  }
  if (fortran) {
    int big = 0;
    for (int i = 0; i < out->rank; ++i)
      big += out->shape[i] > 1;
    if (big > 1)
      return npy_fail(err, err_len, "fortran_order data is not supported",
                      path);
  }
  return true;
}

} // namespace detail

inline void npy_free(NpyArray *a) {
  if (!a)
    return;
  std::free(a->data);
  a->data = nullptr;
  a->bytes = 0;
}

namespace detail {

// Opens `path`, reads the preamble and header into *out (dtype, rank, shape)
// and returns the stream positioned at the data, or null with err set.
inline std::FILE *npy_open_read(const char *path, NpyArray *out, char *err,
                                size_t err_len, bool allow_object) {
  std::FILE *fp = path ? std::fopen(path, "rb") : nullptr;
  if (!fp) {
    npy_fail(err, err_len, "cannot open", path);
    return nullptr;
  }
  auto close_fail = [&](const char *msg) -> std::FILE * {
    std::fclose(fp);
    npy_fail(err, err_len, msg, path);
    return nullptr;
  };
  unsigned char pre[12];
  if (std::fread(pre, 1, 10, fp) != 10 || std::memcmp(pre, "\x93NUMPY", 6) != 0)
    return close_fail("not a .npy file");
  const int major = pre[6];
  size_t hlen = 0;
  if (major == 1) {
    hlen = static_cast<size_t>(pre[8]) | (static_cast<size_t>(pre[9]) << 8);
  } else if (major == 2 || major == 3) {
    if (std::fread(pre + 10, 1, 2, fp) != 2)
      return close_fail("truncated header");
    hlen = static_cast<size_t>(pre[8]) | (static_cast<size_t>(pre[9]) << 8) |
           (static_cast<size_t>(pre[10]) << 16) |
           (static_cast<size_t>(pre[11]) << 24);
  } else {
    return close_fail("unsupported .npy version");
  }
  if (hlen == 0 || hlen > (size_t(1) << 24))
    return close_fail("bad header length");
  char *hdr = static_cast<char *>(std::malloc(hlen));
  if (!hdr)
    return close_fail("out of memory");
  if (std::fread(hdr, 1, hlen, fp) != hlen) {
    std::free(hdr);
    return close_fail("truncated header");
  }
  const bool ok =
      npy_parse_header(hdr, hdr + hlen, out, err, err_len, path, allow_object);
  std::free(hdr);
  if (!ok) {
    std::fclose(fp);
    return nullptr;
  }
  return fp;
}

// Number of elements of out's shape; false when it overflows size_t.
inline bool npy_count(const NpyArray *a, size_t *count) {
  size_t c = 1;
  for (int i = 0; i < a->rank; ++i) {
    const size_t dim = static_cast<size_t>(a->shape[i]);
    if (dim != 0 && c > SIZE_MAX / dim)
      return false;
    c *= dim;
  }
  *count = c;
  return true;
}

} // namespace detail

// Reads `path` into *out (data is malloc'd; free with npy_free). On failure
// returns false with a message in err (when err_len > 0) and out->data null.
inline bool npy_read(const char *path, NpyArray *out, char *err,
                     size_t err_len) {
  if (!out)
    return detail::npy_fail(err, err_len, "null output", path);
  std::memset(out, 0, sizeof(*out));
  std::FILE *fp = detail::npy_open_read(path, out, err, err_len, false);
  if (!fp)
    return false;
  size_t count = 0;
  if (!detail::npy_count(out, &count)) {
    std::fclose(fp);
    return detail::npy_fail(err, err_len, "array too large", path);
  }
  const size_t isz = detail::npy_itemsize(out->dtype);
  if (count > SIZE_MAX / isz) {
    std::fclose(fp);
    return detail::npy_fail(err, err_len, "array too large", path);
  }
  out->bytes = count * isz;
  // Always allocate at least one byte so data is non-null on success.
  out->data = std::malloc(out->bytes > 0 ? out->bytes : 1);
  if (!out->data) {
    out->bytes = 0;
    std::fclose(fp);
    return detail::npy_fail(err, err_len, "out of memory", path);
  }
  if (std::fread(out->data, 1, out->bytes, fp) != out->bytes) {
    npy_free(out);
    std::fclose(fp);
    return detail::npy_fail(err, err_len, "truncated data", path);
  }
  // Bytes past the shape's: the header and the data disagree (a file cut
  // from a larger array, or the wrong one).
  if (std::fgetc(fp) != EOF) {
    npy_free(out);
    std::fclose(fp);
    return detail::npy_fail(err, err_len, "more data than its shape holds", path);
  }
  std::fclose(fp);
  return true;
}

// Writes a C-order little-endian array; dtype is a descr without byte order
// ("f4", "i8", "b1", ...). Uses format 1.0 unless the header needs 2.0.
// `bytes` must equal the element count times the item size.
inline bool npy_write(const char *path, const char *dtype, int rank,
                      const int64_t *shape, const void *data, size_t bytes) {
  if (!path || !dtype || rank < 0 || rank > 8 || (rank > 0 && !shape))
    return false;
  const size_t isz = detail::npy_itemsize(dtype);
  if (isz == 0 || std::strlen(dtype) >= 8)
    return false;
  size_t count = 1;
  for (int i = 0; i < rank; ++i) {
    if (shape[i] < 0)
      return false;
    count *= static_cast<size_t>(shape[i]);
  }
  if (count * isz != bytes || (bytes > 0 && !data))
    return false;
  // Header dict, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3),
  // }
  char dict[512];
  int len =
      std::snprintf(dict, sizeof(dict),
                    "{'descr': '%c%s', 'fortran_order': False, 'shape': (",
                    isz == 1 ? '|' : '<', dtype);
  for (int i = 0; i < rank; ++i)
    len +=
        std::snprintf(dict + len, sizeof(dict) - static_cast<size_t>(len),
                      rank == 1 ? "%lld," : (i + 1 < rank ? "%lld, " : "%lld"),
                      static_cast<long long>(shape[i]));
  len += std::snprintf(dict + len, sizeof(dict) - static_cast<size_t>(len),
                       "), }");
  // Pad with spaces so that preamble + header is a multiple of 64, ending in
  // '\n'.
  size_t pre = 10;
  size_t total = pre + static_cast<size_t>(len) + 1;
  if (total + (64 - total % 64) % 64 - pre > 65535)
    pre = 12;
  total = pre + static_cast<size_t>(len) + 1;
  const size_t padded = total + (64 - total % 64) % 64;
  const size_t hlen = padded - pre;
  unsigned char head[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0, 0, 0};
  if (pre == 10) {
    head[8] = static_cast<unsigned char>(hlen & 0xff);
    head[9] = static_cast<unsigned char>(hlen >> 8);
  } else {
    head[6] = 2;
    for (int i = 0; i < 4; ++i)
      head[8 + i] = static_cast<unsigned char>((hlen >> (8 * i)) & 0xff);
  }
  std::FILE *fp = std::fopen(path, "wb");
  if (!fp)
    return false;
  bool ok = std::fwrite(head, 1, pre, fp) == pre &&
            std::fwrite(dict, 1, static_cast<size_t>(len), fp) ==
                static_cast<size_t>(len);
  for (size_t i = static_cast<size_t>(len); ok && i + 1 < hlen; ++i)
    ok = std::fputc(' ', fp) != EOF;
  ok = ok && std::fputc('\n', fp) != EOF;
  ok = ok && (bytes == 0 || std::fwrite(data, 1, bytes, fp) == bytes);
  ok = (std::fclose(fp) == 0) && ok;
  return ok;
}

// ------------------------------------------------------- string tensors ---

namespace detail {

// npy_fail with a printf-style message (checked by the compiler).
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
inline bool
npy_failf(char *err, size_t err_len, const char *path, const char *fmt, ...) {
  char msg[256];
  std::va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return npy_fail(err, err_len, msg, path);
}

// Checks that element `index`, len bytes of UTF-8, fits a slot; the message
// is what the driver shows when an input does not fit the model's slots.
inline bool npy_string_fits(size_t slot_bytes, size_t index, size_t len,
                            char *err, size_t err_len, const char *path) {
  if (len <= slot_bytes - 1)
    return true;
  return npy_failf(err, err_len, path,
                   "string element %zu has %zu bytes of UTF-8; the model's "
                   "string slots hold at most %zu",
                   index, len, slot_bytes - 1);
}

// Stores element `index` (len bytes of UTF-8) in its zeroed slot.
inline bool npy_put_string(char *slots, size_t slot_bytes, size_t index,
                           const char *s, size_t len, char *err, size_t err_len,
                           const char *path) {
  if (!npy_string_fits(slot_bytes, index, len, err, err_len, path))
    return false;
  std::memcpy(slots + index * slot_bytes, s, len);
  return true;
}

// '<Un': n UCS-4 code units per element, trailing NULs are padding (numpy
// strips them too). Code units that are not Unicode scalar values (lone
// surrogates, > U+10FFFF) become U+FFFD.
inline bool npy_ucs4_to_slots(const unsigned char *data, size_t count, size_t n,
                              char *slots, size_t slot_bytes, char *err,
                              size_t err_len, const char *path) {
  for (size_t i = 0; i < count; ++i) {
    const unsigned char *e = data + i * n * 4;
    size_t chars = n;
    auto unit = [&](size_t k) {
      uint32_t u;
      std::memcpy(&u, e + 4 * k, 4); // little-endian host, like npy_read
      return (u >= 0xD800 && u <= 0xDFFF) || u > 0x10FFFF ? 0xFFFDu : u;
    };
    while (chars > 0 && unit(chars - 1) == 0)
      --chars;
    char buf[4];
    size_t len = 0;
    for (size_t k = 0; k < chars; ++k)
      len += utf8_encode(unit(k), buf);
    if (!npy_string_fits(slot_bytes, i, len, err, err_len, path))
      return false;
    char *out = slots + i * slot_bytes;
    for (size_t k = 0; k < chars; ++k)
      out += utf8_encode(unit(k), out);
  }
  return true;
}

// A strict walker over the pickle numpy writes for an object array
// (np.save -> pickle.dump(arr, protocol=3); protocols 2 to 5 look alike):
//
//   _reconstruct(ndarray, (0,), b'b') REDUCE, then BUILD with the state
//   (1, shape, dtype('O8'), is_fortran, [elements...])
//
// It is not a pickle VM: it checks every opcode against the small set numpy
// emits (anything else is refused, so nothing is ever executed), checks that
// every length stays inside the buffer, remembers which memo index holds
// which str/bytes (numpy memoizes every object; a str that occurs twice is
// written once and then fetched with BINGET), and collects, in order, the
// strings appended to the first list (EMPTY_LIST): the element list, always
// C order. Any non-string element is an error.
struct PickleMemo {
  size_t off, len;    // the string's bytes in the pickle
  unsigned char kind; // 0 unset, 1 str/bytes, 2 anything else
};
// The memo table, freed on every return path.
struct PickleMemoTable {
  PickleMemo *entries = nullptr;
  size_t cap = 0, used = 0; // used: distinct indices set (MEMOIZE's next)
  ~PickleMemoTable() { std::free(entries); }
};

inline bool npy_unpickle_strings(const unsigned char *p, size_t len,
                                 size_t count, char *slots, size_t slot_bytes,
                                 char *err, size_t err_len, const char *path) {
  PickleMemoTable memo;
  // The object on top of the stack, as far as BINPUT needs to know it.
  PickleMemo top = {0, 0, 2};
  enum { kBefore, kInList, kAfter } phase = kBefore;
  bool mark_open = false; // inside MARK ... APPENDS of the element list
  size_t loose = 0;       // elements pushed outside a MARK (APPEND follows)
  size_t got = 0;         // elements collected
  size_t i = 0, at = 0;
  unsigned op = 0;
  auto need = [&](uint64_t n) {
    if (n <= len - i)
      return true;
    return npy_failf(err, err_len, path,
                     "truncated pickle: opcode 0x%02x at byte %zu runs past "
                     "the end of the file",
                     op, at);
  };
  auto le = [&](size_t n) { // little-endian unsigned of n bytes at i
    uint64_t v = 0;
    for (size_t k = 0; k < n; ++k)
      v |= static_cast<uint64_t>(p[i + k]) << (8 * k);
    i += n;
    return v;
  };
  // Sets memo[key] = top. numpy numbers memo entries 0, 1, 2, ...: a key
  // past the pickle's length cannot come from it.
  auto put = [&](uint64_t key) {
    if (key > len)
      return npy_failf(err, err_len, path,
                       "pickle memo index %llu out of range at byte %zu",
                       static_cast<unsigned long long>(key), at);
    if (key >= memo.cap) {
      size_t cap = memo.cap ? memo.cap * 2 : 64;
      while (cap <= key)
        cap *= 2;
      PickleMemo *m = static_cast<PickleMemo *>(
          std::realloc(memo.entries, cap * sizeof *m));
      if (!m)
        return npy_fail(err, err_len, "out of memory", path);
      std::memset(m + memo.cap, 0, (cap - memo.cap) * sizeof *m);
      memo.entries = m;
      memo.cap = cap;
    }
    if (memo.entries[key].kind == 0)
      ++memo.used;
    memo.entries[key] = top;
    return true;
  };
  // Pushes a str/bytes (is_string) or another object; in the element list a
  // push is an element.
  auto push = [&](bool is_string, size_t off, size_t n) {
    top = {off, n, static_cast<unsigned char>(is_string ? 1 : 2)};
    if (phase != kInList)
      return true;
    if (!is_string)
      return npy_failf(
          err, err_len, path,
          "object array element %zu is not a str (opcode 0x%02x at "
          "byte %zu)",
          got, op, at);
    if (!mark_open && ++loose > 1)
      return npy_failf(err, err_len, path,
                       "malformed pickle element list at byte %zu", at);
    if (got < count && !npy_put_string(slots, slot_bytes, got,
                                       reinterpret_cast<const char *>(p + off),
                                       n, err, err_len, path))
      return false;
    ++got;
    return true;
  };
  auto push_string = [&](size_t n) { // string bytes at i, n checked
    const size_t off = i;
    i += n;
    return push(true, off, n);
  };

  while (i < len) {
    at = i;
    op = p[i++];
    // Inside the element list only MARK, APPEND(S), pushes (elements) and
    // memo stores appear. An opcode that builds something from the stack
    // (a tuple, REDUCE, BUILD) or STOP ends the list, and must come after a
    // completed APPEND(S): otherwise the element being built is not a str.
    const bool ends_list = op == ')' || op == 't' || op == 0x85 || op == 0x86 ||
                           op == 0x87 || op == 'R' || op == 'b' || op == '.' ||
                           op == 0x80;
    if (phase == kInList && ends_list) {
      if (mark_open || loose)
        return npy_failf(err, err_len, path,
                         "object array element %zu is not a str (opcode 0x%02x "
                         "at byte %zu)",
                         got, op, at);
      phase = kAfter;
    }
    bool step = true;
    switch (op) {
    case 0x80: // PROTO
      step = need(1);
      if (step && (p[i] < 2 || p[i] > 5))
        step = npy_failf(err, err_len, path, "unsupported pickle protocol %u",
                         unsigned(p[i]));
      ++i;
      break;
    case 0x95: // FRAME: an 8-byte length; the framed opcodes follow inline
      step = need(8) && need(le(8));
      break;
    case 'c': { // GLOBAL module\nname\n
      int lines = 0;
      while (i < len && lines < 2)
        lines += p[i++] == '\n';
      // need(1) at the end of the buffer reports the truncation.
      step = (lines == 2 || need(1)) && push(false, 0, 0);
      break;
    }
    case 0x93: // STACK_GLOBAL
    case 'R':  // REDUCE
      step = push(false, 0, 0);
      break;
    case 0x8c: // SHORT_BINUNICODE
    case 'C':  // SHORT_BINBYTES
      step = need(1);
      if (step) {
        const size_t n = static_cast<size_t>(le(1));
        step = need(n) && push_string(n);
      }
      break;
    case 'X': // BINUNICODE
    case 'B': // BINBYTES
      step = need(4);
      if (step) {
        const uint64_t n = le(4);
        step = need(n) && push_string(static_cast<size_t>(n));
      }
      break;
    case 0x8d: // BINUNICODE8
      step = need(8);
      if (step) {
        const uint64_t n = le(8);
        step = need(n) && push_string(static_cast<size_t>(n));
      }
      break;
    case 'q': // BINPUT
      step = need(1) && put(le(1));
      break;
    case 'r': // LONG_BINPUT
      step = need(4) && put(le(4));
      break;
    case 0x94: // MEMOIZE
      step = put(memo.used);
      break;
    case 'h':   // BINGET
    case 'j': { // LONG_BINGET
      const size_t w = op == 'h' ? 1 : 4;
      step = need(w);
      if (step) {
        const uint64_t key = le(w);
        if (key >= memo.cap || memo.entries[key].kind == 0)
          step = npy_failf(err, err_len, path,
                           "pickle BINGET of unset memo index %llu at byte %zu",
                           static_cast<unsigned long long>(key), at);
        else
          step = push(memo.entries[key].kind == 1, memo.entries[key].off,
                      memo.entries[key].len);
      }
      break;
    }
    case 'J':   // BININT
    case 'K':   // BININT1
    case 'M': { // BININT2
      const size_t w = op == 'J' ? 4 : op == 'K' ? 1 : 2;
      step = need(w) && ((i += w), push(false, 0, 0));
      break;
    }
    case 'N':  // NONE
    case 0x88: // NEWTRUE
    case 0x89: // NEWFALSE
      step = push(false, 0, 0);
      break;
    case ']': // EMPTY_LIST: the first one is the element list
      step = push(false, 0, 0);
      if (step && phase == kBefore)
        phase = kInList;
      break;
    case '(': // MARK
      if (phase == kInList) {
        if (mark_open || loose)
          step = npy_failf(err, err_len, path,
                           "malformed pickle element list at byte %zu", at);
        mark_open = true;
      }
      break;
    case 'a': // APPEND
      if (phase == kInList) {
        if (mark_open || loose != 1)
          step = npy_failf(err, err_len, path,
                           "malformed pickle element list at byte %zu", at);
        loose = 0;
      }
      break;
    case 'e': // APPENDS
      if (phase == kInList) {
        if (!mark_open)
          step = npy_failf(err, err_len, path,
                           "malformed pickle element list at byte %zu", at);
        mark_open = false;
      }
      break;
    case ')':  // EMPTY_TUPLE (the shape of a 0-d array)
    case 't':  // TUPLE
    case 0x85: // TUPLE1
    case 0x86: // TUPLE2
    case 0x87: // TUPLE3
    case 'b':  // BUILD
      top = {0, 0, 2};
      break;
    case '.': // STOP
      if (phase == kBefore)
        return npy_fail(err, err_len, "the pickle holds no element list", path);
      if (got != count)
        return npy_failf(err, err_len, path,
                         "the pickle holds %zu strings but the header's shape "
                         "has %zu elements",
                         got, count);
      return true;
    default:
      step =
          npy_failf(err, err_len, path,
                    "unsupported pickle opcode 0x%02x at byte %zu (only what "
                    "numpy writes for an object array of str is read)",
                    op, at);
    }
    if (!step)
      return false;
  }
  return npy_failf(err, err_len, path, "truncated pickle: no STOP opcode");
}

// Reads the rest of fp into a malloc'd buffer (*size bytes, never null).
inline unsigned char *npy_read_rest(std::FILE *fp, size_t *size) {
  size_t cap = 4096, n = 0;
  unsigned char *buf = static_cast<unsigned char *>(std::malloc(cap));
  while (buf) {
    n += std::fread(buf + n, 1, cap - n, fp);
    if (n < cap)
      break;
    unsigned char *grown =
        static_cast<unsigned char *>(std::realloc(buf, cap * 2));
    if (!grown)
      std::free(buf);
    buf = grown;
    cap *= 2;
  }
  *size = n;
  return buf;
}

} // namespace detail

// Reads a .npy of strings into numel * slot_bytes bytes of fixed slots
// (UTF-8, NUL-terminated and NUL-padded; see text/strings.h). Accepts descr
// '<Un' / '|Un' (UCS-4), '|Sn' (bytes, trailing NULs stripped) and '|O' (an
// object array of str or bytes, as np.save writes with allow_pickle).
// out->dtype is "str", out->data malloc'd (free with npy_free), out->bytes the
// slot bytes. Fails, naming the element, when a string needs more than
// slot_bytes - 1 bytes of UTF-8. Fortran order: as npy_read.
inline bool npy_read_strings(const char *path, size_t slot_bytes, NpyArray *out,
                             char *err, size_t err_len) {
  if (!out)
    return detail::npy_fail(err, err_len, "null output", path);
  std::memset(out, 0, sizeof(*out));
  if (slot_bytes < 2)
    return detail::npy_fail(err, err_len, "string slots need at least 2 bytes",
                            path);
  std::FILE *fp = detail::npy_open_read(path, out, err, err_len, true);
  if (!fp)
    return false;
  const char kind = out->dtype[0];
  size_t count = 0;
  bool ok = true;
  if (kind != 'U' && kind != 'S' && kind != 'O')
    ok = detail::npy_failf(err, err_len, path,
                           "not a string array (descr '%s'; expected unicode "
                           "'<U', bytes '|S' or object '|O')",
                           out->dtype);
  else if (!detail::npy_count(out, &count) || count > SIZE_MAX / slot_bytes)
    ok = detail::npy_fail(err, err_len, "array too large", path);
  size_t size = 0;
  unsigned char *raw = ok ? detail::npy_read_rest(fp, &size) : nullptr;
  std::fclose(fp);
  if (!ok)
    return false;
  if (!raw)
    return detail::npy_fail(err, err_len, "out of memory", path);
  out->bytes = count * slot_bytes;
  out->data = std::calloc(out->bytes > 0 ? out->bytes : 1, 1);
  char *slots = static_cast<char *>(out->data);
  const size_t isz = detail::npy_itemsize(out->dtype); // 0 for 'O'
  if (!slots) {
    ok = detail::npy_fail(err, err_len, "out of memory", path);
  } else if (kind == 'O') {
    ok = detail::npy_unpickle_strings(raw, size, count, slots, slot_bytes, err,
                                      err_len, path);
  } else if (isz != 0 && count > size / isz) {
    ok = detail::npy_fail(err, err_len, "truncated data", path);
  } else if (kind == 'U') {
    ok = detail::npy_ucs4_to_slots(raw, count, isz / 4, slots, slot_bytes, err,
                                   err_len, path);
  } else { // 'S'
    for (size_t i = 0; ok && i < count; ++i) {
      const char *s = reinterpret_cast<const char *>(raw + i * isz);
      size_t len = isz;
      while (len > 0 && s[len - 1] == '\0')
        --len;
      ok = detail::npy_put_string(slots, slot_bytes, i, s, len, err, err_len,
                                  path);
    }
  }
  std::free(raw);
  if (!ok) {
    npy_free(out);
    return false;
  }
  std::memcpy(out->dtype, "str", 4);
  return true;
}

// Writes numel slots of slot_bytes bytes (UTF-8 up to the first NUL) as a
// unicode array, descr '<Un' with n the most code points of any element (at
// least 1), through npy_write. Ill-formed UTF-8 becomes U+FFFD (one per
// maximal ill-formed subpart, like Python's errors='replace').
inline bool npy_write_strings(const char *path, int rank, const int64_t *shape,
                              const void *slots, size_t slot_bytes) {
  if (!path || rank < 0 || rank > 8 || (rank > 0 && !shape) || slot_bytes == 0)
    return false;
  size_t count = 1;
  for (int i = 0; i < rank; ++i) {
    const size_t dim = static_cast<size_t>(shape[i]);
    if (shape[i] < 0 || (dim != 0 && count > SIZE_MAX / dim))
      return false;
    count *= dim;
  }
  if (count > SIZE_MAX / slot_bytes || (count > 0 && !slots))
    return false;
  const unsigned char *base = static_cast<const unsigned char *>(slots);
  // Visits the code points of element i: f(k, cp) for k = 0, 1, ...;
  // returns how many there are.
  auto each_cp = [&](size_t i, auto f) {
    const unsigned char *s = base + i * slot_bytes;
    const size_t len =
        detail::slot_len(reinterpret_cast<const char *>(s), slot_bytes);
    size_t k = 0;
    for (size_t j = 0, adv = 0; j < len; j += adv) {
      const int32_t cp = detail::utf8_decode(s + j, len - j, &adv);
      f(k++, cp < 0 ? 0xFFFDu : static_cast<uint32_t>(cp));
    }
    return k;
  };
  size_t n = 1;
  for (size_t i = 0; i < count; ++i) {
    const size_t k = each_cp(i, [](size_t, uint32_t) {});
    n = k > n ? k : n;
  }
  char dtype[24];
  std::snprintf(dtype, sizeof dtype, "U%zu", n);
  if (std::strlen(dtype) >= 8 || count > SIZE_MAX / (4 * n))
    return false;
  const size_t bytes = count * n * 4;
  uint32_t *ucs4 =
      static_cast<uint32_t *>(std::calloc(bytes > 0 ? bytes : 1, 1));
  if (!ucs4)
    return false;
  for (size_t i = 0; i < count; ++i)
    each_cp(i, [&](size_t k, uint32_t cp) { ucs4[i * n + k] = cp; });
  const bool ok = npy_write(path, dtype, rank, shape, ucs4, bytes);
  std::free(ucs4);
  return ok;
}

} // namespace rt
} // namespace tract
