#pragma once
// Generic responses: OK, ERR, EOF, and how to tell a result set's end from
// a row. Views point into the packet.
#include <cstdint>
#include <string_view>

#include "sluice/mariadb/protocol/wire.hpp"

namespace sluice::mariadb::protocol {

struct OkPacket {
    std::uint64_t affected_rows = 0;
    std::uint64_t last_insert_id = 0;
    std::uint16_t status_flags = 0;
    std::uint16_t warnings = 0;
    std::string_view info;           // human-readable ("Records: 3  Duplicates: 0 ...")
    Bytes session_state;             // raw session-state changes (tolerated, not decoded)
};

// Accepts the 0x00 and the 0xFE (deprecate-EOF end of result set) headers.
// `capabilities` decides whether info is length-encoded (session tracking)
// or runs to the end.
OkPacket parse_ok(Bytes packet, std::uint64_t capabilities);

struct ErrPacket {
    std::uint16_t code = 0;
    std::string_view sqlstate;  // 5 characters, "HY000" when the server sent none
    std::string_view message;
};
// Error{protocol} also for a progress-report packet (code 0xFFFF), which
// this client never asks for.
ErrPacket parse_err(Bytes packet);
// The ERR packet as the Error{server} to throw.
[[noreturn]] void throw_server_error(Bytes err_packet);

struct EofPacket {
    std::uint16_t warnings = 0;
    std::uint16_t status_flags = 0;
};
EofPacket parse_eof(Bytes packet);

inline bool is_err(Bytes p) noexcept { return !p.empty() && p[0] == 0xFF; }
inline bool is_ok(Bytes p) noexcept { return !p.empty() && p[0] == 0x00; }
// The packet that ends a result set's rows (or its column definitions
// without deprecate-EOF): 0xFE and short enough not to be a text row whose
// first field has an 8-byte length.
inline bool is_end_of_rows(Bytes p, bool deprecate_eof) noexcept {
    return !p.empty() && p[0] == 0xFE && (deprecate_eof ? p.size() < 0xFFFFFF : p.size() < 9);
}

// Status flags of an end-of-rows packet (EOF, or OK with a 0xFE header).
std::uint16_t end_of_rows_status(Bytes packet, bool deprecate_eof, std::uint64_t capabilities,
                                 OkPacket* ok_out = nullptr);

}  // namespace sluice::mariadb::protocol
