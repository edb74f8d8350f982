#pragma once
// Extensions of a command's first response used by the fast paths:
//  - the column count packet of a result set, which carries a "metadata
//    follows" byte when MARIADB_CLIENT_CACHE_METADATA was negotiated (0: the
//    column definitions are skipped, the client uses the ones it cached from
//    COM_STMT_PREPARE or an earlier execute);
//  - the LOCAL INFILE request (0xFB + file name) a LOAD DATA LOCAL statement
//    answers with;
//  - COM_STMT_EXECUTE's cursor flags and COM_STMT_FETCH.
#include <cstdint>
#include <string_view>

#include "sluice/mariadb/protocol/wire.hpp"

namespace sluice::mariadb::protocol {

struct ColumnCountHead {
    std::uint64_t columns = 0;
    bool metadata_follows = true;
};
// cache_metadata: whether the capability was negotiated (the byte is then
// required).
ColumnCountHead parse_column_count_head(Bytes packet, bool cache_metadata);

inline bool is_local_infile_request(Bytes p) noexcept { return !p.empty() && p[0] == 0xFB; }
// The file name the server asks for (the rest of the packet, as sent).
std::string_view parse_local_infile_request(Bytes packet);

namespace cursor_flag {
inline constexpr std::uint8_t none = 0;
inline constexpr std::uint8_t read_only = 1;
}  // namespace cursor_flag

inline constexpr std::uint8_t com_stmt_fetch = 0x1C;
// COM_STMT_FETCH: the next `rows` rows of the statement's open cursor.
void write_stmt_fetch(Writer& w, std::uint32_t statement_id, std::uint32_t rows);

}  // namespace sluice::mariadb::protocol
