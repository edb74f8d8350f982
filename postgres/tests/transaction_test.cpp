// Transactions as scopes.
#include <gtest/gtest.h>

#include "sluice/postgres/transaction.hpp"
#include "support.hpp"

using namespace sluice::postgres;

namespace {
std::int64_t count(Connection& c) {
    return c.query("select count(*) from tx_rows", {}, Format::binary).row(0).get<std::int64_t>(0);
}
}  // namespace

class Transactions : public ::testing::Test {
protected:
    void SetUp() override { conn_.run_script("create temp table tx_rows (id int primary key)"); }
    Connection conn_ = test::connect();
};

TEST_F(Transactions, CommitKeepsTheRows) {
    {
        Transaction tx(conn_);
        conn_.query("insert into tx_rows values (1), (2)");
        tx.commit();
        EXPECT_FALSE(tx.open());
    }
    EXPECT_EQ(count(conn_), 2);
}

TEST_F(Transactions, LeavingTheScopeRollsBack) {
    {
        Transaction tx(conn_);
        conn_.query("insert into tx_rows values (1)");
    }
    EXPECT_EQ(count(conn_), 0);
    {
        Transaction tx(conn_);
        conn_.query("insert into tx_rows values (1)");
        tx.rollback();
        EXPECT_THROW(tx.commit(), Error);
    }
    EXPECT_EQ(count(conn_), 0);
}

TEST_F(Transactions, CommitAfterAnErrorIsAnErrorNotASilentRollback) {
    Transaction tx(conn_);
    conn_.query("insert into tx_rows values (1)");
    EXPECT_THROW(conn_.query("insert into tx_rows values (1)"), Error);
    try {
        tx.commit();
        FAIL() << "commit of an aborted transaction reported success";
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate(), "25P02");
    }
    EXPECT_EQ(count(conn_), 0);
}
