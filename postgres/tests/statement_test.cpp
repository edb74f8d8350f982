// Prepared statements: typed parameters, typed results in both formats,
// NULLs, and what goes wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sluice/postgres/connection.hpp"
#include "support.hpp"

using namespace sluice::postgres;

class Statements : public ::testing::Test {
protected:
    void SetUp() override {
        conn_.run_script(
            "create temp table users (id int4 primary key, name text not null, score float8, ok bool, "
            "blob bytea, big int8, small int2, v varchar(10), amount numeric)");
        conn_.run_script(
            "insert into users values (1, 'ann', 1.5, true, '\\x00ff', 9223372036854775807, -32768, 'v1', 12.50),"
            " (2, 'bob', null, false, null, null, null, null, null)");
    }
    Connection conn_ = test::connect();
};

TEST_F(Statements, PrepareOnceExecuteMany) {
    Statement s = conn_.prepare("select name from users where id = $1");
    EXPECT_EQ(conn_.prepared_count(), 1u);
    ASSERT_EQ(s.param_types().size(), 1u);
    EXPECT_EQ(s.param_types()[0], type_oid::int4);
    ASSERT_EQ(s.columns().size(), 1u);
    EXPECT_EQ(s.columns()[0].name, "name");
    EXPECT_EQ(s.columns()[0].type, type_oid::text);
    EXPECT_NE(s.columns()[0].table, 0u);
    EXPECT_EQ(s.columns()[0].table_column, 2);
    EXPECT_EQ(conn_.execute(s, {1}).row(0).get<std::string>(0), "ann");
    EXPECT_EQ(conn_.execute(s, {2}).row(0).get<std::string>(0), "bob");
    EXPECT_TRUE(conn_.execute(s, {3}).empty());
    EXPECT_EQ(conn_.prepared_count(), 1u);
    // The server counts one prepared statement of ours.
    EXPECT_EQ(conn_.query("select count(*) from pg_prepared_statements").row(0).get<std::string>(0), "1");
}

TEST_F(Statements, EveryTypeReadsInBinaryAndInText) {
    Statement s = conn_.prepare("select id, name, score, ok, blob, big, small, v from users where id = $1");
    for (Format f : {Format::binary, Format::text}) {
        Result r = conn_.execute(s, {1}, f);
        Row row = r.row(0);
        EXPECT_EQ(row.get<std::int64_t>(0), 1);
        EXPECT_EQ(row.get<std::string_view>(1), "ann");
        EXPECT_EQ(row.get<double>(2), 1.5);
        EXPECT_TRUE(row.get<bool>(3));
        EXPECT_EQ(row.get<Bytes>(4), (Bytes{0x00, 0xff}));
        EXPECT_EQ(row.get<std::int64_t>(5), std::numeric_limits<std::int64_t>::max());
        EXPECT_EQ(row.get<std::int64_t>(6), -32768);
        EXPECT_EQ(row.get<std::string>(7), "v1");
    }
}

TEST_F(Statements, NullsReadAsNulloptAndNeverAsZero) {
    Statement s = conn_.prepare("select score, blob, big from users where id = 2");
    Result r = conn_.execute(s);
    Row row = r.row(0);
    EXPECT_TRUE(row.is_null(0));
    EXPECT_EQ(row.get<std::optional<double>>(0), std::nullopt);
    EXPECT_EQ(row.get<std::optional<Bytes>>(1), std::nullopt);
    try {
        row.get<std::int64_t>(2);
        FAIL() << "NULL read as a plain int";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::conversion);
        EXPECT_EQ(std::string(e.what()),
                  "column 2 (\"big\", int8) is NULL; read it as std::optional to accept NULL");
    }
}

TEST_F(Statements, ParametersOfEveryTypeAreBound) {
    Statement ins = conn_.prepare("insert into users (id, name, score, ok, blob, big, small, amount) "
                                  "values ($1, $2, $3, $4, $5, $6, $7, $8)");
    Result done = conn_.execute(ins, {10, "it's; drop table users --", 0.1, false, Bytes{1, 2, 3},
                                      std::int64_t{-9223372036854775807 - 1}, 7, 3});
    EXPECT_EQ(done.affected_rows(), 1u);
    Result r = conn_.query("select name, score, ok, blob, big, small, amount from users where id = 10");
    Row row = r.row(0);
    EXPECT_EQ(row.get<std::string>(0), "it's; drop table users --");
    EXPECT_EQ(row.get<double>(1), 0.1);
    EXPECT_FALSE(row.get<bool>(2));
    EXPECT_EQ(row.get<Bytes>(3), (Bytes{1, 2, 3}));
    EXPECT_EQ(row.get<std::int64_t>(4), std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(row.get<std::int64_t>(5), 7);
    EXPECT_EQ(row.get<std::string>(6), "3");  // numeric, in text
    Statement nulls = conn_.prepare("insert into users (id, name, score) values ($1, $2, $3)");
    conn_.execute(nulls, {11, "nul", std::nullopt});
    EXPECT_TRUE(conn_.query("select score from users where id = 11").row(0).is_null(0));
}

TEST_F(Statements, UnpreparedQueriesBindTypedParameters) {
    Result r = conn_.query("select $1::int8 + 1, $2 || 'x', $3::float8 * 2, $4::bool, $5::bytea",
                           {41, "a", 1.25, true, Bytes{9}}, Format::binary);
    Row row = r.row(0);
    EXPECT_EQ(row.get<std::int64_t>(0), 42);
    EXPECT_EQ(row.get<std::string>(1), "ax");
    EXPECT_EQ(row.get<double>(2), 2.5);
    EXPECT_TRUE(row.get<bool>(3));
    EXPECT_EQ(row.get<Bytes>(4), (Bytes{9}));
}

TEST_F(Statements, FloatSpecialValuesSurviveBothWays) {
    Statement s = conn_.prepare("select $1::float8");
    for (double v : {std::numeric_limits<double>::infinity(), -0.0, 5e-324}) {
        EXPECT_EQ(conn_.execute(s, {v}).row(0).get<double>(0), v);
        EXPECT_EQ(conn_.execute(s, {v}, Format::text).row(0).get<double>(0), v);
    }
    EXPECT_TRUE(std::isnan(conn_.execute(s, {std::nan("")}).row(0).get<double>(0)));
}

TEST_F(Statements, MistakesAreUsageOrConversionErrors) {
    Statement s = conn_.prepare("select name from users where id = $1");
    try {
        conn_.execute(s, {});
        FAIL() << "ran with a missing parameter";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::usage);
    }
    try {
        conn_.execute(s, {std::int64_t{1} << 33});
        FAIL() << "int4 parameter out of range accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::conversion);
        EXPECT_NE(std::string(e.what()).find("$1"), std::string::npos);
    }
    try {
        conn_.execute(s, {1}).row(0).get<std::int64_t>(0);
        FAIL() << "text read as an int";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::conversion);
    }
    Statement numeric = conn_.prepare("select amount from users where id = 1");
    EXPECT_THROW(conn_.execute(numeric).row(0).get<std::string>(0), Error);  // binary numeric
    EXPECT_EQ(conn_.execute(numeric, {}, Format::text).row(0).get<std::string>(0), "12.50");
    Connection other = test::connect();
    try {
        other.execute(s, {1});
        FAIL() << "statement ran on another connection";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::usage);
    }
}

TEST_F(Statements, PrepareReportsTheServersErrorWithItsPosition) {
    try {
        conn_.prepare("select nme from users");
        FAIL() << "prepared";
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate(), "42703");
        EXPECT_EQ(e.diagnostics().position, 8);
    }
    try {
        conn_.describe("select * from no_such_table");
        FAIL() << "described";
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate(), "42P01");
    }
    Statement d = conn_.describe("select id, score * 2 as doubled from users where name = $1");
    ASSERT_EQ(d.columns().size(), 2u);
    EXPECT_EQ(d.columns()[1].type, type_oid::float8);
    EXPECT_EQ(d.columns()[1].table, 0u);  // an expression
    EXPECT_EQ(d.param_types(), std::vector<Oid>{type_oid::text});
}

TEST_F(Statements, ServerErrorsDuringExecuteKeepTheirSqlstate) {
    Statement s = conn_.prepare("select 10 / $1::int4");
    try {
        conn_.execute(s, {0});
        FAIL() << "divided by zero";
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate(), "22012");
    }
    EXPECT_EQ(conn_.execute(s, {5}).row(0).get<std::int64_t>(0), 2);
    Statement dup = conn_.prepare("insert into users (id, name) values ($1, 'x')");
    try {
        conn_.execute(dup, {1});
        FAIL() << "duplicate accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate(), "23505");
        EXPECT_NE(std::string(e.what()).find("DETAIL: Key (id)=(1) already exists."), std::string::npos);
    }
}
