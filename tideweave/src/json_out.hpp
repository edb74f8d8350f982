// Appending JSON to a std::string: escaped strings and the contract's number
// form (shortest round-trip; integral values below 2^53 as integers).
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

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

// A JSON string literal. The input is valid UTF-8 (simdjson checked it), so
// only '"', '\\' and control characters need escaping.
inline void append_string(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    out.push_back('"');
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out.append(s.data() + run, i - run);
        run = i + 1;
        out.push_back('\\');
        switch (c) {
            case '"': out.push_back('"'); break;
            case '\\': out.push_back('\\'); break;
            case '\n': out.push_back('n'); break;
            case '\r': out.push_back('r'); break;
            case '\t': out.push_back('t'); break;
            case '\b': out.push_back('b'); break;
            case '\f': out.push_back('f'); break;
            default:
                out.append("u00");
                out.push_back(hex[c >> 4]);
                out.push_back(hex[c & 0xF]);
        }
    }
    out.append(s.data() + run, s.size() - run);
    out.push_back('"');
}

}  // namespace sluice::tideweave::json
