// COPY FROM STDIN through CopyIn, and the multi-row upsert a sink builds on it.
#include <gtest/gtest.h>

#include "sluice/postgres/copy.hpp"
#include "sluice/postgres/transaction.hpp"
#include "support.hpp"

using namespace sluice::postgres;

class Copy : public ::testing::Test {
protected:
    void SetUp() override {
        conn_.run_script("create temp table sessions (id int8 primary key, label text, score float8, "
                         "state bytea, done bool)");
    }
    Connection conn_ = test::connect();
};

TEST_F(Copy, RowsArriveWithEveryValueIntact) {
    CopyIn copy = conn_.copy_in("copy sessions (id, label, score, state, done) from stdin");
    copy.row({1, "tab\there, newline\nthere, back\\slash", 0.1, Bytes{0, '\\', '\n', 0xff}, true});
    copy.row({2, std::nullopt, std::nullopt, std::nullopt, std::nullopt});
    copy.row({3, "\\N", -1e300, Bytes{}, false});
    EXPECT_EQ(copy.finish(), 3u);
    Result r = conn_.query("select id, label, score, state, done from sessions order by id", {}, Format::binary);
    ASSERT_EQ(r.size(), 3);
    EXPECT_EQ(r.row(0).get<std::string>(1), "tab\there, newline\nthere, back\\slash");
    EXPECT_EQ(r.row(0).get<double>(2), 0.1);
    EXPECT_EQ(r.row(0).get<Bytes>(3), (Bytes{0, '\\', '\n', 0xff}));
    EXPECT_TRUE(r.row(0).get<bool>(4));
    EXPECT_TRUE(r.row(1).is_null(1));
    EXPECT_TRUE(r.row(1).is_null(3));
    EXPECT_EQ(r.row(2).get<std::string>(1), "\\N");
    EXPECT_EQ(r.row(2).get<double>(2), -1e300);
    EXPECT_EQ(r.row(2).get<Bytes>(3), Bytes{});
}

TEST_F(Copy, ManyRowsGoInChunks) {
    CopyIn copy = conn_.copy_in("copy sessions (id, state) from stdin");
    const Bytes state(100, 0xab);
    for (int i = 0; i < 20000; ++i) copy.row({i, state});
    EXPECT_EQ(copy.finish(), 20000u);
    EXPECT_EQ(conn_.query("select sum(length(state)) from sessions").row(0).get<std::string>(0), "2000000");
}

TEST_F(Copy, AnAbandonedCopyKeepsNothingAndTheConnectionWorks) {
    {
        CopyIn copy = conn_.copy_in("copy sessions (id) from stdin");
        copy.row({1});
    }
    EXPECT_EQ(conn_.query("select count(*) from sessions").row(0).get<std::string>(0), "0");
}

TEST_F(Copy, BadRowsAreTheServersErrorAtFinish) {
    CopyIn copy = conn_.copy_in("copy sessions (id) from stdin");
    copy.row({1});
    copy.row({1});
    try {
        copy.finish();
        FAIL() << "duplicate key accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate(), "23505");
    }
    EXPECT_THROW(conn_.copy_in("select 1"), Error);
    EXPECT_EQ(conn_.query("select 1").row(0).get<std::string>(0), "1");
}

// What the pipeline's sink does: rows into a staging table by COPY, then one
// upsert and the checkpoint in the same transaction.
TEST_F(Copy, UpsertThroughAStagingTableInOneTransaction) {
    conn_.run_script("insert into sessions (id, label) values (1, 'old');"
                     "create temp table checkpoint (id int primary key, state bytea)");
    Transaction tx(conn_);
    conn_.run_script("create temp table staging (like sessions) on commit drop");
    CopyIn copy = conn_.copy_in("copy staging (id, label) from stdin");
    copy.row({1, "new"});
    copy.row({2, "fresh"});
    copy.finish();
    Result up = conn_.query("insert into sessions (id, label) select id, label from staging "
                            "on conflict (id) do update set label = excluded.label");
    EXPECT_EQ(up.affected_rows(), 2u);
    conn_.query("insert into checkpoint values (1, $1) on conflict (id) do update set state = excluded.state",
                {Bytes{0xde, 0xad}});
    tx.commit();
    Result r = conn_.query("select label from sessions order by id");
    EXPECT_EQ(r.row(0).get<std::string>(0), "new");
    EXPECT_EQ(r.row(1).get<std::string>(0), "fresh");
    EXPECT_EQ(conn_.query("select state from checkpoint", {}, Format::binary).row(0).get<Bytes>(0),
              (Bytes{0xde, 0xad}));
}
