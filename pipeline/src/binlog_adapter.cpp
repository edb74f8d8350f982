#include "sluice/pipeline/binlog_adapter.hpp"

#include <string>

#include "sluice/mariadb/binlog/value.hpp"
#include "sluice/mariadb/cdc/ndjson_reader.hpp"
#include "sluice/pipeline/error.hpp"

namespace sluice::pipeline {

namespace binlog = sluice::mariadb::binlog;
using mariadb::ColumnType;

namespace {

const char* const roles[4] = {"id", "key", "ts", "value"};

const std::string& name_of(const ColumnNames& n, int role) {
    switch (role) {
        case 0: return n.id;
        case 1: return n.key;
        case 2: return n.ts;
        default: return n.value;
    }
}

SourceValue from_value(const binlog::Value& v, const binlog::ColumnInfo& column, StringArena& scratch) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) return SourceValue::of_signed(*i);
    if (const auto* u = std::get_if<std::uint64_t>(&v)) return SourceValue::of_unsigned(*u);
    // FLOAT as the CDC line writes and reads it (its shortest decimal text):
    // the same double on the binlog, the stream and in a snapshot.
    if (const auto* f = std::get_if<float>(&v)) return SourceValue::of_double(mariadb::cdc::ndjson::float_value_as_read(*f));
    if (const auto* d = std::get_if<double>(&v)) return SourceValue::of_double(*d);
    if (const auto* t = std::get_if<binlog::Text>(&v)) return SourceValue::of_text(t->value);
    if (const auto* y = std::get_if<binlog::Year>(&v)) return SourceValue::of_signed(y->value);
    if (const auto* b = std::get_if<binlog::Bit>(&v)) return SourceValue::of_unsigned(b->value);
    std::string text;
    binlog::append_text(text, v, column);
    return SourceValue::of_text(scratch.store(text));
}

}  // namespace

const std::array<std::size_t, 4>& BinlogAdapter::indexes(const binlog::TableMap& table) {
    if (&table == cached_table_ && table.table_id == cached_table_id_ && table.columns.size() == cached_columns_)
        return cached_;
    for (int role = 0; role < 4; ++role) {
        const std::string& want = name_of(names_, role);
        std::size_t found = table.columns.size();
        for (std::size_t i = 0; i < table.columns.size(); ++i)
            if (table.columns[i].has_name && table.columns[i].name == want) found = i;
        if (found == table.columns.size()) {
            if (!table.has_column_names)
                throw Error(ErrorKind::source_image, "the binlog's table map of " + table.db + "." + table.table +
                                                         " has no column names (set binlog_row_metadata=FULL)");
            throw Error(ErrorKind::source_image, "--" + std::string(roles[role]) + " column \"" + want +
                                                     "\" is not a column of " + table.db + "." + table.table +
                                                     " in the binlog (was the table altered?)");
        }
        cached_[static_cast<std::size_t>(role)] = found;
    }
    cached_table_ = &table;
    cached_table_id_ = table.table_id;
    cached_columns_ = table.columns.size();
    return cached_;
}

RowImage BinlogAdapter::image(std::span<const binlog::Cell> cells, const binlog::TableMap& table,
                              std::string_view which, StringArena& scratch) {
    const auto& idx = indexes(table);
    RowImage img;
    for (std::size_t role = 0; role < 4; ++role) {
        const std::size_t c = idx[role];
        if (c >= cells.size() || !cells[c].present)
            throw Error(ErrorKind::source_image,
                        "the " + std::string(which) + " image of a row of " + table.db + "." + table.table +
                            " lacks column \"" + table.columns[c].name + "\" (set binlog_row_image=FULL)");
        img[role] = cells[c].null ? SourceValue::null_value() : from_value(cells[c].value, table.columns[c], scratch);
    }
    return img;
}

SourceChange BinlogAdapter::change(const mariadb::cdc::Change& c, StringArena& scratch) {
    SourceChange s;
    switch (c.op) {
        case binlog::RowsKind::write: s.op = SourceChange::Op::insert; break;
        case binlog::RowsKind::update: s.op = SourceChange::Op::update; break;
        case binlog::RowsKind::delete_: s.op = SourceChange::Op::remove; break;
    }
    if (s.op != SourceChange::Op::insert) s.before = image(c.before, *c.table, "before", scratch);
    if (s.op != SourceChange::Op::remove) s.after = image(c.after, *c.table, "after", scratch);
    return s;
}

RowImage BinlogAdapter::snapshot_row(const mariadb::cdc::SnapshotChunk& chunk, std::size_t row, StringArena& arena) {
    const std::vector<mariadb::Column>& cols = *chunk.columns;
    if (snapshot_columns_ != &cols) {
        for (int role = 0; role < 4; ++role) {
            const std::string& want = name_of(names_, role);
            std::size_t found = cols.size();
            for (std::size_t i = 0; i < cols.size(); ++i)
                if (cols[i].org_name == want || cols[i].name == want) found = i;
            if (found == cols.size())
                throw Error(ErrorKind::source_table, "--" + std::string(roles[role]) + " column \"" + want +
                                                         "\" is not in the snapshot of " + chunk.db + "." + chunk.table);
            snapshot_indexes_[static_cast<std::size_t>(role)] = found;
        }
        snapshot_columns_ = &cols;
    }
    RowImage img;
    for (std::size_t role = 0; role < 4; ++role) {
        const std::size_t c = snapshot_indexes_[role];
        const mariadb::Field f = chunk.field(row, c);
        if (f.is_null()) {
            img[role] = SourceValue::null_value();
            continue;
        }
        switch (cols[c].type) {
            case ColumnType::tiny:
            case ColumnType::short_:
            case ColumnType::int24:
            case ColumnType::long_:
            case ColumnType::longlong:
            case ColumnType::year:
                img[role] = cols[c].is_unsigned() ? SourceValue::of_unsigned(f.get<std::uint64_t>())
                                                  : SourceValue::of_signed(f.get<std::int64_t>());
                break;
            case ColumnType::float_:  // as from the binlog (from_value)
                img[role] = SourceValue::of_double(mariadb::cdc::ndjson::float_value_as_read(f.get<float>()));
                break;
            case ColumnType::double_: img[role] = SourceValue::of_double(f.get<double>()); break;
            default: img[role] = SourceValue::of_text(arena.store(f.to_string())); break;
        }
    }
    return img;
}

}  // namespace sluice::pipeline
