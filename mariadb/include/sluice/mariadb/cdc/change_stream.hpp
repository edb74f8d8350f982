#pragma once
// Change data capture from a MariaDB server: a replica session that reads
// the binlog from a GTID state and hands out committed transactions, DDL
// and (optionally first) a consistent snapshot.
//
//   ChangeStream s = ChangeStream::open(url_options, {.start = StartAt::gtid, .gtid = saved});
//   while (const ChangeEvent* e = s.next()) {
//       ... apply *e ...
//       save(s.position());   // together with what applying changed
//   }
//
// Exactly once: position() is the per-domain GTID state after the last
// *complete* event group returned (never advanced at a GTID event, and also
// advanced over groups the table filter drops). A consumer that commits its
// own state and position() in one transaction, and reopens with
// StartAt::gtid from the committed position, sees every transaction once.
//
// Transactions in parts (StreamOptions::part_bytes > 0): next() returns a
// TransactionPart instead of each Transaction, about part_bytes of row
// images at a time, so memory does not grow with the transaction:
//
//   ChangeStream s = ChangeStream::open(url_options, {.start = StartAt::gtid, .gtid = saved,
//                                                     .part_bytes = 1 << 20});
//   while (const ChangeEvent* e = s.next()) {
//       if (const auto* p = std::get_if<TransactionPart>(e)) {
//           if (p->first()) begin();
//           if (p->rolled_back) { rollback(); continue; }
//           p->changes.for_each_change(apply);
//           if (p->last) commit(s.position());   // position() covers it only now
//       } ...
//   }
//
// Parts of one transaction are consecutive; position() advances only after
// the last. A reconnect inside a transaction whose first parts were
// returned resumes at the next part (the group is read again from its GTID
// and the Rows events already returned are skipped), so parts are neither
// repeated nor lost. XA PREPARE-held rows are kept in memory until their XA
// COMMIT (the prepare group's GTID is not the one they commit under) and
// then returned as one part: docs/mariadb-cdc.md.
//
// Reconnects: a dropped connection, a KILL or a server restart is retried
// (StreamOptions::reconnect_for) from position(): a transaction whose events
// were cut off is read again from its start, so nothing is lost or repeated.
// Errors that retrying cannot fix (purged GTIDs, missing privileges, a
// server without a ROW binlog, corrupt events) throw Error.
//
// Failover: with a list of servers in the URL (host_list.hpp), a server not
// back within StreamOptions::failover_after is left for the next one of the
// list, and every connection first checks that the server holds the
// position in every domain (position_check: has it / behind: wait / lost:
// Error{usage} naming the GTIDs delivered but missing there, unless
// on_lost_transactions says continue). docs/mariadb-cdc.md, "Replicas and
// failover".
//
// Not thread-safe. The stream owns its connections (the binlog connection,
// busy with the dump, and a side connection for information_schema and the
// snapshot).
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "sluice/mariadb/cdc/change_events.hpp"
#include "sluice/mariadb/cdc/gtid_state.hpp"
#include "sluice/mariadb/cdc/table_filter.hpp"
#include "sluice/mariadb/connect_options.hpp"

namespace sluice::mariadb::cdc {

enum class StartAt {
    oldest,    // the start of the oldest binlog the server has
    gtid,      // after StreamOptions::gtid
    now,       // after @@gtid_binlog_pos at open()
    snapshot,  // a consistent snapshot of the selected tables, then after its position
};

// Told when the binlog connection is lost and when it is back (health
// checks, retry counts: `sluice-mariadb cdc --metrics`). Called on the
// thread calling next(), during it.
class ConnectionObserver {
public:
    virtual ~ConnectionObserver() = default;
    // Lost, and each failed attempt to connect again after that.
    virtual void connection_lost(const std::string& why) = 0;
    virtual void connection_regained() = 0;
};

// What a stream does on a server of its list that lacks transactions it
// already delivered (lost in an unplanned failover).
enum class OnLostTransactions {
    stop,       // Error{usage} naming them; nothing more is delivered
    continue_,  // go on from that server's own history (downstream must repair)
};

struct StreamOptions {
    StartAt start = StartAt::now;
    GtidState gtid;  // StartAt::gtid
    TableFilter tables;  // empty: every table
    // Stop (next() returns nullptr) once everything the binlog held at
    // open() has been delivered: the position covers @@gtid_binlog_pos as
    // read then, or the dump (COM_BINLOG_DUMP's non-blocking flag) reached
    // the end of the last binlog.
    bool until_end = false;
    // The replica's server id; 0 = one picked at random in
    // [0x40000000, 0x7FFFFFFF] (the server kills an older dump of the same id).
    std::uint32_t server_id = 0;
    // Heartbeat period asked of the server; the read deadline is three
    // periods plus 5 s, so a silent dead peer is noticed.
    std::chrono::milliseconds heartbeat{5000};
    // Keep retrying a lost connection for this long (0 = never retry).
    std::chrono::milliseconds reconnect_for{60000};
    // Snapshot rows per chunk (SELECT ... LIMIT).
    std::size_t snapshot_chunk_rows = 1000;
    // 0: whole Transaction events. Otherwise TransactionPart events, a part
    // returned once its Rows events reach this many bytes (and at commit).
    std::size_t part_bytes = 0;
    // A transaction held whole (part_bytes = 0, or an XA PREPARE group)
    // whose selected Rows events exceed this many bytes is refused:
    // next() throws Error{usage} naming its GTID and the bound, before it
    // holds more (0: no bound). `whole_transaction_hint` ends that message
    // (what the caller's user can do about it).
    std::size_t max_transaction_bytes = 0;
    std::string whole_transaction_hint;
    // next() returns an Idle event before it would block after skipping
    // transactions of other tables (change_events.hpp). For callers that
    // batch while input_pending(): without it, the bytes of other tables'
    // transactions make input_pending() true, next() consumes them and then
    // blocks, and the batch waits for this table's next transaction. And one
    // at each heartbeat of a quiet server, outside a transaction: a caller
    // that blocks in next() gets back at least every `heartbeat`.
    bool idle_events = false;
    // Told about reconnects; may be null. Must outlive the stream.
    ConnectionObserver* observer = nullptr;
    // With a list of servers: a lost server that is not back within this
    // long is left for the next one of the list (within reconnect_for).
    std::chrono::milliseconds failover_after{10000};
    OnLostTransactions on_lost_transactions = OnLostTransactions::stop;
    // Failover lines (moving to another server, waiting for one that is
    // behind, transactions lost and continued past), each ending in a
    // newline, after log_prefix (e.g. "sluice-mariadb cdc: "); may be null.
    // Must outlive the stream.
    std::ostream* log = nullptr;
    std::string log_prefix;
};

class ChangeStream {
public:
    // Connects, checks the server (MariaDB, log_bin on, binlog_format=ROW),
    // takes the snapshot's position when asked, and starts the dump.
    static ChangeStream open(const ConnectOptions& options, StreamOptions stream);

    ChangeStream(ChangeStream&&) noexcept;
    ChangeStream& operator=(ChangeStream&&) noexcept;
    ~ChangeStream();

    // The next event, valid until the next call; nullptr at the end
    // (until_end). Blocks while the server has nothing to send.
    const ChangeEvent* next();

    // The position to commit after the event just returned. During a
    // snapshot (before SnapshotDone) it is the snapshot's position, but a
    // snapshot cannot be resumed half way: `resumable()` is false then.
    const GtidState& position() const noexcept;
    bool resumable() const noexcept;

    // True when more binlog bytes have already arrived (next() will not
    // wait): callers batch output until this is false.
    bool input_pending() const noexcept;

    // Connections made so far (1 + reconnects), for tests and logs.
    std::size_t connects() const noexcept;
    // The server of the list read from now ("HOST:PORT").
    std::string server() const;
    std::uint32_t server_id() const noexcept;

private:
    struct State;
    explicit ChangeStream(std::unique_ptr<State> state) noexcept;
    std::unique_ptr<State> state_;
};

}  // namespace sluice::mariadb::cdc
