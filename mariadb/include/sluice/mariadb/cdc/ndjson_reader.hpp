#pragma once
// Reading the NDJSON lines of `sluice-mariadb cdc` (ndjson.hpp writes them;
// docs/mariadb-cdc.md): one line -> what it is (a transaction, DDL, a
// snapshot's chunk, done or aborted line) and the row images of one table
// in it, reduced to the columns the caller picks. Sans-I/O; the pipeline's
// JetStream workers read their stream with it.
//
//   LineReader reader({{"id", "--id"}, {"v", "--value"}}, "shop", "orders");
//   const Line& l = reader.parse(text, "stream \"SHOP\" sequence 42");
//   for (const LineChange& c : l.changes) ... c.after[0] (id), c.after[1] (v) ...
//
// Values, as the writer's JSON holds them: a JSON integer is an integer
// (unsigned above 2^63-1), any other JSON number a double, a string its
// text (DECIMAL digits, dates and times, ENUM and SET names; BLOB, BINARY
// and GEOMETRY as base64), true/false the integers 1/0, null NULL.
// FLOAT is written as its shortest decimal text, so a reader gets the
// double nearest that text, float_value_as_read() of the float: converting
// it back to float gives the float exactly (docs/mariadb-cdc.md, "FLOAT").
//
// Errors are Error{protocol} naming the place given to parse(): malformed
// JSON, a transaction without "gtid", "ts" or "changes", a change without
// "op", "db" and "table", an image of DB.TABLE without a picked column
// (naming the column by its label and, for a row change, the server
// setting that logs every column).
//
// Transactions in parts (ndjson.hpp): parse() reads one part line at a
// time (Line::part, Line::last) and never holds the others; a PartSequence
// checks that the lines it is shown form whole transactions and says when
// one is complete. A consumer that must not hold a whole transaction (the
// pipeline's JetStream source) applies each part as it comes, inside one
// transaction of its own, and commits when next() says `complete`; on an
// error or at the end of input inside a transaction it rolls back, so
// nothing of an incomplete or malformed transaction is applied:
//
//   PartSequence parts;
//   for each line: const Line& l = reader.parse(text, where);
//                  switch (parts.next(l, where)) { case Step::opens: begin(); ... apply(l.changes) ...
//                                                  case Step::completes: commit(); ... }
//   at the end:    parts.finish(where);   // throws while a transaction awaits its last part
//
// LIFETIME: the Line, its changes' images and their text view the reader's
// buffers; valid until the next parse().
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::mariadb::cdc::ndjson {

// One value of an image.
struct LineValue {
    enum class Kind : std::uint8_t { null, signed_integer, unsigned_integer, floating, text };
    Kind kind = Kind::null;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    double d = 0;
    std::string_view text;
};

// A column to read from every image, and how the caller's user names it in
// an error (e.g. "--id"); empty: no label.
struct PickedColumn {
    std::string name;
    std::string label;
};

enum class LineKind : std::uint8_t {
    ddl,               // {"gtid":...,"ddl":...}: no changes
    transaction,       // {"gtid":...,"ts":...,"changes":[...]}
    snapshot_chunk,    // {"snapshot":{"gtid":...,"db":...,"table":...},"rows":[...]}
    snapshot_done,     // {"snapshot":{"gtid":...,"done":true}}
    snapshot_aborted,  // {"snapshot":{"gtid":...,"aborted":true}} (JetStream: a killed publisher's snapshot)
};

enum class RowOp : std::uint8_t { insert, update, remove };

// A row change of the table (a snapshot row: an insert). The images hold
// the picked columns in order; `before` is empty for an insert, `after` for
// a delete.
struct LineChange {
    RowOp op = RowOp::insert;
    std::span<const LineValue> before;
    std::span<const LineValue> after;
};

struct Line {
    LineKind kind = LineKind::ddl;
    std::string_view gtid;     // a transaction's D-S-N, a snapshot line's GTID state
    std::uint32_t timestamp = 0;  // a transaction's "ts"
    std::uint64_t part = 0;       // a transaction's "part" (1, 2, ...); 0: the whole transaction in this line
    bool last = false;            // "last": true (a part line only)
    bool rolled_back = false;     // "rolled_back": true (a last part: discard the transaction's parts)
    // The changes of DB.TABLE, in order: a transaction's row changes, a
    // chunk's rows (other tables' are skipped).
    std::vector<LineChange> changes;
};

class LineReader {
public:
    LineReader(std::vector<PickedColumn> columns, std::string db, std::string table);
    ~LineReader();
    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    const Line& parse(std::string_view line, const std::string& where);
    // Bytes the reader keeps between lines: the JSON parser's capacity and
    // its value buffers. Bounded by the recent lines, not by the largest
    // line ever read (a line under a quarter of a far larger one, over
    // 2 MiB, gives the larger one's memory back first).
    std::size_t held_bytes() const noexcept;

private:
    struct Parser;
    std::vector<PickedColumn> columns_;
    std::string db_, table_;
    std::unique_ptr<Parser> parser_;
    Line line_;
};

// Checks that transaction lines (parse()'s) come as whole transactions:
// parts 1, 2, ... of one gtid (and one ts) in order, ending with "last",
// nothing else in between. Errors are Error{protocol} naming `where` and the
// field ("part", "gtid", "ts"), e.g. a part out of order, a gtid that
// changes inside a transaction, a line that is not a part before the last.
class PartSequence {
public:
    enum class Step : std::uint8_t {
        whole,        // a transaction in one line (or any other line): apply it
        opens,        // part 1 of several: begin, apply its changes
        continues,    // a middle part: apply its changes
        completes,    // the last part: apply its changes, commit
        rolled_back,  // the last part says the transaction is void: roll back
    };
    Step next(const Line& line, const std::string& where);
    // Inside a transaction in parts (its last part not seen yet).
    bool inside() const noexcept { return next_part_ != 0; }
    // The end of the input: Error{protocol} when inside a transaction.
    void finish(const std::string& where) const;
    // Forgets a transaction in flight (the consumer rolled it back).
    void reset() noexcept { next_part_ = 0; }

private:
    std::string gtid_;
    std::uint32_t timestamp_ = 0;
    std::uint64_t next_part_ = 0;  // 0: between transactions
};

// The double a reader of the line gets for a FLOAT value: the nearest to
// the float's shortest decimal text (0.1f -> 0.1, not 0.100000001490116).
double float_value_as_read(float value) noexcept;

}  // namespace sluice::mariadb::cdc::ndjson
