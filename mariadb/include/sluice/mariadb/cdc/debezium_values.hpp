#pragma once
// Row images and values as Debezium's MySQL/MariaDB connector writes them
// (its JSON converter with schemas.enable=false and the connector's default
// modes; docs/mariadb-cdc.md "--format debezium" has the table and the
// Debezium version followed):
//
//   integers                   numbers; BIGINT UNSIGNED as a signed 64-bit
//                              number (bigint.unsigned.handling.mode=long:
//                              values above 2^63-1 wrap, as in Debezium)
//   FLOAT, DOUBLE              numbers
//   DECIMAL                    precise: base64 of the unscaled value's
//                              two's-complement big-endian bytes (the column's
//                              scale); string: "-1.50"; double: a number
//   DATE                       days since 1970-01-01
//   TIME                       signed microseconds (negative and > 24 h kept)
//   DATETIME(0-3) / (4-6)      milliseconds / microseconds since the epoch,
//                              the local date-time read as UTC
//   TIMESTAMP(fsp)             "2018-06-20T13:37:03Z", exactly fsp fraction
//                              digits when fsp > 0 (io.debezium.time.ZonedTimestamp)
//   YEAR                       a number
//   CHAR/VARCHAR/TEXT, ENUM,   strings (JSON: its text; UUID/INET: MariaDB's text)
//   SET, JSON, UUID, INET4/6
//   BINARY/VARBINARY/BLOB      base64 (binary.handling.mode=bytes; BINARY(n)
//                              padded to n bytes)
//   BIT(1) / BIT(n > 1)        true/false / base64 of ceil(n/8) little-endian bytes
//   GEOMETRY                   {"wkb":base64,"srid":N or null,"extensions":null}
//   zero and invalid dates     null (DATE, DATETIME, TIMESTAMP; in a NOT NULL
//                              column: the epoch, 0 / "1970-01-01T00:00:00Z")
//
// Values are written straight into the formatter's Buffer: nothing is
// allocated per value.
//
// LIFETIME: nothing is kept; the cells, fields and table map are read
// during the call.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "sluice/mariadb/binlog/rows.hpp"
#include "sluice/mariadb/binlog/table_map.hpp"
#include "sluice/mariadb/cdc/change_events.hpp"
#include "sluice/mariadb/ndjson.hpp"

namespace sluice::mariadb::cdc::debezium {

// decimal.handling.mode
enum class DecimalHandling : std::uint8_t { precise, string, double_ };

struct ValueOptions {
    DecimalHandling decimal = DecimalHandling::precise;
};

// One cell's value (not NULL: the caller writes null for a NULL cell).
// Writes null itself for a zero or invalid date in a nullable column.
void append_value(mariadb::ndjson::Buffer& out, const binlog::Value& value, const binlog::ColumnInfo& column,
                  const ValueOptions& options = {});

// {"name":value,...} over the present cells (a column the server did not
// log is left out; a column without a name is "@N", as in the NDJSON lines).
void append_image(mariadb::ndjson::Buffer& out, std::span<const binlog::Cell> cells, const binlog::TableMap& table,
                  const ValueOptions& options = {});
void append_image(std::string& out, std::span<const binlog::Cell> cells, const binlog::TableMap& table,
                  const ValueOptions& options = {});

// One row of a snapshot chunk (a prepared SELECT's Fields, TIMESTAMP read
// in UTC) as the same {"name":value,...} object: each Field is read into
// the binlog Value of its type and written as above, so a snapshot read
// and a change of the same row carry the same encodings.
// (debezium_snapshot_rows.cpp)
void append_snapshot_row(std::string& out, const cdc::SnapshotChunk& chunk, std::size_t row,
                         const ValueOptions& options = {});
// One Field, likewise (NULL included).
void append_field(mariadb::ndjson::Buffer& out, const Field& field, const ValueOptions& options = {});

// The conversions, for callers with values of their own.
// Days from 1970-01-01 to y-m-d (proleptic Gregorian; negative before 1970).
std::int64_t days_since_epoch(int year, unsigned month, unsigned day) noexcept;
// A date Debezium can represent: month 1-12 and a day that month has.
bool is_valid_date(int year, unsigned month, unsigned day) noexcept;
// Room for write_unscaled_base64's output: 65 digits take 28 bytes.
inline constexpr std::size_t max_unscaled_base64 = 4 * ((32 + 2) / 3) + 2;
// The quoted base64 of the unscaled value of DECIMAL text (sign, digits,
// point; `scale` digits after the point, padded with zeros when the text
// has fewer): Java's BigInteger.toByteArray(), the minimal two's-complement
// big-endian form. At most 65 digits.
char* write_unscaled_base64(char* p, std::string_view decimal_text, unsigned scale) noexcept;

}  // namespace sluice::mariadb::cdc::debezium
