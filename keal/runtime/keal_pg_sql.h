/*
 * keal_pg_sql.h: embedded SQL in PostgreSQL functions (included by keal_pg.h).
 *
 * - Each statement is prepared on first use in a backend (SPI_prepare) and
 *   kept (SPI_keepplan); later calls reuse the saved plan. Preparing logs
 *   "keal: prepared file.keal:LINE" at DEBUG1, so tests can count prepares.
 * - Parameters are bound as Datums of their Keal types (bigint, double
 *   precision, boolean, text, bytea), never pasted into the SQL.
 * - Rows are read straight from Datums (no text round trip); a result whose
 *   columns do not match the declared row is 42804 naming the column.
 * - `query one`: no row is P0002, more than one P0003 (as PL/pgSQL's INTO
 *   STRICT); NULL for a non-nullable declared type is 22004.
 * - Loops stream through a cursor in batches, read straight from the
 *   executor's slots (keal_pg_query_loop.h); the body may run statements.
 * - A server error keeps its own SQLSTATE; its CONTEXT names the Keal line.
 */
#ifndef KEAL_PG_SQL_H
#define KEAL_PG_SQL_H

/* The executor's headers trip -Wunused-parameter in their inline functions. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "executor/spi.h"
#pragma GCC diagnostic pop
#include "utils/builtins.h"

static __attribute__((unused)) void keal_spi_error_context(void *arg) {
  errcontext("%s:%d: embedded SQL statement", KEAL_SOURCE_FILE, *(const int *)arg);
}

/* Around one SPI call: the error context naming the Keal line, and the
 * memory context (SPI leaves CurrentMemoryContext at its procedure context,
 * which SPI_finish deletes; Keal's values must stay in the caller's). */
#define KEAL_SPI_CONTEXT(line)                                  \
  int keal_ctx_line = (line);                                   \
  MemoryContext keal_ctx_memory = CurrentMemoryContext;         \
  ErrorContextCallback keal_ctx;                                \
  keal_ctx.callback = keal_spi_error_context;                   \
  keal_ctx.arg = &keal_ctx_line;                                \
  keal_ctx.previous = error_context_stack;                      \
  error_context_stack = &keal_ctx
#define KEAL_SPI_CONTEXT_END()              \
  do {                                      \
    error_context_stack = keal_ctx.previous; \
    MemoryContextSwitchTo(keal_ctx_memory); \
  } while (0)

static __attribute__((unused)) void keal_spi_connect(void) {
  MemoryContext caller = CurrentMemoryContext;
  if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "%s: SPI_connect failed", KEAL_SOURCE_FILE);
  MemoryContextSwitchTo(caller);
}

static __attribute__((noinline, unused)) SPIPlanPtr keal_spi_prepare(const char *sql, int nargs, Oid *types, int line) {
  KEAL_SPI_CONTEXT(line);
  SPIPlanPtr plan = SPI_prepare(sql, nargs, types);
  if (plan == NULL)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("%s:%d: could not prepare the statement: %s", KEAL_SOURCE_FILE,
                                                            line, SPI_result_code_string(SPI_result))));
  if (SPI_keepplan(plan) != 0)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("%s:%d: could not keep the plan", KEAL_SOURCE_FILE, line)));
  KEAL_SPI_CONTEXT_END();
  elog(DEBUG1, "keal: prepared %s:%d", KEAL_SOURCE_FILE, line);
  return plan;
}

static __attribute__((unused)) void keal_spi_exec(SPIPlanPtr plan, Datum *values, char *nulls, int line) {
  KEAL_SPI_CONTEXT(line);
  int rc = SPI_execute_plan(plan, values, nulls, false, 0);
  if (rc < 0)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                    errmsg("%s:%d: the statement failed: %s", KEAL_SOURCE_FILE, line, SPI_result_code_string(rc))));
  if (SPI_tuptable != NULL) SPI_freetuptable(SPI_tuptable);
  KEAL_SPI_CONTEXT_END();
}

/* query one: exactly one row, or P0002 / P0003. The caller frees the table. */
static __attribute__((unused)) SPITupleTable *keal_spi_one(SPIPlanPtr plan, Datum *values, char *nulls, int line) {
  KEAL_SPI_CONTEXT(line);
  int rc = SPI_execute_plan(plan, values, nulls, false, 2);
  if (rc < 0)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                    errmsg("%s:%d: the query failed: %s", KEAL_SOURCE_FILE, line, SPI_result_code_string(rc))));
  KEAL_SPI_CONTEXT_END();
  SPITupleTable *tt = SPI_tuptable;
  uint64 n = SPI_processed;
  if (tt == NULL)
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                    errmsg("%s:%d: 'query one' needs a statement that returns rows; use exec", KEAL_SOURCE_FILE, line)));
  if (n == 0)
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND), errmsg("%s:%d: query returned no rows", KEAL_SOURCE_FILE, line)));
  if (n > 1)
    ereport(ERROR,
            (errcode(ERRCODE_TOO_MANY_ROWS), errmsg("%s:%d: query returned more than one row", KEAL_SOURCE_FILE, line)));
  return tt;
}

static __attribute__((unused)) Portal keal_spi_open(SPIPlanPtr plan, Datum *values, char *nulls, int line) {
  KEAL_SPI_CONTEXT(line);
  if (!SPI_is_cursor_plan(plan))
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                    errmsg("%s:%d: 'for ... in query' needs a statement that returns rows", KEAL_SOURCE_FILE, line)));
  Portal p = SPI_cursor_open(NULL, plan, values, nulls, false);
  KEAL_SPI_CONTEXT_END();
  return p;
}

static __attribute__((unused)) const char *keal_spi_kind_name(int kind) {
  switch (kind) {
    case KEAL_SQL_INT: return "int";
    case KEAL_SQL_FLOAT: return "float";
    case KEAL_SQL_BOOL: return "bool";
    case KEAL_SQL_CHAR: return "char";
    case KEAL_SQL_BYTES: return "bytes";
    default: return "text";
  }
}

static __attribute__((unused)) bool keal_spi_type_ok(int kind, Oid type) {
  if (kind == KEAL_SQL_TEXT || kind == KEAL_SQL_CHAR)
    return type == TEXTOID || type == VARCHAROID || type == BPCHAROID || type == NAMEOID;
  return keal_sql_result_ok((enum keal_sql_kind)kind, type);
}

/* The result's columns against the declared row: count and each type. */
static inline void keal_spi_check_columns(TupleDesc td, int n, const int *kinds, const char *const *names, int line) {
  if (td->natts != n)
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("%s:%d: the query returns %d column%s, but %d %s declared", KEAL_SOURCE_FILE, line, td->natts,
                           td->natts == 1 ? "" : "s", n, n == 1 ? "is" : "are")));
  for (int i = 0; i < n; i++) {
    Oid type = TupleDescAttr(td, i)->atttypid;
    if (!keal_spi_type_ok(kinds[i], type))
      ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                      errmsg("%s:%d: column %d (%s) of the query is %s, but it is declared %s", KEAL_SOURCE_FILE, line, i + 1,
                             names[i], format_type_be(type), keal_spi_kind_name(kinds[i]))));
  }
}

static __attribute__((cold, noinline, noreturn, unused)) void keal_spi_null(int line, const char *column,
                                                                             const char *declared) {
  ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                  errmsg("%s:%d: column %s of the query is NULL, but it is declared %s; declare it %s? to accept NULL",
                         KEAL_SOURCE_FILE, line, column, declared, declared)));
  pg_unreachable();
}

/* Values straight from Datums; texts are copied out of the tuple (whose
 * memory SPI frees with the batch) into the function's context. */
static inline int64_t keal_spi_int(Datum d, Oid type, int line) {
  (void)line;
  if (type == INT4OID) return DatumGetInt32(d);
  if (type == INT2OID) return DatumGetInt16(d);
  return DatumGetInt64(d);
}
static inline double keal_spi_float(Datum d, Oid type, int line) {
  (void)line;
  return type == FLOAT4OID ? (double)DatumGetFloat4(d) : DatumGetFloat8(d);
}
static inline bool keal_spi_bool(Datum d, Oid type, int line) {
  (void)type;
  (void)line;
  return DatumGetBool(d);
}
static inline keal_text keal_spi_text(Datum d, Oid type, int line) {
  (void)line;
  if (type == NAMEOID) {
    const char *s = NameStr(*DatumGetName(d));
    return keal_text_copy(s, (int64_t)strlen(s));
  }
  text *t = DatumGetTextPP(d); /* detoasted if need be */
  return keal_text_copy(VARDATA_ANY(t), (int64_t)VARSIZE_ANY_EXHDR(t));
}
static inline keal_char keal_spi_char(Datum d, Oid type, int line) {
  keal_text t = keal_spi_text(d, type, line);
  keal_char c = 0;
  if (t.len > 0 && keal_next_char(t.ptr, t.len, 0, &c) == t.len) return c;
  keal_fail(line, "22023", "a char column must hold text of exactly one character");
}

#include "keal_pg_query_loop.h"

#endif /* KEAL_PG_SQL_H */
