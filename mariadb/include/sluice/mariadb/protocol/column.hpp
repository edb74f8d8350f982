#pragma once
// Column Definition packet (protocol 4.1), with MariaDB's extended type
// info (MARIADB_CLIENT_EXTENDED_METADATA: "json", "uuid", geometry kinds).
#include <cstdint>
#include <string_view>

#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/protocol/wire.hpp"

namespace sluice::mariadb::protocol {

struct ColumnDefinition {
    std::string_view catalog;
    std::string_view schema;
    std::string_view table;      // alias
    std::string_view org_table;
    std::string_view name;       // alias
    std::string_view org_name;
    std::string_view extended_type;    // extended info 0x00, e.g. "point"
    std::string_view extended_format;  // extended info 0x01, e.g. "json"
    std::uint16_t collation = 0;
    std::uint32_t length = 0;
    ColumnType type = ColumnType::null;
    std::uint16_t flags = 0;
    std::uint8_t decimals = 0;
};

// `capabilities` says whether the extended-metadata block is present.
ColumnDefinition parse_column_definition(Bytes packet, std::uint64_t capabilities);

// A column-count packet: the count (1..4096 in practice; anything above
// 65535 is rejected as hostile so no caller sizes memory from it).
std::uint64_t parse_column_count(Bytes packet);

}  // namespace sluice::mariadb::protocol
