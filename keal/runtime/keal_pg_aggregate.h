/* Keal aggregates in PostgreSQL (emit/pg_aggregate.cpp): the state is a
 * fixed-size struct of numbers and truth values, palloc'd once per group in
 * the aggregate's memory context (STYPE internal). The serial and deserial
 * functions copy it to and from a bytea so that parallel workers hand their
 * partial states to the leader, whose combine function folds them. */
#ifndef KEAL_PG_AGGREGATE_H
#define KEAL_PG_AGGREGATE_H

#include "keal_pg.h"

/* The aggregate's memory context; a support function called directly, not
 * by the executor as part of an aggregate, is an error. */
static inline MemoryContext keal_pg_agg_context(FunctionCallInfo fcinfo, const char *aggregate) {
  MemoryContext context;
  if (!AggCheckCallContext(fcinfo, &context)) {
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("%s: a support function of aggregate %s was called outside of that aggregate", KEAL_SOURCE_FILE,
                           aggregate)));
  }
  return context;
}

static inline void *keal_pg_agg_new_state(MemoryContext context, size_t size) {
  return MemoryContextAllocZero(context, size);
}

static inline bytea *keal_pg_agg_serialize(const void *state, size_t size) {
  bytea *out = (bytea *)palloc(VARHDRSZ + size);
  SET_VARSIZE(out, VARHDRSZ + size);
  memcpy(VARDATA(out), state, size);
  return out;
}

/* A partial state from a worker of the same build: its size must match. */
static inline void *keal_pg_agg_deserialize(bytea *in, size_t size, MemoryContext context, const char *aggregate) {
  if ((size_t)VARSIZE_ANY_EXHDR(in) != size) {
    ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                    errmsg("%s: a partial state of aggregate %s has %d bytes, expected %d", KEAL_SOURCE_FILE, aggregate,
                           (int)VARSIZE_ANY_EXHDR(in), (int)size)));
  }
  void *state = MemoryContextAlloc(context, size);
  memcpy(state, VARDATA_ANY(in), size);
  return state;
}

#endif /* KEAL_PG_AGGREGATE_H */
