/*
 * The hand-written C control for the Keal benchmark: count the ASCII vowels of
 * a text value. The text is read in place (PG_GETARG_TEXT_PP, no detoast copy
 * for short values) and scanned byte by byte: in UTF-8 no byte of a multibyte
 * character is below 0x80, so a byte scan counts exactly the vowel characters.
 *
 *   CREATE FUNCTION vowels_c(text) RETURNS bigint
 *     AS '/path/keal_bench_c.so', 'vowels_c' LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
 */
#include "postgres.h"

#include "fmgr.h"

PG_FUNCTION_INFO_V1(vowels_c);

Datum
vowels_c(PG_FUNCTION_ARGS)
{
	text	   *s = PG_GETARG_TEXT_PP(0);
	const char *p = VARDATA_ANY(s);
	const char *end = p + VARSIZE_ANY_EXHDR(s);
	int64		n = 0;

	for (; p < end; p++)
	{
		switch (*p)
		{
			case 'a': case 'e': case 'i': case 'o': case 'u':
			case 'A': case 'E': case 'I': case 'O': case 'U':
				n++;
				break;
			default:
				break;
		}
	}
	PG_RETURN_INT64(n);
}
