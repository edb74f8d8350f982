// The replica session against a scripted hostile server on 127.0.0.1
// (tests/client/hostile_server.hpp): it logs in and answers the session
// setup like MariaDB, then sends a dump stream MariaDB never would. Each test
// asserts a clear error, and that what was accepted before it stays
// delivered and counted in the position.
#include <gtest/gtest.h>

#include <algorithm>

#include "../binlog/fixture.hpp"
#include "../client/hostile_server.hpp"
#include "sluice/mariadb/cdc/change_stream.hpp"

namespace sluice::mariadb::test {
namespace {

// A one-column, one-row text result (classic EOF framing).
void answer_value(HostilePeer& peer, std::string_view expect_in_query, std::string_view value) {
    std::vector<std::uint8_t> q = peer.read_packet();
    if (!contains(q, expect_in_query)) throw std::runtime_error("unexpected query: " + std::string(q.begin() + 1, q.end()));
    peer.send_packet(1, PacketBuilder{}.u8(1).bytes);
    peer.send_packet(2, varchar_column_payload("v"));
    peer.send_packet(3, eof_payload());
    peer.send_packet(4, PacketBuilder{}.lenenc(value).bytes);
    peer.send_packet(5, eof_payload());
}

void answer_ok(HostilePeer& peer, std::string_view expect) {
    std::vector<std::uint8_t> q = peer.read_packet();
    if (!contains(q, expect)) throw std::runtime_error("unexpected command");
    peer.send_packet(1, ok_payload());
}

// Login, the server checks, the session variables, COM_REGISTER_SLAVE and
// COM_BINLOG_DUMP, as MariaDB answers them. Returns the next sequence id.
void play_replica_setup(HostilePeer& peer) {
    play_login(peer);
    answer_value(peer, "log_bin", "1");
    answer_value(peer, "binlog_format", "ROW");
    answer_value(peer, "binlog_checksum", "CRC32");
    answer_ok(peer, "@master_binlog_checksum");
    answer_ok(peer, "@mariadb_slave_capability");
    answer_ok(peer, "@slave_connect_state");
    answer_ok(peer, "@slave_gtid_strict_mode");
    answer_ok(peer, "@master_heartbeat_period");
    std::vector<std::uint8_t> reg = peer.read_packet();
    if (reg.empty() || reg[0] != 0x15) throw std::runtime_error("expected COM_REGISTER_SLAVE");
    peer.send_packet(1, ok_payload());
    std::vector<std::uint8_t> dump = peer.read_packet();
    if (dump.empty() || dump[0] != 0x12) throw std::runtime_error("expected COM_BINLOG_DUMP");
}

std::vector<std::uint8_t> dump_packet(const std::vector<std::uint8_t>& event) {
    // Sized once and copied into, not {0x00} then insert(): GCC 12 at -O2
    // takes insert()'s reallocation path for a one-byte vector and reports
    // a false -Warray-bounds on its memmove.
    std::vector<std::uint8_t> p(1 + event.size());
    p[0] = 0x00;  // the OK byte before each event
    std::copy(event.begin(), event.end(), p.begin() + 1);
    return p;
}

cdc::StreamOptions hostile_options() {
    cdc::StreamOptions o;
    o.start = cdc::StartAt::gtid;
    o.gtid = cdc::GtidState::parse("0-1-0");
    // No table selected: no rows (so no side connection), and no DDL (a table filter passes only its tables' DDL).
    o.tables = cdc::TableFilter::parse("sluice.none");
    o.reconnect_for = std::chrono::milliseconds(0);
    return o;
}

// The fixture's events up to the second DDL (two CREATE TABLE groups).
struct Prefix {
    std::vector<std::vector<std::uint8_t>> events;
    std::vector<std::uint8_t> next;  // the event after them
    std::string position;            // after the second DDL group
};
// The artificial ROTATE a dump starts with (names the file for messages).
std::vector<std::uint8_t> artificial_rotate() {
    return binlog::test::EventBuilder(binlog::EventType::rotate, 0, binlog::header_flag::artificial, 1, 0)
        .u64(4)
        .text("mariadb-bin.000001")
        .finish();
}
// The fixture's two CREATE TABLE statements pass a filter that lists their
// tables (a --tables filter passes only its tables' DDL, issue 32); the
// prefix holds no rows, so no side connection is made.
cdc::StreamOptions ddl_of_both_tables() {
    cdc::StreamOptions o = hostile_options();
    o.tables = cdc::TableFilter::parse("sluice.img,sluice.other");
    return o;
}

Prefix fixture_prefix() {
    auto events = binlog::test::split_events(binlog::test::load_fixture("images"));
    Prefix p;
    binlog::Decoder d;
    int ddl = 0;
    for (const auto& e : events) {
        if (ddl == 2) {
            p.next = e;
            break;
        }
        p.events.push_back(e);
        binlog::Event ev = d.decode(e);
        if (const auto* g = std::get_if<binlog::Gtid>(&ev.body); g && ddl < 2) {
            p.position = std::to_string(g->domain_id) + "-" + std::to_string(ev.header.server_id) + "-" + std::to_string(g->seq_no);
        }
        if (const auto* q = std::get_if<binlog::Query>(&ev.body)) {
            if (std::string_view(q->sql).find("CREATE TABLE") != std::string_view::npos) ++ddl;
        }
    }
    return p;
}

template <class Script>
std::string expect_failure(Script script, ErrorKind kind, std::size_t& ddl_seen, cdc::GtidState& position,
                           cdc::StreamOptions options = hostile_options()) {
    HostileServer server(std::move(script));
    ConnectOptions o = server.options();
    o.max_packet_size = 1 << 20;
    std::string message;
    ddl_seen = 0;
    {
        cdc::ChangeStream s = cdc::ChangeStream::open(o, options);
        try {
            while (const cdc::ChangeEvent* e = s.next()) {
                if (std::holds_alternative<cdc::Ddl>(*e)) ++ddl_seen;
            }
            ADD_FAILURE() << "the stream ended without an error";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), kind) << e.what();
            message = e.what();
            position = s.position();
        }
    }  // closes the connection: the script sees the client leave
    server.finish();
    return message;
}

TEST(CdcHostileServer, ABadChecksumIsAnErrorNamingTheEventAfterTheGoodOnesWereDelivered) {
    Prefix p = fixture_prefix();
    ASSERT_FALSE(p.next.empty());
    std::size_t ddl = 0;
    cdc::GtidState position;
    std::string message = expect_failure(
        [&](HostilePeer& peer) {
            play_replica_setup(peer);
            std::uint8_t seq = 1;
            peer.send_packet(seq++, dump_packet(artificial_rotate()));
            for (const auto& e : p.events) peer.send_packet(seq++, dump_packet(e));
            std::vector<std::uint8_t> bad = p.next;
            bad[bad.size() / 2] ^= 0x01;  // one flipped bit
            peer.send_packet(seq++, dump_packet(bad));
            peer.wait_for_client_close();
        },
        ErrorKind::protocol, ddl, position, ddl_of_both_tables());
    EXPECT_NE(message.find("checksum mismatch"), std::string::npos) << message;
    EXPECT_NE(message.find("mariadb-bin.000001:"), std::string::npos) << message;  // where in the binlog
    EXPECT_NE(message.find("(server 127.0.0.1:"), std::string::npos) << message;   // which server
    EXPECT_EQ(ddl, 2U);
    EXPECT_EQ(position.to_string(), p.position);  // after both DDL groups, nothing more
}

TEST(CdcHostileServer, TruncatedEventsAndLyingLengthsAreErrors) {
    Prefix p = fixture_prefix();
    for (int variant = 0; variant < 3; ++variant) {
        std::size_t ddl = 0;
        cdc::GtidState position;
        std::string message = expect_failure(
            [&](HostilePeer& peer) {
                play_replica_setup(peer);
                std::uint8_t seq = 1;
                peer.send_packet(seq++, dump_packet(p.events[0]));  // FORMAT_DESCRIPTION
                std::vector<std::uint8_t> bad = p.events[1];
                if (variant == 0) bad.resize(bad.size() / 2);               // truncated
                if (variant == 1) bad[9] = static_cast<std::uint8_t>(bad[9] + 40);  // length says more
                if (variant == 2) bad.resize(7);                            // shorter than a header
                peer.send_packet(seq++, dump_packet(bad));
                peer.wait_for_client_close();
            },
            ErrorKind::protocol, ddl, position);
        EXPECT_FALSE(message.empty()) << variant;
        EXPECT_NE(message.find("(server 127.0.0.1:"), std::string::npos) << "names the server: " << message;
        EXPECT_EQ(ddl, 0U);
    }
}

TEST(CdcHostileServer, APacketOverTheAnnouncedLimitIsRefusedBeforeItIsBuffered) {
    std::size_t ddl = 0;
    cdc::GtidState position;
    std::string message = expect_failure(
        [&](HostilePeer& peer) {
            play_replica_setup(peer);
            // A 16 MiB piece announced (the client's limit is 1 MiB), a few bytes sent.
            peer.send_raw({0xFF, 0xFF, 0xFF, 1, 0x00, 1, 2, 3});
            peer.wait_for_client_close();
        },
        ErrorKind::protocol, ddl, position);
    EXPECT_NE(message.find("over the limit of 1048576 bytes"), std::string::npos) << message;
    EXPECT_EQ(position.to_string(), "0-1-0");  // unchanged
}

TEST(CdcHostileServer, AnUnknownPacketOrAnErrMidDumpEndsTheStreamWithItsCause) {
    std::size_t ddl = 0;
    cdc::GtidState position;
    std::string odd = expect_failure(
        [&](HostilePeer& peer) {
            play_replica_setup(peer);
            peer.send_packet(1, PacketBuilder{}.u8(0x42).u8(0).bytes);
            peer.wait_for_client_close();
        },
        ErrorKind::protocol, ddl, position);
    EXPECT_NE(odd.find("0x42"), std::string::npos) << odd;
    std::string err = expect_failure(
        [&](HostilePeer& peer) {
            play_replica_setup(peer);
            peer.send_packet(1, PacketBuilder{}.u8(0xFF).u16(1236).text("#HY000").text("binlog truncated in the middle of event").bytes);
            peer.wait_for_client_close();
        },
        ErrorKind::server, ddl, position);
    EXPECT_NE(err.find("cannot serve this position"), std::string::npos) << err;
    EXPECT_NE(err.find("binlog truncated in the middle of event"), std::string::npos) << err;
}

}  // namespace
}  // namespace sluice::mariadb::test
