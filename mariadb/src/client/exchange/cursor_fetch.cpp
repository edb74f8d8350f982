#include "sluice/mariadb/exchange/cursor_fetch.hpp"

#include <string>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/protocol/responses.hpp"
#include "sluice/mariadb/protocol/result_head.hpp"

namespace sluice::mariadb::exchange {

using namespace protocol;

namespace {
bool cursor_left_open(std::uint16_t s) noexcept {
    return (s & status::cursor_exists) && !(s & status::last_row_sent);
}
}  // namespace

void RowBatchReader::expect(RowBatch* into, std::size_t max_rows) noexcept {
    into_ = into;
    max_rows_ = max_rows;
    rows_ = 0;
    if (into_) into_->clear();
}

Step RowBatchReader::resume_not_a_row(Bytes p) {
    if (is_err(p)) throw_server_error(p);
    if (is_end_of_rows(p, deprecate_eof_)) {
        if (into_) into_->offsets.push_back(into_->bytes.size());
        status_ = end_of_rows_status(p, deprecate_eof_, capabilities_, nullptr);
        return Step::done;
    }
    return append_row(p);  // a row that starts with 0xFE, or an empty one
}

void RowBatchReader::too_many_rows() const {
    throw Error(ErrorKind::protocol, "server sent more than " + std::to_string(max_rows_) +
                                         " rows in reply to a COM_STMT_FETCH of " + std::to_string(max_rows_));
}

CursorFetchExchange::CursorFetchExchange(std::uint64_t capabilities, bool deprecate_eof, std::uint32_t statement_id,
                                         std::uint32_t fetch_size) noexcept
    : statement_id_(statement_id), fetch_size_(fetch_size), reader_(capabilities, deprecate_eof) {}

Step CursorFetchExchange::open(bool opened_in_head, std::uint16_t head_status) {
    if (opened_in_head) {
        last_status_ = head_status;
        server_done_ = !cursor_left_open(head_status);
        return Step::done;
    }
    server_done_ = true;  // unless the end of rows says otherwise
    reader_.expect(&current);
    state_ = State::reading_open;
    return Step::read;
}

Step CursorFetchExchange::send_fetch(Outbox& out) {
    out.add(true, [&](Writer& w) { write_stmt_fetch(w, statement_id_, fetch_size_); });
    state_ = State::sending;
    return Step::write;
}

Step CursorFetchExchange::receive() {
    in_flight_ = false;
    server_done_ = true;  // unless the reply says otherwise
    // The batch just walked tells the size of the next: grown once, not
    // doubling its way up again in the other buffer.
    if (next.bytes.capacity() < current.bytes.capacity()) next.bytes.reserve(current.bytes.capacity());
    reader_.expect(&next, fetch_size_);
    state_ = State::reading_fetch;
    return Step::read;
}

Step CursorFetchExchange::resume_sent() {
    if (state_ == State::sending) {  // it went out: its reply is owed
        ++fetches_;
        in_flight_ = true;
        state_ = State::idle;
        return Step::done;
    }
    throw Error(ErrorKind::usage, "cursor exchange resumed with nothing to read");
}

Step CursorFetchExchange::rows_end() {
    state_ = State::idle;
    last_status_ = reader_.status();
    server_done_ = !cursor_left_open(last_status_);
    return Step::done;
}

}  // namespace sluice::mariadb::exchange
