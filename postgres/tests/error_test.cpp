// postgres::Error as a sluice::common::Error: which failures are transient
// (the pipeline retries exactly these), and what describe() prints.
#include "sluice/postgres/error.hpp"

#include <gtest/gtest.h>

namespace {

using sluice::postgres::Error;
using sluice::postgres::ErrorKind;
using sluice::postgres::ServerDiagnostics;

Error server(const std::string& sqlstate) {
    ServerDiagnostics d;
    d.sqlstate = sqlstate;
    d.message = "m";
    return Error(d);
}

TEST(PostgresError, TransientAreLostConnectionsShutdownsConflictsAndFullServers) {
    EXPECT_TRUE(Error(ErrorKind::connection, "server closed the connection").transient());
    for (const char* s : {"08006", "08001", "57P01", "57P02", "57P03", "40001", "40P01", "53300"})
        EXPECT_TRUE(server(s).transient()) << s;
    for (const char* s : {"28P01", "42P01", "23505", "57014", "53200", "40002"})
        EXPECT_FALSE(server(s).transient()) << s;
    EXPECT_FALSE(Error(ErrorKind::usage, "x").transient());
    EXPECT_FALSE(Error(ErrorKind::conversion, "x").transient());
}

TEST(PostgresError, DescribeIsTheMessageThatAlreadyNamesTheSqlstate) {
    ServerDiagnostics d;
    d.sqlstate = "42P01";
    d.message = "relation \"x\" does not exist";
    d.hint = "create it";
    const Error e(d);
    EXPECT_EQ(e.describe(), "relation \"x\" does not exist [42P01] (HINT: create it)");
    EXPECT_EQ(e.part(), "postgres");
    EXPECT_EQ(e.kind_name(), "server");
    EXPECT_EQ(Error(ErrorKind::connection, "lost").describe(), "lost");
}

}  // namespace
