#include "sluice/mariadb/cursor.hpp"

#include <algorithm>

#include "access.hpp"
#include "sluice/mariadb/protocol/responses.hpp"
#include "sluice/mariadb/protocol/result_head.hpp"

namespace sluice::mariadb {

using namespace protocol;

namespace {
// Reads row packets into batch/offsets until the end-of-rows packet;
// returns its status flags.
std::uint16_t read_batch(detail::Session& s, std::vector<std::uint8_t>& batch, std::vector<std::size_t>& offsets) {
    batch.clear();
    offsets.clear();
    for (;;) {
        Bytes p = s.read();
        if (is_err(p)) throw_server_error(p);
        if (is_end_of_rows(p, s.deprecate_eof)) {
            offsets.push_back(batch.size());
            OkPacket ok;
            std::uint16_t status = end_of_rows_status(p, s.deprecate_eof, s.capabilities, &ok);
            s.server_status = status;
            return status;
        }
        offsets.push_back(batch.size());
        batch.insert(batch.end(), p.begin(), p.end());
    }
}
}  // namespace

Cursor Cursor::open_values(Statement& stmt, std::uint32_t fetch_size, std::span<const ParamValue> values) {
    if (fetch_size == 0) throw Error(ErrorKind::usage, "cursor fetch size must be at least 1");
    if (values.size() != stmt.param_count()) {
        throw Error(ErrorKind::usage, "statement has " + std::to_string(stmt.param_count()) + " parameters, " +
                                          std::to_string(values.size()) + " values given");
    }
    detail::Session& s = detail::Access::session(stmt);
    Cursor c(stmt, fetch_size);
    s.guarded([&] {
        s.begin_command();
        s.send([&](Writer& w) { write_stmt_execute(w, detail::Access::id(stmt), values, cursor_flag::read_only); });
        s.statement_columns = &detail::Access::columns(stmt);
        s.read_result_head(true);
        if (s.phase == detail::Phase::idle) {  // no result set (not a SELECT): nothing to fetch
            c.exhausted_ = true;
            return;
        }
        c.columns_ = s.columns;
        // With a cursor the server ends the head with an EOF carrying
        // CURSOR_EXISTS; without one (it may decline) the rows follow.
        std::uint16_t status = read_batch(s, c.batch_, c.offsets_);
        s.phase = (status & status::more_results_exist) ? detail::Phase::more_results : detail::Phase::idle;
        c.exhausted_ = !(status & status::cursor_exists) || (status & status::last_row_sent);
    });
    c.types_.resize(c.columns_.size());
    for (std::size_t i = 0; i < c.columns_.size(); ++i) c.types_[i] = c.columns_[i].type;
    c.fields_.resize(c.columns_.size());
    return c;
}

void Cursor::fetch() {
    detail::Session& s = detail::Access::session(*stmt_);
    s.guarded([&] {
        s.begin_command();
        s.send([&](Writer& w) { write_stmt_fetch(w, detail::Access::id(*stmt_), fetch_size_); });
        std::uint16_t status = read_batch(s, batch_, offsets_);
        exhausted_ = (status & status::last_row_sent) || !(status & status::cursor_exists);
    });
    ++fetches_;
    next_row_ = 0;
}

const Row* Cursor::next() {
    while (next_row_ + 1 >= offsets_.size()) {  // the batch is used up
        if (exhausted_) return nullptr;
        fetch();
    }
    const std::size_t at = offsets_[next_row_];
    const std::size_t end = offsets_[next_row_ + 1];
    ++next_row_;
    decode_binary_row(Bytes(batch_.data() + at, end - at), types_, fields_);
    row_ = Row(&columns_, fields_, true);
    return &row_;
}

void Cursor::close() {
    if (exhausted_) return;
    exhausted_ = true;
    offsets_.clear();
    stmt_->reset();
}

}  // namespace sluice::mariadb
