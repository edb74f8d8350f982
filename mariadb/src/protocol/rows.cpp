#include "sluice/mariadb/protocol/rows.hpp"

#include <string>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::protocol {

namespace {

std::string field_name(std::size_t i) { return "column " + std::to_string(i); }

// Bytes of a fixed-width binary value; 0 for length-prefixed encodings.
std::size_t fixed_width(ColumnType t) noexcept {
    switch (t) {
        case ColumnType::tiny: return 1;
        case ColumnType::short_:
        case ColumnType::year: return 2;
        case ColumnType::long_:
        case ColumnType::int24:
        case ColumnType::float_: return 4;
        case ColumnType::longlong:
        case ColumnType::double_: return 8;
        default: return 0;
    }
}

bool is_binary_datetime(ColumnType t) noexcept {
    return t == ColumnType::date || t == ColumnType::datetime || t == ColumnType::timestamp ||
           t == ColumnType::newdate || t == ColumnType::datetime2 || t == ColumnType::timestamp2;
}
bool is_binary_time(ColumnType t) noexcept { return t == ColumnType::time || t == ColumnType::time2; }

}  // namespace

void decode_text_row(Bytes packet, std::span<FieldSlice> out) {
    // Hot loop: one-byte lengths (values under 251 bytes) and NULLs are
    // handled inline; longer prefixes and every error go through Reader,
    // which names the failing column.
    const std::uint8_t* p = packet.data();
    const std::uint8_t* const end = p + packet.size();
    std::size_t i = 0;
    for (; i < out.size(); ++i) {
        if (p == end) break;
        std::uint8_t first = *p;
        if (first < 0xFB) {
            if (static_cast<std::size_t>(end - p - 1) < first) break;
            out[i] = FieldSlice{Bytes(p + 1, first), false};
            p += 1 + first;
        } else if (first == 0xFB) {
            out[i] = FieldSlice{{}, true};
            ++p;
        } else {
            Reader r(Bytes(p, end), "text result row");
            Bytes value;
            try {
                value = r.lenenc_bytes("value");
            } catch (const Error& e) {
                throw Error(ErrorKind::protocol, std::string(e.what()) + " in " + field_name(i));
            }
            out[i] = FieldSlice{value, false};
            p = value.data() + value.size();
        }
    }
    if (i < out.size()) {
        Reader r(Bytes(p, end), "text result row");
        std::string what = p == end ? "row ends before its " + std::to_string(out.size()) + " columns"
                                    : "value length exceeds the bytes left";
        r.fail(field_name(i), what);
    }
    if (p != end) {
        throw Error(ErrorKind::protocol, "malformed text result row: " + std::to_string(end - p) +
                                             " bytes after the last column");
    }
}

// The checked decoder: every read through Reader, which names the failing
// part. The fast path below hands any row it does not accept to it, so
// errors (and their messages) come from one place.
void decode_binary_row_checked(Bytes packet, std::span<const ColumnType> types, std::span<FieldSlice> out) {
    Reader r(packet, "binary result row");
    if (r.u8("header") != 0x00) r.fail("header", "expected 0x00");
    Bytes bitmap = r.bytes(binary_row_null_bitmap_size(out.size()), "NULL bitmap");
    std::size_t i = 0;
    // Field names are built only on failure: this loop runs once per value.
    try {
        for (; i < out.size(); ++i) {
            std::size_t bit = i + 2;
            if (bitmap[bit / 8] & (1u << (bit % 8))) {
                out[i] = FieldSlice{{}, true};
                continue;
            }
            ColumnType t = types[i];
            if (std::size_t w = fixed_width(t)) {
                out[i] = FieldSlice{r.bytes(w, "value"), false};
            } else if (is_binary_datetime(t) || is_binary_time(t)) {
                std::uint8_t n = r.u8("value length");
                bool ok = is_binary_time(t) ? (n == 0 || n == 8 || n == 12)
                                            : (n == 0 || n == 4 || n == 7 || n == 11);
                if (!ok) r.fail("value length", "invalid " + std::string(to_string(t)) + " length " + std::to_string(n));
                out[i] = FieldSlice{r.bytes(n, "value"), false};
            } else if (t == ColumnType::null) {
                r.fail("value", "NULL-typed column not marked NULL in the bitmap");
            } else {
                out[i] = FieldSlice{r.lenenc_bytes("value"), false};
            }
        }
    } catch (const Error& e) {
        throw Error(ErrorKind::protocol, std::string(e.what()) + " in " + field_name(i));
    }
    if (!r.at_end()) r.fail("end of row", std::to_string(r.remaining()) + " bytes after the last column");
}

void decode_binary_row(Bytes packet, std::span<const ColumnType> types, std::span<FieldSlice> out) {
    // Hot loop (every row of every prepared result and cursor): raw
    // pointers, one bounds check per value. Anything unusual -- a
    // malformed row, a NULL-typed column -- goes to the checked decoder,
    // which decodes it the same way or throws the precise error.
    const std::size_t n = out.size();
    const std::size_t bitmap_size = binary_row_null_bitmap_size(n);
    const std::uint8_t* p = packet.data();
    const std::uint8_t* const end = p + packet.size();
    if (packet.size() < 1 + bitmap_size || p[0] != 0x00) return decode_binary_row_checked(packet, types, out);
    const std::uint8_t* const bitmap = p + 1;
    p += 1 + bitmap_size;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t bit = i + 2;
        if (bitmap[bit / 8] & (1u << (bit % 8))) {
            out[i] = FieldSlice{{}, true};
            continue;
        }
        const ColumnType t = types[i];
        const auto left = static_cast<std::size_t>(end - p);
        std::size_t header = 0;
        std::size_t length = fixed_width(t);
        if (length == 0) {
            if (left == 0) return decode_binary_row_checked(packet, types, out);
            const std::uint8_t first = p[0];
            if (is_binary_datetime(t)) {
                if (first != 0 && first != 4 && first != 7 && first != 11) {
                    return decode_binary_row_checked(packet, types, out);
                }
                header = 1;
                length = first;
            } else if (is_binary_time(t)) {
                if (first != 0 && first != 8 && first != 12) return decode_binary_row_checked(packet, types, out);
                header = 1;
                length = first;
            } else if (t == ColumnType::null || first == 0xFB || first == 0xFF) {
                return decode_binary_row_checked(packet, types, out);  // an error either way
            } else if (first < 0xFB) {
                header = 1;
                length = first;
            } else if (first == 0xFC && left >= 3) {
                header = 3;
                length = std::size_t{p[1]} | (std::size_t{p[2]} << 8);
            } else if (first == 0xFD && left >= 4) {
                header = 4;
                length = std::size_t{p[1]} | (std::size_t{p[2]} << 8) | (std::size_t{p[3]} << 16);
            } else {
                return decode_binary_row_checked(packet, types, out);  // 8-byte length, or truncated
            }
        }
        if (header + length > left) return decode_binary_row_checked(packet, types, out);
        out[i] = FieldSlice{Bytes(p + header, length), false};
        p += header + length;
    }
    if (p != end) decode_binary_row_checked(packet, types, out);
}

DateTime decode_binary_datetime(Bytes value) {
    Reader r(value, "binary DATETIME value");
    DateTime dt;
    if (value.empty()) return dt;
    if (value.size() != 4 && value.size() != 7 && value.size() != 11) {
        r.fail("length", "invalid length " + std::to_string(value.size()));
    }
    dt.year = r.u16("year");
    dt.month = r.u8("month");
    dt.day = r.u8("day");
    if (value.size() >= 7) {
        dt.hour = r.u8("hour");
        dt.minute = r.u8("minute");
        dt.second = r.u8("second");
    }
    if (value.size() == 11) dt.microsecond = r.u32("microsecond");
    if (dt.month > 12 || dt.day > 31 || dt.hour > 23 || dt.minute > 59 || dt.second > 59 ||
        dt.microsecond > 999999) {
        throw Error(ErrorKind::protocol, "malformed binary DATETIME value: field out of range");
    }
    return dt;
}

Time decode_binary_time(Bytes value) {
    Reader r(value, "binary TIME value");
    Time t;
    if (value.empty()) return t;
    if (value.size() != 8 && value.size() != 12) r.fail("length", "invalid length " + std::to_string(value.size()));
    std::uint8_t neg = r.u8("is negative");
    std::uint32_t days = r.u32("days");
    std::uint8_t hours = r.u8("hours");
    t.minutes = r.u8("minutes");
    t.seconds = r.u8("seconds");
    if (value.size() == 12) t.microseconds = r.u32("microseconds");
    if (neg > 1 || days > 34 || hours > 23 || t.minutes > 59 || t.seconds > 59 || t.microseconds > 999999) {
        throw Error(ErrorKind::protocol, "malformed binary TIME value: field out of range");
    }
    t.negative = neg == 1;
    t.hours = days * 24 + hours;
    return t;
}

}  // namespace sluice::mariadb::protocol
