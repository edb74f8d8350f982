/*
 * The hand-written C control for the set-returning rows of
 * keal_servers_bench: rows (i, i * i) for i in 1..n, value per call, with
 * the square checked for overflow (22003) as the Keal function's is. This
 * is how one writes such a function by hand with funcapi.h: the state in
 * multi_call_memory_ctx, a composite tuple formed per row.
 *
 *   CREATE FUNCTION series_c(n bigint) RETURNS TABLE(i bigint, sq bigint)
 *     AS '.../keal_bench_c.so', 'series_c' LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
 */
#include "postgres.h"

#include "fmgr.h"
/* funcapi.h pulls in the executor's headers, whose inline functions have
 * unused parameters: the server's warnings, silenced around the includes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "access/htup_details.h"
#include "funcapi.h"
#pragma GCC diagnostic pop

typedef struct
{
	int64		next;
	int64		last;
} SeriesState;

PG_FUNCTION_INFO_V1(series_c);

Datum
series_c(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	SeriesState *st;
	Datum		values[2];
	bool		nulls[2] = {false, false};
	int64		i,
				sq;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;
		TupleDesc	desc;

		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
			ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("series_c returns rows")));
		funcctx->tuple_desc = BlessTupleDesc(desc);
		st = palloc(sizeof(SeriesState));
		st->next = 1;
		st->last = PG_GETARG_INT64(0);
		funcctx->user_fctx = st;
		MemoryContextSwitchTo(old);
	}
	funcctx = SRF_PERCALL_SETUP();
	st = funcctx->user_fctx;
	if (st->next > st->last)
		SRF_RETURN_DONE(funcctx);
	i = st->next++;
	if (__builtin_mul_overflow(i, i, &sq))
		ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE), errmsg("bigint out of range")));
	values[0] = Int64GetDatum(i);
	values[1] = Int64GetDatum(sq);
	SRF_RETURN_NEXT(funcctx, HeapTupleGetDatum(heap_form_tuple(funcctx->tuple_desc, values, nulls)));
}
