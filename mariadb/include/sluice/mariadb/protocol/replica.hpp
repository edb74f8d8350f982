#pragma once
// The replica side of the replication protocol, sans-I/O: the requests a
// replica sends (COM_REGISTER_SLAVE, COM_BINLOG_DUMP), the session
// variables it sets first, and the packets of the dump stream that follows.
//
// Dump stream: after COM_BINLOG_DUMP the server sends one packet per binlog
// event, 0x00 followed by the event's bytes (header, body, checksum); an
// event over 16 MiB arrives split like any packet and PacketChannel joins
// the pieces. The stream ends with 0xFE (only with the non-blocking flag,
// once the last binlog is read to its end) or with an ERR packet.
//
// LIFETIME: DumpPacket::event views the packet it was classified from.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/mariadb/protocol/responses.hpp"
#include "sluice/mariadb/protocol/wire.hpp"

namespace sluice::mariadb::protocol {

inline constexpr std::uint8_t com_binlog_dump = 0x12;
inline constexpr std::uint8_t com_register_slave = 0x15;

// @mariadb_slave_capability: 4 = MARIA_SLAVE_CAPABILITY_GTID, the replica
// understands GTID, GTID_LIST and ANNOTATE_ROWS events and may start from a
// GTID state.
inline constexpr int mariadb_slave_capability_gtid = 4;

namespace binlog_dump_flag {
// At the end of the last binlog the server sends EOF instead of waiting.
inline constexpr std::uint16_t non_block = 0x0001;
// Send ANNOTATE_ROWS events (the statement text before its row events).
inline constexpr std::uint16_t send_annotate_rows = 0x0002;
}  // namespace binlog_dump_flag

// COM_REGISTER_SLAVE: the replica's id (it appears in SHOW SLAVE HOSTS and
// must differ from the server's and every other replica's: the server
// kills an older dump thread of the same id). Host, user, password and port
// are informational only (report_host etc.); at most 255 bytes each.
struct RegisterReplica {
    std::uint32_t server_id = 0;
    std::string_view host;
    std::string_view user;
    std::string_view password;
    std::uint16_t port = 0;
};
void write_register_replica(Writer& w, const RegisterReplica& r);

// COM_BINLOG_DUMP. With @slave_connect_state set (GTID mode) MariaDB ignores
// file and position and starts from the GTID state; then file is empty and
// position 4 (the first event after the magic bytes).
struct BinlogDump {
    std::uint32_t position = 4;
    std::uint16_t flags = binlog_dump_flag::send_annotate_rows;
    std::uint32_t server_id = 0;
    std::string_view file;
};
void write_binlog_dump(Writer& w, const BinlogDump& d);

// What the session sets before COM_BINLOG_DUMP, as SQL statements in order.
struct ReplicaSetup {
    // "CRC32" or "NONE": what @master_binlog_checksum announces. The server
    // sends events with its own @@global.binlog_checksum; a replica that
    // announces a different one is refused, so ask the server's first.
    std::string checksum = "CRC32";
    // The GTID state to start after (GtidPosition::to_string()); empty = from
    // the start of the oldest binlog.
    std::string connect_state;
    bool gtid_strict_mode = true;
    // Seconds between heartbeats when the server has nothing to send
    // (0 = none); sent as nanoseconds.
    double heartbeat_seconds = 0;
};
// SET @master_binlog_checksum=..., @mariadb_slave_capability=4,
// @slave_connect_state=..., @slave_gtid_strict_mode=..., and
// @master_heartbeat_period=... when heartbeat_seconds > 0. Values are quoted
// (connect_state is validated by its producer, but quoted regardless).
// Error{usage} for a checksum other than CRC32/NONE or a negative or
// too large heartbeat (over 4294967 s, the server's limit).
std::vector<std::string> replica_setup_statements(const ReplicaSetup& s);

enum class DumpPacketKind { event, end, error };

struct DumpPacket {
    DumpPacketKind kind = DumpPacketKind::event;
    Bytes event;       // kind == event: the event's bytes (after the 0x00)
    ErrPacket error;   // kind == error
};

// Classifies one packet of the dump stream. Error{protocol} naming the byte
// for an empty packet or a first byte that is none of 0x00, 0xFE, 0xFF; an
// 0xFE packet of 9 bytes or more is an error too (it cannot be an EOF or
// OK-style end packet, and an event always starts with 0x00).
DumpPacket classify_dump_packet(Bytes packet);

}  // namespace sluice::mariadb::protocol
