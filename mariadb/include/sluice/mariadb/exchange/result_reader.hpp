#pragma once
// Reading a command's results as an exchange: the head (OK, ERR, a LOCAL
// INFILE request, or a column count and its definitions, or none when the
// server reuses a statement's cached ones), then the rows one packet at a
// time, then, with SERVER_MORE_RESULTS_EXIST, the next result's head.
//
// It owns the current result's state (columns, row, OK), which the
// connection's ResultSet reads. Sans-I/O: the driver reads packets and feeds
// them in.
//
//   reader.expect_head(binary, statement_columns);     // after COM_QUERY / COM_STMT_EXECUTE went out
//   while (reader.resume(read_packet()) == Step::read) {}   // the head
//   while (reader.phase == Phase::rows && reader.row_packet(read_packet())) use(reader.row);
//   if (reader.phase == Phase::more_results) reader.expect_head(reader.binary);  // and again
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sluice/mariadb/column.hpp"
#include "sluice/mariadb/exchange/column_definitions.hpp"
#include "sluice/mariadb/exchange/step.hpp"
#include "sluice/mariadb/protocol/responses.hpp"
#include "sluice/mariadb/protocol/rows.hpp"
#include "sluice/mariadb/result_set.hpp"
#include "sluice/mariadb/row.hpp"

namespace sluice::mariadb::exchange {

enum class Phase {
    idle,          // no result is being read (the command is over)
    head,          // the head's first packet is next
    definitions,   // column definitions (or their EOF) are next
    rows,          // rows (or the end of rows) are next
    more_results,  // the next result's head is next (expect_head again)
    local_infile,  // the head was a LOCAL INFILE request: local_infile_name; the driver answers it
};

class ResultReader {
public:
    // The negotiated capabilities (after login).
    void set_connection(std::uint64_t capabilities, bool deprecate_eof) noexcept {
        capabilities_ = capabilities;
        deprecate_eof_ = deprecate_eof;
    }
    std::uint64_t capabilities() const noexcept { return capabilities_; }
    bool deprecate_eof() const noexcept { return deprecate_eof_; }

    // The head is next. With a statement's cached column definitions: used
    // as they are (no copy) when the server skips them
    // (MARIADB_CLIENT_CACHE_METADATA) and replaced when it sends new ones;
    // the cache applies to this head only (not to later results).
    // Inline, field by field: every command's head starts here.
    void expect_head(bool binary_rows, std::shared_ptr<std::vector<Column>>* statement_columns = nullptr) {
        phase = Phase::head;
        statement_columns_ = statement_columns;
        binary = binary_rows;
        columns.clear();
        cached_columns.reset();
        result_columns = &columns;
        ok.affected_rows = 0;
        ok.last_insert_id = 0;
        ok.warnings = 0;
        ok.status_flags = 0;
        ok.info.clear();
    }
    // Phase head or definitions: consumes one packet of the head; Step::read
    // while it needs more, Step::done when the head is in (phase rows, idle,
    // more_results or local_infile). A server error throws (phase idle).
    Step resume(protocol::Bytes packet);
    // Phase rows: consumes one row packet. True with `row` set; false at the
    // end of the result (phase idle or more_results, `ok` filled).
    // Inline up to the decode: the row loop of every result runs it.
    bool row_packet(protocol::Bytes packet) {
        if (!packet.empty() && packet[0] >= 0xFE && ends_rows(packet)) return false;
        decode_row(packet);
        return true;
    }

    // An OK (or the end of rows) ends a result: fills `ok` and the phase.
    void set_ok(const protocol::OkPacket& ok_packet);
    void end_rows(protocol::Bytes end_packet);
    // Forgets the current result (the connection broke, or a pipeline
    // starts a step without reading a head).
    void reset() noexcept;

    Phase phase = Phase::idle;
    bool binary = false;
    // Bumped by every new command: a ResultSet of an earlier one is stale.
    std::uint64_t generation = 0;
    // Columns read from the wire for the current result.
    std::vector<Column> columns;
    // The current result's columns: `columns`, or the executing statement's
    // cache (held by `cached_columns`, so it outlives a Statement destroyed
    // while its rows are read) when the server skipped the definitions.
    const std::vector<Column>* result_columns = &columns;
    std::shared_ptr<const std::vector<Column>> cached_columns;
    std::vector<protocol::ColumnType> types;
    std::vector<protocol::FieldSlice> fields;
    OkInfo ok;
    Row row;
    // The last server status flags seen (login OK, every OK and EOF): text
    // escaping follows NO_BACKSLASH_ESCAPES from here.
    std::uint16_t server_status = 0;
    // Without deprecate-EOF: the status of the EOF that ends the column
    // definitions (a cursor's execute says CURSOR_EXISTS there, and no rows
    // or second EOF follow).
    std::uint16_t definitions_eof_status = 0;
    // Phase local_infile: the file the server asked for.
    std::string local_infile_name;

private:
    Step head_ready();
    // A packet starting with 0xFF or 0xFE: an ERR throws, the end of rows
    // gives true (ok filled); false for a row that starts with 0xFE.
    bool ends_rows(protocol::Bytes packet);
    void decode_row(protocol::Bytes packet);

    std::uint64_t capabilities_ = 0;
    bool deprecate_eof_ = false;
    std::shared_ptr<std::vector<Column>>* statement_columns_ = nullptr;
    ColumnDefinitions definitions_;
};

}  // namespace sluice::mariadb::exchange
