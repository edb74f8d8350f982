// COPY text format encoding (sans-I/O).
#include <string>

#include "codec.hpp"
#include "sluice/postgres/copy.hpp"
#include "sluice/postgres/error.hpp"

namespace sluice::postgres {

namespace {

void append_escaped(std::string& out, std::string_view text) {
    for (char c : text) {
        switch (c) {
            case '\\': out += "\\\\"; break;
            case '\t': out += "\\t"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\0': throw Error(ErrorKind::usage, "COPY: text cannot contain a NUL byte");
            default: out += c;
        }
    }
}

}  // namespace

void append_copy_row(std::string& out, const std::vector<Param>& values) {
    static constexpr char hex[] = "0123456789abcdef";
    bool first = true;
    for (const Param& p : values) {
        if (!first) out += '\t';
        first = false;
        std::visit(
            [&](const auto& v) {
                using T = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<T, std::monostate>) out += "\\N";
                else if constexpr (std::is_same_v<T, std::int64_t>) out += std::to_string(v);
                else if constexpr (std::is_same_v<T, double>) out += detail::float_text(v);
                else if constexpr (std::is_same_v<T, bool>) out += v ? 't' : 'f';
                else if constexpr (std::is_same_v<T, std::string>) append_escaped(out, v);
                else {  // Bytes: bytea's hex input, its backslash escaped for COPY
                    out += "\\\\x";
                    for (std::uint8_t b : v) {
                        out += hex[b >> 4];
                        out += hex[b & 0xF];
                    }
                }
            },
            p.value());
    }
    out += '\n';
}

}  // namespace sluice::postgres
