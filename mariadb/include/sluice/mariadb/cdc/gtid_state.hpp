#pragma once
// A replication position: the last GTID of each replication domain, as
// MariaDB's @@gtid_binlog_pos and @slave_connect_state write it
// ("0-1-42,1-2-7": domain-server-sequence, one per domain, ascending
// domains). Resuming from a state delivers the event groups after it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/mariadb/binlog/events.hpp"

namespace sluice::mariadb::cdc {

using binlog::GtidPosition;

class GtidState {
public:
    GtidState() = default;
    // "" (empty state) or comma-separated D-S-N triples with decimal numbers
    // (domain and server id 32-bit, sequence 64-bit), at most one per
    // domain; spaces around commas are allowed. Error{usage} naming the
    // offending part otherwise.
    static GtidState parse(std::string_view text);

    std::string to_string() const;
    bool empty() const noexcept { return gtids_.empty(); }
    // In ascending domain order.
    const std::vector<GtidPosition>& gtids() const noexcept { return gtids_; }
    std::optional<GtidPosition> domain(std::uint32_t domain_id) const noexcept;
    // Makes `gtid` the position of its domain (a completed event group).
    void advance(const GtidPosition& gtid);

    friend bool operator==(const GtidState&, const GtidState&) = default;

private:
    std::vector<GtidPosition> gtids_;
};

// "0-1-42"; Error{usage} unless the text is exactly one D-S-N triple.
GtidPosition parse_gtid(std::string_view text);

}  // namespace sluice::mariadb::cdc
