#include "sluice/mariadb/protocol/wire.hpp"

#include <string>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::protocol {

void Reader::fail(std::string_view field, std::string_view what) const {
    std::string msg = "malformed ";
    msg += packet_;
    msg += ": ";
    msg += what;
    msg += " (field '";
    msg += field;
    msg += "' at byte ";
    msg += std::to_string(pos_);
    msg += " of ";
    msg += std::to_string(bytes_.size());
    msg += ")";
    throw Error(ErrorKind::protocol, msg);
}

void Reader::fail_truncated(std::size_t n, std::string_view field) const {
    fail(field, "truncated: needs " + std::to_string(n) + " bytes, " + std::to_string(remaining()) + " left");
}

std::uint8_t Reader::peek(std::string_view field) const {
    need(1, field);
    return bytes_[pos_];
}

std::uint64_t Reader::lenenc(std::string_view field) {
    std::uint8_t first = peek(field);
    if (first < 0xFB) {
        ++pos_;
        return first;
    }
    switch (first) {
        case 0xFC: ++pos_; return u16(field);
        case 0xFD: ++pos_; return u24(field);
        case 0xFE: ++pos_; return u64(field);
        case 0xFB: fail(field, "unexpected NULL marker 0xFB in a length-encoded integer");
        default: fail(field, "invalid length-encoded integer prefix 0xFF");
    }
}

Bytes Reader::lenenc_bytes(std::string_view field) {
    std::size_t start = pos_;
    std::uint64_t n = lenenc(field);
    if (n > remaining()) {
        pos_ = start;
        fail(field, "length " + std::to_string(n) + " exceeds the " +
                        std::to_string(remaining()) + " bytes left");
    }
    return bytes(static_cast<std::size_t>(n), field);
}

std::string_view Reader::nul_text(std::string_view field) {
    for (std::size_t i = pos_; i < bytes_.size(); ++i) {
        if (bytes_[i] == 0) {
            std::string_view s = as_text(bytes_.subspan(pos_, i - pos_));
            pos_ = i + 1;
            return s;
        }
    }
    fail(field, "missing NUL terminator");
}

Bytes Reader::rest() noexcept {
    Bytes b = bytes_.subspan(pos_);
    pos_ = bytes_.size();
    return b;
}

void Writer::lenenc(std::uint64_t v) {
    if (v < 0xFB) {
        u8(static_cast<std::uint8_t>(v));
    } else if (v <= 0xFFFF) {
        u8(0xFC);
        u16(static_cast<std::uint16_t>(v));
    } else if (v <= 0xFFFFFF) {
        u8(0xFD);
        u24(static_cast<std::uint32_t>(v));
    } else {
        u8(0xFE);
        u64(v);
    }
}

void Writer::lenenc_bytes(Bytes b) {
    lenenc(b.size());
    bytes(b);
}

void Writer::nul_text(std::string_view s) {
    text(s);
    u8(0);
}

}  // namespace sluice::mariadb::protocol
