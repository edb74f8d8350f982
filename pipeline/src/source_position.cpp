#include "sluice/pipeline/source_position.hpp"

#include <charconv>

namespace sluice::pipeline {

std::string encode(const SourcePosition& p) {
    std::string s = "gtid=" + p.gtid + "\nmax_ts=";
    s += p.max_ts ? std::to_string(*p.max_ts) : std::string("-");
    s += "\n";
    return s;
}

std::optional<SourcePosition> decode_source_position(std::string_view bytes) {
    constexpr std::string_view g = "gtid=", m = "max_ts=";
    if (bytes.substr(0, g.size()) != g) return std::nullopt;
    const auto nl = bytes.find('\n');
    if (nl == std::string_view::npos) return std::nullopt;
    SourcePosition p;
    p.gtid = std::string(bytes.substr(g.size(), nl - g.size()));
    std::string_view rest = bytes.substr(nl + 1);
    if (rest.substr(0, m.size()) != m || rest.empty() || rest.back() != '\n') return std::nullopt;
    std::string_view v = rest.substr(m.size(), rest.size() - m.size() - 1);
    if (v == "-") return p;
    std::int64_t x = 0;
    auto r = std::from_chars(v.data(), v.data() + v.size(), x);
    if (r.ec != std::errc{} || r.ptr != v.data() + v.size() || v.empty()) return std::nullopt;
    p.max_ts = x;
    return p;
}

}  // namespace sluice::pipeline
