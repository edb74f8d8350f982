// mariadb::Error as a sluice::common::Error: which failures are transient
// (the pipeline retries exactly these), and what describe() prints.
#include "sluice/mariadb/error.hpp"

#include <gtest/gtest.h>

namespace {

using sluice::mariadb::Error;
using sluice::mariadb::ErrorKind;

TEST(MariadbError, TransientAreLostConnectionsAndAServerGoingAwayOrFull) {
    for (ErrorKind k : {ErrorKind::io, ErrorKind::timeout, ErrorKind::closed, ErrorKind::broken})
        EXPECT_TRUE(Error(k, "x").transient()) << sluice::mariadb::to_string(k);
    for (ErrorKind k : {ErrorKind::tls, ErrorKind::protocol, ErrorKind::auth, ErrorKind::usage, ErrorKind::conversion})
        EXPECT_FALSE(Error(k, "x").transient()) << sluice::mariadb::to_string(k);
    for (std::uint16_t code : {std::uint16_t{1053}, std::uint16_t{1927}, std::uint16_t{1040}})
        EXPECT_TRUE(Error(code, "08S01", "x").transient()) << code;
    for (std::uint16_t code : {std::uint16_t{1045}, std::uint16_t{1146}, std::uint16_t{1064}})
        EXPECT_FALSE(Error(code, "28000", "x").transient()) << code;
}

TEST(MariadbError, DescribeNamesTheServerCodeOrTheKind) {
    EXPECT_EQ(Error(1045, "28000", "Access denied").describe(), "Access denied (server error 1045, SQLSTATE 28000)");
    EXPECT_EQ(Error(ErrorKind::io, "connect: refused").describe(), "connect: refused (io)");
    EXPECT_EQ(Error(ErrorKind::io, "x").part(), "mariadb");
    EXPECT_EQ(Error(ErrorKind::closed, "x").kind_name(), "closed");
}

}  // namespace
