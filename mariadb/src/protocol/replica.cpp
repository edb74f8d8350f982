#include "sluice/mariadb/protocol/replica.hpp"

#include <cmath>
#include <cstdio>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::protocol {

namespace {

// string<1>: a one-byte length then the bytes (COM_REGISTER_SLAVE's fields).
void short_text(Writer& w, std::string_view s, std::string_view field) {
    if (s.size() > 255) {
        throw Error(ErrorKind::usage, "COM_REGISTER_SLAVE: " + std::string(field) + " is longer than 255 bytes");
    }
    w.u8(static_cast<std::uint8_t>(s.size()));
    w.text(s);
}

// A single-quoted SQL string literal (backslash and quote escaped, which is
// right both with and without NO_BACKSLASH_ESCAPES for the texts used here:
// only digits, '-' and ',' in practice).
std::string quoted(std::string_view s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'' || c == '\\') out += c;
        out += c;
    }
    out += '\'';
    return out;
}

}  // namespace

void write_register_replica(Writer& w, const RegisterReplica& r) {
    w.u8(com_register_slave);
    w.u32(r.server_id);
    short_text(w, r.host, "host");
    short_text(w, r.user, "user");
    short_text(w, r.password, "password");
    w.u16(r.port);
    w.u32(0);  // replication rank (unused)
    w.u32(0);  // master id (0: the server fills in its own)
}

void write_binlog_dump(Writer& w, const BinlogDump& d) {
    w.u8(com_binlog_dump);
    w.u32(d.position);
    w.u16(d.flags);
    w.u32(d.server_id);
    w.text(d.file);
}

std::vector<std::string> replica_setup_statements(const ReplicaSetup& s) {
    if (s.checksum != "CRC32" && s.checksum != "NONE") {
        throw Error(ErrorKind::usage, "binlog checksum '" + s.checksum + "' is not supported (CRC32 or NONE)");
    }
    if (!(s.heartbeat_seconds >= 0) || s.heartbeat_seconds > 4294967.0) {
        throw Error(ErrorKind::usage, "heartbeat period must be between 0 and 4294967 seconds");
    }
    std::vector<std::string> out;
    out.push_back("SET @master_binlog_checksum = " + quoted(s.checksum));
    out.push_back("SET @mariadb_slave_capability = " + std::to_string(mariadb_slave_capability_gtid));
    out.push_back("SET @slave_connect_state = " + quoted(s.connect_state));
    out.push_back(std::string("SET @slave_gtid_strict_mode = ") + (s.gtid_strict_mode ? "1" : "0"));
    if (s.heartbeat_seconds > 0) {
        auto ns = static_cast<std::uint64_t>(std::llround(s.heartbeat_seconds * 1e9));
        out.push_back("SET @master_heartbeat_period = " + std::to_string(ns));
    }
    return out;
}

DumpPacket classify_dump_packet(Bytes packet) {
    Reader r(packet, "binlog dump packet");
    DumpPacket p;
    switch (r.peek("header")) {
        case 0x00:
            r.skip(1, "header");
            p.kind = DumpPacketKind::event;
            p.event = r.rest();
            return p;
        case 0xFE:
            if (packet.size() >= 9) r.fail("header", "0xFE packet of " + std::to_string(packet.size()) + " bytes is neither an event nor the end of the stream");
            p.kind = DumpPacketKind::end;
            return p;
        case 0xFF:
            p.kind = DumpPacketKind::error;
            p.error = parse_err(packet);
            return p;
        default: {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02X", packet[0]);
            r.fail("header", std::string("unexpected first byte ") + hex + " (expected 0x00 event, 0xFE end or 0xFF error)");
        }
    }
}

}  // namespace sluice::mariadb::protocol
