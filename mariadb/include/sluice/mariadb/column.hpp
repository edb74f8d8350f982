#pragma once
// A result set column's metadata, copied out of its definition packet (it
// outlives the packet buffer).
#include <cstdint>
#include <string>

#include "sluice/mariadb/protocol/column.hpp"
#include "sluice/mariadb/protocol/constants.hpp"

namespace sluice::mariadb {

using protocol::ColumnType;

struct Column {
    std::string schema;
    std::string table;      // alias as written in the query
    std::string org_table;
    std::string name;       // alias as written in the query
    std::string org_name;
    std::string extended_type;    // MariaDB extended metadata, e.g. "point"
    std::string extended_format;  // e.g. "json"
    std::uint16_t collation = 0;
    std::uint32_t length = 0;
    ColumnType type = ColumnType::null;
    std::uint16_t flags = 0;
    std::uint8_t decimals = 0;

    static Column from(const protocol::ColumnDefinition& def);

    bool is_unsigned() const noexcept { return flags & protocol::column_flag::unsigned_; }
    // Bytes rather than text: a binary-collation string or blob.
    bool is_binary() const noexcept { return collation == protocol::binary_collation; }
    bool is_enum() const noexcept { return type == ColumnType::enum_ || (flags & protocol::column_flag::enum_); }
    bool is_set() const noexcept { return type == ColumnType::set || (flags & protocol::column_flag::set); }
    bool is_json() const noexcept { return type == ColumnType::json || extended_format == "json"; }
    // "BIGINT UNSIGNED", "ENUM", "JSON", "VARBINARY"... for messages.
    std::string type_name() const;
};

}  // namespace sluice::mariadb
