// WRITE/UPDATE/DELETE_ROWS (v1, v2, compressed): the fixed part, the
// present-columns bitmaps, and RowReader over the row images. An image is
// a NULL bitmap with one bit per present column, then the values of the
// present, non-NULL columns in column order.
#include "sluice/mariadb/binlog/rows.hpp"

#include <bit>
#include <string>

#include "detail.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::binlog {

namespace detail {

bool is_rows_event(EventType t) noexcept {
    switch (t) {
        case EventType::write_rows_v1:
        case EventType::update_rows_v1:
        case EventType::delete_rows_v1:
        case EventType::write_rows_v2:
        case EventType::update_rows_v2:
        case EventType::delete_rows_v2:
        case EventType::write_rows_compressed_v1:
        case EventType::update_rows_compressed_v1:
        case EventType::delete_rows_compressed_v1:
        case EventType::write_rows_compressed:
        case EventType::update_rows_compressed:
        case EventType::delete_rows_compressed: return true;
        default: return false;
    }
}

bool is_compressed_rows_event(EventType t) noexcept {
    auto code = static_cast<std::uint8_t>(t);
    return code >= static_cast<std::uint8_t>(EventType::write_rows_compressed_v1) &&
           code <= static_cast<std::uint8_t>(EventType::delete_rows_compressed);
}

std::uint8_t rows_version(EventType t) noexcept {
    switch (t) {
        case EventType::write_rows_v2:
        case EventType::update_rows_v2:
        case EventType::delete_rows_v2:
        case EventType::write_rows_compressed:
        case EventType::update_rows_compressed:
        case EventType::delete_rows_compressed: return 2;
        default: return 1;
    }
}

RowsKind rows_kind(EventType t) noexcept {
    switch (t) {
        case EventType::update_rows_v1:
        case EventType::update_rows_v2:
        case EventType::update_rows_compressed_v1:
        case EventType::update_rows_compressed: return RowsKind::update;
        case EventType::delete_rows_v1:
        case EventType::delete_rows_v2:
        case EventType::delete_rows_compressed_v1:
        case EventType::delete_rows_compressed: return RowsKind::delete_;
        default: return RowsKind::write;
    }
}

RowsHead parse_rows_head(Reader& r, EventType type, std::uint8_t post_header_length) {
    RowsHead h;
    if (post_header_length == 6) {
        h.table_id = r.u32("table id");
    } else {
        std::uint32_t lo = r.u32("table id");
        std::uint16_t hi = r.u16("table id");
        h.table_id = lo | (std::uint64_t{hi} << 32);
    }
    h.flags = r.u16("flags");
    std::size_t fixed = post_header_length == 6 ? 6 : 8;
    if (rows_version(type) == 2) {
        // v2: the extra row info length counts its own two bytes.
        std::uint16_t extra = r.u16("extra data length");
        if (extra < 2) r.fail("extra data length", "extra data length " + std::to_string(extra) + " (at least 2)");
        h.extra_data = r.bytes(extra - 2u, "extra data");
        fixed += 2;
    }
    if (post_header_length > fixed) r.skip(post_header_length - fixed, "post-header");
    return h;
}

void parse_rows_body(Reader& r, Rows& rows) {
    std::uint64_t count = r.lenenc("column count");
    std::size_t table_columns = rows.table->columns.size();
    if (count > table_columns)
        r.fail("column count", "rows of " + std::to_string(count) + " columns for table " + rows.table->db + "." +
                                   rows.table->table + " whose TABLE_MAP_EVENT has " +
                                   std::to_string(table_columns));
    rows.column_count = static_cast<std::uint32_t>(count);
    std::size_t bitmap = (rows.column_count + 7) / 8;
    if (rows.kind != RowsKind::write) rows.columns_before = r.bytes(bitmap, "present columns (before image)");
    if (rows.kind != RowsKind::delete_) rows.columns_after = r.bytes(bitmap, "present columns (after image)");
    rows.rows = r.rest();
}

}  // namespace detail

namespace {
constexpr std::size_t cells_none = static_cast<std::size_t>(-1);
}  // namespace

RowReader::RowReader(const Rows& rows) { reset(rows); }

void RowReader::reset(const Rows& rows) {
    rows_ = &rows;  // (named by fail())
    ready_ = false;  // until the checks below pass: next() reads nothing
    pos_ = 0;
    count_ = 0;
    if (!rows.table) {
        before_.clear();
        after_.clear();
        if (!rows.rows.empty()) fail("rows with no table map", cells_none);
        return;
    }
    std::size_t n = rows.table->columns.size();
    std::size_t bitmap = (rows.column_count + 7u) / 8u;
    if (rows.column_count > n) fail("the event has more columns than its table map", cells_none);
    if (rows.kind != RowsKind::write && rows.columns_before.size() < bitmap)
        fail("the before-image bitmap is shorter than the column count", cells_none);
    if (rows.kind != RowsKind::delete_ && rows.columns_after.size() < bitmap)
        fail("the after-image bitmap is shorter than the column count", cells_none);
    // Same width as the last event: the cells are kept as they are (every
    // read overwrites present, null and the value).
    if (rows.kind != RowsKind::write) before_.resize(n);
    else before_.clear();
    if (rows.kind != RowsKind::delete_) after_.resize(n);
    else after_.clear();
    ready_ = true;
}

bool RowReader::next(RowChange& change) {
    if (!ready_ || !rows_->table || pos_ >= rows_->rows.size()) return false;
    std::size_t start = pos_;
    if (rows_->kind != RowsKind::write) read_image(rows_->columns_before, before_);
    if (rows_->kind != RowsKind::delete_) read_image(rows_->columns_after, after_);
    // An image of no present columns takes no bytes: bytes left over
    // would then never be consumed.
    if (pos_ == start) fail("a row change of no columns with bytes left in the event", cells_none);
    change.before = before_;
    change.after = after_;
    ++count_;
    return true;
}

void RowReader::read_image(Bytes present, std::vector<Cell>& cells) {
    const TableMap& table = *rows_->table;
    const std::uint32_t width = rows_->column_count;
    std::size_t present_count = 0;
    for (std::size_t i = 0; i < (width + 7u) / 8u; ++i) {
        std::uint8_t b = present[i];
        if (i == width / 8u) b &= static_cast<std::uint8_t>((1u << (width % 8u)) - 1u);
        present_count += static_cast<std::size_t>(std::popcount(b));
    }
    detail::Reader r(rows_->rows.subspan(pos_), to_string(rows_->type));
    std::size_t column = 0;
    try {
        Bytes nulls = r.bytes((present_count + 7) / 8, "NULL bitmap");
        std::size_t j = 0;  // index among present columns
        for (column = 0; column < cells.size(); ++column) {
            Cell& cell = cells[column];
            if (column >= width || !((present[column / 8] >> (column % 8)) & 1)) {
                cell.present = false;
                cell.null = false;
                continue;
            }
            cell.present = true;
            cell.null = (nulls[j / 8] >> (j % 8)) & 1;
            ++j;
            if (!cell.null) detail::decode_value(table.columns[column], r, cell.value);
        }
    } catch (const Error& e) {
        fail(e.what(), column);
    }
    pos_ += r.position();
}

void RowReader::fail(std::string_view what, std::size_t column) const {
    const Rows& rows = *rows_;
    std::string msg = "binlog event ";
    msg += to_string(rows.type);
    msg += " at ";
    msg += rows.log_file ? *rows.log_file : std::string("?");
    msg += ':';
    msg += std::to_string(rows.log_offset);
    if (rows.table) {
        msg += " (table ";
        msg += rows.table->db;
        msg += '.';
        msg += rows.table->table;
        msg += ", id ";
        msg += std::to_string(rows.table_id);
        msg += ")";
        msg += ", row change ";
        msg += std::to_string(count_ + 1);
        if (column < rows.table->columns.size()) {
            msg += ", column ";
            msg += std::to_string(column + 1);
            if (!rows.table->columns[column].name.empty()) {
                msg += " '";
                msg += rows.table->columns[column].name;
                msg += "'";
            }
        }
    }
    msg += ": ";
    msg += what;
    throw Error(ErrorKind::protocol, msg);
}

}  // namespace sluice::mariadb::binlog
