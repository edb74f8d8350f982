#pragma once
// A CDC NDJSON line (docs/mariadb-cdc.md: what `sluice-mariadb cdc` prints
// and what `--to nats://` publishes) -> the changes of DB.TABLE in it, as the
// SourceChanges that BinlogAdapter makes from the binlog itself, so that a
// worker on the stream maps every row exactly as the single process does.
// Sans-I/O. The line is read by the CDC's own reader
// (sluice/mariadb/cdc/ndjson_reader.hpp, next to the writer); this is its
// adapter to the four mapped columns.
//
//   NdjsonTransactions reader(columns, "shop", "orders");
//   const ParsedLine& l = reader.parse(line, "stream \"SHOP\" sequence 42");
//   if (l.transaction) for (const SourceChange& c : l.changes) mapper.add(c);
//   if (l.snapshot == SnapshotPart::chunk) ... keep l.changes until the done line ...
//
// Values: a JSON integer is an integer cell (unsigned above 2^63-1), any
// other JSON number a double, a string its text (DECIMAL digits, dates,
// enums: what the binlog adapter reads as text too), null NULL. A FLOAT
// column gives the double nearest its shortest decimal text, on the binlog
// as on the stream (docs/mariadb-cdc.md, "FLOAT").
//
// Errors name the place given to parse(): malformed JSON, a transaction
// without "gtid" or "changes", an image of DB.TABLE without a mapped column
// (Error{source_image}, as from the binlog).
//
// LIFETIME: the ParsedLine and its changes' text view the reader's buffers;
// valid until the next parse().
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/mariadb/cdc/ndjson_reader.hpp"
#include "sluice/pipeline/mapping.hpp"
#include "sluice/pipeline/source_change.hpp"

namespace sluice::pipeline {

// A snapshot's lines: its chunks (rows of one table), then "done", or
// "aborted" (published into JetStream for a snapshot a kill cut off).
enum class SnapshotPart { none, chunk, done, aborted };

struct ParsedLine {
    bool transaction = false;  // false: DDL or a snapshot line
    std::string gtid;          // D-S-N
    std::uint32_t timestamp = 0;
    SnapshotPart snapshot = SnapshotPart::none;
    std::string snapshot_gtid;  // a snapshot line's GTID state (its "gtid")
    // A transaction's changes of DB.TABLE, in order; a chunk's rows of
    // DB.TABLE, as inserts.
    std::vector<SourceChange> changes;
    // A transaction in part lines (docs/mariadb-cdc.md, "the parts
    // format"): its part (1, 2, ...; 0: the whole transaction in this line)
    // and what the reader's PartSequence says of it: whole, opens,
    // continues, completes, rolled_back (a void transaction: drop its parts).
    std::uint64_t part = 0;
    mariadb::cdc::ndjson::PartSequence::Step part_step = mariadb::cdc::ndjson::PartSequence::Step::whole;
};

class NdjsonTransactions {
public:
    NdjsonTransactions(const ColumnNames& names, std::string db, std::string table);

    // Also checks that part lines form whole transactions (a part out of
    // order, a gtid or ts changing inside a transaction, another line
    // before the last part: Error{source_image} naming `where`).
    const ParsedLine& parse(std::string_view line, const std::string& where);
    // Inside a transaction in parts (its last part not parsed yet).
    bool inside_parts() const noexcept { return parts_.inside(); }
    // Forgets a transaction in flight (its parts were abandoned).
    void forget_parts() noexcept { parts_.reset(); }

private:
    mariadb::cdc::ndjson::LineReader reader_;
    mariadb::cdc::ndjson::PartSequence parts_;
    ParsedLine line_;
};

}  // namespace sluice::pipeline
