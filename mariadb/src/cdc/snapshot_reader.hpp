#pragma once
// A consistent snapshot of the selected tables: START TRANSACTION WITH
// CONSISTENT SNAPSHOT on its own connection, the binlog position that
// matches it (binlog_snapshot_file/position -> BINLOG_GTID_POS), then each
// table read in primary-key order by one streamed, prepared SELECT (binary
// protocol, so FLOAT and DOUBLE arrive exact), cut into chunks. Memory is
// bounded by one chunk: rows are read from the socket as chunks are handed
// out, never buffered whole.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/mariadb/cdc/change_events.hpp"
#include "sluice/mariadb/cdc/table_filter.hpp"
#include "sluice/mariadb/connection.hpp"

namespace sluice::mariadb::cdc::detail {

class SnapshotReader {
public:
    // Opens the snapshot transaction and learns its position and tables.
    SnapshotReader(Connection connection, const TableFilter& filter, std::size_t chunk_rows);
    ~SnapshotReader();

    const GtidState& position() const noexcept { return position_; }
    // The next chunk into `chunk`; false when every table was read (the
    // snapshot transaction is then committed).
    bool next(SnapshotChunk& chunk);

private:
    struct Table {
        std::string db, name;
        std::vector<std::string> primary_key;
    };
    void open_table();

    Connection connection_;
    std::size_t chunk_rows_;
    GtidState position_;
    std::vector<Table> tables_;
    std::size_t next_table_ = 0;
    std::optional<Statement> statement_;
    std::optional<ResultSet> rows_;
    std::shared_ptr<const std::vector<Column>> columns_;
    const Table* current_ = nullptr;
};

// The primary key's columns of db.table in key order (empty without one),
// from SHOW KEYS.
std::vector<std::string> primary_key_of(Connection& connection, std::string_view db, std::string_view table);

// `name` as a backquoted SQL identifier.
std::string quote_identifier(std::string_view name);
// `text` as a quoted SQL string literal.
std::string quote_literal(std::string_view text);

}  // namespace sluice::mariadb::cdc::detail
