#pragma once
// One cell of a row image, typed: a small variant that never allocates.
// Strings, blobs, ENUM/SET names and UUID/INET bytes are views into the
// event (or into the TableMap for ENUM/SET names); their text forms are
// produced on demand by to_text() / append_text().
//
// LIFETIME: a Value is valid as long as the bytes of the Rows event it was
// read from (see rows.hpp) and the TableMap of that event.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "sluice/mariadb/binlog/table_map.hpp"
#include "sluice/mariadb/values.hpp"

namespace sluice::mariadb::binlog {

using Bytes = std::span<const std::uint8_t>;

// TIMESTAMP: an instant, seconds since the epoch in UTC (0 is the zero
// timestamp "0000-00-00 00:00:00").
struct Timestamp {
    std::int64_t seconds = 0;
    std::uint32_t microseconds = 0;
    friend bool operator==(const Timestamp&, const Timestamp&) = default;
};

// YEAR: 0 (the zero year, "0000") or 1901..2155.
struct Year {
    std::uint16_t value = 0;
    friend bool operator==(const Year&, const Year&) = default;
};

// BIT(width): the bits right-aligned in `value`.
struct Bit {
    std::uint64_t value = 0;
    std::uint8_t width = 1;
    friend bool operator==(const Bit&, const Bit&) = default;
};

// CHAR/VARCHAR/TEXT in the column's charset (utf8mb4 for most tables),
// exactly as stored (CHAR is stored without its trailing spaces, which is
// also how SELECT shows it).
struct Text {
    std::string_view value;
};

// BINARY/VARBINARY/BLOB bytes. BINARY(n) drops trailing 0x00 in the binlog;
// SELECT shows it padded to n bytes, so `padded_length` says how long the
// value really is: the bytes of `value` then (padded_length - value.size())
// zero bytes. For every other column padded_length == value.size().
struct Blob {
    Bytes value;
    std::uint32_t padded_length = 0;
    std::size_t size() const noexcept { return padded_length; }
    // The byte at i < size(), padding included.
    std::uint8_t operator[](std::size_t i) const noexcept { return i < value.size() ? value[i] : 0; }
};

// ENUM: its 1-based index and its string ('' for index 0, the error value).
struct Enum {
    std::uint16_t index = 0;
    std::string_view name;
};

// SET: the member bits and the member names (from the TABLE_MAP metadata);
// the text is the set members joined by ',' in definition order.
struct Set {
    std::uint64_t bits = 0;
    std::span<const std::string> names;  // names[i] is bit i (empty without SET metadata)
};

// JSON (a schema hint on a LONGTEXT column): its text, as MariaDB stores it.
struct Json {
    std::string_view value;
};

// GEOMETRY: the bytes SELECT returns (4-byte SRID then WKB).
struct Geometry {
    Bytes value;
};

// UUID / INET6 / INET4 (schema hints): the fixed bytes, re-padded (the
// binlog drops trailing 0x00 of fixed binary columns), copied: 16/16/4.
// UUID bytes are in text order; INET6/INET4 in network order.
struct Uuid {
    std::array<std::uint8_t, 16> bytes{};
};
struct Inet6 {
    std::array<std::uint8_t, 16> bytes{};
};
struct Inet4 {
    std::array<std::uint8_t, 4> bytes{};
};

// Integers: int64 for signed columns, uint64 for unsigned ones (from the
// signedness metadata; without it, every integer is read as signed).
using Value = std::variant<std::int64_t, std::uint64_t, float, double, Decimal, Date, Time, DateTime,
                           Timestamp, Year, Bit, Text, Blob, Enum, Set, Json, Geometry, Uuid, Inet6,
                           Inet4>;

// The value's text as a SELECT on the text protocol shows it (TIMESTAMP in
// UTC; TIME/DATETIME/TIMESTAMP with the column's fsp digits; FLOAT and
// DOUBLE as the shortest decimal that reads back as the same value, in
// std::to_chars form ("1e+20"; the server's own text differs: "1e20",
// and FLOAT there has 6 significant digits); BIT as
// its unsigned number; ENUM/SET as their strings; UUID/INET as MariaDB
// prints them; Blob/Geometry as their raw bytes, BINARY(n) padded).
void append_text(std::string& out, const Value& value, const ColumnInfo& column);
std::string to_text(const Value& value, const ColumnInfo& column);

// The same text of the temporal values written at `p` (room for
// max_temporal_text bytes), for formatters with a buffer of their own;
// `fsp` is the column's fractional digits. append_text uses these.
inline constexpr std::size_t max_temporal_text = 32;
char* write_text(char* p, const Date& d) noexcept;
char* write_text(char* p, const Time& t, int fsp) noexcept;
char* write_text(char* p, const DateTime& dt, int fsp) noexcept;
char* write_text(char* p, const Timestamp& ts, int fsp) noexcept;

// Timestamp -> its UTC calendar form (for callers that want fields).
DateTime to_utc_datetime(const Timestamp& ts) noexcept;

}  // namespace sluice::mariadb::binlog
