#pragma once
// Sans-I/O: can a server serve a change stream's position? Before a stream
// reads from a server of a list (after a failover, or when it opens on a
// list), it compares its position — the last GTID it delivered in every
// domain it tracks — with the server's @@global.gtid_binlog_state (the last
// GTID of every domain and server id in the server's binlog) and whether
// the server still replicates from somewhere:
//
//   has it    the server's binlog holds the delivered GTID in every domain
//             (gtid_binlog_state has that server id at that sequence number
//             or later): read on, every transaction once;
//   behind    in some domain the server has not reached the delivered
//             sequence number yet and it is a replica (a replica connection
//             is set up): it may still receive them; wait;
//   lost      in some domain the server will never have what was delivered:
//             its binlog went past that sequence number with other GTIDs
//             (gtid_strict_mode: numbers only grow in a domain), or it has
//             not reached it and is no replica (promoted, standalone).
//
// The verdict is the worst over the domains (lost, then behind). Domains the
// server has and the stream never saw play no part (the stream reads them
// from the server's start of that domain, as on any server). Rules and the
// --on-lost-transactions decision: docs/mariadb-cdc.md, "Replicas and
// failover".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/mariadb/cdc/gtid_state.hpp"

namespace sluice::mariadb::cdc::detail {

struct ServerHistory {
    // @@global.gtid_binlog_state: one GTID per (domain, server id).
    std::vector<GtidPosition> binlog_state;
    // A replica connection is set up (SHOW ALL SLAVES STATUS has a row).
    bool replicating = false;
};

// "0-1-8,0-2-11,5-1-3" (any order, several per domain) into a history;
// Error{protocol} naming the part a server should never send.
ServerHistory parse_server_history(std::string_view binlog_state, bool replicating);

enum class Holding { has_it, behind, lost };

struct DomainCheck {
    Holding holding = Holding::has_it;
    GtidPosition delivered;                  // the stream's position in the domain
    std::optional<GtidPosition> same_origin;  // the server's last GTID of the delivered one's server id
    std::optional<GtidPosition> latest;      // the server's highest GTID in the domain
    // lost: the first sequence number of the delivered range the server
    // lacks: after its last GTID of the delivered one's server id (where
    // the histories forked), else after its highest one below the delivered.
    std::uint64_t missing_from = 0;
};

struct PositionCheck {
    Holding verdict = Holding::has_it;
    std::vector<DomainCheck> domains;  // one per domain of the position, ascending

    // lost: "0-1-9..0-1-10" (or "0-1-10"), one range per lost domain,
    // comma-separated: the GTIDs delivered but missing there.
    std::string missing_gtids() const;
    // lost: the reason in full, e.g. "domain 0: delivered up to 0-1-10, but
    // this server's binlog has 0-1-8 of server 1 and went on with 0-2-11".
    std::string lost_reasons() const;
    // behind: "domain 0 at 0-1-8 of 0-1-10".
    std::string behind_summary() const;
};

PositionCheck check_position(const GtidState& position, const ServerHistory& server);

// --on-lost-transactions continue: where the stream goes on in the server's
// own history. A lost domain resumes after the server's last GTID of the
// delivered one's server id (the point where the histories forked), or
// after its highest GTID of the domain when it has none of that server;
// every other domain keeps the stream's position.
GtidState continue_from(const PositionCheck& check);

}  // namespace sluice::mariadb::cdc::detail
