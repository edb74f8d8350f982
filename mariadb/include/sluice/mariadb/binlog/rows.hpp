#pragma once
// Reading the row changes of a Rows event: for each change the before
// image (UPDATE, DELETE) and/or the after image (WRITE, UPDATE), each a
// cell per table column. A cell is absent when the present-columns bitmap
// leaves the column out (binlog_row_image=MINIMAL or NOBLOB), else NULL or
// a typed Value.
//
// LIFETIME: a RowReader keeps a pointer to its Rows struct (which must
// outlive the reading); the cells are owned by the RowReader and
// overwritten by the next next(); their Values point into the Rows event's bytes (see
// events.hpp) and its TableMap. To keep a Rows event past the next
// Decoder::decode(), copy its `rows`, `columns_before`, `columns_after`
// bytes and point a copy of the Rows struct at them.
//
// Errors: Error{protocol} naming the event type, the table, the binlog
// file and offset, the row number and the column (a truncated image, a
// length beyond the event, a value the column type cannot hold).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sluice/mariadb/binlog/events.hpp"
#include "sluice/mariadb/binlog/value.hpp"

namespace sluice::mariadb::binlog {

struct Cell {
    bool present = false;  // in the image (the bitmap has the column)
    bool null = false;
    Value value;           // meaningful when present && !null
};

struct RowChange {
    std::span<const Cell> before;  // empty for WRITE
    std::span<const Cell> after;   // empty for DELETE
};

class RowReader {
public:
    // Error{protocol} when the event's column count exceeds its table
    // map's, or its bitmaps are shorter than the column count.
    explicit RowReader(const Rows& rows);
    // A reader for reset() (reading nothing until then).
    RowReader() = default;
    // Starts over on another event, keeping the cell storage: one reader
    // for a whole stream allocates nothing per event.
    void reset(const Rows& rows);

    // The next change into `change`; false after the last one.
    bool next(RowChange& change);
    // Changes read so far.
    std::size_t count() const noexcept { return count_; }

private:
    void read_image(Bytes present, std::vector<Cell>& cells);
    [[noreturn]] void fail(std::string_view what, std::size_t column) const;

    const Rows* rows_ = nullptr;
    bool ready_ = false;   // reset() passed its checks
    std::size_t pos_ = 0;  // into rows_->rows
    std::size_t count_ = 0;
    std::vector<Cell> before_;
    std::vector<Cell> after_;
};

// Convenience: calls f(change) for every change of `rows`.
template <class F>
void for_each_row(const Rows& rows, F&& f) {
    RowReader reader(rows);
    RowChange change;
    while (reader.next(change)) f(change);
}

}  // namespace sluice::mariadb::binlog
