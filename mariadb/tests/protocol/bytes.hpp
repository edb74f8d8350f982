#pragma once
// Helpers to write packets in tests as readable byte lists.
#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::test {

struct PacketBuilder {
    std::vector<std::uint8_t> bytes;
    PacketBuilder& u8(std::uint8_t v) { bytes.push_back(v); return *this; }
    PacketBuilder& raw(std::initializer_list<int> list) {
        for (int v : list) bytes.push_back(static_cast<std::uint8_t>(v));
        return *this;
    }
    PacketBuilder& u16(std::uint16_t v) { return u8(static_cast<std::uint8_t>(v)).u8(static_cast<std::uint8_t>(v >> 8)); }
    PacketBuilder& u32(std::uint32_t v) {
        for (int i = 0; i < 4; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
        return *this;
    }
    PacketBuilder& text(std::string_view s) {
        for (char c : s) bytes.push_back(static_cast<std::uint8_t>(c));
        return *this;
    }
    PacketBuilder& nul(std::string_view s) { return text(s).u8(0); }
    PacketBuilder& lenenc(std::string_view s) { return u8(static_cast<std::uint8_t>(s.size())).text(s); }
};

// Runs f and returns the ErrorKind it threw (or throws if it did not).
template <class F>
ErrorKind kind_of_error(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.kind();
    }
    throw std::logic_error("expected an Error");
}

}  // namespace sluice::mariadb::test
