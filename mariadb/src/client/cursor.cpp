#include "sluice/mariadb/cursor.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <optional>
#include <utility>

#include "access.hpp"
#include "sluice/mariadb/protocol/responses.hpp"
#include "sluice/mariadb/protocol/result_head.hpp"
#include "sluice/mariadb/protocol/rows.hpp"

namespace sluice::mariadb {

using namespace protocol;

namespace {

// One fetch's rows: row packets back to back, offsets their starts plus one
// past the last. Both vectors keep their capacity from batch to batch.
struct Batch {
    std::vector<std::uint8_t> bytes;
    std::vector<std::size_t> offsets;
    std::size_t rows() const noexcept { return offsets.empty() ? 0 : offsets.size() - 1; }
    void clear() noexcept {
        bytes.clear();
        offsets.clear();
    }
};

// Reads row packets into `into` until the end-of-rows packet; returns its
// status flags. With `into` null the rows are skipped. More than
// `max_rows` rows is a protocol error: a fetch asks for at most that many,
// and the cursor's memory bound (two batches) rests on it.
std::uint16_t read_batch(detail::Session& s, Batch* into,
                         std::size_t max_rows = std::numeric_limits<std::size_t>::max()) {
    if (into) into->clear();
    for (std::size_t rows = 0;; ++rows) {
        Bytes p = s.read();
        if (is_err(p)) throw_server_error(p);
        if (is_end_of_rows(p, s.deprecate_eof)) {
            if (into) into->offsets.push_back(into->bytes.size());
            std::uint16_t status = end_of_rows_status(p, s.deprecate_eof, s.capabilities, nullptr);
            s.result.server_status = status;
            return status;
        }
        if (rows == max_rows) {
            throw Error(ErrorKind::protocol, "server sent more than " + std::to_string(max_rows) +
                                                 " rows in reply to a COM_STMT_FETCH of " +
                                                 std::to_string(max_rows));
        }
        if (into) {
            into->offsets.push_back(into->bytes.size());
            into->bytes.insert(into->bytes.end(), p.begin(), p.end());
        }
    }
}

bool cursor_left_open(std::uint16_t status) noexcept {
    return (status & status::cursor_exists) && !(status & status::last_row_sent);
}

// The pending reply of a fetch whose Cursor was destroyed: read and dropped.
struct DiscardFetchReply final : detail::PendingReply {
    void read(detail::Session& s) override {
        s.chan().expect_sequence(1);
        try {
            read_batch(s, nullptr);
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::server) throw;
            s.on_error(e);  // nobody asked for these rows; a fatal error still breaks the session
        }
    }
};
DiscardFetchReply discard_fetch_reply;

}  // namespace

struct Cursor::State final : detail::PendingReply {
    detail::Session* session = nullptr;
    Statement* stmt = nullptr;
    std::uint32_t fetch_size = 0;
    std::vector<Column> columns;
    std::vector<ColumnType> types;
    std::vector<FieldSlice> fields;
    Row row;
    Batch current;  // the batch being walked
    Batch next;     // the reply of the fetch after it, once read
    std::size_t next_row = 0;
    bool server_done = false;  // the server sent its last row (or held no cursor): nothing to fetch
    bool in_flight = false;    // a COM_STMT_FETCH was sent and its reply is unread
    bool next_ready = false;   // `next` (or next_error) holds that reply
    std::optional<Error> next_error;
    bool closed = false;
    std::size_t fetches = 0;

    void send_fetch(detail::Session& s) {
        s.begin_command();
        s.send([&](Writer& w) { write_stmt_fetch(w, detail::Access::id(*stmt), fetch_size); });
        ++fetches;
        in_flight = true;
        s.pending_reply = this;
    }

    // Reads the in-flight fetch's reply into `next`.
    void receive(detail::Session& s) {
        in_flight = false;
        server_done = true;  // unless the reply says otherwise
        // Other commands without a reply (COM_STMT_CLOSE) may have been sent
        // since; the fetch's reply still starts at sequence 1.
        s.chan().expect_sequence(1);
        // The batch just walked tells the size of the next: grown once,
        // not doubling its way up again in the other buffer.
        if (next.bytes.capacity() < current.bytes.capacity()) next.bytes.reserve(current.bytes.capacity());
        const std::uint16_t status = read_batch(s, &next, fetch_size);
        server_done = !cursor_left_open(status);
        next_ready = true;
    }

    // Another command needs the connection: keep the reply for next().
    void read(detail::Session& s) override {
        try {
            receive(s);
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::server) throw;
            next.clear();
            next_error = e;
            next_ready = true;
            s.on_error(e);
        }
    }

    // Makes the next batch current; false when there is none.
    bool advance() {
        if (closed) return false;
        detail::Session& s = *session;
        if (!next_ready) {
            if (!in_flight && server_done) return false;
            s.guarded([&] {
                if (!in_flight) send_fetch(s);  // normally one is in flight already
                if (s.pending_reply == this) s.pending_reply = nullptr;
                receive(s);
            });
        }
        next_ready = false;
        if (next_error) {
            Error e = std::move(*next_error);
            next_error.reset();
            throw e;
        }
        std::swap(current, next);
        next_row = 0;
        // Batch N+1 is asked for before the caller sees batch N.
        if (!server_done) s.guarded([&] { send_fetch(s); });
        return true;
    }
};

Cursor::Cursor(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
Cursor::Cursor(Cursor&&) noexcept = default;

Cursor& Cursor::operator=(Cursor&& other) noexcept {
    if (this != &other) {
        Cursor gone(std::move(*this));  // detached like a destroyed cursor
        state_ = std::move(other.state_);
    }
    return *this;
}

Cursor::~Cursor() {
    if (state_ && state_->in_flight && state_->session->pending_reply == state_.get()) {
        state_->session->pending_reply = &discard_fetch_reply;
    }
}

Cursor Cursor::open_values(Statement& stmt, std::uint32_t fetch_size, std::span<const ParamValue> values) {
    if (fetch_size == 0) throw Error(ErrorKind::usage, "cursor fetch size must be at least 1");
    if (values.size() != stmt.param_count()) {
        throw Error(ErrorKind::usage, "statement has " + std::to_string(stmt.param_count()) + " parameters, " +
                                          std::to_string(values.size()) + " values given");
    }
    detail::Session& s = detail::Access::session(stmt);
    auto st = std::make_unique<State>();
    st->session = &s;
    st->stmt = &stmt;
    st->fetch_size = fetch_size;
    s.guarded([&] {
        s.begin_command();
        s.send([&](Writer& w) { write_stmt_execute(w, detail::Access::id(stmt), values, cursor_flag::read_only); });
        s.read_result_head(true, &detail::Access::columns(stmt));
        if (s.result.phase == detail::Phase::idle) {  // no result set (not a SELECT): nothing to fetch
            st->server_done = true;
            return;
        }
        st->columns = *s.result.result_columns;
        // With a cursor the server ends the head with an EOF carrying
        // CURSOR_EXISTS; without one (it may decline) the rows follow.
        // Without deprecate-EOF that EOF is the one after the column
        // definitions, already read: nothing follows it.
        const bool opened_in_head = !s.deprecate_eof && (s.result.definitions_eof_status & status::cursor_exists);
        std::uint16_t status = opened_in_head ? s.result.definitions_eof_status : read_batch(s, &st->current);
        s.result.phase = (status & status::more_results_exist) ? detail::Phase::more_results : detail::Phase::idle;
        st->server_done = !cursor_left_open(status);
    });
    st->types.resize(st->columns.size());
    for (std::size_t i = 0; i < st->columns.size(); ++i) st->types[i] = st->columns[i].type;
    st->fields.resize(st->columns.size());
    st->row = Row(&st->columns, st->fields, true);
    // Sized for a batch of narrow rows (32 bytes each) so that a typical
    // batch fills its buffers without regrowing; capped so that a huge fetch
    // size does not size memory before rows arrive.
    const std::size_t expected_rows = std::min<std::size_t>(fetch_size, 4096) + 1;
    for (Batch* b : {&st->current, &st->next}) {
        b->offsets.reserve(expected_rows);
        b->bytes.reserve(expected_rows * 32);
    }
    if (!st->server_done) s.guarded([&] { st->send_fetch(s); });
    return Cursor(std::move(st));
}

const std::vector<Column>& Cursor::columns() const noexcept {
    static const std::vector<Column> none;
    return state_ ? state_->columns : none;
}

std::size_t Cursor::fetches() const noexcept { return state_ ? state_->fetches : 0; }

const Row* Cursor::next() {
    if (!state_) return nullptr;
    State& st = *state_;
    while (st.next_row >= st.current.rows()) {
        if (!st.advance()) return nullptr;
    }
    const std::size_t at = st.current.offsets[st.next_row];
    const std::size_t end = st.current.offsets[st.next_row + 1];
    ++st.next_row;
    decode_binary_row(Bytes(st.current.bytes.data() + at, end - at), st.types, st.fields);
    return &st.row;
}

void Cursor::close() {
    if (!state_ || state_->closed) return;
    State& st = *state_;
    st.closed = true;
    st.current.clear();
    st.next_row = 0;
    detail::Session& s = *st.session;
    if (st.in_flight) {
        try {
            s.guarded([&] {
                if (s.pending_reply == &st) s.pending_reply = nullptr;
                st.receive(s);
            });
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::server) throw;  // the cursor is gone on the server either way
        }
    }
    st.next.clear();
    st.next_ready = false;
    st.next_error.reset();
    if (!st.server_done) {
        st.server_done = true;
        st.stmt->reset();
    }
}

}  // namespace sluice::mariadb
