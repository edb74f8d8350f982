#pragma once
// Result set rows, text and binary, split into per-field byte slices that
// point into the packet (nothing is copied or allocated: the caller owns a
// slice array sized once per result set).
//
// Text row: one string<lenenc> per column, 0xFB for NULL.
// Binary row: 0x00, a NULL bitmap of (columns + 7 + 2) / 8 bytes whose first
// two bits are reserved (column i is bit i + 2), then the non-NULL values in
// their binary encodings (fixed-width integers and floats, a length byte +
// 0/4/7/11 bytes for dates, 0/8/12 for times, string<lenenc> for the rest).
#include <cstdint>
#include <span>

#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/protocol/wire.hpp"
#include "sluice/mariadb/values.hpp"

namespace sluice::mariadb::protocol {

struct FieldSlice {
    Bytes bytes;  // the value's bytes (binary temporal: without its length byte)
    bool null = false;
};

// out.size() is the column count; the packet must hold exactly that many
// fields. Error{protocol} naming the column otherwise.
void decode_text_row(Bytes packet, std::span<FieldSlice> out);
// types[i] is column i's wire type; types.size() == out.size().
void decode_binary_row(Bytes packet, std::span<const ColumnType> types, std::span<FieldSlice> out);
// The same through Reader at every step: what decode_binary_row falls back
// to for any row its fast loop declines (and the reference it is tested
// against). Same slices, same errors.
void decode_binary_row_checked(Bytes packet, std::span<const ColumnType> types, std::span<FieldSlice> out);

// Binary temporal values, from a FieldSlice of a binary row (length already
// validated by decode_binary_row; these check again, as they may be called
// on any bytes).
DateTime decode_binary_datetime(Bytes value);
Time decode_binary_time(Bytes value);

// Size of the NULL bitmap of a binary row with n columns.
constexpr std::size_t binary_row_null_bitmap_size(std::size_t columns) noexcept {
    return (columns + 7 + 2) / 8;
}

}  // namespace sluice::mariadb::protocol
