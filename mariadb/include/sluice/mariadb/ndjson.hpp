#pragma once
// The one NDJSON value formatter of the MariaDB part: how `sluice-mariadb
// --format ndjson` prints a SELECT's columns and how `sluice-mariadb cdc`
// prints row images, so that the same stored value gives the same text.
//
//   integers, YEAR, BIT       JSON numbers (BIT as its unsigned value)
//   FLOAT                     the shortest decimal that reads back as the same
//                             32-bit float (std::to_chars), a JSON number
//   DOUBLE                    the shortest decimal that reads back as the same
//                             double
//   DECIMAL                   a string, every digit and the scale kept ("1.50")
//   DATE, TIME, DATETIME,     strings as the server's text protocol prints them,
//   TIMESTAMP                 with the column's fractional digits; TIMESTAMP in
//                             UTC (the CLI sets time_zone='+00:00')
//   CHAR/VARCHAR/TEXT, ENUM,  strings
//   SET, JSON, UUID, INET4/6
//   BINARY/VARBINARY/BLOB,    base64 strings (BINARY(n) padded to n bytes)
//   GEOMETRY
//   NULL                      null
//
// Callers build objects with append_key() and the append_* value functions;
// append_field() applies the table above to a SELECT's Field.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "sluice/mariadb/row.hpp"

namespace sluice::mariadb::ndjson {

void append_null(std::string& out);
void append_integer(std::string& out, std::int64_t v);
void append_unsigned(std::string& out, std::uint64_t v);
// Non-finite values (which MariaDB does not store) are written as strings.
void append_float(std::string& out, float v);
void append_double(std::string& out, double v);
// A JSON string (the text must be valid UTF-8).
void append_string(std::string& out, std::string_view text);
// Bytes as a base64 JSON string, followed by `zero_padding` zero bytes.
void append_base64(std::string& out, std::span<const std::uint8_t> bytes, std::size_t zero_padding = 0);
// `"key":`
void append_key(std::string& out, std::string_view key);

// How a result column prints (the table above), decided from its metadata.
enum class ValueStyle { integer, unsigned_integer, bit, float32, float64, bytes, text };
ValueStyle style_of(const Column& column) noexcept;

// One field of a SELECT, binary or text protocol.
void append_field(std::string& out, const Field& field);
// A whole row as a JSON object keyed by column name (no newline).
void append_row(std::string& out, const Row& row);

}  // namespace sluice::mariadb::ndjson
