/*
 * keal_rt.h: the part of the Keal runtime shared by every target.
 *
 * Generated C defines KEAL_SOURCE_FILE and includes a flavour header
 * (keal_pg.h or keal_native.h), which provides:
 *   void *keal_alloc(size_t n)                      memory that lives for the call
 *   void  keal_error(int line, const char *sqlstate, const char *msg, int64_t len)
 *                                                   cold, never returns
 *   KEAL_TEXT_HEADROOM                              bytes kept before each new text
 *                                                   (PostgreSQL: room for a varlena
 *                                                   header, so a result is built once)
 * and then includes this file. Everything here is static inline: a Keal
 * program is one C translation unit, and what it does not use costs nothing.
 */
#ifndef KEAL_RT_H
#define KEAL_RT_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEAL_LIKELY(x) __builtin_expect(!!(x), 1)
#define KEAL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define KEAL_COLD __attribute__((cold, noinline, noreturn, unused))
/* Keal functions: static (one translation unit), unused ones are fine. */
#define KEAL_FN static __attribute__((unused))

typedef uint32_t keal_char;

/* Immutable UTF-8 text (or bytes): a view. `hdr` is set when the
 * KEAL_TEXT_HEADROOM bytes before ptr belong to this buffer. */
typedef struct keal_text {
  const char *ptr;
  int64_t len;
  int hdr;
} keal_text;
typedef keal_text keal_bytes;

typedef struct { bool is_null; int64_t v; } keal_opt_int;
typedef struct { bool is_null; double v; } keal_opt_float;
typedef struct { bool is_null; bool v; } keal_opt_bool;
typedef struct { bool is_null; keal_text v; } keal_opt_text;
typedef struct { bool is_null; keal_char v; } keal_opt_char;
typedef struct { bool is_null; keal_bytes v; } keal_opt_bytes;

#define KEAL_TEXT_LIT(s, n) ((keal_text){(s), (n), 0})

/* ---- errors (out of line, so the hot path is a single predicted branch) ---- */

static KEAL_COLD void keal_fail(int line, const char *sqlstate, const char *msg) {
  keal_error(line, sqlstate, msg, (int64_t)strlen(msg));
}
static KEAL_COLD void keal_fail_overflow(int line) { keal_fail(line, "22003", "integer overflow"); }
static KEAL_COLD void keal_fail_div0(int line) { keal_fail(line, "22012", "division by zero"); }
static KEAL_COLD void keal_raise(int line, const char *sqlstate, keal_text msg) {
  keal_error(line, sqlstate, msg.ptr, msg.len);
}

/* ---- checked int arithmetic ---- */

static inline int64_t keal_add(int64_t a, int64_t b, int line) {
  int64_t r;
  if (KEAL_UNLIKELY(__builtin_add_overflow(a, b, &r))) keal_fail_overflow(line);
  return r;
}
static inline int64_t keal_sub(int64_t a, int64_t b, int line) {
  int64_t r;
  if (KEAL_UNLIKELY(__builtin_sub_overflow(a, b, &r))) keal_fail_overflow(line);
  return r;
}
static inline int64_t keal_mul(int64_t a, int64_t b, int line) {
  int64_t r;
  if (KEAL_UNLIKELY(__builtin_mul_overflow(a, b, &r))) keal_fail_overflow(line);
  return r;
}
static inline int64_t keal_neg(int64_t a, int line) {
  int64_t r;
  if (KEAL_UNLIKELY(__builtin_sub_overflow((int64_t)0, a, &r))) keal_fail_overflow(line);
  return r;
}
/* Truncating division, as C and PostgreSQL's bigint do. */
static inline int64_t keal_div(int64_t a, int64_t b, int line) {
  if (KEAL_UNLIKELY(b == 0)) keal_fail_div0(line);
  if (KEAL_UNLIKELY(b == -1)) return keal_neg(a, line);
  return a / b;
}
static inline int64_t keal_mod(int64_t a, int64_t b, int line) {
  if (KEAL_UNLIKELY(b == 0)) keal_fail_div0(line);
  if (KEAL_UNLIKELY(b == -1)) return 0;
  return a % b;
}
static inline int64_t keal_abs_int(int64_t a, int line) { return a < 0 ? keal_neg(a, line) : a; }
static inline double keal_fdiv(double a, double b, int line) {
  if (KEAL_UNLIKELY(b == 0.0)) keal_fail_div0(line);
  return a / b;
}
static inline int64_t keal_min_int(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t keal_max_int(int64_t a, int64_t b) { return a > b ? a : b; }
static inline double keal_min_float(double a, double b) { return a < b ? a : b; }
static inline double keal_max_float(double a, double b) { return a > b ? a : b; }
static inline double keal_sqrt(double a, int line) {
  if (KEAL_UNLIKELY(a < 0)) keal_fail(line, "2201F", "cannot take the square root of a negative number");
  return sqrt(a);
}

/* ---- UTF-8 ---- */

/* Decodes a multi-byte sequence; a malformed one yields U+FFFD and one byte. */
static __attribute__((noinline, unused)) int64_t keal_next_char_slow(const char *p, int64_t len, int64_t pos, keal_char *out) {
  const unsigned char *s = (const unsigned char *)p;
  unsigned char b0 = s[pos];
  int n;
  keal_char cp, min;
  if ((b0 & 0xE0) == 0xC0) n = 2, cp = b0 & 0x1Fu, min = 0x80;
  else if ((b0 & 0xF0) == 0xE0) n = 3, cp = b0 & 0x0Fu, min = 0x800;
  else if ((b0 & 0xF8) == 0xF0) n = 4, cp = b0 & 0x07u, min = 0x10000;
  else goto bad;
  if (pos + n > len) goto bad;
  for (int k = 1; k < n; k++) {
    if ((s[pos + k] & 0xC0) != 0x80) goto bad;
    cp = (cp << 6) | (s[pos + k] & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) goto bad;
  *out = cp;
  return pos + n;
bad:
  *out = 0xFFFD;
  return pos + 1;
}

/* The next character at byte `pos`; returns the position after it. ASCII,
 * the common case, is one compare: no allocation, no call. */
static inline int64_t keal_next_char(const char *p, int64_t len, int64_t pos, keal_char *out) {
  unsigned char b = (unsigned char)p[pos];
  if (KEAL_LIKELY(b < 0x80)) {
    *out = b;
    return pos + 1;
  }
  return keal_next_char_slow(p, len, pos, out);
}

static inline int keal_encode_utf8(keal_char c, char *out) {
  if (c < 0x80) { out[0] = (char)c; return 1; }
  if (c < 0x800) { out[0] = (char)(0xC0 | (c >> 6)); out[1] = (char)(0x80 | (c & 0x3F)); return 2; }
  if (c < 0x10000) {
    out[0] = (char)(0xE0 | (c >> 12)); out[1] = (char)(0x80 | ((c >> 6) & 0x3F)); out[2] = (char)(0x80 | (c & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (c >> 18)); out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((c >> 6) & 0x3F)); out[3] = (char)(0x80 | (c & 0x3F));
  return 4;
}

static inline bool keal_in_ascii_set(keal_char c, uint64_t lo, uint64_t hi) {
  return c < 64 ? ((lo >> c) & 1u) != 0 : c < 128 ? ((hi >> (c - 64)) & 1u) != 0 : false;
}

/* ---- text ---- */

/* A new text of n bytes (plus a NUL after it, for C library calls). */
static inline keal_text keal_text_new(int64_t n, char **data) {
  char *base = (char *)keal_alloc((size_t)n + KEAL_TEXT_HEADROOM + 1);
  *data = base + KEAL_TEXT_HEADROOM;
  (*data)[n] = '\0';
  keal_text t = {*data, n, KEAL_TEXT_HEADROOM > 0};
  return t;
}

static inline keal_text keal_text_copy(const char *p, int64_t n) {
  char *d;
  keal_text t = keal_text_new(n, &d);
  if (n > 0) memcpy(d, p, (size_t)n);
  return t;
}

static inline bool keal_text_eq(keal_text a, keal_text b) {
  return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, (size_t)a.len) == 0);
}

/* Byte order, which for UTF-8 is code point order (not a collation). */
static inline int keal_text_cmp(keal_text a, keal_text b) {
  int64_t n = a.len < b.len ? a.len : b.len;
  int c = n > 0 ? memcmp(a.ptr, b.ptr, (size_t)n) : 0;
  if (c != 0) return c;
  return a.len < b.len ? -1 : a.len > b.len ? 1 : 0;
}

static inline keal_text keal_concat(keal_text a, keal_text b) {
  char *d;
  keal_text t = keal_text_new(a.len + b.len, &d);
  if (a.len > 0) memcpy(d, a.ptr, (size_t)a.len);
  if (b.len > 0) memcpy(d + a.len, b.ptr, (size_t)b.len);
  return t;
}

/* Byte offset of the first occurrence of needle in hay, or -1. */
static inline int64_t keal_find_bytes(keal_text hay, keal_text needle) {
  /* Lengths are never negative; saying so keeps cc's bounds analysis quiet. */
  if (needle.len <= 0) return 0;
  if (needle.len > hay.len || hay.len <= 0) return -1;
  const char *p = hay.ptr;
  const char *end = hay.ptr + (hay.len - needle.len) + 1;
  while (p < end) {
    const char *hit = (const char *)memchr(p, needle.ptr[0], (size_t)(end - p));
    if (hit == NULL) return -1;
    if (memcmp(hit, needle.ptr, (size_t)needle.len) == 0) return hit - hay.ptr;
    p = hit + 1;
  }
  return -1;
}

static inline bool keal_text_in_text(keal_text needle, keal_text hay) { return keal_find_bytes(hay, needle) >= 0; }

static inline bool keal_char_in_text(keal_char c, keal_text t) {
  char buf[4];
  int n = keal_encode_utf8(c, buf);
  keal_text needle = {buf, n, 0};
  return keal_find_bytes(t, needle) >= 0;
}

static inline int64_t keal_count_chars(const char *p, int64_t n) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; i++) count += ((unsigned char)p[i] & 0xC0) != 0x80;
  return count;
}

static inline int64_t keal_len_text(keal_text t) { return keal_count_chars(t.ptr, t.len); }

/* Byte offset of character index `index` (clamped to the end). */
static inline int64_t keal_char_offset(keal_text t, int64_t index) {
  int64_t pos = 0;
  keal_char c;
  while (index > 0 && pos < t.len) {
    pos = keal_next_char(t.ptr, t.len, pos, &c);
    index--;
  }
  return pos;
}

/* substr(s, start, count): characters, 0-based, clamped to the text. */
static inline keal_text keal_substr(keal_text t, int64_t start, int64_t count, int line) {
  if (KEAL_UNLIKELY(count < 0)) keal_fail(line, "22011", "negative substring length");
  if (start < 0) start = 0;
  int64_t begin = keal_char_offset(t, start);
  keal_text rest = {t.ptr + begin, t.len - begin, 0};
  int64_t end = keal_char_offset(rest, count);
  keal_text r = {rest.ptr, end, 0};
  return r;
}

/* find(s, needle): character index of the first occurrence, or -1. */
static inline int64_t keal_find(keal_text t, keal_text needle) {
  int64_t at = keal_find_bytes(t, needle);
  return at < 0 ? -1 : keal_count_chars(t.ptr, at);
}

static inline keal_text keal_replace(keal_text t, keal_text from, keal_text to) {
  if (from.len == 0 || t.len < from.len) return t;
  int64_t count = 0;
  for (int64_t pos = 0;;) {
    keal_text rest = {t.ptr + pos, t.len - pos, 0};
    int64_t at = keal_find_bytes(rest, from);
    if (at < 0) break;
    count++;
    pos += at + from.len;
  }
  if (count == 0) return t;
  char *d;
  keal_text out = keal_text_new(t.len + count * (to.len - from.len), &d);
  int64_t pos = 0, w = 0;
  for (;;) {
    keal_text rest = {t.ptr + pos, t.len - pos, 0};
    int64_t at = keal_find_bytes(rest, from);
    if (at < 0) break;
    memcpy(d + w, t.ptr + pos, (size_t)at);
    w += at;
    if (to.len > 0) memcpy(d + w, to.ptr, (size_t)to.len);
    w += to.len;
    pos += at + from.len;
  }
  if (t.len - pos > 0) memcpy(d + w, t.ptr + pos, (size_t)(t.len - pos));
  return out;
}

static inline bool keal_is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

static inline keal_text keal_trim(keal_text t) {
  int64_t b = 0, e = t.len;
  while (b < e && keal_is_space(t.ptr[b])) b++;
  while (e > b && keal_is_space(t.ptr[e - 1])) e--;
  keal_text r = {t.ptr + b, e - b, 0};
  return r;
}

/* ASCII case mapping; other characters are unchanged (sql.upper/sql.lower
 * follow the database's locale). */
static inline keal_text keal_upper(keal_text t) {
  char *d;
  keal_text r = keal_text_new(t.len, &d);
  for (int64_t i = 0; i < t.len; i++) {
    char c = t.ptr[i];
    d[i] = (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
  }
  return r;
}
static inline keal_text keal_lower(keal_text t) {
  char *d;
  keal_text r = keal_text_new(t.len, &d);
  for (int64_t i = 0; i < t.len; i++) {
    char c = t.ptr[i];
    d[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
  }
  return r;
}

/* `p.len <= 0` rather than `== 0`: a length is never negative, but gcc -O2
 * cannot tell, and warned (stringop-overread) of a huge memcmp bound where
 * the text came from a substr it had inlined. */
static inline bool keal_starts_with(keal_text t, keal_text p) {
  return p.len <= t.len && (p.len <= 0 || memcmp(t.ptr, p.ptr, (size_t)p.len) == 0);
}
static inline bool keal_ends_with(keal_text t, keal_text p) {
  return p.len <= t.len && (p.len <= 0 || memcmp(t.ptr + (t.len - p.len), p.ptr, (size_t)p.len) == 0);
}

/* ---- conversions ---- */

static inline keal_text keal_int_to_text(int64_t v) {
  char buf[24];
  int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
  return keal_text_copy(buf, n);
}

/* text(x) for a float: exactly the text PostgreSQL's float8out gives (the
 * shortest digits that read back as the same double, positional for decimal
 * exponents -4..14, else 1.5e+20; NaN, Infinity, -0). Each flavour defines
 * it with PostgreSQL's own code: keal_pg.h calls float8out_internal,
 * keal_float_text.h (native) the same Ryu routine from libpgcommon. */
static inline keal_text keal_float_to_text(double v);

static inline keal_text keal_bool_to_text(bool v) { return v ? KEAL_TEXT_LIT("true", 4) : KEAL_TEXT_LIT("false", 5); }

static inline keal_text keal_char_to_text(keal_char c) {
  char buf[4];
  int n = keal_encode_utf8(c, buf);
  return keal_text_copy(buf, n);
}

static inline int64_t keal_char_to_int(keal_char c) { return (int64_t)c; }

static inline keal_char keal_int_to_char(int64_t v, int line) {
  if (KEAL_UNLIKELY(v <= 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)))
    keal_fail(line, "22003", "character code out of range");
  return (keal_char)v;
}

static inline double keal_int_to_float(int64_t v) { return (double)v; }

static inline int64_t keal_float_to_int(double v, int line) {
  /* Truncates toward zero. 2^63 is exactly representable; anything at or
   * beyond it (and NaN) does not fit. */
  if (KEAL_UNLIKELY(!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)))
    keal_fail(line, "22003", "float value out of range for int");
  return (int64_t)v;
}

static KEAL_COLD void keal_fail_syntax(int line, const char *type, keal_text t) {
  const char *prefix = "invalid input syntax for type ";
  int64_t shown = t.len > 200 ? 200 : t.len;
  char *d;
  keal_text msg = keal_text_new((int64_t)strlen(prefix) + (int64_t)strlen(type) + 4 + shown, &d);
  int64_t w = 0;
  memcpy(d + w, prefix, strlen(prefix)), w += (int64_t)strlen(prefix);
  memcpy(d + w, type, strlen(type)), w += (int64_t)strlen(type);
  memcpy(d + w, ": \"", 3), w += 3;
  if (shown > 0) memcpy(d + w, t.ptr, (size_t)shown);
  w += shown;
  d[w++] = '"';
  keal_error(line, "22P02", msg.ptr, w);
}

static inline int64_t keal_text_to_int(keal_text t, int line) {
  int64_t i = 0, n = t.len;
  while (i < n && keal_is_space(t.ptr[i])) i++;
  bool negative = false;
  if (i < n && (t.ptr[i] == '+' || t.ptr[i] == '-')) negative = t.ptr[i++] == '-';
  int64_t digits_start = i;
  uint64_t acc = 0;
  bool overflow = false;
  while (i < n && t.ptr[i] >= '0' && t.ptr[i] <= '9') {
    uint64_t d = (uint64_t)(t.ptr[i] - '0');
    if (acc > (UINT64_MAX - d) / 10) overflow = true;
    else acc = acc * 10 + d;
    i++;
  }
  int64_t digits_end = i;
  while (i < n && keal_is_space(t.ptr[i])) i++;
  if (digits_end == digits_start || i != n) keal_fail_syntax(line, "int", t);
  if (overflow || acc > (negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
    keal_fail(line, "22003", "value out of range for int");
  return negative ? (int64_t)(0 - acc) : (int64_t)acc;
}

static inline double keal_text_to_float(keal_text t, int line) {
  keal_text copy = keal_text_copy(t.ptr, t.len); /* NUL-terminated for strtod */
  const char *s = copy.ptr;
  while (keal_is_space(*s)) s++;
  char *end = NULL;
  double v = strtod(s, &end);
  if (end == s) keal_fail_syntax(line, "float", t);
  while (keal_is_space(*end)) end++;
  if (end != copy.ptr + copy.len) keal_fail_syntax(line, "float", t);
  if (isinf(v) && strpbrk(s, "iI") == NULL) keal_fail(line, "22003", "value out of range for float");
  return v;
}

static inline keal_text keal_bytes_to_text(keal_bytes b, int line) {
  for (int64_t pos = 0; pos < b.len;) {
    unsigned char c = (unsigned char)b.ptr[pos];
    if (c == 0) keal_fail(line, "22021", "invalid byte sequence for encoding UTF8: 0x00");
    if (c < 0x80) { pos++; continue; }
    keal_char cp;
    int64_t next = keal_next_char_slow(b.ptr, b.len, pos, &cp);
    if (cp == 0xFFFD && next == pos + 1) keal_fail(line, "22021", "invalid byte sequence for encoding UTF8");
    pos = next;
  }
  keal_text t = {b.ptr, b.len, 0};
  return t;
}

static inline keal_bytes keal_text_to_bytes(keal_text t) {
  keal_bytes b = {t.ptr, t.len, 0};
  return b;
}

#include "keal_array.h"

#endif /* KEAL_RT_H */
