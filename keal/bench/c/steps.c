/*
 * The hand-written C control for the Keal benchmark: Collatz steps as a
 * PostgreSQL fmgr V1 function, written the way a C programmer would write it
 * by hand (no overflow checks, no interrupt checks: the inputs are small).
 *
 *   CREATE FUNCTION steps_c(bigint) RETURNS bigint
 *     AS '/path/keal_bench_c.so', 'steps_c' LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
 */
#include "postgres.h"

#include "fmgr.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(steps_c);

Datum
steps_c(PG_FUNCTION_ARGS)
{
	int64		x = PG_GETARG_INT64(0);
	int64		s = 0;

	while (x != 1)
	{
		if (x % 2 == 0)
			x = x / 2;
		else
			x = 3 * x + 1;
		s++;
	}
	PG_RETURN_INT64(s);
}

/*
 * The same loop with the overflow checks a safe language needs: what Keal's
 * checked `int` arithmetic should cost at most when compiled well. The
 * benchmark prints it next to steps_c to show the price of checking.
 */
PG_FUNCTION_INFO_V1(steps_c_checked);

Datum
steps_c_checked(PG_FUNCTION_ARGS)
{
	int64		x = PG_GETARG_INT64(0);
	int64		s = 0;

	while (x != 1)
	{
		if (x % 2 == 0)
			x = x / 2;
		else if (__builtin_mul_overflow(x, (int64) 3, &x) ||
				 __builtin_add_overflow(x, (int64) 1, &x))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("bigint out of range")));
		if (__builtin_add_overflow(s, (int64) 1, &s))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("bigint out of range")));
	}
	PG_RETURN_INT64(s);
}
