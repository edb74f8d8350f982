// Has / behind / lost: a stream's position against a server's binlog state.
#include "position_check.hpp"

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::cdc::detail {

ServerHistory parse_server_history(std::string_view binlog_state, bool replicating) {
    ServerHistory h;
    h.replicating = replicating;
    std::size_t at = 0;
    while (at <= binlog_state.size()) {
        std::size_t comma = binlog_state.find(',', at);
        if (comma == std::string_view::npos) comma = binlog_state.size();
        std::string_view part = binlog_state.substr(at, comma - at);
        while (!part.empty() && (part.front() == ' ' || part.front() == '\n')) part.remove_prefix(1);
        while (!part.empty() && (part.back() == ' ' || part.back() == '\n')) part.remove_suffix(1);
        if (!part.empty()) {
            try {
                h.binlog_state.push_back(parse_gtid(part));
            } catch (const Error& e) {
                throw Error(ErrorKind::protocol,
                            "the server's @@gtid_binlog_state is not a GTID list: " + std::string(e.what()));
            }
        }
        at = comma + 1;
    }
    return h;
}

PositionCheck check_position(const GtidState& position, const ServerHistory& server) {
    PositionCheck out;
    for (const GtidPosition& delivered : position.gtids()) {
        DomainCheck d;
        d.delivered = delivered;
        std::uint64_t below = 0;  // the server's highest sequence number under the delivered one
        for (const GtidPosition& g : server.binlog_state) {
            if (g.domain_id != delivered.domain_id) continue;
            if (g.server_id == delivered.server_id) d.same_origin = g;
            if (!d.latest || g.seq_no > d.latest->seq_no) d.latest = g;
            if (g.seq_no < delivered.seq_no && g.seq_no > below) below = g.seq_no;
        }
        if (d.same_origin && d.same_origin->seq_no >= delivered.seq_no) {
            d.holding = Holding::has_it;
        } else if (d.latest && d.latest->seq_no >= delivered.seq_no) {
            // Past the delivered number with other GTIDs: strict mode never
            // goes back to fill it in.
            d.holding = Holding::lost;
        } else {
            d.holding = server.replicating ? Holding::behind : Holding::lost;
        }
        // What the server lacks starts after its last GTID of the delivered
        // one's server id (the histories forked there); without one, after
        // its highest number below the delivered one.
        d.missing_from = (d.same_origin ? d.same_origin->seq_no : below) + 1;
        if (d.holding == Holding::lost) out.verdict = Holding::lost;
        else if (d.holding == Holding::behind && out.verdict == Holding::has_it) out.verdict = Holding::behind;
        out.domains.push_back(d);
    }
    return out;
}

namespace {
std::string gtid(std::uint32_t domain, std::uint32_t server, std::uint64_t seq) {
    return std::to_string(domain) + "-" + std::to_string(server) + "-" + std::to_string(seq);
}
}  // namespace

std::string PositionCheck::missing_gtids() const {
    std::string out;
    for (const DomainCheck& d : domains) {
        if (d.holding != Holding::lost) continue;
        const GtidPosition& g = d.delivered;
        if (!out.empty()) out += ", ";
        if (d.missing_from < g.seq_no) out += gtid(g.domain_id, g.server_id, d.missing_from) + "..";
        out += to_string(g);
    }
    return out;
}

std::string PositionCheck::lost_reasons() const {
    std::string out;
    for (const DomainCheck& d : domains) {
        if (d.holding != Holding::lost) continue;
        if (!out.empty()) out += "; ";
        out += "domain " + std::to_string(d.delivered.domain_id) + ": delivered up to " + to_string(d.delivered) +
               ", but this server's binlog ";
        if (d.same_origin) {
            out += "has " + to_string(*d.same_origin) + " as the last of server " +
                   std::to_string(d.delivered.server_id);
        } else {
            out += "has no GTID of server " + std::to_string(d.delivered.server_id);
        }
        if (d.latest && d.latest->seq_no >= d.delivered.seq_no) out += " and went on with " + to_string(*d.latest);
        else out += ", and it is no replica that could still receive them";
    }
    return out;
}

std::string PositionCheck::behind_summary() const {
    std::string out;
    for (const DomainCheck& d : domains) {
        if (d.holding != Holding::behind) continue;
        if (!out.empty()) out += ", ";
        out += "domain " + std::to_string(d.delivered.domain_id) + " at " +
               (d.latest ? to_string(*d.latest) : std::string("nothing")) + " of " + to_string(d.delivered);
    }
    return out;
}

GtidState continue_from(const PositionCheck& check) {
    GtidState out;
    for (const DomainCheck& d : check.domains) {
        if (d.holding != Holding::lost) out.advance(d.delivered);
        else if (d.same_origin) out.advance(*d.same_origin);
        else if (d.latest) out.advance(*d.latest);
        // A domain the server has nothing of: read from its start there.
    }
    return out;
}

}  // namespace sluice::mariadb::cdc::detail
