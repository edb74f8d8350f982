// NULL in, NULL out: STRICT functions are not even called for NULL; functions
// with a nullable parameter are not STRICT and handle NULL themselves.
#include "keal_database.hpp"
#include "sql_compare.hpp"

#include <gtest/gtest.h>

namespace keal::e2e {
namespace {

// 3,000 inputs, every third one NULL.
constexpr const char* kSomeNull =
    "(SELECT CASE WHEN n % 3 = 0 THEN NULL ELSE n - 1500 END AS v FROM generate_series(1, 3000) AS n) AS t";

class Nulls : public ::testing::Test {
protected:
    void SetUp() override { KealDatabase::get().deploy("nulls.keal"); }
    PgConnection& db() { return KealDatabase::get().sql(); }

    void expect_same(const std::string& from, const std::string& input, const std::string& keal,
                     const std::string& sql, std::int64_t rows) {
        const Comparison c = compare(db(), from, input, keal, sql);
        EXPECT_EQ(c.rows, rows);
        EXPECT_EQ(c.mismatches, 0) << keal << " vs " << sql << ":\n" << c.examples;
    }
    std::string proisstrict(const std::string& signature) {
        return db().scalar("SELECT proisstrict::text FROM pg_proc WHERE oid = '" + signature + "'::regprocedure").value();
    }
};

TEST_F(Nulls, StrictFunctionsReturnNullForNullArguments) {
    EXPECT_EQ(proisstrict("add(bigint,bigint)"), "true");
    EXPECT_EQ(proisstrict("exclaim(text)"), "true");
    expect_same(std::string(kSomeNull) + ", (VALUES (1), (NULL)) AS b(w)", "coalesce(v::text, 'NULL')",
                "add(v, w)", "v + w", 6000);
    expect_same("(VALUES ('x'), (''), ('é中'), (NULL)) AS t(s)", "coalesce(s, 'NULL')", "exclaim(s)", "s || '!'", 4);
}

TEST_F(Nulls, NullableParameterMakesTheFunctionNotStrict) {
    EXPECT_EQ(proisstrict("describe(bigint)"), "false");
    EXPECT_EQ(proisstrict("or_zero(bigint)"), "false");
    EXPECT_EQ(proisstrict("label(text,bigint)"), "false");
    expect_same(kSomeNull, "coalesce(v::text, 'NULL')", "describe(v)",
                "CASE WHEN v IS NULL THEN 'nothing' ELSE 'number ' || v END", 3000);
    expect_same(kSomeNull, "coalesce(v::text, 'NULL')", "or_zero(v)", "coalesce(v, 0)", 3000);
}

TEST_F(Nulls, NullableResultCarriesNullOut) {
    expect_same(kSomeNull, "coalesce(v::text, 'NULL')", "maybe_double(v)", "v * 2", 3000);
    expect_same("(VALUES ('two words'), ('one'), (''), (' lead'), ('中文 字'), (NULL)) AS t(s)",
                "coalesce(s, 'NULL')", "first_word(s)",
                "CASE WHEN strpos(s, ' ') = 0 THEN s ELSE substr(s, 1, strpos(s, ' ') - 1) END", 6);
}

TEST_F(Nulls, NullableFloatAndBool) {
    expect_same("(VALUES (2.0::float8), (NULL), (-0.25)) AS a(x), (VALUES (true), (false), (NULL)) AS b(h)",
                "coalesce(x::text, 'NULL') || ',' || coalesce(h::text, 'NULL')", "weigh(x, h)",
                "CASE WHEN coalesce(h, false) THEN coalesce(x, 1.5) * 10.0 ELSE coalesce(x, 1.5) END", 9);
}

TEST_F(Nulls, NullForANonNullableParameterOfANonStrictFunctionGivesNull) {
    // label(prefix text, n bigint?) is not STRICT because of n; its prefix
    // is declared non-null, so a NULL prefix never reaches Keal code.
    expect_same(kSomeNull, "coalesce(v::text, 'NULL')", "label('p', v)", "'p:' || coalesce(v, -1)", 3000);
    EXPECT_EQ(db().scalar("SELECT label(NULL, 5)"), std::nullopt);
}

}  // namespace
}  // namespace keal::e2e
