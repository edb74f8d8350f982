// What a deployed program looks like in the catalog: doc comments in
// pg_description, volatility, strictness and parallel safety in pg_proc.
#include "keal_database.hpp"

#include <gtest/gtest.h>

namespace keal::e2e {
namespace {

class Catalog : public ::testing::Test {
protected:
    void SetUp() override {
        KealDatabase::get().deploy("catalog.keal");
        KealDatabase::get().deploy("collatz.keal");
        KealDatabase::get().deploy("sql_calls.keal");
    }
    PgConnection& db() { return KealDatabase::get().sql(); }

    // provolatile, proisstrict, proparallel, prolang's name, result type.
    Row proc(const std::string& signature) {
        return db().query(
            "SELECT provolatile::text, proisstrict::text, proparallel::text, l.lanname, prorettype::regtype::text "
            "FROM pg_proc AS p JOIN pg_language AS l ON l.oid = p.prolang WHERE p.oid = $1::regprocedure",
            {signature}).at(0);
    }
    Value comment(const std::string& signature) {
        return db().scalar("SELECT obj_description($1::regprocedure, 'pg_proc')", {signature});
    }
};

TEST_F(Catalog, DocCommentsBecomeFunctionComments) {
    EXPECT_EQ(comment("steps(bigint)"), "Collatz steps: becomes SQL function steps(bigint) returns bigint");
    EXPECT_EQ(comment("area(double precision)"),
              "Area of a circle.\nSecond line of the comment; it has \"quotes\" and an apostrophe: it's here.");
    EXPECT_EQ(comment("undocumented(bigint)"), std::nullopt);
}

TEST_F(Catalog, PureStrictFunctionIsImmutableStrictParallelSafeC) {
    EXPECT_EQ(proc("steps(bigint)"), (Row{"i", "true", "s", "c", "bigint"}));
    EXPECT_EQ(proc("area(double precision)"), (Row{"i", "true", "s", "c", "double precision"}));
}

TEST_F(Catalog, NullableParameterIsNotStrictButStillImmutable) {
    EXPECT_EQ(proc("nullable_param(bigint)"), (Row{"i", "false", "s", "c", "bigint"}));
}

TEST_F(Catalog, ImmutableServerFunctionsKeepTheCallerPure) {
    EXPECT_EQ(proc("k_md5(text)"), (Row{"i", "true", "s", "c", "text"}));
    EXPECT_EQ(proc("vowels_translate(text)"), (Row{"i", "true", "s", "c", "bigint"}));
}

TEST_F(Catalog, VolatileServerFunctionMakesCallersVolatile) {
    const Row direct = proc("noisy(bigint)");
    EXPECT_EQ(direct.at(0), "v");
    const Row through_helper = proc("volatile_through_helper(bigint)");
    EXPECT_EQ(through_helper.at(0), "v");
    EXPECT_NE(through_helper.at(2), "s");
}

TEST_F(Catalog, PrivateFunctionsAreNotInstalled) {
    EXPECT_EQ(db().scalar("SELECT count(*) FROM pg_proc WHERE proname IN ('next', 'helper_calls_volatile') "
                          "AND pronamespace = 'public'::regnamespace"),
              "0");
}

TEST_F(Catalog, RedeployingReplacesTheFunctions) {
    const CommandResult again = run_keal({"deploy", program_path("collatz.keal"), "--db", KealDatabase::get().url(), "--lib-dir", KEAL_E2E_LIB_DIR});
    ASSERT_EQ(again.exit_code, 0) << again.output;
    EXPECT_EQ(db().scalar("SELECT count(*) FROM pg_proc WHERE proname = 'steps'"), "1");
    EXPECT_EQ(db().scalar("SELECT steps(27)"), "111");
}

}  // namespace
}  // namespace keal::e2e
