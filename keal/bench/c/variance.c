/*
 * The hand-written C control for the aggregate rows of keal_servers_bench:
 * the variance of bigints from a checked count, sum and sum of squares, as
 * one writes a parallel-safe PostgreSQL aggregate by hand (the state in
 * internal memory, combine and serialisation functions). Overflow is an
 * error here too (22003), as it is in the Keal aggregate it is compared with.
 *
 *   CREATE AGGREGATE variance_c(bigint) (SFUNC = variance_c_step, STYPE = internal,
 *     FINALFUNC = variance_c_final, COMBINEFUNC = variance_c_combine,
 *     SERIALFUNC = variance_c_serial, DESERIALFUNC = variance_c_deserial, PARALLEL = SAFE);
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

typedef struct
{
	int64		n;
	int64		sum;
	int64		sq;
} VarianceState;

static void
overflow(void)
{
	ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE), errmsg("bigint out of range")));
}

PG_FUNCTION_INFO_V1(variance_c_step);

Datum
variance_c_step(PG_FUNCTION_ARGS)
{
	MemoryContext context;
	VarianceState *st;
	int64		x,
				x2;

	if (!AggCheckCallContext(fcinfo, &context))
		elog(ERROR, "variance_c_step called in non-aggregate context");
	st = PG_ARGISNULL(0) ? NULL : (VarianceState *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1))
	{
		if (st == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st);
	}
	if (st == NULL)
		st = (VarianceState *) MemoryContextAllocZero(context, sizeof(VarianceState));
	x = PG_GETARG_INT64(1);
	if (__builtin_add_overflow(st->n, 1, &st->n) || __builtin_add_overflow(st->sum, x, &st->sum) ||
		__builtin_mul_overflow(x, x, &x2) || __builtin_add_overflow(st->sq, x2, &st->sq))
		overflow();
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(variance_c_final);

Datum
variance_c_final(PG_FUNCTION_ARGS)
{
	VarianceState *st = PG_ARGISNULL(0) ? NULL : (VarianceState *) PG_GETARG_POINTER(0);
	double		n;

	if (st == NULL || st->n < 2)
		PG_RETURN_NULL();
	n = (double) st->n;
	PG_RETURN_FLOAT8(((double) st->sq - (double) st->sum * (double) st->sum / n) / (n - 1.0));
}

PG_FUNCTION_INFO_V1(variance_c_combine);

Datum
variance_c_combine(PG_FUNCTION_ARGS)
{
	MemoryContext context;
	VarianceState *a,
			   *b;

	if (!AggCheckCallContext(fcinfo, &context))
		elog(ERROR, "variance_c_combine called in non-aggregate context");
	a = PG_ARGISNULL(0) ? NULL : (VarianceState *) PG_GETARG_POINTER(0);
	b = PG_ARGISNULL(1) ? NULL : (VarianceState *) PG_GETARG_POINTER(1);
	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	if (a == NULL)
	{
		a = (VarianceState *) MemoryContextAlloc(context, sizeof(VarianceState));
		*a = *b;
		PG_RETURN_POINTER(a);
	}
	if (__builtin_add_overflow(a->n, b->n, &a->n) || __builtin_add_overflow(a->sum, b->sum, &a->sum) ||
		__builtin_add_overflow(a->sq, b->sq, &a->sq))
		overflow();
	PG_RETURN_POINTER(a);
}

PG_FUNCTION_INFO_V1(variance_c_serial);

Datum
variance_c_serial(PG_FUNCTION_ARGS)
{
	VarianceState *st = (VarianceState *) PG_GETARG_POINTER(0);
	bytea	   *out = (bytea *) palloc(VARHDRSZ + sizeof(VarianceState));

	SET_VARSIZE(out, VARHDRSZ + sizeof(VarianceState));
	memcpy(VARDATA(out), st, sizeof(VarianceState));
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(variance_c_deserial);

Datum
variance_c_deserial(PG_FUNCTION_ARGS)
{
	MemoryContext context;
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	VarianceState *st;

	if (!AggCheckCallContext(fcinfo, &context))
		elog(ERROR, "variance_c_deserial called in non-aggregate context");
	st = (VarianceState *) MemoryContextAlloc(context, sizeof(VarianceState));
	memcpy(st, VARDATA_ANY(in), sizeof(VarianceState));
	PG_RETURN_POINTER(st);
}
