// `sluice-mariadb cdc --to nats://...` across an unplanned failover (issue
// 26): the stream's last message holds the position; a publisher started
// again with both servers in its URL finds the new primary lacking what the
// stream already holds, stops naming the GTIDs and publishes nothing, and
// with --on-lost-transactions continue goes on from the new primary's
// history. A primary, a replica and a NATS cluster of the test's own.
#include <gtest/gtest.h>

#include "../../../nats/tests/jetstream_reads.hpp"
#include "cdc_support.hpp"
#include "json_scan.hpp"
#include "replica_pair.hpp"
#include "sluice/nats/client.hpp"

namespace sluice::mariadb::test {
namespace {

// The "gtid" of every message's NDJSON line, in stream order.
std::vector<std::string> stream_gtids(const std::string& urls, const std::string& stream) {
    nats::JetStreamClient c = nats::JetStreamClient::connect(urls);
    std::vector<std::string> out;
    for (const nats::StoredMessage& m : sluice::test::stored_messages(c, stream)) out.push_back(member(m.data, "gtid"));
    return out;
}

TEST(CdcJetStreamFailover, ThePublisherResumingOnAServerThatLostItsLastMessagesStopsNamingThem) {
    ReplicaPair pair("cdc-jetstream-failover", "nats");
    ASSERT_TRUE(pair.started()) << pair.log();
    const std::string nats = pair.env().require("SLUICE_NATS_URL");
    Connection primary = pair.connect("mariadb");
    primary.execute("CREATE TABLE sluice.f (id BIGINT PRIMARY KEY, v INT)");  // 0-1-1
    for (int i = 1; i <= 5; ++i) primary.execute("INSERT INTO sluice.f VALUES (" + std::to_string(i) + ", 0)");
    Connection replica = pair.connect("mariadb-replica");
    ASSERT_TRUE(ReplicaPair::caught_up(replica, binlog_pos(primary)));
    replica.execute("STOP SLAVE");
    for (int i = 6; i <= 8; ++i) primary.execute("INSERT INTO sluice.f VALUES (" + std::to_string(i) + ", 0)");

    const std::string publish = "cdc " + quote_arg(pair.list_url()) + " --to " + quote_arg(nats) +
                                " --stream fo --replicas 1 --failover-after 1";
    const Outcome first = run_cli(publish + " --from-start --until-end", true);
    ASSERT_EQ(first.status, 0) << first.out;
    const std::vector<std::string> before = stream_gtids(nats, "fo");
    ASSERT_EQ(before.size(), 9U);  // the DDL and eight inserts
    EXPECT_EQ(before.back(), "\"0-1-9\"");

    ASSERT_TRUE(pair.kill("mariadb"));
    ReplicaPair::promote(replica);
    replica.execute("INSERT INTO sluice.f VALUES (100, 0)");  // 0-2-7
    const Outcome lost = run_cli(publish + " --until-end", true);
    EXPECT_EQ(lost.status, 1) << lost.out;
    EXPECT_NE(lost.out.find("lacks transactions this stream already delivered: 0-1-7..0-1-9"), std::string::npos)
        << lost.out;
    EXPECT_EQ(stream_gtids(nats, "fo"), before);  // nothing published

    const Outcome go_on = run_cli(publish + " --until-end --on-lost-transactions continue", true);
    EXPECT_EQ(go_on.status, 0) << go_on.out;
    std::vector<std::string> after = stream_gtids(nats, "fo");
    ASSERT_EQ(after.size(), 10U) << go_on.out;
    EXPECT_EQ(after.back(), "\"0-2-7\"");
}

}  // namespace
}  // namespace sluice::mariadb::test
