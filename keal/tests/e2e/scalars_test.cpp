// float, bool, bytes and conversions: Keal against SQL over many inputs.
#include "keal_database.hpp"
#include "sql_compare.hpp"

#include <gtest/gtest.h>

namespace keal::e2e {
namespace {

// Floats with fractions, signs, zeros, halves, large and tiny magnitudes.
constexpr const char* kFloats =
    "(SELECT (n * 0.37 - 400.0)::float8 AS x FROM generate_series(0, 2000) AS n "
    " UNION ALL VALUES (0.0::float8), ('-0'::float8), (0.5), (-0.5), (1e300), (-1e-300), "
    " (123456789.987654321), (4503599627370496.5)) AS floats";

class Scalars : public ::testing::Test {
protected:
    void SetUp() override { KealDatabase::get().deploy("scalars.keal"); }
    PgConnection& db() { return KealDatabase::get().sql(); }

    void expect_same(const std::string& from, const std::string& input, const std::string& keal,
                     const std::string& sql, std::int64_t rows) {
        const Comparison c = compare(db(), from, input, keal, sql);
        EXPECT_EQ(c.rows, rows);
        EXPECT_EQ(c.mismatches, 0) << keal << " vs " << sql << ":\n" << c.examples;
    }
};

TEST_F(Scalars, EveryTypeMapsToItsSqlType) {
    EXPECT_EQ(db().scalar("SELECT pg_get_function_identity_arguments('all_types'::regproc)"),
              "i bigint, f double precision, b boolean, t text, c text, raw bytea");
    EXPECT_EQ(db().scalar("SELECT all_types(7, 2.9, true, 'héllo', '中', '\\x00ff10'::bytea)"),
              "7,true,héllo,中,3,2");
}

TEST_F(Scalars, FloatArithmeticMatchesSql) {
    // (1e300 squared overflows and 1e-300 squared underflows: SQL raises
    // 22003 where Keal's IEEE floats give Infinity and 0, so those stay out.)
    expect_same("(SELECT x FROM " + std::string(kFloats) + " WHERE abs(x) BETWEEN 1e-150 AND 1e150 OR x = 0) AS f, "
                "(VALUES (3.0::float8), (-4.25)) AS b(y)", "x || ',' || y",
                "hypot(x, y)", "sqrt(x * x + y * y)", 2007 * 2);
    expect_same(kFloats, "x", "k_floor(x)", "floor(x)", 2009);
    expect_same(kFloats, "x", "k_ceil(x)", "ceil(x)", 2009);
    expect_same(kFloats + std::string(", (VALUES (0.0::float8), (-1.5)) AS b(y)"), "x || ',' || y",
                "k_min_max(x, y)", "least(x, y) * 1000.0 + greatest(x, y)", 2009 * 2);
}

TEST_F(Scalars, FloatToIntTruncatesTowardZero) {
    expect_same("(SELECT x FROM " + std::string(kFloats) + " WHERE abs(x) < 1e18) AS f", "x", "k_trunc(x)",
                "trunc(x)::bigint", 2008);
    EXPECT_EQ(db().expect_error("SELECT k_trunc(1e300)").sqlstate, "22003");
    EXPECT_EQ(db().expect_error("SELECT k_trunc('NaN')").sqlstate, "22003");
}

TEST_F(Scalars, FloatTextRoundTripsExactly) {
    expect_same(kFloats, "x", "k_float_roundtrip(x)", "true", 2009);
}

TEST_F(Scalars, FloatTextIsWhatPostgresqlPrints) {
    // 5,000 values with 1 to 17 significant digits and decimal exponents
    // from -40 to 39, both signs; every power of two (where the rounding
    // interval is lopsided) and its neighbours near 2^53; the extremes and
    // the special values.
    expect_same("(SELECT sin(n) * 10::float8 ^ (n % 80 - 40) AS x FROM generate_series(1, 5000) AS n "
                " UNION ALL SELECT round(sin(n)::numeric, n % 17)::float8 * 10::float8 ^ (n % 30) "
                "   FROM generate_series(1, 1000) AS n "
                " UNION ALL SELECT 2::float8 ^ n FROM generate_series(-1074, 1023) AS n "
                " UNION ALL SELECT 2::float8 ^ 53 + n FROM generate_series(-8, 8) AS n "
                " UNION ALL VALUES ('NaN'::float8), ('Infinity'), ('-Infinity'), ('-0'), (1e-7), (100.0), "
                " (1.0 / 3.0), (999999999999999.9), (1e15), (4503599627370496), (1.2345e21), "
                " (1.7976931348623157e308), (5e-324), (123456789012345680)) AS f",
                "x", "k_float_text(x)", "x::text", 5000 + 1000 + 2098 + 17 + 14);
}

TEST_F(Scalars, IntBuiltinsAndConversionsMatchSql) {
    expect_same("generate_series(-60, 60, 7) AS a, generate_series(-60, 60, 11) AS b", "a || ',' || b",
                "k_int_min_max(a, b)", "least(a, b)::bigint * 1000 + greatest(a, b) + abs(a - b)", 18 * 11);
    expect_same("generate_series(-1000, 1000, 13) AS a, generate_series(-9, 9) AS b", "a || ',' || b",
                "k_mean(a, b)", "(a::float8 + b::float8) / 2.0", 154 * 19);
    expect_same("(SELECT n::bigint * 7919 * n AS n FROM generate_series(-3000, 3000) AS n "
                " UNION ALL VALUES (9223372036854775807), (-9223372036854775808)) AS v",
                "n", "k_int_text(n)", "n::text", 6003);
    expect_same("(SELECT n::bigint * 7919 * n AS n FROM generate_series(-3000, 3000) AS n) AS v", "n",
                "k_parse_int(n::text)", "n", 6001);
    EXPECT_EQ(db().expect_error("SELECT k_parse_int('12x')").sqlstate, "22P02");
    EXPECT_EQ(db().expect_error("SELECT k_parse_int('99999999999999999999')").sqlstate, "22003");
}

TEST_F(Scalars, BoolOperatorsMatchSql) {
    expect_same("(VALUES (true), (false)) AS x(a), (VALUES (true), (false)) AS y(b)", "a || ',' || b",
                "k_bool_ops(a, b)",
                "(a AND b)::text || ' ' || (a OR b)::text || ' ' || (NOT a)::text || ' ' || (a = b)::text || ' ' "
                "|| (a <> b)::text",
                4);
    expect_same("generate_series(-500, 500) AS n", "n", "k_is_even(n)", "n % 2 = 0", 1001);
}

TEST_F(Scalars, BytesMatchBytea) {
    ensure_samples(db());
    expect_same("samples", "s", "k_to_bytes(s)", "convert_to(s, 'UTF8')", 5000);
    expect_same("samples", "s", "k_byte_len(convert_to(s, 'UTF8'))", "octet_length(s)", 5000);
    expect_same("samples", "s", "k_from_bytes(convert_to(s, 'UTF8'))", "s", 5000);
    expect_same("(SELECT a.s AS x, b.s AS y FROM samples AS a JOIN samples AS b ON b.id = (a.id * 13) % 5000 "
                " UNION ALL SELECT s, s FROM samples) AS pairs",
                "x || '|' || y", "k_bytes_equal(convert_to(x, 'UTF8'), convert_to(y, 'UTF8'))", "x = y", 10000);
    // Bytes that are not UTF-8 are no text.
    EXPECT_EQ(db().expect_error("SELECT k_from_bytes('\\xff'::bytea)").sqlstate, "22021");
    // Bytes with a zero byte are still bytes.
    EXPECT_EQ(db().scalar("SELECT k_byte_len('\\x000100'::bytea)"), "3");
}

TEST_F(Scalars, CharParameterIsOneCharacterText) {
    expect_same("(SELECT n * 31 + 32 AS cp FROM generate_series(1, 3000) AS n "
                " WHERE n * 31 + 32 NOT BETWEEN 55296 AND 57343) AS t",
                "cp", "k_first_char(chr(cp))", "cp", 3000 - 66);
}

}  // namespace
}  // namespace keal::e2e
