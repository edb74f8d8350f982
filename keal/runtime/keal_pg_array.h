/*
 * keal_pg_array.h: Keal arrays as PostgreSQL arrays (included by keal_pg.h).
 *
 * A `[T]` parameter is a one-dimensional `T[]` (bigint[], double
 * precision[], boolean[], text[], bytea[]); any lower bound is accepted, the
 * Keal array is 0-based. An int, float or bool array without NULLs is read
 * in place: the Keal array is a view of the (detoasted) argument's data, no
 * element is copied. Others go through deconstruct_array, whose text
 * elements are read in place too. More than one dimension is 2202E, a NULL
 * element for `[T]` (not `[T?]`) is 22004, both naming the parameter.
 * Results are built with construct_md_array (lower bound 1).
 */
#ifndef KEAL_PG_ARRAY_H
#define KEAL_PG_ARRAY_H

#include "utils/array.h"

typedef struct keal_pg_elem_type {
  Oid oid;
  int16 len;
  bool byval;
  char align;
  size_t size; /* of the Keal element, not nullable */
  size_t opt_size; /* of the Keal element, nullable */
} keal_pg_elem_type;

static inline keal_pg_elem_type keal_pg_elem_info(int kind) {
  keal_pg_elem_type t;
  switch (kind) {
    case KEAL_ELEM_INT: t = (keal_pg_elem_type){INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, sizeof(int64_t), sizeof(keal_opt_int)}; break;
    case KEAL_ELEM_FLOAT: t = (keal_pg_elem_type){FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, sizeof(double), sizeof(keal_opt_float)}; break;
    case KEAL_ELEM_BOOL: t = (keal_pg_elem_type){BOOLOID, 1, true, TYPALIGN_CHAR, sizeof(bool), sizeof(keal_opt_bool)}; break;
    case KEAL_ELEM_TEXT: t = (keal_pg_elem_type){TEXTOID, -1, false, TYPALIGN_INT, sizeof(keal_text), sizeof(keal_opt_text)}; break;
    case KEAL_ELEM_CHAR: t = (keal_pg_elem_type){TEXTOID, -1, false, TYPALIGN_INT, sizeof(keal_char), sizeof(keal_opt_char)}; break;
    default: t = (keal_pg_elem_type){BYTEAOID, -1, false, TYPALIGN_INT, sizeof(keal_bytes), sizeof(keal_opt_bytes)}; break;
  }
  return t;
}

static __attribute__((cold, noinline, noreturn, unused)) void keal_pg_array_fail(int line, const char *sqlstate, const char *fmt,
                                                                                  const char *param, long long n) {
  char msg[200];
  int len = snprintf(msg, sizeof msg, fmt, param, n);
  keal_error(line, sqlstate, msg, len);
}

static inline keal_array keal_pg_array_in(ArrayType *a, int kind, bool nullable, int line, const char *param) {
  int ndim = ARR_NDIM(a);
  if (ndim > 1)
    keal_pg_array_fail(line, "2202E", "argument %s is an array of %lld dimensions; a Keal array has one", param, ndim);
  int n = ndim == 0 ? 0 : ARR_DIMS(a)[0];
  if (n == 0) return keal_array_empty();
  keal_pg_elem_type t = keal_pg_elem_info(kind);
  bool fixed = kind == KEAL_ELEM_INT || kind == KEAL_ELEM_FLOAT || kind == KEAL_ELEM_BOOL;
  if (fixed && !nullable && !ARR_HASNULL(a)) {
    /* The server's layout is the C array: int8 and float8 aligned to 8, bool
     * one byte. (ARR_DATA_PTR without its NULL-bitmap case, which here is not.) */
    keal_array view = {(char *)a + ARR_OVERHEAD_NONULLS(1), n, NULL};
    return view;
  }
  Datum *datums;
  bool *nulls;
  int count;
  deconstruct_array(a, t.oid, t.len, t.byval, t.align, &datums, &nulls, &count);
  keal_array out;
  char *d = keal_array_new(&out, count, nullable ? t.opt_size : t.size);
  for (int i = 0; i < count; i++) {
    if (nulls[i] && !nullable)
      keal_pg_array_fail(line, "22004", "argument %s has a NULL at index %lld; declare its elements nullable ([T?])", param, i);
    bool is_null = nulls[i];
    Datum v = datums[i];
    switch (kind) {
      case KEAL_ELEM_INT:
        if (nullable) ((keal_opt_int *)d)[i] = (keal_opt_int){is_null, is_null ? 0 : DatumGetInt64(v)};
        else ((int64_t *)d)[i] = DatumGetInt64(v);
        break;
      case KEAL_ELEM_FLOAT:
        if (nullable) ((keal_opt_float *)d)[i] = (keal_opt_float){is_null, is_null ? 0.0 : DatumGetFloat8(v)};
        else ((double *)d)[i] = DatumGetFloat8(v);
        break;
      case KEAL_ELEM_BOOL:
        if (nullable) ((keal_opt_bool *)d)[i] = (keal_opt_bool){is_null, is_null ? false : DatumGetBool(v)};
        else ((bool *)d)[i] = DatumGetBool(v);
        break;
      case KEAL_ELEM_TEXT:
      case KEAL_ELEM_BYTES: {
        keal_text s = {0};
        if (!is_null) s = keal_pg_text_in((text *)DatumGetPointer(v));
        if (nullable) ((keal_opt_text *)d)[i] = (keal_opt_text){is_null, s};
        else ((keal_text *)d)[i] = s;
        break;
      }
      default: {
        keal_char c = 0;
        if (!is_null) c = keal_pg_char_in((text *)DatumGetPointer(v), line);
        if (nullable) ((keal_opt_char *)d)[i] = (keal_opt_char){is_null, c};
        else ((keal_char *)d)[i] = c;
        break;
      }
    }
  }
  return out;
}

static inline ArrayType *keal_pg_array_out(keal_array a, int kind, bool nullable) {
  keal_pg_elem_type t = keal_pg_elem_info(kind);
  if (a.len == 0) return construct_empty_array(t.oid);
  if (a.len > (int64_t)MaxArraySize) keal_fail(0, "54000", "array too large for PostgreSQL");
  int n = (int)a.len;
  Datum *datums = (Datum *)palloc(sizeof(Datum) * (size_t)n);
  bool *nulls = nullable ? (bool *)palloc(sizeof(bool) * (size_t)n) : NULL;
  for (int i = 0; i < n; i++) {
    bool is_null = false;
    switch (kind) {
      case KEAL_ELEM_INT:
        if (nullable) is_null = ((keal_opt_int *)a.data)[i].is_null, datums[i] = Int64GetDatum(((keal_opt_int *)a.data)[i].v);
        else datums[i] = Int64GetDatum(((int64_t *)a.data)[i]);
        break;
      case KEAL_ELEM_FLOAT:
        if (nullable) is_null = ((keal_opt_float *)a.data)[i].is_null, datums[i] = Float8GetDatum(((keal_opt_float *)a.data)[i].v);
        else datums[i] = Float8GetDatum(((double *)a.data)[i]);
        break;
      case KEAL_ELEM_BOOL:
        if (nullable) is_null = ((keal_opt_bool *)a.data)[i].is_null, datums[i] = BoolGetDatum(((keal_opt_bool *)a.data)[i].v);
        else datums[i] = BoolGetDatum(((bool *)a.data)[i]);
        break;
      case KEAL_ELEM_TEXT:
      case KEAL_ELEM_BYTES: {
        keal_text s = nullable ? ((keal_opt_text *)a.data)[i].v : ((keal_text *)a.data)[i];
        is_null = nullable && ((keal_opt_text *)a.data)[i].is_null;
        datums[i] = is_null ? (Datum)0 : PointerGetDatum(keal_pg_text_out(s));
        break;
      }
      default: {
        keal_char c = nullable ? ((keal_opt_char *)a.data)[i].v : ((keal_char *)a.data)[i];
        is_null = nullable && ((keal_opt_char *)a.data)[i].is_null;
        datums[i] = is_null ? (Datum)0 : PointerGetDatum(keal_pg_char_out(c));
        break;
      }
    }
    if (nullable) nulls[i] = is_null;
  }
  int dims[1] = {n};
  int lbs[1] = {1};
  return construct_md_array(datums, nulls, 1, dims, lbs, t.oid, t.len, t.byval, t.align);
}

#endif /* KEAL_PG_ARRAY_H */
