/*
 * keal_mariadb.h: the runtime flavour for MariaDB UDF libraries
 * (`--target mariadb`). Every exported function f becomes f_init, f and
 * f_deinit (the UDF interface of mysql.h); `CREATE FUNCTION f RETURNS
 * INTEGER|REAL|STRING SONAME 'lib.so'` installs it (keal deploy does).
 *
 * - Argument types are checked in f_init where the server knows them:
 *   int takes an integer; float an integer, decimal or double (the server
 *   converts: arg_type = REAL_RESULT, as PostgreSQL casts implicitly); bool
 *   an integer 0 or 1; text, char and bytes a string. A string or decimal
 *   for an int (and a string for float or bool) is only known to be wrong
 *   once it is not NULL (a NULL literal is a string to the server), so that
 *   is checked per row: an error, never a silent 0.
 * - NULL as on PostgreSQL: NULL for a non-nullable parameter gives NULL
 *   without running the function; a nullable parameter gets null.
 * - Text arrives in the argument's character set: it must be valid UTF-8
 *   (utf8mb4 or ASCII; anything else is an error naming the argument).
 *   Results are the utf8mb4 bytes; the server labels a UDF's string result
 *   `binary`, so CONVERT(f(x) USING utf8mb4) gives it its character set.
 * - Errors set the UDF error flag and raise the Keal message as the
 *   statement's error through the server's my_printf_error: 1690
 *   (SQLSTATE 22003) for overflow, 1365 (22012) for division by zero, 1317
 *   (70100) for a stopped loop, 1644 (HY000) for raise and the rest.
 * - KILL QUERY (and max_statement_time) stop a runaway loop: every
 *   KEAL_POLL_EVERY iterations the loop asks thd_kill_level(_current_thd()),
 *   the server's own exported functions (weak symbols: the library still
 *   loads, without polling, anywhere else). Not thd_killed: that ignores
 *   soft kills, and max_statement_time kills softly.
 */
#ifndef KEAL_MARIADB_H
#define KEAL_MARIADB_H

/* pthread_getattr_np (keal_embedded.h): before any system header. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <mysql.h>

#ifndef KEAL_SOURCE_FILE
#error "define KEAL_SOURCE_FILE before including keal_mariadb.h"
#endif

#include "keal_embedded.h"
#include "keal_rt.h"
#include "keal_float_text.h"
#include "keal_utf8_check.h"
#include "keal_json_array.h"

/* The server's own functions (mariadbd exports them to plugins). */
extern void *_current_thd(void) __attribute__((weak));
extern int thd_kill_level(const void *thd) __attribute__((weak));
extern void my_printf_error(unsigned int error, const char *format, unsigned long flags, ...) __attribute__((weak));

#define KEAL_EXPORT __attribute__((visibility("default")))

/* ---- cancellation ---- */

static void keal_target_poll(void) {
  void *thd = keal_current->host;
  if (thd != NULL && thd_kill_level != NULL && thd_kill_level(thd) != 0) {
    static const char msg[] = "query execution was interrupted (KILL QUERY or max_statement_time)";
    keal_error(0, "57014", msg, (int64_t)sizeof msg - 1);
  }
}

/* ---- one call ---- */

static inline void keal_mariadb_begin(keal_call *call) {
  keal_call_begin(call, _current_thd != NULL ? _current_thd() : NULL);
}

static inline void keal_mariadb_end(keal_call *call) { keal_call_end(call); }

static unsigned int keal_mariadb_errno(const char *sqlstate) {
  if (strcmp(sqlstate, "22003") == 0) return 1690;  /* ER_DATA_OUT_OF_RANGE */
  if (strcmp(sqlstate, "22012") == 0) return 1365;  /* ER_DIVISION_BY_ZERO */
  if (strcmp(sqlstate, "57014") == 0) return 1317;  /* ER_QUERY_INTERRUPTED */
  return 1644;                                      /* ER_SIGNAL_EXCEPTION */
}

static __attribute__((cold, noinline, unused)) void keal_mariadb_report(unsigned int code, const char *msg, char *is_null,
                                                                         char *error) {
  if (my_printf_error != NULL) my_printf_error(code, "%s", 0, msg);
  *is_null = 1;
  *error = 1;
}

/* After a longjmp from keal_error. */
static __attribute__((cold, noinline, unused)) void keal_mariadb_failed(keal_call *call, char *is_null, char *error) {
  keal_mariadb_report(keal_mariadb_errno(call->sqlstate), call->message != NULL ? call->message : "out of memory",
                      is_null, error);
}

/* ---- f_init: argument count and types ---- */

enum keal_mdb_kind { KEAL_MDB_INT, KEAL_MDB_FLOAT, KEAL_MDB_BOOL, KEAL_MDB_TEXT, KEAL_MDB_CHAR, KEAL_MDB_BYTES, KEAL_MDB_JSON };

static const char *keal_mdb_result_name(enum Item_result r) {
  switch (r) {
    case STRING_RESULT: return "a string";
    case REAL_RESULT: return "a double";
    case INT_RESULT: return "an integer";
    case DECIMAL_RESULT: return "a decimal";
    default: return "a row";
  }
}

/* Short: the server cuts an f_init message at 80 characters. */
static const char *keal_mdb_kind_name(enum keal_mdb_kind k) {
  switch (k) {
    case KEAL_MDB_INT: return "an integer";
    case KEAL_MDB_FLOAT: return "a number";
    case KEAL_MDB_BOOL: return "0 or 1";
    case KEAL_MDB_TEXT: return "utf8mb4 text";
    case KEAL_MDB_CHAR: return "one utf8mb4 character";
    case KEAL_MDB_BYTES: return "a string";
    case KEAL_MDB_JSON: return "JSON array text";
  }
  return "?";
}

/* Checks argument i in f_init; on failure writes the message (the server's
 * buffer holds MYSQL_ERRMSG_SIZE bytes) and returns false. */
static inline bool keal_mdb_param(UDF_ARGS *args, unsigned i, enum keal_mdb_kind kind, const char *fn,
                                  const char *param, char *message) {
  enum Item_result r = args->arg_type[i];
  bool ok;
  switch (kind) {
    case KEAL_MDB_INT: ok = r == INT_RESULT || r == STRING_RESULT || r == DECIMAL_RESULT; break;
    case KEAL_MDB_FLOAT:
      ok = r != ROW_RESULT;
      if (r == INT_RESULT || r == DECIMAL_RESULT) args->arg_type[i] = REAL_RESULT;
      break;
    case KEAL_MDB_BOOL: ok = r == INT_RESULT || r == STRING_RESULT; break;
    default: ok = r == STRING_RESULT; break;
  }
  if (!ok)
    snprintf(message, MYSQL_ERRMSG_SIZE, "%s: argument %u (%s) must be %s, not %s", KEAL_SOURCE_FILE, i + 1, param,
             keal_mdb_kind_name(kind), keal_mdb_result_name(r));
  (void)fn; /* the server's message names the function */
  return ok;
}

static inline bool keal_mdb_arg_count(UDF_ARGS *args, unsigned n, const char *fn, char *message) {
  if (args->arg_count == n) return true;
  snprintf(message, MYSQL_ERRMSG_SIZE, "%s: %s() takes %u argument%s, not %u", KEAL_SOURCE_FILE, fn, n,
           n == 1 ? "" : "s", args->arg_count);
  return false;
}

/* ---- f: reading arguments. 1: a value; 0: NULL; -1: error reported ---- */

static __attribute__((cold, noinline, unused)) int keal_mdb_bad_value(const char *fn, unsigned i, const char *param,
                                                                       enum keal_mdb_kind kind, const char *got,
                                                                       char *is_null, char *error) {
  char msg[512];
  snprintf(msg, sizeof msg, "%s: %s(): argument %u (%s) must be %s, not %s", KEAL_SOURCE_FILE, fn, i + 1, param,
           keal_mdb_kind_name(kind), got);
  keal_mariadb_report(1644, msg, is_null, error);
  return -1;
}

static inline int keal_mdb_int(UDF_ARGS *args, unsigned i, int64_t *out, const char *fn, const char *param,
                               char *is_null, char *error) {
  if (args->args[i] == NULL) return 0;
  if (__builtin_expect(args->arg_type[i] == INT_RESULT, 1)) {
    *out = *(long long *)(void *)args->args[i];
    return 1;
  }
  return keal_mdb_bad_value(fn, i, param, KEAL_MDB_INT, keal_mdb_result_name(args->arg_type[i]), is_null, error);
}

static inline int keal_mdb_float(UDF_ARGS *args, unsigned i, double *out, const char *fn, const char *param,
                                 char *is_null, char *error) {
  if (args->args[i] == NULL) return 0;
  if (args->arg_type[i] == REAL_RESULT) {
    *out = *(double *)(void *)args->args[i];
    return 1;
  }
  return keal_mdb_bad_value(fn, i, param, KEAL_MDB_FLOAT, keal_mdb_result_name(args->arg_type[i]), is_null, error);
}

static inline int keal_mdb_bool(UDF_ARGS *args, unsigned i, bool *out, const char *fn, const char *param,
                                char *is_null, char *error) {
  if (args->args[i] == NULL) return 0;
  if (args->arg_type[i] == INT_RESULT) {
    long long v = *(long long *)(void *)args->args[i];
    if (v == 0 || v == 1) {
      *out = v == 1;
      return 1;
    }
    return keal_mdb_bad_value(fn, i, param, KEAL_MDB_BOOL, "another integer", is_null, error);
  }
  return keal_mdb_bad_value(fn, i, param, KEAL_MDB_BOOL, keal_mdb_result_name(args->arg_type[i]), is_null, error);
}

static inline int keal_mdb_text(UDF_ARGS *args, unsigned i, keal_text *out, const char *fn, const char *param,
                                char *is_null, char *error) {
  if (args->args[i] == NULL) return 0;
  const char *p = args->args[i];
  int64_t n = (int64_t)args->lengths[i];
  if (!keal_utf8_ok(p, n))
    return keal_mdb_bad_value(fn, i, param, KEAL_MDB_TEXT, "bytes that are not UTF-8 (or contain NUL)", is_null, error);
  out->ptr = p;
  out->len = n;
  out->hdr = 0;
  return 1;
}

/* An array parameter's JSON text (parsed later, in the call: keal_json_array.h). */
static inline int keal_mdb_json(UDF_ARGS *args, unsigned i, keal_text *out, const char *fn, const char *param,
                                char *is_null, char *error) {
  return keal_mdb_text(args, i, out, fn, param, is_null, error);
}

static inline int keal_mdb_char(UDF_ARGS *args, unsigned i, keal_char *out, const char *fn, const char *param,
                                char *is_null, char *error) {
  keal_text s;
  int r = keal_mdb_text(args, i, &s, fn, param, is_null, error);
  if (r != 1) return r;
  if (keal_one_char(s.ptr, s.len, out)) return 1;
  return keal_mdb_bad_value(fn, i, param, KEAL_MDB_CHAR, "a longer or empty string", is_null, error);
}

static inline int keal_mdb_bytes(UDF_ARGS *args, unsigned i, keal_bytes *out, const char *fn, const char *param,
                                 char *is_null, char *error) {
  (void)fn, (void)param, (void)is_null, (void)error;
  if (args->args[i] == NULL) return 0;
  out->ptr = args->args[i];
  out->len = (int64_t)args->lengths[i];
  out->hdr = 0;
  return 1;
}

/* ---- string results: kept in initid->ptr until the next row or deinit ---- */

typedef struct {
  size_t capacity;
  char data[];
} keal_mdb_buffer;

/* Copies the result into the buffer at *slot (grown as needed; freed by
 * deinit): initid->ptr for a scalar function, the state box's `out` for an
 * aggregate, whose initid->ptr holds the state. */
static inline char *keal_mdb_string_into(char **slot, const char *p, int64_t n, unsigned long *length, char *is_null,
                                         char *error) {
  keal_mdb_buffer *b = (keal_mdb_buffer *)(void *)*slot;
  if (b == NULL || b->capacity < (size_t)n) {
    size_t cap = (size_t)n < 256 ? 256 : (size_t)n;
    keal_mdb_buffer *grown = (keal_mdb_buffer *)realloc(b, sizeof(keal_mdb_buffer) + cap);
    if (grown == NULL) {
      keal_mariadb_report(1644, KEAL_SOURCE_FILE ": out of memory for the result", is_null, error);
      return NULL;
    }
    grown->capacity = cap;
    b = grown;
    *slot = (char *)(void *)b;
  }
  if (n > 0) memcpy(b->data, p, (size_t)n);
  *length = (unsigned long)n;
  return b->data;
}

static inline char *keal_mdb_string_result(UDF_INIT *initid, const char *p, int64_t n, unsigned long *length,
                                           char *is_null, char *error) {
  return keal_mdb_string_into(&initid->ptr, p, n, length, is_null, error);
}

static inline char *keal_mdb_char_into(char **slot, keal_char c, unsigned long *length, char *is_null, char *error) {
  char buf[4];
  int n = keal_encode_utf8(c, buf);
  return keal_mdb_string_into(slot, buf, n, length, is_null, error);
}

static inline char *keal_mdb_char_result(UDF_INIT *initid, keal_char c, unsigned long *length, char *is_null,
                                         char *error) {
  return keal_mdb_char_into(&initid->ptr, c, length, is_null, error);
}

#endif /* KEAL_MARIADB_H */
