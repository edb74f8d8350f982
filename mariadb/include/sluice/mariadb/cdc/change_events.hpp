#pragma once
// What a ChangeStream hands out: committed transactions with their row
// changes, DDL statements, and the chunks of a consistent snapshot.
//
// LIFETIME: every event owns its data (the row images of a transaction are
// kept as the binlog bytes they were logged in and decoded on demand by
// for_each_change; snapshot rows as the bytes the server sent). The cells and
// Fields handed to a visitor are valid during that call only.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "sluice/mariadb/binlog/rows.hpp"
#include "sluice/mariadb/binlog/table_map.hpp"
#include "sluice/mariadb/cdc/gtid_state.hpp"
#include "sluice/mariadb/column.hpp"
#include "sluice/mariadb/row.hpp"

namespace sluice::mariadb::cdc {

// One row change. `before` (update, delete) and `after` (insert, update)
// hold a cell per table column, in table order; a cell the server did not
// log (binlog_row_image MINIMAL or NOBLOB) has present == false. Column
// names and types are in `table` (names from binlog_row_metadata=FULL or
// from information_schema).
struct Change {
    binlog::RowsKind op = binlog::RowsKind::write;
    const binlog::TableMap* table = nullptr;
    std::span<const binlog::Cell> before;
    std::span<const binlog::Cell> after;
};

// A committed transaction: the row changes of the tables the stream selects,
// in binlog order. Rolled-back work never appears.
class Transaction {
public:
    GtidPosition gtid;            // its GTID (server_id is the originating server)
    std::uint32_t timestamp = 0;  // commit time, seconds since the epoch (the GTID event's)

    // Calls f(const Change&) for every change, in order.
    template <class F>
    void for_each_change(F&& f) const {
        for (const StoredRows& s : rows_) {
            binlog::RowReader reader(s.rows);
            binlog::RowChange rc;
            while (reader.next(rc)) {
                Change c{s.rows.kind, s.rows.table.get(), rc.before, rc.after};
                f(static_cast<const Change&>(c));
            }
        }
    }
    bool empty() const noexcept { return rows_.empty(); }
    // Rows events kept (a statement changing many rows is one event).
    std::size_t rows_events() const noexcept { return rows_.size(); }
    // Bytes of the Rows events kept (their row images as logged): what the
    // stream bounds a TransactionPart by.
    std::size_t bytes() const noexcept { return bytes_; }

    // Keeps a Rows event past the decoder's next call: copies its bytes.
    void add_rows(const binlog::Rows& rows);

private:
    struct StoredRows {
        std::unique_ptr<std::uint8_t[]> bytes;
        binlog::Rows rows;  // its spans point into `bytes`
    };
    std::vector<StoredRows> rows_;
    std::size_t bytes_ = 0;
};

// Only with StreamOptions::part_bytes (change_stream.hpp): a committed
// transaction delivered in consecutive parts, so neither the stream nor its
// consumer holds all of it. Part 1, 2, ... of one transaction follow each
// other with nothing in between (no other transaction, DDL or Idle), each
// with the same gtid and timestamp, their changes together being the
// transaction's in binlog order. A part holds whole binlog Rows events, about
// part_bytes of them (one Rows event is at most the server's
// binlog_row_event_max_size, 8 KiB by default, so a part stays near the bound).
//
// ChangeStream::position() covers the transaction only once its `last` part
// has been returned; before that it is the position before the transaction,
// so a consumer that stops (or crashes) after part K and reopens from its
// committed position reads the transaction again from part 1. A consumer
// applies the parts inside one transaction of its own and commits at `last`.
//
// `rolled_back` (with `last`, no changes): the event group ended in ROLLBACK
// after earlier parts were returned (only non-transactional tables' rows are
// logged so; a group that ends in ROLLBACK before its first part is full is
// never delivered at all): discard parts 1..part-1.
struct TransactionPart {
    Transaction changes;   // gtid, timestamp (the GTID event's: see docs/mariadb-cdc.md), a slice of the changes
    std::size_t part = 1;  // 1, 2, ... within the transaction
    bool last = false;     // the transaction is complete with this part
    bool rolled_back = false;
    bool first() const noexcept { return part == 1; }
};

// A DDL statement (its own event group), as the server logged it.
struct Ddl {
    GtidPosition gtid;
    std::uint32_t timestamp = 0;
    std::string db;   // the default database of the statement ("" for none)
    std::string sql;
};

// Up to SnapshotOptions::chunk_rows rows of one table, read in primary-key
// order inside the snapshot's transaction (binary protocol: the values and
// Field conversions are those of a prepared SELECT).
class SnapshotChunk {
public:
    GtidState at;  // the snapshot's position
    std::string db;
    std::string table;
    std::shared_ptr<const std::vector<Column>> columns;

    std::size_t size() const noexcept { return row_count_; }
    // Field `column` of row `row` (both < size() / columns->size()).
    Field field(std::size_t row, std::size_t column) const;

    // Copies one row (its fields' bytes) into the chunk.
    void add_row(const Row& row);

private:
    struct Slot {
        std::size_t offset = 0;
        std::size_t length = 0;
        bool null = false;
    };
    std::vector<std::uint8_t> bytes_;
    std::vector<Slot> slots_;  // row-major
    std::size_t row_count_ = 0;
};

// The snapshot is complete: streaming continues right after `at`.
struct SnapshotDone {
    GtidState at;
};

// Only with StreamOptions::idle_events: the stream read past transactions
// of tables it does not deliver (its position() moved) and has no more
// input, so next() would now wait for the server. A caller that held work
// back because input_pending() was true (the bytes pending were those
// transactions) acts now; there is nothing else in it. Also at each
// heartbeat (StreamOptions::heartbeat) the server sends while it has
// nothing: a caller blocked in next() looks at its other work that often.
struct Idle {};

using ChangeEvent = std::variant<Transaction, Ddl, SnapshotChunk, SnapshotDone, Idle, TransactionPart>;

}  // namespace sluice::mariadb::cdc
