#pragma once
// cdc::Change and snapshot rows -> SourceChange: finds the four mapped
// columns by name (binlog_row_metadata=FULL, or the names the CDC stream
// took from information_schema) and reads their cells. A cell the binlog did
// not log (binlog_row_image MINIMAL or NOBLOB) or a table map without column
// names is Error{source_image}: the mapping cannot see the row.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sluice/mariadb/cdc/change_events.hpp"
#include "sluice/pipeline/mapping.hpp"
#include "sluice/pipeline/source_change.hpp"

namespace sluice::pipeline {

class BinlogAdapter {
public:
    explicit BinlogAdapter(ColumnNames names) : names_(std::move(names)) {}

    // `scratch` holds the text of cells that are not numbers or text
    // (dates, enums, ...); valid until it is cleared.
    SourceChange change(const mariadb::cdc::Change& c, StringArena& scratch);

    // A snapshot row, its cells copied into `arena` (they must outlive the chunk).
    RowImage snapshot_row(const mariadb::cdc::SnapshotChunk& chunk, std::size_t row, StringArena& arena);

private:
    const std::array<std::size_t, 4>& indexes(const mariadb::binlog::TableMap& table);
    RowImage image(std::span<const mariadb::binlog::Cell> cells, const mariadb::binlog::TableMap& table,
                   std::string_view which, StringArena& scratch);

    ColumnNames names_;
    const mariadb::binlog::TableMap* cached_table_ = nullptr;
    std::uint64_t cached_table_id_ = 0;
    std::size_t cached_columns_ = 0;
    std::array<std::size_t, 4> cached_{};
    const std::vector<mariadb::Column>* snapshot_columns_ = nullptr;
    std::array<std::size_t, 4> snapshot_indexes_{};
};

}  // namespace sluice::pipeline
