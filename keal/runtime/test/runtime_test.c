/* Tests of keal_rt.h on its own: UTF-8 decoding, text helpers, conversions
 * and the checked arithmetic, including which SQLSTATE each failure raises. */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEAL_SOURCE_FILE "runtime_test"
#define KEAL_TEXT_HEADROOM 4
#define KEAL_LOOP_CHECK() ((void)0)

static jmp_buf on_error;
static char last_sqlstate[6];

static __attribute__((noreturn, unused)) void keal_error(int line, const char *sqlstate, const char *msg, int64_t len) {
  (void)line, (void)msg, (void)len;
  memcpy(last_sqlstate, sqlstate, 5);
  last_sqlstate[5] = '\0';
  longjmp(on_error, 1);
}

/* A bump arena, as the function's memory context is in PostgreSQL. */
static _Alignas(16) char arena[1 << 20];
static size_t arena_used = 0;
static void *keal_alloc(size_t n) {
  size_t at = (arena_used + 15) & ~(size_t)15;
  if (at + n > sizeof arena) abort();
  arena_used = at + n;
  return arena + at;
}

#include "keal_rt.h"
#include "keal_float_text.h"

static int failures = 0;

#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                     \
    }                                                                 \
  } while (0)

/* Runs `expr` and checks that it fails with `state`. */
#define CHECK_FAILS(state, expr)                                      \
  do {                                                                \
    last_sqlstate[0] = '\0';                                          \
    if (setjmp(on_error) == 0) {                                      \
      (void)(expr);                                                   \
      fprintf(stderr, "%s:%d: expected %s from %s\n", __FILE__, __LINE__, state, #expr); \
      failures++;                                                     \
    } else if (strcmp(last_sqlstate, state) != 0) {                   \
      fprintf(stderr, "%s:%d: %s gave %s, expected %s\n", __FILE__, __LINE__, #expr, last_sqlstate, state); \
      failures++;                                                     \
    }                                                                 \
  } while (0)

static keal_text T(const char *s) { return KEAL_TEXT_LIT(s, (int64_t)strlen(s)); }
static int eq(keal_text t, const char *s) { return keal_text_eq(t, T(s)); }

static void test_arithmetic(void) {
  CHECK(keal_add(INT64_MAX - 1, 1, 1) == INT64_MAX);
  CHECK_FAILS("22003", keal_add(INT64_MAX, 1, 1));
  CHECK_FAILS("22003", keal_sub(INT64_MIN, 1, 1));
  CHECK_FAILS("22003", keal_mul(INT64_MAX / 2 + 1, 2, 1));
  CHECK_FAILS("22003", keal_neg(INT64_MIN, 1));
  CHECK_FAILS("22003", keal_div(INT64_MIN, -1, 1));
  CHECK_FAILS("22003", keal_abs_int(INT64_MIN, 1));
  CHECK_FAILS("22012", keal_div(1, 0, 1));
  CHECK_FAILS("22012", keal_mod(1, 0, 1));
  CHECK_FAILS("22012", keal_fdiv(1.0, 0.0, 1));
  CHECK(keal_mod(INT64_MIN, -1, 1) == 0);
  CHECK(keal_div(-7, 2, 1) == -3 && keal_mod(-7, 2, 1) == -1 && keal_mod(7, -2, 1) == 1);
  CHECK_FAILS("2201F", keal_sqrt(-1.0, 1));
}

static void test_utf8(void) {
  keal_char c;
  /* Valid: 2-, 3- and 4-byte sequences. */
  CHECK(keal_next_char("\xC3\xA9", 2, 0, &c) == 2 && c == 0xE9);
  CHECK(keal_next_char("\xE2\x82\xAC", 3, 0, &c) == 3 && c == 0x20AC);
  CHECK(keal_next_char("\xF0\x9F\x98\x80", 4, 0, &c) == 4 && c == 0x1F600);
  /* Malformed: one byte consumed, U+FFFD, never reading past the end. */
  CHECK(keal_next_char("\xC3", 1, 0, &c) == 1 && c == 0xFFFD);              /* truncated */
  CHECK(keal_next_char("\xC0\x80", 2, 0, &c) == 1 && c == 0xFFFD);          /* overlong */
  CHECK(keal_next_char("\xED\xA0\x80", 3, 0, &c) == 1 && c == 0xFFFD);      /* surrogate */
  CHECK(keal_next_char("\xF4\x90\x80\x80", 4, 0, &c) == 1 && c == 0xFFFD);  /* > U+10FFFF */
  CHECK(keal_next_char("\x80", 1, 0, &c) == 1 && c == 0xFFFD);              /* lone continuation */
  char buf[4];
  CHECK(keal_encode_utf8(0x1F600, buf) == 4 && memcmp(buf, "\xF0\x9F\x98\x80", 4) == 0);
  CHECK(keal_in_ascii_set('a', 0, (uint64_t)1 << ('a' - 64)) && !keal_in_ascii_set('b', 0, (uint64_t)1 << ('a' - 64)));
  CHECK(keal_in_ascii_set('!', (uint64_t)1 << '!', 0) && !keal_in_ascii_set(0xE9, ~(uint64_t)0, ~(uint64_t)0));
}

static void test_text(void) {
  keal_text s = T("h\xC3\xA9llo w\xC3\xB6rld");
  CHECK(keal_len_text(s) == 11);
  CHECK(eq(keal_substr(s, 1, 4, 1), "\xC3\xA9llo"));
  CHECK(eq(keal_substr(s, 20, 4, 1), "") && eq(keal_substr(s, -5, 1, 1), "h"));
  CHECK_FAILS("22011", keal_substr(s, 0, -1, 1));
  CHECK(keal_find(s, T("w\xC3\xB6")) == 6 && keal_find(s, T("x")) == -1 && keal_find(s, T("")) == 0);
  CHECK(eq(keal_replace(T("aaaa"), T("aa"), T("b")), "bb"));
  CHECK(eq(keal_replace(T("abc"), T(""), T("x")), "abc"));
  CHECK(eq(keal_replace(T("a.b.c"), T("."), T("::")), "a::b::c"));
  CHECK(eq(keal_trim(T(" \t x y \n")), "x y") && eq(keal_trim(T("   ")), ""));
  CHECK(eq(keal_upper(T("a\xC3\xA9z")), "A\xC3\xA9Z") && eq(keal_lower(T("AbC")), "abc"));
  CHECK(keal_starts_with(s, T("h\xC3\xA9")) && keal_ends_with(s, T("rld")) && !keal_ends_with(T("a"), T("ab")));
  CHECK(keal_char_in_text(0xF6, s) && !keal_char_in_text('z', s) && keal_text_in_text(T("llo"), s));
  CHECK(keal_text_cmp(T("ab"), T("abc")) < 0 && keal_text_cmp(T("b"), T("abc")) > 0 && keal_text_cmp(T("x"), T("x")) == 0);
  keal_text joined = keal_concat(T("ab"), T("cd"));
  CHECK(eq(joined, "abcd") && joined.hdr == 1 && joined.ptr[4] == '\0');
}

static void test_conversions(void) {
  CHECK(keal_text_to_int(T(" -9223372036854775808 "), 1) == INT64_MIN);
  CHECK(keal_text_to_int(T("+42"), 1) == 42);
  CHECK_FAILS("22003", keal_text_to_int(T("9223372036854775808"), 1));
  CHECK_FAILS("22P02", keal_text_to_int(T("12x"), 1));
  CHECK_FAILS("22P02", keal_text_to_int(T(""), 1));
  CHECK_FAILS("22P02", keal_text_to_int(T("-"), 1));
  CHECK(keal_text_to_float(T(" 2.5 "), 1) == 2.5);
  CHECK_FAILS("22P02", keal_text_to_float(T("2.5.1"), 1));
  CHECK_FAILS("22003", keal_text_to_float(T("1e999"), 1));
  CHECK(keal_float_to_int(-3.99, 1) == -3 && keal_float_to_int(-9223372036854775808.0, 1) == INT64_MIN);
  CHECK_FAILS("22003", keal_float_to_int(9223372036854775808.0, 1));
  CHECK_FAILS("22003", keal_float_to_int(NAN, 1));
  CHECK(eq(keal_float_to_text(0.1), "0.1") && eq(keal_float_to_text(1e21), "1e+21") && eq(keal_float_to_text(-1000), "-1000"));
  CHECK(eq(keal_float_to_text(1.0 / 3.0), "0.3333333333333333") && eq(keal_float_to_text(1.5e-7), "1.5e-07"));
  CHECK(eq(keal_float_to_text(INFINITY), "Infinity") && eq(keal_float_to_text(NAN), "NaN"));
  /* From 1e15 up: exponent form, and float8out's digits at interval boundaries. */
  CHECK(eq(keal_float_to_text(4503599627370496.0), "4.503599627370496e+15") && eq(keal_float_to_text(1e15), "1e+15"));
  CHECK(eq(keal_float_to_text(1.2345e21), "1.2344999999999999e+21") && eq(keal_float_to_text(-0.0), "-0"));
  CHECK(eq(keal_int_to_text(INT64_MIN), "-9223372036854775808"));
  CHECK(keal_int_to_char(0x1F600, 1) == 0x1F600);
  CHECK_FAILS("22003", keal_int_to_char(0, 1));
  CHECK_FAILS("22003", keal_int_to_char(0xD800, 1));
  CHECK_FAILS("22003", keal_int_to_char(0x110000, 1));
  CHECK(eq(keal_bytes_to_text(T("ok \xC3\xA9"), 1), "ok \xC3\xA9"));
  CHECK_FAILS("22021", keal_bytes_to_text(T("bad \xC3"), 1));
  keal_bytes nul = {"a\0b", 3, 0};
  CHECK_FAILS("22021", keal_bytes_to_text(nul, 1));
}

/* keal_array.h: append is amortised O(1) (the buffer doubles, so n appends
 * move it O(log n) times), and values that share a buffer never see each
 * other's appends. */
static void test_arrays(void) {
  arena_used = 0; /* the earlier tests' values are no longer needed */
  keal_array xs = keal_array_empty();
  int moves = 0;
  const int64_t n = 20000;
  for (int64_t i = 0; i < n; i++) {
    char *before = xs.data;
    xs = keal_array_push(xs, &i, sizeof i);
    moves += xs.data != before;
  }
  CHECK(xs.len == n && ((int64_t *)xs.data)[n - 1] == n - 1 && ((int64_t *)xs.data)[0] == 0);
  CHECK(moves <= 14); /* 8, 16, ..., 32768: 13 buffers for 20,000 elements */
  int64_t one = 1, two = 2, three = 3;
  keal_array a = keal_array_push(keal_array_empty(), &one, sizeof one);
  keal_array b = keal_array_push(a, &two, sizeof two);   /* in place: a ends where the buffer's used part ends */
  keal_array c = keal_array_push(a, &three, sizeof three); /* a no longer does: a copy */
  CHECK(b.data == a.data && c.data != a.data);
  CHECK(a.len == 1 && b.len == 2 && c.len == 2 && ((int64_t *)b.data)[1] == 2 && ((int64_t *)c.data)[1] == 3);
  keal_array d = keal_array_push(b, &three, sizeof three); /* b still owns the end: in place */
  CHECK(d.data == b.data && ((int64_t *)d.data)[2] == 3 && ((int64_t *)c.data)[1] == 3);
  /* A view of memory that is not ours (a PostgreSQL argument) is copied on append. */
  int64_t outside[2] = {5, 6};
  keal_array view = {(char *)outside, 2, NULL};
  keal_array e = keal_array_push(view, &one, sizeof one);
  CHECK(e.data != view.data && e.len == 3 && outside[1] == 6 && ((int64_t *)e.data)[1] == 6);
  CHECK(keal_array_at(xs, 0, 1) == 0 && keal_array_at(xs, n - 1, 1) == n - 1);
  CHECK_FAILS("2202E", keal_array_at(xs, n, 1));
  CHECK_FAILS("2202E", keal_array_at(xs, -1, 1));
  CHECK_FAILS("2202E", keal_array_at(keal_array_empty(), 0, 1));
}

int main(void) {
  test_arithmetic();
  test_arrays();
  test_utf8();
  test_text();
  test_conversions();
  if (failures != 0) {
    fprintf(stderr, "%d runtime check(s) failed\n", failures);
    return 1;
  }
  printf("runtime: all checks passed\n");
  return 0;
}
