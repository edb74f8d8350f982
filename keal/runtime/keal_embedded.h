/*
 * keal_embedded.h: what the SQLite and MariaDB flavours share. Both run Keal
 * code inside somebody else's process, called through a plain C entry point
 * that must return (no ereport to unwind the stack for us):
 *
 * - One call at a time per thread: the entry point opens a keal_call on its
 *   own stack (keal_call_begin), runs the Keal function under KEAL_SETJMP, and
 *   closes the call (keal_call_end) on every path.
 * - keal_error formats "file:line: message" into the call and longjmps back
 *   to the entry point, which turns it into the host's SQL error. Nothing a
 *   Keal function holds needs unwinding: its memory is the call's arena.
 * - keal_alloc is a bump arena per call: texts made during a call live until
 *   its result has been handed to the host (which copies it), then all of it
 *   goes at once. A call that makes no text allocates nothing; blocks start
 *   at 4 KiB and double up to 64 KiB. (No block is cached per thread: the
 *   host may unload the library, and a thread-local cache would leak.)
 * - Loops count down a tick and, every KEAL_POLL_EVERY iterations, ask the
 *   host whether the statement was cancelled (keal_target_poll, defined by
 *   the flavour). The tick is a local of each function (KEAL_FUNCTION_TICK,
 *   which the emitter puts first in every function of these flavours), so
 *   it lives in a register: a thread-local decremented in memory was a
 *   load-store chain that cost the Collatz loop a third of its speed. Any
 *   loop that runs KEAL_POLL_EVERY iterations within one call of its
 *   function polls; a runaway loop stops within about a millisecond.
 * - Recursion is bounded by the thread's real stack (pthread_getattr_np),
 *   leaving 64 KiB for the host: 54001 "stack depth limit exceeded", as in
 *   PostgreSQL, instead of a crashed server.
 *
 * The flavour header defines
 *   static void keal_target_poll(void);
 * before including this file, and includes keal_rt.h after it.
 */
#ifndef KEAL_EMBEDDED_H
#define KEAL_EMBEDDED_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEAL_TEXT_HEADROOM 0
#define KEAL_POLL_EVERY 65536u
#define KEAL_ARENA_FIRST 4096u
#define KEAL_ARENA_MAX 65536u

typedef struct keal_block {
  struct keal_block *next;
  size_t size;
  size_t used;
  size_t pad; /* the data that follows starts 32 bytes in: 16-aligned */
} keal_block;

typedef struct keal_call {
  /* __builtin_setjmp's buffer: it saves only the frame, stack pointer and
   * resume address (a few instructions, against _setjmp's register file and
   * pointer mangling), which is all a jump back into the entry point needs. */
  void *jump[5];
  keal_block *blocks;      /* newest first; the last one is the thread's kept block */
  char *message;           /* malloc'd "file:line: text" once an error was raised */
  int64_t message_len;
  char sqlstate[6];
  void *host;              /* the flavour's handle (sqlite3_context, THD) */
  void *poll_state;        /* the flavour's per-call polling state */
} keal_call;

/* In the entry point: 0 first, 1 when keal_error jumped back. */
#define KEAL_SETJMP(call) __builtin_setjmp((call)->jump)

#define KEAL_TLS __thread __attribute__((tls_model("initial-exec")))

static KEAL_TLS keal_call *keal_current __attribute__((unused));
static KEAL_TLS char *keal_stack_floor __attribute__((unused));

static void keal_target_poll(void);

static __attribute__((cold, noinline, noreturn, unused)) void keal_error(int line, const char *sqlstate, const char *msg,
                                                                          int64_t len) {
  keal_call *call = keal_current;
  /* Line 0: no line to name (a cancelled loop). */
  char where[32] = "";
  if (line > 0) snprintf(where, sizeof where, ":%d", line);
  int n = snprintf(NULL, 0, "%s%s: %.*s", KEAL_SOURCE_FILE, where, (int)len, msg);
  call->message = (char *)malloc((size_t)n + 1);
  if (call->message != NULL) {
    snprintf(call->message, (size_t)n + 1, "%s%s: %.*s", KEAL_SOURCE_FILE, where, (int)len, msg);
    call->message_len = n;
  }
  memcpy(call->sqlstate, sqlstate, 5);
  call->sqlstate[5] = '\0';
  __builtin_longjmp(call->jump, 1);
}

static __attribute__((noinline, unused)) void *keal_alloc_slow(size_t n) {
  keal_call *call = keal_current;
  size_t grow = call->blocks == NULL ? KEAL_ARENA_FIRST : call->blocks->size * 2;
  if (grow > KEAL_ARENA_MAX) grow = KEAL_ARENA_MAX;
  size_t size = n > grow ? n : grow;
  keal_block *b = (keal_block *)malloc(sizeof(keal_block) + size);
  if (b == NULL) keal_error(0, "53200", "out of memory", 13);
  b->size = size;
  b->used = n;
  b->next = call->blocks;
  call->blocks = b;
  return (char *)(b + 1);
}

static inline void *keal_alloc(size_t n) {
  keal_block *b = keal_current->blocks;
  n = (n + 15u) & ~(size_t)15u;
  if (__builtin_expect(b != NULL && b->size - b->used >= n, 1)) {
    void *p = (char *)(b + 1) + b->used;
    b->used += n;
    return p;
  }
  return keal_alloc_slow(n);
}

/* The entry point's prologue: `call` lives in the entry point's frame. */
static inline void keal_call_begin(keal_call *call, void *host) {
  call->blocks = NULL;
  call->message = NULL;
  call->message_len = 0;
  call->sqlstate[0] = '\0';
  call->host = host;
  call->poll_state = NULL;
  keal_current = call;
}

/* Frees what the call made. */
static inline void keal_call_end(keal_call *call) {
  keal_block *b = call->blocks;
  while (b != NULL) {
    keal_block *next = b->next;
    free(b);
    b = next;
  }
  call->blocks = NULL;
  free(call->message);
  call->message = NULL;
  keal_current = NULL;
}

/* Keal locals are k_*: keal_tick cannot collide with one. */
#define KEAL_FUNCTION_TICK() \
  uint32_t keal_tick = KEAL_POLL_EVERY; \
  (void)keal_tick

#define KEAL_LOOP_CHECK()                               \
  do {                                                  \
    if (__builtin_expect(--keal_tick == 0, 0)) {        \
      keal_tick = KEAL_POLL_EVERY;                      \
      keal_poll();                                      \
    }                                                   \
  } while (0)

static __attribute__((noinline, unused)) void keal_poll(void) { keal_target_poll(); }

static __attribute__((noinline, unused)) char *keal_find_stack_floor(void) {
  pthread_attr_t attr;
  void *lo = NULL;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &lo, &size);
    pthread_attr_destroy(&attr);
  }
  /* Unknown bounds: allow 256 KiB below this frame (MariaDB's default
   * thread_stack is 292 KiB). */
  if (lo == NULL) return (char *)__builtin_frame_address(0) - ((size_t)256 << 10);
  return (char *)lo + ((size_t)64 << 10);
}

#define KEAL_RECURSION_CHECK(line)                                                                       \
  do {                                                                                                   \
    if (__builtin_expect(keal_stack_floor == NULL, 0)) keal_stack_floor = keal_find_stack_floor();       \
    if (__builtin_expect((char *)__builtin_frame_address(0) < keal_stack_floor, 0))                      \
      keal_fail(line, "54001", "stack depth limit exceeded");                                            \
  } while (0)

#endif /* KEAL_EMBEDDED_H */
