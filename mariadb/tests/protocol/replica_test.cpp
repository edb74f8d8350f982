#include "sluice/mariadb/protocol/replica.hpp"

#include <gtest/gtest.h>

#include "bytes.hpp"

namespace sluice::mariadb::protocol {
namespace {

TEST(Replica, RegisterSlaveCarriesTheServerIdAndShortStrings) {
    std::vector<std::uint8_t> out;
    Writer w(out);
    write_register_replica(w, {.server_id = 0x01020304, .host = "h", .user = "ab", .password = "", .port = 3307});
    EXPECT_EQ(out, (std::vector<std::uint8_t>{0x15, 4, 3, 2, 1, 1, 'h', 2, 'a', 'b', 0, 0xeb, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(Replica, RegisterSlaveRefusesFieldsOver255Bytes) {
    std::vector<std::uint8_t> out;
    Writer w(out);
    std::string host(256, 'x');
    RegisterReplica r;
    r.server_id = 9;
    r.host = host;
    EXPECT_THROW(write_register_replica(w, r), Error);
}

TEST(Replica, BinlogDumpHasPositionFlagsServerIdAndFile) {
    std::vector<std::uint8_t> out;
    Writer w(out);
    write_binlog_dump(w, {.position = 4,
                          .flags = binlog_dump_flag::send_annotate_rows | binlog_dump_flag::non_block,
                          .server_id = 77,
                          .file = "b.000001"});
    test::PacketBuilder expected;
    expected.u8(0x12).u32(4).u16(3).u32(77).text("b.000001");
    EXPECT_EQ(out, expected.bytes);
    out.clear();
    BinlogDump gtid;
    gtid.server_id = 5;
    write_binlog_dump(w, gtid);
    test::PacketBuilder gtid_mode;
    gtid_mode.u8(0x12).u32(4).u16(2).u32(5);
    EXPECT_EQ(out, gtid_mode.bytes);
}

TEST(Replica, SetupStatementsInOrderWithHeartbeatInNanoseconds) {
    auto s = replica_setup_statements({.checksum = "CRC32", .connect_state = "0-1-42,1-2-7", .heartbeat_seconds = 1.5});
    ASSERT_EQ(s.size(), 5U);
    EXPECT_EQ(s[0], "SET @master_binlog_checksum = 'CRC32'");
    EXPECT_EQ(s[1], "SET @mariadb_slave_capability = 4");
    EXPECT_EQ(s[2], "SET @slave_connect_state = '0-1-42,1-2-7'");
    EXPECT_EQ(s[3], "SET @slave_gtid_strict_mode = 1");
    EXPECT_EQ(s[4], "SET @master_heartbeat_period = 1500000000");
    auto no_heartbeat = replica_setup_statements({.checksum = "NONE", .connect_state = "", .gtid_strict_mode = false});
    ASSERT_EQ(no_heartbeat.size(), 4U);
    EXPECT_EQ(no_heartbeat[0], "SET @master_binlog_checksum = 'NONE'");
    EXPECT_EQ(no_heartbeat[2], "SET @slave_connect_state = ''");
    EXPECT_EQ(no_heartbeat[3], "SET @slave_gtid_strict_mode = 0");
    // Quotes cannot break out of the literal.
    ReplicaSetup injection;
    injection.connect_state = "0'; DROP TABLE t; --";
    auto hostile = replica_setup_statements(injection);
    EXPECT_EQ(hostile[2], "SET @slave_connect_state = '0''; DROP TABLE t; --'");
}

TEST(Replica, SetupRefusesUnknownChecksumsAndBadHeartbeats) {
    ReplicaSetup md5;
    md5.checksum = "MD5";
    EXPECT_THROW(replica_setup_statements(md5), Error);
    ReplicaSetup negative;
    negative.heartbeat_seconds = -1;
    EXPECT_THROW(replica_setup_statements(negative), Error);
    ReplicaSetup huge;
    huge.heartbeat_seconds = 5e6;
    EXPECT_THROW(replica_setup_statements(huge), Error);
}

TEST(Replica, DumpPacketsAreEventsEndOrError) {
    std::vector<std::uint8_t> event{0x00, 1, 2, 3};
    DumpPacket e = classify_dump_packet(event);
    EXPECT_EQ(e.kind, DumpPacketKind::event);
    EXPECT_EQ(std::vector<std::uint8_t>(e.event.begin(), e.event.end()), (std::vector<std::uint8_t>{1, 2, 3}));

    std::vector<std::uint8_t> eof{0xFE, 0, 0, 2, 0};
    EXPECT_EQ(classify_dump_packet(eof).kind, DumpPacketKind::end);

    test::PacketBuilder err;
    err.u8(0xFF).u16(1236).text("#HY000").text("Could not find GTID state");
    DumpPacket x = classify_dump_packet(err.bytes);
    EXPECT_EQ(x.kind, DumpPacketKind::error);
    EXPECT_EQ(x.error.code, 1236);
    EXPECT_EQ(x.error.message, "Could not find GTID state");
}

TEST(Replica, DumpPacketsRejectEmptyUnknownAndLongFE) {
    std::vector<std::uint8_t> empty;
    try {
        classify_dump_packet(empty);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::protocol);
        EXPECT_NE(std::string(e.what()).find("binlog dump packet"), std::string::npos) << e.what();
    }
    std::vector<std::uint8_t> odd{0x42, 0};
    try {
        classify_dump_packet(odd);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("0x42"), std::string::npos) << e.what();
    }
    std::vector<std::uint8_t> long_fe(9, 0xFE);
    EXPECT_THROW(classify_dump_packet(long_fe), Error);
    std::vector<std::uint8_t> short_err{0xFF, 1};
    EXPECT_THROW(classify_dump_packet(short_err), Error);
}

}  // namespace
}  // namespace sluice::mariadb::protocol
