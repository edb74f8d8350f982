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
//
// The write_* functions are the same formatter for callers that write into
// a Buffer of their own (the CDC lines, hundreds of thousands of cells a
// second): each writes at `p`, which has room for the bound the function
// names, and returns the end of what it wrote. The append_* functions are
// built on them (or, for strings, checked against them by the tests).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sluice/mariadb/row.hpp"

namespace sluice::mariadb::ndjson {

// A growable byte buffer for formatters: room(n) returns a pointer to at
// least n writable bytes past the end, commit(end) takes what was written
// up to `end`. Unlike std::string::resize, making room does not zero the
// new bytes first, so a bound can be generous (a JSON string's 6 bytes per
// input byte) at no cost.
class Buffer {
public:
    Buffer() = default;
    Buffer(Buffer&&) noexcept = default;
    Buffer& operator=(Buffer&&) noexcept = default;

    char* room(std::size_t n) {
        if (capacity_ - size_ < n) grow(n);
        return data_.get() + size_;
    }
    void commit(char* end) noexcept { size_ = static_cast<std::size_t>(end - data_.get()); }
    void append(std::string_view text) {
        char* p = room(text.size());
        if (!text.empty()) std::memcpy(p, text.data(), text.size());
        commit(p + text.size());
    }
    void push_back(char c) {
        char* p = room(1);
        *p = c;
        commit(p + 1);
    }
    std::string_view view() const noexcept { return {data_.get(), size_}; }
    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    void clear() noexcept { size_ = 0; }

private:
    void grow(std::size_t n);
    std::unique_ptr<char[]> data_;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

// Room enough for any integer, FLOAT or DOUBLE (non-finite ones included).
inline constexpr std::size_t max_number_length = 32;
char* write_null(char* p) noexcept;
char* write_integer(char* p, std::int64_t v) noexcept;
char* write_unsigned(char* p, std::uint64_t v) noexcept;
char* write_float(char* p, float v) noexcept;
char* write_double(char* p, double v) noexcept;
// A JSON string of `n` input bytes takes at most this much room.
constexpr std::size_t string_bound(std::size_t n) noexcept { return 6 * n + 2; }
char* write_string(char* p, std::string_view text) noexcept;
// The exact length of write_base64's output for n bytes (padding included).
constexpr std::size_t base64_length(std::size_t n) noexcept { return 4 * ((n + 2) / 3) + 2; }
char* write_base64(char* p, std::span<const std::uint8_t> bytes, std::size_t zero_padding = 0) noexcept;

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
