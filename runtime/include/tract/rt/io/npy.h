// tract runtime: minimal NumPy .npy reader / writer (format versions 1.0, 2.0
// and 3.0) for the optional `--main` driver of generated code.
//
// Unlike the kernel headers this one uses <cstdio>, <cstdlib> and the heap
// (npy_read mallocs the data; release it with npy_free). Only little-endian
// ('<') or byte-order-free ('|') data in C order is read; the host is assumed
// to be little-endian. Fortran order is accepted only where it is the same
// layout (rank <= 1 or at most one dim > 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tract {
namespace rt {

struct NpyArray {
  char dtype[8]; // numpy descr without byte order, e.g. "f4", "i8", "b1", "u1"
  int rank;
  int64_t shape[8];
  void *data;
  size_t bytes;
};

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
inline bool npy_parse_header(const char *h, const char *end, NpyArray *out,
                             char *err, size_t err_len, const char *path) {
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
  if (isz == 0)
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

// Reads `path` into *out (data is malloc'd; free with npy_free). On failure
// returns false with a message in err (when err_len > 0) and out->data null.
inline bool npy_read(const char *path, NpyArray *out, char *err,
                     size_t err_len) {
  if (!out)
    return detail::npy_fail(err, err_len, "null output", path);
  std::memset(out, 0, sizeof(*out));
  std::FILE *fp = path ? std::fopen(path, "rb") : nullptr;
  if (!fp)
    return detail::npy_fail(err, err_len, "cannot open", path);
  unsigned char pre[12];
  if (std::fread(pre, 1, 10, fp) != 10 ||
      std::memcmp(pre, "\x93NUMPY", 6) != 0) {
    std::fclose(fp);
    return detail::npy_fail(err, err_len, "not a .npy file", path);
  }
  const int major = pre[6];
  size_t hlen = 0;
  if (major == 1) {
    hlen = static_cast<size_t>(pre[8]) | (static_cast<size_t>(pre[9]) << 8);
  } else if (major == 2 || major == 3) {
    if (std::fread(pre + 10, 1, 2, fp) != 2) {
      std::fclose(fp);
      return detail::npy_fail(err, err_len, "truncated header", path);
    }
    hlen = static_cast<size_t>(pre[8]) | (static_cast<size_t>(pre[9]) << 8) |
           (static_cast<size_t>(pre[10]) << 16) |
           (static_cast<size_t>(pre[11]) << 24);
  } else {
    std::fclose(fp);
    return detail::npy_fail(err, err_len, "unsupported .npy version", path);
  }
  if (hlen == 0 || hlen > (size_t(1) << 24)) {
    std::fclose(fp);
    return detail::npy_fail(err, err_len, "bad header length", path);
  }
  char *hdr = static_cast<char *>(std::malloc(hlen));
  if (!hdr) {
    std::fclose(fp);
    return detail::npy_fail(err, err_len, "out of memory", path);
  }
  if (std::fread(hdr, 1, hlen, fp) != hlen) {
    std::free(hdr);
    std::fclose(fp);
    return detail::npy_fail(err, err_len, "truncated header", path);
  }
  const bool ok =
      detail::npy_parse_header(hdr, hdr + hlen, out, err, err_len, path);
  std::free(hdr);
  if (!ok) {
    std::fclose(fp);
    return false;
  }
  size_t count = 1;
  for (int i = 0; i < out->rank; ++i) {
    const size_t dim = static_cast<size_t>(out->shape[i]);
    if (dim != 0 && count > SIZE_MAX / dim) {
      std::fclose(fp);
      return detail::npy_fail(err, err_len, "array too large", path);
    }
    count *= dim;
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

} // namespace rt
} // namespace tract
