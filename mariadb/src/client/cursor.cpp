#include "sluice/mariadb/cursor.hpp"

#include <algorithm>
#include <string>
#include <optional>
#include <utility>

#include "session.hpp"
#include "sluice/mariadb/exchange/cursor_fetch.hpp"
#include "sluice/mariadb/protocol/responses.hpp"
#include "sluice/mariadb/protocol/result_head.hpp"
#include "sluice/mariadb/protocol/rows.hpp"

namespace sluice::mariadb {

using namespace protocol;

namespace {

// The pending reply of a fetch whose Cursor was destroyed: read and dropped.
struct DiscardFetchReply final : detail::PendingReply {
    void read(detail::Session& s) override {
        // Other commands without a reply (COM_STMT_CLOSE) may have been sent
        // since; the fetch's reply still starts at sequence 1.
        s.chan().expect_sequence(1);
        exchange::RowBatchReader rows(s.capabilities, s.deprecate_eof);
        rows.expect(nullptr);
        try {
            s.run(exchange::Step::read, [&](Bytes p) { return rows.resume(p); });
            s.result.server_status = rows.status();
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::server) throw;
            s.on_error(e);  // nobody asked for these rows; a fatal error still breaks the session
        }
    }
};
DiscardFetchReply discard_fetch_reply;

}  // namespace

// The blocking side of a cursor: its exchange (the batches and the fetch in
// flight) driven over the session, the row being decoded, and the reply
// hook that lets another command read the pipelined fetch first.
struct Cursor::State final : detail::PendingReply {
    detail::Session* session;
    Statement* stmt;
    exchange::CursorFetchExchange fetch;
    std::vector<Column> columns;
    std::vector<ColumnType> types;
    std::vector<FieldSlice> fields;
    Row row;
    std::size_t next_row = 0;  // in fetch.current
    bool next_ready = false;   // fetch.next (or next_error) holds the reply of the fetch in flight
    std::optional<Error> next_error;
    bool closed = false;

    State(detail::Session& s, Statement& st, std::uint32_t fetch_size)
        : session(&s), stmt(&st), fetch(s.capabilities, s.deprecate_eof, st.id(), fetch_size) {}

    void send_fetch(detail::Session& s) {
        s.begin_command();
        s.run(fetch.send_fetch(s.outbox), [&](Bytes p) { return fetch.resume(p); });
        s.pending_reply = this;
    }

    // Reads the in-flight fetch's reply into fetch.next.
    void receive(detail::Session& s) {
        // Other commands without a reply (COM_STMT_CLOSE) may have been sent
        // since; the fetch's reply still starts at sequence 1.
        s.chan().expect_sequence(1);
        s.run(fetch.receive(), [&](Bytes p) { return fetch.resume(p); });
        s.result.server_status = fetch.last_status();
        next_ready = true;
    }

    // Another command needs the connection: keep the reply for next().
    void read(detail::Session& s) override {
        try {
            receive(s);
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::server) throw;
            fetch.next.clear();
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
            if (!fetch.in_flight() && fetch.server_done()) return false;
            s.guarded([&] {
                if (!fetch.in_flight()) send_fetch(s);  // normally one is in flight already
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
        std::swap(fetch.current, fetch.next);
        next_row = 0;
        // Batch N+1 is asked for before the caller sees batch N.
        if (!fetch.server_done()) s.guarded([&] { send_fetch(s); });
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
    if (state_ && state_->fetch.in_flight() && state_->session->pending_reply == state_.get()) {
        state_->session->pending_reply = &discard_fetch_reply;
    }
}

Cursor Cursor::open_values(Statement& stmt, std::uint32_t fetch_size, std::span<const ParamValue> values) {
    if (fetch_size == 0) throw Error(ErrorKind::usage, "cursor fetch size must be at least 1");
    if (values.size() != stmt.param_count()) {
        throw Error(ErrorKind::usage, "statement has " + std::to_string(stmt.param_count()) + " parameters, " +
                                          std::to_string(values.size()) + " values given");
    }
    detail::Session& s = stmt.session();
    auto st = std::make_unique<State>(s, stmt, fetch_size);
    s.guarded([&] {
        s.begin_command();
        s.send([&](Writer& w) { write_stmt_execute(w, stmt.id(), values, cursor_flag::read_only); });
        s.read_result_head(true, &stmt.columns_);
        if (s.result.phase == detail::Phase::idle) {  // no result set (not a SELECT): nothing to fetch
            st->fetch.mark_server_done();
            return;
        }
        st->columns = *s.result.result_columns;
        // With a cursor the server ends the head with an EOF carrying
        // CURSOR_EXISTS; without one (it may decline) the rows follow.
        // Without deprecate-EOF that EOF is the one after the column
        // definitions, already read: nothing follows it.
        const bool opened_in_head = !s.deprecate_eof && (s.result.definitions_eof_status & status::cursor_exists);
        const exchange::Step first = st->fetch.open(opened_in_head, s.result.definitions_eof_status);
        if (first == exchange::Step::read) {
            s.run(first, [&](Bytes p) { return st->fetch.resume(p); });
            s.result.server_status = st->fetch.last_status();
        }
        const std::uint16_t status = st->fetch.last_status();
        s.result.phase = (status & status::more_results_exist) ? detail::Phase::more_results : detail::Phase::idle;
    });
    st->types.resize(st->columns.size());
    for (std::size_t i = 0; i < st->columns.size(); ++i) st->types[i] = st->columns[i].type;
    st->fields.resize(st->columns.size());
    st->row = Row(&st->columns, st->fields, true);
    // Sized for a batch of narrow rows (32 bytes each) so that a typical
    // batch fills its buffers without regrowing; capped so that a huge fetch
    // size does not size memory before rows arrive.
    const std::size_t expected_rows = std::min<std::size_t>(fetch_size, 4096) + 1;
    for (exchange::RowBatch* b : {&st->fetch.current, &st->fetch.next}) {
        b->offsets.reserve(expected_rows);
        b->bytes.reserve(expected_rows * 32);
    }
    if (!st->fetch.server_done()) s.guarded([&] { st->send_fetch(s); });
    return Cursor(std::move(st));
}

const std::vector<Column>& Cursor::columns() const noexcept {
    static const std::vector<Column> none;
    return state_ ? state_->columns : none;
}

std::size_t Cursor::fetches() const noexcept { return state_ ? state_->fetch.fetches() : 0; }

const Row* Cursor::next() {
    if (!state_) return nullptr;
    State& st = *state_;
    const exchange::RowBatch& batch = st.fetch.current;
    while (st.next_row >= batch.rows()) {
        if (!st.advance()) return nullptr;
    }
    const std::size_t at = batch.offsets[st.next_row];
    const std::size_t end = batch.offsets[st.next_row + 1];
    ++st.next_row;
    decode_binary_row(Bytes(batch.bytes.data() + at, end - at), st.types, st.fields);
    return &st.row;
}

void Cursor::close() {
    if (!state_ || state_->closed) return;
    State& st = *state_;
    st.closed = true;
    st.fetch.current.clear();
    st.next_row = 0;
    detail::Session& s = *st.session;
    if (st.fetch.in_flight()) {
        try {
            s.guarded([&] {
                if (s.pending_reply == &st) s.pending_reply = nullptr;
                st.receive(s);
            });
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::server) throw;  // the cursor is gone on the server either way
        }
    }
    st.fetch.next.clear();
    st.next_ready = false;
    st.next_error.reset();
    if (!st.fetch.server_done()) {
        st.fetch.mark_server_done();
        st.stmt->reset();
    }
}

}  // namespace sluice::mariadb
