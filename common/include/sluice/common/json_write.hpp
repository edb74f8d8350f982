#pragma once
// A JSON string literal appended to a std::string: what two parts share (the
// Tideweave changelog, the MariaDB CLI's NDJSON). The input must be valid
// UTF-8; only '"', '\\' and control characters are escaped, and runs of plain
// bytes are copied whole.
#include <cstddef>
#include <string>
#include <string_view>

namespace sluice::json {

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

}  // namespace sluice::json
