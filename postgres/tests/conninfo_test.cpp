// Where a connection's settings come from: --db, then DATABASE_URL, then PG*.
#include <gtest/gtest.h>

#include "sluice/postgres/connection.hpp"

using sluice::postgres::resolve_conninfo;

TEST(Conninfo, AnExplicitUrlWins) {
    EXPECT_EQ(resolve_conninfo("postgresql://a@h/db", "postgresql://b@h/other"), "postgresql://a@h/db");
}

TEST(Conninfo, DatabaseUrlWhenNoneGiven) {
    EXPECT_EQ(resolve_conninfo(std::nullopt, "postgresql://b@h/other"), "postgresql://b@h/other");
    EXPECT_EQ(resolve_conninfo(std::string(), "postgresql://b@h/other"), "postgresql://b@h/other");
}

TEST(Conninfo, LibpqDefaultsWhenNeither) {
    EXPECT_EQ(resolve_conninfo(std::nullopt, std::nullopt), "");
    EXPECT_EQ(resolve_conninfo(std::nullopt, std::string()), "");
}
