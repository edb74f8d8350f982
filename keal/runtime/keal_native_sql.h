/*
 * keal_native_sql.h: embedded SQL in native programs (--target native),
 * included by keal_native.h when the program has embedded SQL
 * (KEAL_EMBEDDED_SQL). The keal_nsql_* functions form a small C ABI,
 * implemented in C++ over the project's libpq layer (sluice::postgres, see
 * native_sql.cpp); the driver links that archive, -lpq and -lstdc++ into
 * the program only when it has embedded SQL.
 *
 * - One connection per program, opened by the first statement:
 *   $DATABASE_URL (`keal run F --db URL` sets it), else libpq's PG*
 *   variables. Nothing is baked in at build time.
 * - Each statement is prepared once per connection (PQprepare, parameters
 *   typed bigint / double precision / boolean / text / bytea as their Keal
 *   types) and its described columns are checked against the declared row
 *   once, at that prepare (42804 naming the column). KEAL_SQL_TRACE=1 prints
 *   "keal: prepared FILE:LINE" on stderr for every prepare.
 * - Results arrive in binary (no text round trip); texts of a loop whose
 *   body keeps nothing are read in place, without a copy.
 * - `query one`: no row P0002, more than one P0003; a NULL for a declared
 *   non-null type 22004 naming the column.
 * - A loop whose body runs no SQL streams in single-row mode; one whose body
 *   runs SQL (directly or through a call) reads a WITH HOLD cursor 1,000
 *   rows at a time, so the body's statements run on the same connection (and
 *   in its transaction, if it opened one). Memory is bounded either way.
 * - A failure is `FILE:LINE: error: message [SQLSTATE]` on stderr and exit
 *   status 1; a server error keeps its SQLSTATE. SIGINT while a statement
 *   runs asks the server to cancel it (57014 at that line); a second SIGINT,
 *   or one while no statement runs, ends the program as usual.
 */
#ifndef KEAL_NATIVE_SQL_H
#define KEAL_NATIVE_SQL_H

#include <stdint.h>

enum keal_nsql_kind {
  KEAL_NSQL_INT = 1,
  KEAL_NSQL_FLOAT = 2,
  KEAL_NSQL_BOOL = 3,
  KEAL_NSQL_TEXT = 4,
  KEAL_NSQL_CHAR = 5,
  KEAL_NSQL_BYTES = 6,
};

/* One statement of the program, as the compiler saw it (static data). */
typedef struct keal_nsql_site {
  int id; /* 0..count-1: the runtime's per-connection slot for it */
  int line;
  const char *sql;
  int nparams;
  const unsigned char *param_kinds; /* enum keal_nsql_kind per $n */
  int ncolumns;                     /* 0 for exec */
  const unsigned char *column_kinds;
  const char *const *column_names; /* "value" for `as T` */
  int may_write;                   /* exec, or a statement that is not plainly a read */
} keal_nsql_site;

/* One bound parameter: `i` for int and bool, `f` for float, ptr/len for
 * text, char (its UTF-8) and bytes. */
typedef struct keal_nsql_param {
  int is_null;
  int64_t i;
  double f;
  const char *ptr;
  int64_t len;
} keal_nsql_param;

typedef struct keal_nsql_rows keal_nsql_rows;

#ifdef __cplusplus
extern "C" {
#endif

/* Called by main() before anything else: the source name for messages and
 * the number of statement sites. */
void keal_nsql_start(const char *source_file, int site_count);
void keal_nsql_exec(const keal_nsql_site *site, const keal_nsql_param *params);
/* `query one`: the single row (exactly one, or the program ends with
 * P0002 / P0003); read it, then keal_nsql_close. */
keal_nsql_rows *keal_nsql_one(const keal_nsql_site *site, const keal_nsql_param *params);
/* A query loop: `cursor` when the loop body runs SQL itself. */
keal_nsql_rows *keal_nsql_open(const keal_nsql_site *site, const keal_nsql_param *params, int cursor);
/* Advances to the next row: 0 at the end. */
int keal_nsql_next(keal_nsql_rows *rows);
/* Ends a loop (also early: break, return) or a `query one`. */
void keal_nsql_close(keal_nsql_rows *rows);

/* The current row's columns (0-based), of the declared kinds. A reader
 * meeting NULL ends the program with 22004 (as keal_nsql_null): code reads
 * a nullable column only after keal_nsql_is_null said it is not NULL. */
int keal_nsql_is_null(const keal_nsql_rows *rows, int column);
int64_t keal_nsql_int(const keal_nsql_rows *rows, int column);
double keal_nsql_float(const keal_nsql_rows *rows, int column);
int keal_nsql_bool(const keal_nsql_rows *rows, int column);
/* Text or bytes in place: valid until the next row (or close). */
const char *keal_nsql_bytes(const keal_nsql_rows *rows, int column, int64_t *len);
/* A NULL arrived for the declared non-null column: 22004, never returns. */
__attribute__((noreturn)) void keal_nsql_null(const keal_nsql_rows *rows, int column);

#ifdef __cplusplus
}
#endif

#ifndef __cplusplus
/* The typed readers the generated row functions use. */
static inline keal_text keal_nsql_text_at(const keal_nsql_rows *rows, int column, int copy) {
  int64_t len = 0;
  const char *p = keal_nsql_bytes(rows, column, &len);
  if (copy) return keal_text_copy(p, len);
  return (keal_text){p, len, 0};
}
static inline keal_char keal_nsql_char_at(const keal_nsql_rows *rows, int column, int line) {
  int64_t len = 0;
  const char *p = keal_nsql_bytes(rows, column, &len);
  keal_char c = 0;
  if (len > 0 && keal_next_char(p, len, 0, &c) == len) return c;
  keal_fail(line, "22023", "a char column must hold text of exactly one character");
}
static inline keal_nsql_param keal_nsql_char_param(keal_char c, char *buf) {
  keal_nsql_param p = {0, 0, 0.0, buf, keal_encode_utf8(c, buf)};
  return p;
}
#endif

#endif /* KEAL_NATIVE_SQL_H */
