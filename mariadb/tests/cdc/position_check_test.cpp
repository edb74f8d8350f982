// Has / behind / lost (position_check.hpp) on values alone: the cases of a
// planned switchover, a replica catching up, an unplanned failover that
// lost transactions, and several domains.
#include <gtest/gtest.h>

#include "../../src/cdc/position_check.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::cdc::detail {
namespace {

PositionCheck check(const std::string& position, const std::string& binlog_state, bool replicating) {
    return check_position(GtidState::parse(position), parse_server_history(binlog_state, replicating));
}

TEST(PositionCheck, APromotedReplicaThatHadEverythingHasIt) {
    // Planned switchover: the replica caught up (0-1-10), was promoted and
    // took writes of its own (0-2-11...).
    EXPECT_EQ(check("0-1-10", "0-1-10,0-2-14", false).verdict, Holding::has_it);
    EXPECT_EQ(check("0-1-10", "0-1-10", true).verdict, Holding::has_it);
    // A position of the new primary's own history.
    EXPECT_EQ(check("0-2-12", "0-1-10,0-2-14", false).verdict, Holding::has_it);
    // Back on the old primary rebuilt as a replica of the new one.
    EXPECT_EQ(check("0-2-14", "0-1-10,0-2-14", true).verdict, Holding::has_it);
}

TEST(PositionCheck, AReplicaStillReplicatingAndShortOfThePositionIsBehind) {
    const PositionCheck c = check("0-1-10", "0-1-8", true);
    EXPECT_EQ(c.verdict, Holding::behind);
    EXPECT_EQ(c.behind_summary(), "domain 0 at 0-1-8 of 0-1-10");
    // It has nothing of the domain yet.
    EXPECT_EQ(check("0-1-10", "", true).verdict, Holding::behind);
    EXPECT_EQ(check("0-1-10", "", true).behind_summary(), "domain 0 at nothing of 0-1-10");
}

TEST(PositionCheck, AServerThatWentOnWithoutTheDeliveredTransactionsLostThem) {
    // Unplanned failover: the replica had 0-1-8 when the primary died after
    // 0-1-10 (delivered); promoted, it wrote 0-2-9... over the same numbers.
    const PositionCheck c = check("0-1-10", "0-1-8,0-2-11", false);
    EXPECT_EQ(c.verdict, Holding::lost);
    EXPECT_EQ(c.missing_gtids(), "0-1-9..0-1-10");
    EXPECT_EQ(c.lost_reasons(),
              "domain 0: delivered up to 0-1-10, but this server's binlog has 0-1-8 as the last of server 1 and "
              "went on with 0-2-11");
    // Still replicating makes no difference once it went past the number.
    EXPECT_EQ(check("0-1-10", "0-1-8,0-2-11", true).verdict, Holding::lost);
    // Went past by one transaction: 0-2-10 took number 10.
    EXPECT_EQ(check("0-1-10", "0-1-9,0-2-10", false).missing_gtids(), "0-1-10");
    // New GTIDs below the delivered number (0-2-7, 0-2-8 after the fork at
    // 0-1-6) do not shorten the range: it starts at the fork.
    EXPECT_EQ(check("0-1-9", "0-1-6,0-2-8", false).missing_gtids(), "0-1-7..0-1-9");
    // Without a GTID of that server: after the highest number below.
    EXPECT_EQ(check("0-1-9", "0-3-4", false).missing_gtids(), "0-1-5..0-1-9");
}

TEST(PositionCheck, AServerShortOfThePositionThatIsNoReplicaLostThem) {
    // Promoted before it caught up, no writes yet: it will never get them.
    const PositionCheck c = check("0-1-10", "0-1-8", false);
    EXPECT_EQ(c.verdict, Holding::lost);
    EXPECT_EQ(c.missing_gtids(), "0-1-9..0-1-10");
    EXPECT_EQ(c.lost_reasons(),
              "domain 0: delivered up to 0-1-10, but this server's binlog has 0-1-8 as the last of server 1, and "
              "it is no replica that could still receive them");
    EXPECT_EQ(check("0-1-10", "", false).lost_reasons(),
              "domain 0: delivered up to 0-1-10, but this server's binlog has no GTID of server 1, and it is no "
              "replica that could still receive them");
    EXPECT_EQ(check("0-1-10", "", false).missing_gtids(), "0-1-1..0-1-10");
}

TEST(PositionCheck, TheWorstDomainDecidesAndEachLostDomainIsNamed) {
    // Domains 0, 5 and 7 (multi-domain positions resume by GTID already).
    const std::string state = "0-1-10,5-1-3,5-2-6,7-3-20";
    EXPECT_EQ(check("0-1-10,5-1-3,7-3-20", state, false).verdict, Holding::has_it);
    EXPECT_EQ(check("0-1-10,5-1-3,7-3-21", state, true).verdict, Holding::behind);
    const PositionCheck lost = check("0-1-10,5-1-4,7-3-21", state, true);
    EXPECT_EQ(lost.verdict, Holding::lost);  // domain 5 went on with 5-2-6; 7 is only behind
    EXPECT_EQ(lost.missing_gtids(), "5-1-4");
    EXPECT_EQ(lost.behind_summary(), "domain 7 at 7-3-20 of 7-3-21");
    const PositionCheck two = check("0-1-12,5-1-4", state, false);
    EXPECT_EQ(two.missing_gtids(), "0-1-11..0-1-12, 5-1-4");
    // A domain only the server has plays no part.
    EXPECT_EQ(check("0-1-10", "0-1-10,9-9-99", false).verdict, Holding::has_it);
    EXPECT_EQ(check("", "0-1-10", false).verdict, Holding::has_it);
}

TEST(PositionCheck, ContinuingAfterLostTransactionsGoesOnFromTheFork) {
    EXPECT_EQ(continue_from(check("0-1-10", "0-1-8,0-2-11", false)).to_string(), "0-1-8");
    EXPECT_EQ(continue_from(check("0-1-10", "0-1-8", false)).to_string(), "0-1-8");
    // No GTID of that server in the domain: from the server's highest one.
    EXPECT_EQ(continue_from(check("0-1-10", "0-2-11", false)).to_string(), "0-2-11");
    // Nothing of the domain: the domain starts from the server's start.
    EXPECT_EQ(continue_from(check("0-1-10,5-1-3", "5-1-3", false)).to_string(), "5-1-3");
    // Domains that are fine keep the stream's position.
    EXPECT_EQ(continue_from(check("0-1-12,5-1-4,7-3-20", "0-1-12,5-1-3,5-2-6,7-3-20", false)).to_string(),
              "0-1-12,5-1-3,7-3-20");
}

TEST(PositionCheck, AMalformedBinlogStateIsAProtocolErrorNamingIt) {
    EXPECT_EQ(parse_server_history(" 0-1-8, 0-2-11 ", false).binlog_state.size(), 2U);
    EXPECT_TRUE(parse_server_history("", true).binlog_state.empty());
    try {
        parse_server_history("0-1-8,zz", false);
        FAIL() << "parsed";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::protocol);
        EXPECT_NE(std::string(e.what()).find("@@gtid_binlog_state"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace sluice::mariadb::cdc::detail
