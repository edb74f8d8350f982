#include "sluice/mariadb/cdc/gtid_state.hpp"

#include <algorithm>
#include <charconv>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::cdc {

namespace {

[[noreturn]] void bad(std::string_view text, std::string_view why) {
    throw Error(ErrorKind::usage, "invalid GTID '" + std::string(text) + "': " + std::string(why) +
                                      " (expected domain-server-sequence, e.g. 0-1-42)");
}

template <class T>
T number(std::string_view whole, std::string_view part, std::string_view name) {
    T v{};
    if (part.empty()) bad(whole, std::string(name) + " is missing");
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc{} || end != part.data() + part.size()) bad(whole, std::string(name) + " '" + std::string(part) + "' is not a decimal number in range");
    return v;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

}  // namespace

GtidPosition parse_gtid(std::string_view text) {
    std::size_t a = text.find('-');
    std::size_t b = a == std::string_view::npos ? a : text.find('-', a + 1);
    if (b == std::string_view::npos) bad(text, "needs three numbers separated by '-'");
    GtidPosition g;
    g.domain_id = number<std::uint32_t>(text, text.substr(0, a), "domain");
    g.server_id = number<std::uint32_t>(text, text.substr(a + 1, b - a - 1), "server id");
    g.seq_no = number<std::uint64_t>(text, text.substr(b + 1), "sequence number");
    return g;
}

GtidState GtidState::parse(std::string_view text) {
    GtidState s;
    if (trim(text).empty()) return s;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t comma = text.find(',', start);
        std::string_view part = trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        GtidPosition g = parse_gtid(part);
        if (s.domain(g.domain_id)) {
            throw Error(ErrorKind::usage, "invalid GTID state '" + std::string(text) + "': domain " +
                                              std::to_string(g.domain_id) + " appears twice");
        }
        s.advance(g);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return s;
}

std::string GtidState::to_string() const {
    std::string out;
    for (const GtidPosition& g : gtids_) {
        if (!out.empty()) out += ',';
        out += std::to_string(g.domain_id) + '-' + std::to_string(g.server_id) + '-' + std::to_string(g.seq_no);
    }
    return out;
}

std::optional<GtidPosition> GtidState::domain(std::uint32_t domain_id) const noexcept {
    auto it = std::lower_bound(gtids_.begin(), gtids_.end(), domain_id,
                               [](const GtidPosition& g, std::uint32_t d) { return g.domain_id < d; });
    if (it == gtids_.end() || it->domain_id != domain_id) return std::nullopt;
    return *it;
}

void GtidState::advance(const GtidPosition& gtid) {
    auto it = std::lower_bound(gtids_.begin(), gtids_.end(), gtid.domain_id,
                               [](const GtidPosition& g, std::uint32_t d) { return g.domain_id < d; });
    if (it != gtids_.end() && it->domain_id == gtid.domain_id) *it = gtid;
    else gtids_.insert(it, gtid);
}

}  // namespace sluice::mariadb::cdc
