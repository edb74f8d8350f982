/*
 * keal_sqlite.h: the runtime flavour for SQLite loadable extensions
 * (`--target sqlite`). The generated sqlite3_extension_init registers every
 * exported function with sqlite3_create_function_v2 (SQLITE_DETERMINISTIC |
 * SQLITE_INNOCUOUS for pure ones: on this target every function is pure, as
 * neither sql.* nor embedded SQL exist here). Rows functions are
 * table-valued functions: keal_sqlite_rows.h.
 *
 * - Arguments are checked against the Keal parameter types, never coerced:
 *   SQLite's dynamic typing would turn the text 'abc' into 0 for an int.
 *   int takes an INTEGER; float a REAL or an INTEGER (as PostgreSQL casts
 *   bigint to double precision implicitly); bool the INTEGER 0 or 1; text
 *   and char a TEXT of valid UTF-8 (char: exactly one character); bytes a
 *   BLOB. Anything else is an SQL error naming the function, the argument
 *   and both types.
 * - NULL as on PostgreSQL: NULL for a non-nullable parameter gives NULL
 *   without running the function (STRICT); a nullable parameter gets null.
 * - Errors become SQL errors (sqlite3_result_error) with the Keal message
 *   "file.keal:line: message"; SQLite has no SQLSTATE, so the code is
 *   SQLITE_ERROR, or SQLITE_INTERRUPT for a stopped loop.
 * - Loops poll every KEAL_POLL_EVERY iterations by stepping a prepared
 *   `SELECT 1` on the calling connection: a nested statement sees the
 *   connection's interrupt flag (sqlite3_interrupt) and runs its progress
 *   handler, so either stops a runaway loop with SQLITE_INTERRUPT. (SQLite
 *   3.40 has no sqlite3_is_interrupted; the poll statement is what the
 *   public API offers.) Each poll counts as a few VDBE steps for the
 *   progress handler, so with a large N it is called less often than during
 *   plain SQL, but it is called.
 */
#ifndef KEAL_SQLITE_H
#define KEAL_SQLITE_H

/* pthread_getattr_np (keal_embedded.h): before any system header. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#ifndef KEAL_SOURCE_FILE
#error "define KEAL_SOURCE_FILE before including keal_sqlite.h"
#endif

#include "keal_embedded.h"
#include "keal_rt.h"
#include "keal_float_text.h"
#include "keal_utf8_check.h"
#include "keal_json_array.h"

/* ---- cancellation ---- */

static void keal_target_poll(void) {
  keal_call *call = keal_current;
  sqlite3 *db = (sqlite3 *)call->host;
  sqlite3_stmt *st = (sqlite3_stmt *)call->poll_state;
  int rc = SQLITE_OK;
  if (st == NULL) {
    rc = sqlite3_prepare_v2(db, "SELECT 1", -1, &st, NULL);
    call->poll_state = rc == SQLITE_OK ? st : NULL;
  }
  if (rc == SQLITE_OK && st != NULL) {
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) rc = SQLITE_OK;
    sqlite3_reset(st);
  }
  if (rc == SQLITE_INTERRUPT) {
    static const char msg[] = "interrupted (sqlite3_interrupt or the progress handler)";
    keal_error(0, "57014", msg, (int64_t)sizeof msg - 1);
  }
}

/* ---- one call ---- */

/* The call's host is the connection (what polling needs): a scalar
 * function's or aggregate's context gives it, a table-valued function's
 * cursor has it from its table (keal_sqlite_rows.h). */
static inline void keal_sqlite_begin(keal_call *call, sqlite3_context *ctx) {
  keal_call_begin(call, sqlite3_context_db_handle(ctx));
}

static inline void keal_sqlite_end(keal_call *call) {
  if (call->poll_state != NULL) sqlite3_finalize((sqlite3_stmt *)call->poll_state);
  keal_call_end(call);
}

/* After a longjmp from keal_error: the Keal message as the SQL error. */
static __attribute__((cold, noinline, unused)) void keal_sqlite_failed(sqlite3_context *ctx, keal_call *call) {
  if (call->message == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_error(ctx, call->message, (int)call->message_len);
  if (strcmp(call->sqlstate, "57014") == 0) sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
}

/* ---- arguments ---- */

/* Where a bad argument is reported: the function's context, or (ctx NULL)
 * the table-valued function whose xFilter is reading its arguments
 * (keal_sqlite_rows.h sets it around the reads), as its zErrMsg. */
static KEAL_TLS sqlite3_vtab *keal_sqlite_arg_vtab __attribute__((unused));

static __attribute__((cold, noinline, unused)) void keal_sqlite_arg_error(sqlite3_context *ctx, const char *msg) {
  if (ctx != NULL) {
    if (msg == NULL) sqlite3_result_error_nomem(ctx);
    else sqlite3_result_error(ctx, msg, -1);
    return;
  }
  sqlite3_vtab *vtab = keal_sqlite_arg_vtab;
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = sqlite3_mprintf("%s", msg != NULL ? msg : "out of memory");
}

static const char *keal_sqlite_type_name(int type) {
  switch (type) {
    case SQLITE_INTEGER: return "an INTEGER";
    case SQLITE_FLOAT: return "a REAL";
    case SQLITE_TEXT: return "a TEXT";
    case SQLITE_BLOB: return "a BLOB";
    default: return "NULL";
  }
}

static __attribute__((cold, noinline, unused)) void keal_sqlite_bad_arg(sqlite3_context *ctx, const char *fn, int index,
                                                                         const char *param, const char *keal_type,
                                                                         const char *got) {
  char *msg = sqlite3_mprintf("%s: %s(): argument %d (%s) must be %s, not %s", KEAL_SOURCE_FILE, fn, index + 1, param,
                              keal_type, got);
  keal_sqlite_arg_error(ctx, msg);
  sqlite3_free(msg);
}

/* Each reader returns 1 with the value, 0 for NULL, -1 after setting an
 * error (the entry point then returns; for 0 it returns NULL, or passes
 * null to a nullable parameter). */
static inline int keal_sqlite_int(sqlite3_context *ctx, sqlite3_value *v, int64_t *out, const char *fn, int i,
                                  const char *param) {
  int t = sqlite3_value_type(v);
  if (__builtin_expect(t == SQLITE_INTEGER, 1)) {
    *out = sqlite3_value_int64(v);
    return 1;
  }
  if (t == SQLITE_NULL) return 0;
  keal_sqlite_bad_arg(ctx, fn, i, param, "an INTEGER (Keal int)", keal_sqlite_type_name(t));
  return -1;
}

static inline int keal_sqlite_float(sqlite3_context *ctx, sqlite3_value *v, double *out, const char *fn, int i,
                                    const char *param) {
  int t = sqlite3_value_type(v);
  if (t == SQLITE_FLOAT || t == SQLITE_INTEGER) {
    *out = t == SQLITE_FLOAT ? sqlite3_value_double(v) : (double)sqlite3_value_int64(v);
    return 1;
  }
  if (t == SQLITE_NULL) return 0;
  keal_sqlite_bad_arg(ctx, fn, i, param, "a REAL or an INTEGER (Keal float)", keal_sqlite_type_name(t));
  return -1;
}

static inline int keal_sqlite_bool(sqlite3_context *ctx, sqlite3_value *v, bool *out, const char *fn, int i,
                                   const char *param) {
  int t = sqlite3_value_type(v);
  if (t == SQLITE_INTEGER) {
    sqlite3_int64 b = sqlite3_value_int64(v);
    if (b == 0 || b == 1) {
      *out = b == 1;
      return 1;
    }
    keal_sqlite_bad_arg(ctx, fn, i, param, "0 or 1 (Keal bool)", "another INTEGER");
    return -1;
  }
  if (t == SQLITE_NULL) return 0;
  keal_sqlite_bad_arg(ctx, fn, i, param, "0 or 1 (Keal bool)", keal_sqlite_type_name(t));
  return -1;
}

static inline int keal_sqlite_text(sqlite3_context *ctx, sqlite3_value *v, keal_text *out, const char *fn, int i,
                                   const char *param) {
  int t = sqlite3_value_type(v);
  if (t == SQLITE_TEXT) {
    const char *p = (const char *)sqlite3_value_text(v);
    int64_t n = sqlite3_value_bytes(v);
    if (p == NULL) {
      keal_sqlite_arg_error(ctx, NULL);
      return -1;
    }
    if (!keal_utf8_ok(p, n)) {
      keal_sqlite_bad_arg(ctx, fn, i, param, "valid UTF-8 text", "bytes that are not (or contain NUL)");
      return -1;
    }
    out->ptr = p;
    out->len = n;
    out->hdr = 0;
    return 1;
  }
  if (t == SQLITE_NULL) return 0;
  keal_sqlite_bad_arg(ctx, fn, i, param, "a TEXT (Keal text)", keal_sqlite_type_name(t));
  return -1;
}

static inline int keal_sqlite_char(sqlite3_context *ctx, sqlite3_value *v, keal_char *out, const char *fn, int i,
                                   const char *param) {
  keal_text s;
  int r = keal_sqlite_text(ctx, v, &s, fn, i, param);
  if (r != 1) return r;
  if (keal_one_char(s.ptr, s.len, out)) return 1;
  keal_sqlite_bad_arg(ctx, fn, i, param, "a TEXT of exactly one character (Keal char)", "a longer or empty TEXT");
  return -1;
}

static inline int keal_sqlite_bytes(sqlite3_context *ctx, sqlite3_value *v, keal_bytes *out, const char *fn, int i,
                                    const char *param) {
  int t = sqlite3_value_type(v);
  if (t == SQLITE_BLOB) {
    int64_t n = sqlite3_value_bytes(v);
    const char *p = (const char *)sqlite3_value_blob(v);
    out->ptr = p != NULL ? p : "";
    out->len = n;
    out->hdr = 0;
    return 1;
  }
  if (t == SQLITE_NULL) return 0;
  keal_sqlite_bad_arg(ctx, fn, i, param, "a BLOB (Keal bytes)", keal_sqlite_type_name(t));
  return -1;
}

/* An array parameter's JSON text (parsed later, in the call: keal_json_array.h). */
static inline int keal_sqlite_json(sqlite3_context *ctx, sqlite3_value *v, keal_text *out, const char *fn, int i,
                                   const char *param) {
  int t = sqlite3_value_type(v);
  if (t == SQLITE_TEXT) return keal_sqlite_text(ctx, v, out, fn, i, param);
  if (t == SQLITE_NULL) return 0;
  keal_sqlite_bad_arg(ctx, fn, i, param, "a TEXT of a JSON array (a Keal array)", keal_sqlite_type_name(t));
  return -1;
}

/* ---- results (SQLite copies texts and blobs: SQLITE_TRANSIENT) ---- */

static inline void keal_sqlite_result_text(sqlite3_context *ctx, keal_text t) {
  sqlite3_result_text64(ctx, t.len > 0 ? t.ptr : "", (sqlite3_uint64)t.len, SQLITE_TRANSIENT, SQLITE_UTF8);
}
static inline void keal_sqlite_result_bytes(sqlite3_context *ctx, keal_bytes b) {
  sqlite3_result_blob64(ctx, b.len > 0 ? b.ptr : "", (sqlite3_uint64)b.len, SQLITE_TRANSIENT);
}
static inline void keal_sqlite_result_char(sqlite3_context *ctx, keal_char c) {
  char buf[4];
  int n = keal_encode_utf8(c, buf);
  sqlite3_result_text64(ctx, buf, (sqlite3_uint64)n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

#endif /* KEAL_SQLITE_H */
