#pragma once
// A TABLE_MAP event, decoded: which table a table id stands for, and per
// column what the row images need to be read (type, metadata, nullability)
// plus the optional metadata MariaDB sends under binlog_row_metadata
// (MINIMAL: signedness, charsets, ENUM/SET values, geometry types; FULL
// adds column names and the primary key). Whatever the server did not send
// is left empty (`has_*` false); nothing is guessed.
//
// LIFETIME: a TableMap owns its strings. The Decoder hands them out as
// std::shared_ptr<const TableMap>, so a consumer may keep one (e.g. for the
// rows of a transaction still being grouped) past later TABLE_MAP events.
//
// Schema hints: the binlog does not say that a BINARY(16) column is a UUID,
// that a LONGTEXT is JSON, or what a column is called under
// binlog_row_metadata=MINIMAL. The session learns that from
// information_schema and attaches it with Decoder::set_schema(); the
// decoder then fills ColumnInfo::schema_type (and name, when the binlog did
// not send one) on every TABLE_MAP of that table whose column count matches.
#include <cstdint>
#include <string>
#include <vector>

#include "sluice/mariadb/protocol/constants.hpp"

namespace sluice::mariadb::binlog {

using protocol::ColumnType;

// What a schema hint says a column really is (information_schema's
// DATA_TYPE, lowercased): only the types whose row-image bytes are
// ambiguous change decoding.
enum class SchemaType : std::uint8_t {
    none,   // no hint: decode by the binlog type alone
    uuid,   // BINARY(16) in the binlog -> Uuid ("123e4567-e89b-12d3-a456-426614174000")
    inet6,  // BINARY(16) in the binlog -> Inet6 ("::1", "::ffff:1.2.3.4")
    inet4,  // 4-byte fixed binary      -> Inet4 ("1.2.3.4") (MariaDB 10.10+)
    json,   // LONGTEXT in the binlog   -> Json (the text, marked as JSON)
};

// "uuid", "inet6", "inet4", "json" -> the hint; anything else -> none
// (e.g. "int", "varchar": the binlog type is enough).
SchemaType schema_type_from_name(std::string_view data_type) noexcept;

struct SchemaColumn {
    std::string name;       // information_schema.COLUMNS.COLUMN_NAME
    std::string data_type;  // information_schema.COLUMNS.DATA_TYPE, e.g. "uuid", "json", "int"
    // information_schema.COLUMNS.DATETIME_PRECISION (-1: unknown / NULL).
    // Needed only for TIME(n)/DATETIME(n)/TIMESTAMP(n) columns in MariaDB
    // 5.3's format (tables created with mysql56_temporal_format=OFF): the
    // binlog logs them as the old types with no metadata, so their size
    // in the row image is unknowable without it.
    int datetime_precision = -1;
};

// One table's columns in ORDINAL_POSITION order.
struct TableSchema {
    std::vector<SchemaColumn> columns;
};

struct ColumnInfo {
    // The type the row image is encoded with, resolved: MYSQL_TYPE_STRING
    // columns whose metadata says ENUM or SET come out as enum_/set here.
    ColumnType type = ColumnType::null;
    ColumnType binlog_type = ColumnType::null;  // the byte in the TABLE_MAP, unresolved
    std::uint16_t metadata = 0;                 // the raw per-type metadata (0..2 bytes)
    bool nullable = true;

    // Derived from the metadata (0 where it does not apply).
    std::uint32_t max_length = 0;      // CHAR/BINARY/VARCHAR: bytes; BLOB: length-prefix bytes (1-4)
    std::uint8_t precision = 0;        // DECIMAL: digits in all (M)
    std::uint8_t scale = 0;            // DECIMAL: digits after the point (D)
    std::uint8_t fsp = 0;              // TIME2/DATETIME2/TIMESTAMP2: fractional digits (0-6);
                                       // old TIME/DATETIME/TIMESTAMP: from the schema hint
    std::uint8_t bit_width = 0;        // BIT(n): n (1-64)
    std::uint8_t pack_length = 0;      // ENUM/SET: bytes in the row image (1-2 / 1-8)

    // Optional metadata (binlog_row_metadata=MINIMAL or FULL).
    bool has_signedness = false;
    bool is_unsigned = false;          // numeric columns only
    bool has_charset = false;
    std::uint32_t charset = 0;         // collation id of a character column (63 = binary)
    bool has_name = false;
    std::string name;
    std::vector<std::string> enum_values;  // ENUM: value i+1 is enum_values[i]
    std::vector<std::string> set_values;   // SET: bit i is set_values[i]
    bool has_geometry_type = false;
    std::uint32_t geometry_type = 0;   // 0 GEOMETRY, 1 POINT, 2 LINESTRING, ...
    bool is_primary_key = false;

    // From Decoder::set_schema (SchemaType::none without a hint).
    SchemaType schema_type = SchemaType::none;

    // Character data (not bytes): CHAR/VARCHAR/TEXT with a charset other
    // than binary. Without the charset metadata, CHAR/VARCHAR count as text
    // and BLOB columns as bytes (the binlog type cannot tell TEXT from BLOB).
    bool is_text() const noexcept;
};

struct TableMap {
    std::uint64_t table_id = 0;
    std::uint16_t flags = 0;
    std::string db;
    std::string table;
    std::vector<ColumnInfo> columns;
    // Column indexes of the primary key in key order (FULL only; empty when
    // the server did not send one or the table has none).
    std::vector<std::uint32_t> primary_key;
    bool has_primary_key = false;
    bool has_column_names = false;     // every column has a name (FULL, or from the schema)
    bool schema_applied = false;       // a set_schema() hint matched this map
};

}  // namespace sluice::mariadb::binlog
