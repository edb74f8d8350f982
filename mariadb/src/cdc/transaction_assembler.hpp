#pragma once
// Sans-I/O grouping of decoded binlog events into what a change stream
// delivers: an event group opens at GTID and completes at XID, at a COMMIT
// query, or (standalone groups) at its one statement. The position advances
// only when a group completes, never at its GTID; a group that ends with
// ROLLBACK (non-transactional tables mixed in) delivers nothing.
//
// XA: the rows of an XA PREPARE group are held until the XA COMMIT group
// that names the same xid and delivered with that group's GTID; XA ROLLBACK
// drops them. (Held rows live in memory only: see docs/mariadb-cdc.md.)
//
// Parts (part_bytes > 0): a transaction is handed out as TransactionParts
// once its selected Rows events reach part_bytes, and its last part at
// commit; the position still advances only at commit. A group cut off by a
// lost connection after parts went out is resumed, not restarted: the next
// group read must be the same GTID, and its Rows events already handed out
// are skipped.
#include <map>
#include <optional>
#include <string>

#include "sluice/mariadb/binlog/decoder.hpp"
#include "sluice/mariadb/cdc/change_events.hpp"
#include "sluice/mariadb/cdc/table_filter.hpp"

namespace sluice::mariadb::cdc::detail {

class TransactionAssembler {
public:
    enum class Outcome {
        none,         // inside a group, or an event outside groups
        transaction,  // take_transaction()
        part,         // take_part() (part_bytes > 0 only)
        ddl,          // take_ddl()
        skipped,      // a group completed with nothing to deliver (filtered, rolled back, empty)
    };

    // max_whole_bytes > 0: a transaction held whole (part_bytes = 0, or an
    // XA PREPARE group) is refused once its Rows events exceed it (Error
    // {usage} naming the GTID and the bound, `hint` at its end).
    TransactionAssembler(TableFilter filter, GtidState start, std::size_t part_bytes = 0,
                         std::size_t max_whole_bytes = 0, std::string hint = {});

    Outcome feed(const binlog::Event& event);
    Transaction take_transaction() { return std::move(txn_); }
    Ddl take_ddl() { return std::move(ddl_); }
    TransactionPart take_part() { return std::move(part_); }

    // After the last complete group.
    const GtidState& position() const noexcept { return position_; }
    bool in_group() const noexcept { return open_; }
    // Forgets a group cut off by a lost connection (it is read again).
    void drop_partial_group();

private:
    Outcome complete(bool deliver, std::uint32_t timestamp);
    Outcome on_query(const binlog::EventHeader& h, const binlog::Query& q);
    Outcome on_rows(const binlog::Rows& rows);
    Outcome hand_out_part(bool last, bool rolled_back);
    Outcome on_gtid(const binlog::EventHeader& h, const binlog::Gtid& g);

    TableFilter filter_;
    GtidState position_;
    bool open_ = false;
    binlog::Gtid gtid_;
    std::string xa_gtrid_, xa_bqual_;  // owned copies gtid_.xa_xid views
    GtidPosition group_gtid_;
    Transaction txn_;
    Ddl ddl_;
    std::map<std::string, Transaction> prepared_xa_;  // by "gtrid/bqual/format" key

    std::size_t part_bytes_ = 0;
    std::size_t max_whole_bytes_ = 0;
    std::string hint_;
    std::uint32_t group_timestamp_ = 0;  // the GTID event's
    TransactionPart part_;
    std::size_t parts_out_ = 0;         // parts of the open group handed out
    std::size_t rows_events_out_ = 0;   // its selected Rows events in them
    std::size_t skip_rows_events_ = 0;  // resuming: already handed out
    // A group cut off after parts went out: resumed when read again.
    struct Resume {
        GtidPosition gtid;
        std::size_t parts = 0, rows_events = 0;
    };
    std::optional<Resume> resume_;
};

}  // namespace sluice::mariadb::cdc::detail
