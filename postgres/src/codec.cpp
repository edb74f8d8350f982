#include "codec.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

// [[gnu::hot]]: the encoders and decoders of every executed statement and
// row, placed together (see result.cpp).

namespace sluice::postgres::detail {

namespace {

template <class U>
void put_big_endian(EncodedParam& e, U v) {
    static_assert(sizeof(U) <= EncodedParam::kScratch);
    if constexpr (std::endian::native == std::endian::little) {
        if constexpr (sizeof(U) == 8) v = __builtin_bswap64(v);
        else if constexpr (sizeof(U) == 4) v = __builtin_bswap32(v);
        else if constexpr (sizeof(U) == 2) v = __builtin_bswap16(v);
    }
    std::memcpy(e.scratch, &v, sizeof(U));
    e.length = sizeof(U);
}

// A literal or short text made here, into the scratch room (every caller's
// text fits: see EncodedParam::kScratch), NUL-terminated: libpq sends a
// text-format parameter up to its NUL, whatever its length says.
void put_text(EncodedParam& e, std::string_view text) {
    std::memcpy(e.scratch, text.data(), text.size());
    e.scratch[text.size()] = '\0';
    e.length = text.size();
}

// The shortest text of `v` that reads back to the same double, into `buf`.
std::string_view float_chars(double v, char (&buf)[EncodedParam::kScratch]) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return std::string_view(buf, static_cast<std::size_t>(end - buf));
}

template <class U>
U get_big_endian(std::string_view bytes) {
    U v;
    std::memcpy(&v, bytes.data(), sizeof(U));
    if constexpr (std::endian::native == std::endian::little) {
        if constexpr (sizeof(U) == 8) v = __builtin_bswap64(v);
        else if constexpr (sizeof(U) == 4) v = __builtin_bswap32(v);
        else if constexpr (sizeof(U) == 2) v = __builtin_bswap16(v);
    }
    return v;
}

[[noreturn]] void fail(const std::string& what, const std::string& why) {
    throw Error(ErrorKind::conversion, what + ": " + why);
}

[[noreturn]] void fail(const FieldName& what, const std::string& why) { fail(what.str(), why); }

bool is_text_like(Oid type) {
    switch (type) {
        case type_oid::text:
        case type_oid::varchar:
        case type_oid::bpchar:
        case type_oid::name:
        case type_oid::char_:
        case type_oid::json:
        case type_oid::unknown: return true;
        default: return false;
    }
}

std::string param_name(int position) { return "parameter $" + std::to_string(position); }

EncodedParam encode_int(std::int64_t v, Oid target, int position) {
    EncodedParam e;
    e.type = target == 0 ? type_oid::int8 : target;
    e.format = 1;
    switch (e.type) {
        case type_oid::int8: put_big_endian(e, static_cast<std::uint64_t>(v)); return e;
        case type_oid::int4:
            if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
                fail(param_name(position), std::to_string(v) + " is out of range for int4");
            put_big_endian(e, static_cast<std::uint32_t>(static_cast<std::int32_t>(v)));
            return e;
        case type_oid::int2:
            if (v < std::numeric_limits<std::int16_t>::min() || v > std::numeric_limits<std::int16_t>::max())
                fail(param_name(position), std::to_string(v) + " is out of range for int2");
            put_big_endian(e, static_cast<std::uint16_t>(static_cast<std::int16_t>(v)));
            return e;
        default: {  // numeric, float8, text, ...: the server parses the decimal text
            e.format = 0;
            char buf[EncodedParam::kScratch];
            auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
            put_text(e, std::string_view(buf, static_cast<std::size_t>(end - buf)));
            return e;
        }
    }
}

EncodedParam encode_float(double v, Oid target) {
    EncodedParam e;
    e.type = target == 0 ? type_oid::float8 : target;
    if (e.type == type_oid::float8) {
        e.format = 1;
        put_big_endian(e, std::bit_cast<std::uint64_t>(v));
    } else {
        char buf[EncodedParam::kScratch];
        put_text(e, float_chars(v, buf));  // float4 rounds on the server, as a literal would
    }
    return e;
}

EncodedParam encode_bool(bool v, Oid target) {
    EncodedParam e;
    e.type = target == 0 ? type_oid::boolean : target;
    if (e.type == type_oid::boolean) {
        e.format = 1;
        e.scratch[0] = v ? 1 : 0;
        e.length = 1;
    } else {
        put_text(e, v ? "true" : "false");
    }
    return e;
}

std::string printable(std::string_view bytes) {
    std::string out;
    for (char c : bytes.substr(0, 40)) {
        if (c >= 0x20 && c < 0x7F) out += c;
        else out += '?';
    }
    return "\"" + out + (bytes.size() > 40 ? "...\"" : "\"");
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The text-format readings, apart from the binary ones above them (which
// stay small, with the per-row code).
[[gnu::noinline]] std::int64_t int_of_text(std::string_view bytes, const FieldName& what) {
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(bytes.data(), bytes.data() + bytes.size(), v);
    if (ec != std::errc() || end != bytes.data() + bytes.size() || bytes.empty())
        fail(what, "not an integer: " + printable(bytes));
    return v;
}

[[gnu::noinline]] double float_of_text(std::string_view bytes, const FieldName& what) {
    if (bytes == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (bytes == "Infinity") return std::numeric_limits<double>::infinity();
    if (bytes == "-Infinity") return -std::numeric_limits<double>::infinity();
    double v = 0;
    auto [end, ec] = std::from_chars(bytes.data(), bytes.data() + bytes.size(), v);
    if (ec != std::errc() || end != bytes.data() + bytes.size() || bytes.empty())
        fail(what, "not a float: " + printable(bytes));
    return v;
}

}  // namespace

std::string FieldName::str() const {
    if (column_ == nullptr) return name_ != nullptr ? name_ : "value";
    return "column " + std::to_string(index_) + " (\"" + column_->name + "\", " + type_name(column_->type) + ")";
}

std::string float_text(double v) {
    char buf[EncodedParam::kScratch];
    return std::string(float_chars(v, buf));
}

[[gnu::hot]] EncodedParam encode_param(const Param& param, Oid target, int position) {
    struct Visitor {
        Oid target;
        int position;
        EncodedParam operator()(std::monostate) const {
            EncodedParam e;
            e.type = target;
            e.is_null = true;
            return e;
        }
        EncodedParam operator()(std::int64_t v) const { return encode_int(v, target, position); }
        EncodedParam operator()(double v) const { return encode_float(v, target); }
        EncodedParam operator()(bool v) const { return encode_bool(v, target); }
        EncodedParam operator()(const std::string& v) const {
            if (v.find('\0') != std::string::npos)
                fail(param_name(position), "text cannot contain a NUL byte");
            EncodedParam e;
            e.type = target;  // 0: unknown, the server infers as for a literal
            e.borrowed = v.data();
            e.length = v.size();
            return e;
        }
        EncodedParam operator()(const Bytes& v) const {
            EncodedParam e;
            e.type = target == 0 ? type_oid::bytea : target;
            if (e.type != type_oid::bytea)
                fail(param_name(position), "bytes can only be bound to bytea, not " + type_name(e.type));
            e.format = 1;
            // A non-null pointer even for no bytes: borrowed, not scratch.
            e.borrowed = v.empty() ? "" : reinterpret_cast<const char*>(v.data());
            e.length = v.size();
            return e;
        }
    };
    return std::visit(Visitor{target, position}, param.value());
}

[[gnu::hot]] std::int64_t decode_int(std::string_view bytes, Oid type, Format format, const FieldName& what) {
    if (type != type_oid::int8 && type != type_oid::int4 && type != type_oid::int2)
        fail(what, "a " + type_name(type) + " cannot be read as an integer");
    if (format == Format::binary) {
        const std::size_t want = type == type_oid::int8 ? 8 : type == type_oid::int4 ? 4 : 2;
        if (bytes.size() != want)
            fail(what, type_name(type) + " value of " + std::to_string(bytes.size()) + " bytes, expected " +
                           std::to_string(want));
        if (want == 8) return static_cast<std::int64_t>(get_big_endian<std::uint64_t>(bytes));
        if (want == 4) return static_cast<std::int32_t>(get_big_endian<std::uint32_t>(bytes));
        return static_cast<std::int16_t>(get_big_endian<std::uint16_t>(bytes));
    }
    return int_of_text(bytes, what);
}

[[gnu::hot]] double decode_float(std::string_view bytes, Oid type, Format format, const FieldName& what) {
    if (type != type_oid::float8 && type != type_oid::float4)
        fail(what, "a " + type_name(type) + " cannot be read as a float");
    if (format == Format::binary) {
        const std::size_t want = type == type_oid::float8 ? 8 : 4;
        if (bytes.size() != want)
            fail(what, type_name(type) + " value of " + std::to_string(bytes.size()) + " bytes, expected " +
                           std::to_string(want));
        if (want == 8) return std::bit_cast<double>(get_big_endian<std::uint64_t>(bytes));
        return static_cast<double>(std::bit_cast<float>(get_big_endian<std::uint32_t>(bytes)));
    }
    return float_of_text(bytes, what);
}

[[gnu::hot]] bool decode_bool(std::string_view bytes, Oid type, Format format, const FieldName& what) {
    if (type != type_oid::boolean) fail(what, "a " + type_name(type) + " cannot be read as a bool");
    if (format == Format::binary) {
        if (bytes.size() != 1 || static_cast<unsigned char>(bytes[0]) > 1)
            fail(what, "malformed binary bool");
        return bytes[0] == 1;
    }
    if (bytes == "t") return true;
    if (bytes == "f") return false;
    fail(what, "not a bool: " + printable(bytes));
}

[[gnu::hot]] std::string_view decode_text(std::string_view bytes, Oid type, Format format, const FieldName& what) {
    if (format == Format::binary && !is_text_like(type))
        fail(what, "a " + type_name(type) + " in binary format cannot be read as text (use Format::text)");
    return bytes;
}

Bytes decode_bytes(std::string_view bytes, Oid type, Format format, const FieldName& what) {
    if (type != type_oid::bytea) fail(what, "a " + type_name(type) + " cannot be read as bytes");
    if (format == Format::binary) return Bytes(bytes.begin(), bytes.end());
    Bytes out;
    if (bytes.size() >= 2 && bytes[0] == '\\' && bytes[1] == 'x') {  // bytea_output = hex
        if (bytes.size() % 2 != 0) fail(what, "odd number of hex digits in bytea");
        out.reserve((bytes.size() - 2) / 2);
        for (std::size_t i = 2; i < bytes.size(); i += 2) {
            const int hi = hex_digit(bytes[i]);
            const int lo = hex_digit(bytes[i + 1]);
            if (hi < 0 || lo < 0) fail(what, "invalid hex digit in bytea");
            out.push_back(static_cast<std::uint8_t>(hi * 16 + lo));
        }
        return out;
    }
    for (std::size_t i = 0; i < bytes.size(); ++i) {  // bytea_output = escape
        if (bytes[i] != '\\') {
            out.push_back(static_cast<std::uint8_t>(bytes[i]));
        } else if (i + 1 < bytes.size() && bytes[i + 1] == '\\') {
            out.push_back('\\');
            ++i;
        } else if (i + 3 < bytes.size() && bytes[i + 1] >= '0' && bytes[i + 1] <= '3' && bytes[i + 2] >= '0' &&
                   bytes[i + 2] <= '7' && bytes[i + 3] >= '0' && bytes[i + 3] <= '7') {
            out.push_back(static_cast<std::uint8_t>((bytes[i + 1] - '0') * 64 + (bytes[i + 2] - '0') * 8 +
                                                    (bytes[i + 3] - '0')));
            i += 3;
        } else {
            fail(what, "invalid escape in bytea");
        }
    }
    return out;
}

}  // namespace sluice::postgres::detail
