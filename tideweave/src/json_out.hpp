// Appending JSON to a std::string: escaped strings and the contract's number
// form (shortest round-trip; integral values below 2^53 as integers).
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/common/json_write.hpp"

namespace sluice::tideweave::json {

inline void append_int(std::string& out, std::int64_t v) {
    char buf[24];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, res.ptr);
}

// Integral values up to 2^53 in magnitude print as integers; beyond that in
// (shortest) scientific form, so that no reader takes a huge double for an
// out-of-range integer (21 digits would overflow 64-bit integer parsers).
inline void append_number(std::string& out, double v) {
    const double magnitude = std::fabs(v);
    if (magnitude <= 0x1p53 && std::trunc(v) == v) {
        append_int(out, static_cast<std::int64_t>(v));
        return;
    }
    char buf[32];
    const auto res = magnitude > 0x1p53 ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific)
                                        : std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, res.ptr);
}

// A JSON string literal (the input is valid UTF-8: simdjson checked it).
using ::sluice::json::append_string;

}  // namespace sluice::tideweave::json
