/*
 * keal_pg.h: the runtime flavour for PostgreSQL functions (`--target pg`).
 *
 * - Errors are ereport(ERROR) with the SQLSTATE (22003 overflow, 22012
 *   division by zero, P0001 or the code given to `raise`) and the Keal file
 *   and line at the start of the message.
 * - Memory is palloc'd in the current (the function's) memory context.
 * - New texts keep VARHDRSZ bytes in front, so returning one only writes its
 *   header: a result is built once.
 * - Loops call CHECK_FOR_INTERRUPTS(), so statement_timeout and cancel stop
 *   a runaway Keal loop.
 * - sql.name(args) resolves name(argtypes) through regprocedure once per
 *   backend and calls it through fmgr.
 */
#ifndef KEAL_PG_H
#define KEAL_PG_H

#include "postgres.h"

#include "catalog/pg_collation_d.h"
#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#ifndef KEAL_SOURCE_FILE
#error "define KEAL_SOURCE_FILE before including keal_pg.h"
#endif

#define KEAL_TEXT_HEADROOM VARHDRSZ
#define KEAL_LOOP_CHECK() CHECK_FOR_INTERRUPTS()
/* On entry to a recursive function: PostgreSQL's own stack guard (54001
 * "stack depth limit exceeded" instead of a crashed backend) and a chance
 * for cancel and statement_timeout to stop deep or endless recursion. */
#define KEAL_RECURSION_CHECK(line) \
  do {                             \
    check_stack_depth();           \
    CHECK_FOR_INTERRUPTS();        \
  } while (0)

static __attribute__((cold, noinline, noreturn, unused)) void keal_error(int line, const char *sqlstate, const char *msg,
                                                                          int64_t len) {
  ereport(ERROR, (errcode(MAKE_SQLSTATE(sqlstate[0], sqlstate[1], sqlstate[2], sqlstate[3], sqlstate[4])),
                  errmsg("%s:%d: %.*s", KEAL_SOURCE_FILE, line, (int)len, msg)));
  pg_unreachable();
}

static inline void *keal_alloc(size_t n) { return palloc(n); }

#include "keal_rt.h"

/* The server's own float8out text, so text(x) is always `x::text`. */
static inline keal_text keal_float_to_text(double v) {
  char *s = float8out_internal(v);
  keal_text r = keal_text_copy(s, (int64_t)strlen(s));
  pfree(s);
  return r;
}

/* ---- arguments and results ---- */

static inline keal_text keal_pg_text_in(text *t) {
  keal_text r = {VARDATA_ANY(t), (int64_t)VARSIZE_ANY_EXHDR(t), 0};
  return r;
}

static inline text *keal_pg_text_out(keal_text t) {
  if (t.hdr) {
    struct varlena *v = (struct varlena *)(void *)(t.ptr - VARHDRSZ);
    SET_VARSIZE(v, t.len + VARHDRSZ);
    return v;
  }
  return cstring_to_text_with_len(t.ptr, (int)t.len);
}

static inline keal_char keal_pg_char_in(text *t, int line) {
  keal_text s = keal_pg_text_in(t);
  keal_char c = 0;
  if (s.len > 0 && keal_next_char(s.ptr, s.len, 0, &c) == s.len) return c;
  keal_fail(line, "22023", "a char argument must be text of exactly one character");
}

static inline text *keal_pg_char_out(keal_char c) {
  char buf[4];
  int n = keal_encode_utf8(c, buf);
  return cstring_to_text_with_len(buf, n);
}

/* ---- sql.name(args) ---- */

enum keal_sql_kind { KEAL_SQL_INT, KEAL_SQL_FLOAT, KEAL_SQL_BOOL, KEAL_SQL_TEXT, KEAL_SQL_CHAR, KEAL_SQL_BYTES };

typedef struct keal_sql_fn {
  bool resolved;
  bool int4_args; /* resolved to the signature with integer for bigint */
  Oid rettype;
  FmgrInfo flinfo;
} keal_sql_fn;

static bool keal_sql_result_ok(enum keal_sql_kind kind, Oid type) {
  switch (kind) {
    case KEAL_SQL_INT: return type == INT8OID || type == INT4OID || type == INT2OID;
    case KEAL_SQL_FLOAT: return type == FLOAT8OID || type == FLOAT4OID;
    case KEAL_SQL_BOOL: return type == BOOLOID;
    case KEAL_SQL_TEXT:
    case KEAL_SQL_CHAR: return type == TEXTOID || type == VARCHAROID;
    case KEAL_SQL_BYTES: return type == BYTEAOID;
  }
  return false;
}

/* to_regprocedure('name(types)'), or InvalidOid when no such function exists.
 * DirectFunctionCall1 cannot be used: it raises "function ... returned NULL"
 * (XX000) itself when the lookup finds nothing, which is the one answer we
 * need to turn into a clear 42883. */
static __attribute__((unused)) Oid keal_sql_lookup(const char *signature) {
  LOCAL_FCINFO(fcinfo, 1);
  InitFunctionCallInfoData(*fcinfo, NULL, 1, InvalidOid, NULL, NULL);
  fcinfo->args[0].value = PointerGetDatum(cstring_to_text(signature));
  fcinfo->args[0].isnull = false;
  Datum oid_datum = to_regprocedure(fcinfo);
  if (fcinfo->isnull) return InvalidOid;
  return DatumGetObjectId(oid_datum);
}

/* `signature` with every "bigint" argument type written as "integer". */
static __attribute__((unused)) char *keal_sql_int4_signature(const char *signature) {
  StringInfoData buf;
  initStringInfo(&buf);
  const char *p = signature;
  const char *hit;
  while ((hit = strstr(p, "bigint")) != NULL) {
    appendBinaryStringInfo(&buf, p, (int)(hit - p));
    appendStringInfoString(&buf, "integer");
    p = hit + strlen("bigint");
  }
  appendStringInfoString(&buf, p);
  return buf.data;
}

static __attribute__((noinline, unused)) void keal_sql_resolve(keal_sql_fn *fn, const char *signature,
                                                                enum keal_sql_kind kind, const char *keal_type,
                                                                int line) {
  Oid oid = keal_sql_lookup(signature);
  bool int4_args = false;
  if (!OidIsValid(oid) && strstr(signature, "bigint") != NULL) {
    /* Keal's int is bigint, but many server functions take integer
     * (repeat(text, integer), left, right, lpad, ...): try that signature
     * next, and narrow each int argument on the way in. */
    char *narrow = keal_sql_int4_signature(signature);
    oid = keal_sql_lookup(narrow);
    int4_args = OidIsValid(oid);
    pfree(narrow);
  }
  if (!OidIsValid(oid))
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_FUNCTION),
                    errmsg("%s:%d: server function %s does not exist", KEAL_SOURCE_FILE, line, signature)));
  Oid rettype = get_func_rettype(oid);
  if (!keal_sql_result_ok(kind, rettype))
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("%s:%d: server function %s returns %s, but Keal expects %s", KEAL_SOURCE_FILE, line,
                           signature, format_type_be(rettype), keal_type)));
  fmgr_info_cxt(oid, &fn->flinfo, TopMemoryContext);
  fn->rettype = rettype;
  fn->int4_args = int4_args;
  fn->resolved = true;
}

/* An int argument: bigint, or integer when the function resolved to its
 * integer signature (22003 when the value does not fit, as int8 -> int4
 * does in SQL). */
static inline Datum keal_sql_int_arg(const keal_sql_fn *fn, int64_t v, int line) {
  if (!fn->int4_args) return Int64GetDatum(v);
  if (v < PG_INT32_MIN || v > PG_INT32_MAX)
    keal_fail(line, "22003", "integer out of range for an integer argument of a server function");
  return Int32GetDatum((int32)v);
}

#define KEAL_SQL_MAX_ARGS 8

static inline Datum keal_sql_invoke(keal_sql_fn *fn, int nargs, const Datum *args, bool *isnull) {
  LOCAL_FCINFO(fcinfo, KEAL_SQL_MAX_ARGS);
  InitFunctionCallInfoData(*fcinfo, &fn->flinfo, (short)nargs, DEFAULT_COLLATION_OID, NULL, NULL);
  for (int i = 0; i < nargs; i++) {
    fcinfo->args[i].value = args[i];
    fcinfo->args[i].isnull = false;
  }
  Datum r = FunctionCallInvoke(fcinfo);
  *isnull = fcinfo->isnull;
  return r;
}

static __attribute__((cold, noinline, noreturn, unused)) void keal_sql_null(int line, const char *name) {
  ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                  errmsg("%s:%d: server function %s returned NULL; declare its result nullable: sql.%s(...) as T?",
                         KEAL_SOURCE_FILE, line, name, name)));
  pg_unreachable();
}

static inline Datum keal_sql_text_arg(keal_text t) { return PointerGetDatum(cstring_to_text_with_len(t.ptr, (int)t.len)); }
static inline Datum keal_sql_char_arg(keal_char c) { return PointerGetDatum(keal_pg_char_out(c)); }

static inline int64_t keal_sql_int_result(const keal_sql_fn *fn, Datum d) {
  if (fn->rettype == INT4OID) return DatumGetInt32(d);
  if (fn->rettype == INT2OID) return DatumGetInt16(d);
  return DatumGetInt64(d);
}
static inline double keal_sql_float_result(const keal_sql_fn *fn, Datum d) {
  if (fn->rettype == FLOAT4OID) return (double)DatumGetFloat4(d);
  return DatumGetFloat8(d);
}
static inline keal_text keal_sql_text_result(Datum d) { return keal_pg_text_in(DatumGetTextPP(d)); }
static inline keal_char keal_sql_char_result(Datum d, int line) { return keal_pg_char_in(DatumGetTextPP(d), line); }

/* Programs with embedded SQL (the emitter defines KEAL_EMBEDDED_SQL). */
#include "keal_pg_array.h"

#ifdef KEAL_EMBEDDED_SQL
#include "keal_pg_sql.h"
#endif

#endif /* KEAL_PG_H */
