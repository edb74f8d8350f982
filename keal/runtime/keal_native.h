/*
 * keal_native.h: the runtime flavour for native programs (`--target native`).
 * Memory comes from malloc and lives until exit; a runtime error prints
 * `file:line: error: message` to stderr and exits with status 1.
 */
#ifndef KEAL_NATIVE_H
#define KEAL_NATIVE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef KEAL_SOURCE_FILE
#error "define KEAL_SOURCE_FILE before including keal_native.h"
#endif

#define KEAL_TEXT_HEADROOM 0
#define KEAL_LOOP_CHECK() ((void)0)

static __attribute__((cold, noinline, noreturn, unused)) void keal_error(int line, const char *sqlstate, const char *msg,
                                                                          int64_t len) {
  (void)sqlstate;
  fflush(stdout);
  fprintf(stderr, "%s:%d: error: %.*s\n", KEAL_SOURCE_FILE, line, (int)len, msg);
  exit(1);
}

/* Memory for texts. A native program never frees (a text lives until the
 * program ends), so texts are carved in order out of 64 KiB blocks: a few
 * instructions a text rather than malloc's, no per-chunk header, and texts
 * made one after another share cache lines (a query loop copying a column
 * a row). A request of more than a quarter block gets its own block. */
#define KEAL_ARENA_BLOCK ((size_t)64 << 10)
static char *keal_arena_next;
static char *keal_arena_end;

static __attribute__((noinline, unused)) void *keal_alloc_block(size_t n) {
  void *p = malloc(n);
  if (p == NULL) {
    fprintf(stderr, "%s: error: out of memory\n", KEAL_SOURCE_FILE);
    exit(1);
  }
  return p;
}

static __attribute__((noinline, unused)) void *keal_alloc_slow(size_t n) {
  if (n > KEAL_ARENA_BLOCK / 4) return keal_alloc_block(n);
  char *block = (char *)keal_alloc_block(KEAL_ARENA_BLOCK);
  keal_arena_next = block + n;
  keal_arena_end = block + KEAL_ARENA_BLOCK;
  return block;
}

static inline void *keal_alloc(size_t n) {
  if (n == 0) n = 1;
  if (n <= (size_t)(keal_arena_end - keal_arena_next)) {
    void *p = keal_arena_next;
    keal_arena_next += n;
    return p;
  }
  return keal_alloc_slow(n);
}

#include "keal_rt.h"
#include "keal_float_text.h"

#include <sys/resource.h>

/* Recursion guard: a recursive function compares its frame with the stack
 * base recorded at start, so runaway recursion is a Keal runtime error
 * (54001, as in PostgreSQL) rather than a segmentation fault. */
static char *keal_stack_base;
static size_t keal_stack_limit = (size_t)6 << 20;

static inline void keal_native_start(void) {
  keal_stack_base = (char *)__builtin_frame_address(0);
  struct rlimit rl;
  if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > ((rlim_t)1 << 20)) {
    keal_stack_limit = (size_t)rl.rlim_cur - ((size_t)512 << 10);
  }
}

#define KEAL_RECURSION_CHECK(line)                                                                   \
  do {                                                                                               \
    char *keal_frame_ = (char *)__builtin_frame_address(0);                                          \
    size_t keal_used_ = (size_t)(keal_frame_ < keal_stack_base ? keal_stack_base - keal_frame_       \
                                                               : keal_frame_ - keal_stack_base);     \
    if (KEAL_UNLIKELY(keal_used_ > keal_stack_limit)) keal_fail(line, "54001", "stack depth limit exceeded"); \
  } while (0)

/* print(a, b, ...): values separated by one space, then a newline. */
static inline void keal_print_sep(int first) {
  if (!first) fputc(' ', stdout);
}
static inline void keal_print_int(int64_t v) { printf("%lld", (long long)v); }
static inline void keal_print_text(keal_text t) { fwrite(t.ptr, 1, (size_t)t.len, stdout); }
static inline void keal_print_float(double v) { keal_print_text(keal_float_to_text(v)); }
static inline void keal_print_bool(bool v) { fputs(v ? "true" : "false", stdout); }
static inline void keal_print_char(keal_char c) {
  char buf[4];
  fwrite(buf, 1, (size_t)keal_encode_utf8(c, buf), stdout);
}
static inline void keal_print_bytes(keal_bytes b) {
  fputs("\\x", stdout);
  for (int64_t i = 0; i < b.len; i++) printf("%02x", (unsigned)(unsigned char)b.ptr[i]);
}
static inline void keal_print_null(void) { fputs("null", stdout); }
static inline void keal_print_end(void) { fputc('\n', stdout); }

#ifdef KEAL_EMBEDDED_SQL
#include "keal_native_sql.h"
#endif

#endif /* KEAL_NATIVE_H */
