#pragma once
// COM_STMT_BULK_EXECUTE (MariaDB 10.2.7+, capability STMT_BULK_OPERATIONS):
// one packet carries many rows of parameters for one prepared statement.
//
//   int<1> 0xFA, int<4> statement id, int<2> bulk flags,
//   with SEND_TYPES_TO_SERVER: per parameter int<1> type + int<1> flag
//   (0x80 = unsigned), then until the end of the packet, per row and per
//   parameter: int<1> indicator, and the binary value when it is NONE.
//
// The types are announced once per packet, so every row of a packet binds
// each parameter with the same wire type; BulkPacket enforces that and
// tells the caller when a row needs a new packet.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sluice/mariadb/protocol/commands.hpp"
#include "sluice/mariadb/protocol/wire.hpp"

namespace sluice::mariadb::protocol {

inline constexpr std::uint8_t com_stmt_bulk_execute = 0xFA;

namespace bulk_flag {
// Ask for a result set of per-row (generated id, affected rows); only with
// the MARIADB_CLIENT_BULK_UNIT_RESULTS capability (not in MariaDB 10.11).
inline constexpr std::uint16_t send_unit_results = 64;
inline constexpr std::uint16_t send_types_to_server = 128;
}  // namespace bulk_flag

// Per-value indicator of a bulk row.
enum class Indicator : std::uint8_t {
    none = 0,      // the value follows
    null = 1,      // NULL
    default_ = 2,  // the column's DEFAULT (INSERT and UPDATE)
    ignore = 3,    // DEFAULT for INSERT; UPDATE leaves the column unchanged
};

// One parameter of one bulk row. A value of kind null with indicator none
// is sent as Indicator::null.
struct BulkParam {
    ParamValue value;
    Indicator indicator = Indicator::none;
};

// Encodes one COM_STMT_BULK_EXECUTE packet into a caller-owned buffer.
class BulkPacket {
public:
    // Clears `out` and writes the header for a statement with `params`
    // parameters; the types are fixed by the first row binding each one.
    BulkPacket(std::vector<std::uint8_t>& out, std::uint32_t statement_id, std::size_t params);

    enum class Append { added, type_change, too_large };
    // Appends one row (row.size() == params). type_change: a parameter's
    // wire type differs from the one this packet announced; too_large: the
    // packet would exceed max_bytes. In both cases nothing was appended and
    // the row belongs in a new packet (too_large on an empty packet means
    // the row alone exceeds max_bytes).
    Append append(std::span<const BulkParam> row, std::size_t max_bytes);

    std::size_t rows() const noexcept { return rows_; }
    std::size_t size() const noexcept { return out_.size(); }

private:
    // Fixes the announced type of every parameter this row is the first to
    // bind with a value.
    void mark_types(std::span<const BulkParam> row);

    std::vector<std::uint8_t>& out_;
    std::size_t params_;
    std::size_t types_at_;
    // The kind that fixed parameter i's announced type (null: none yet).
    std::vector<ParamValue::Kind> typed_kinds_;
    std::size_t untyped_;  // parameters whose type no row has fixed yet
    std::size_t rows_ = 0;
};

}  // namespace sluice::mariadb::protocol
