#include "sluice/postgres/row_stream.hpp"

#include "handle.hpp"

namespace sluice::postgres {


RowStream::RowStream(std::unique_ptr<State> state) : state_(std::move(state)) {}
RowStream::RowStream(RowStream&&) noexcept = default;
RowStream& RowStream::operator=(RowStream&& other) noexcept {
    if (this != &other) {
        close();
        state_ = std::move(other.state_);
    }
    return *this;
}
RowStream::~RowStream() { close(); }

bool RowStream::open() const noexcept { return state_ && state_->open; }
std::uint64_t RowStream::rows() const noexcept { return state_ ? state_->rows : 0; }

[[gnu::hot]] const Row* RowStream::next() {
    if (!open()) return nullptr;
    State& s = *state_;
    s.row.reset();
    s.current.reset();
    for (;;) {
        ResultPtr r(PQgetResult(s.conn));
        if (!r) {
            s.end();
            if (s.failure) detail::throw_failure(s.conn, s.failure.get(), "stream");
            return nullptr;
        }
        const ExecStatusType status = PQresultStatus(r.get());
        if (status == PGRES_SINGLE_TUPLE && !s.failure) {
            s.current.emplace(Result(r.release(), s.columns, s.format));
            s.row.emplace(s.current->row(0));
            ++s.rows;
            return &*s.row;
        }
        // PGRES_TUPLES_OK ends the rows; anything else is the statement failing
        // (kept, thrown once the result is fully read).
        if (status != PGRES_TUPLES_OK && status != PGRES_SINGLE_TUPLE && status != PGRES_COMMAND_OK && !s.failure)
            s.failure = std::move(r);
    }
}

void RowStream::close(bool cancel) noexcept {
    if (!open()) return;
    State& s = *state_;
    s.row.reset();
    s.current.reset();
    if (cancel) {
        if (PGcancel* c = PQgetCancel(s.conn)) {
            char buffer[256];
            PQcancel(c, buffer, sizeof buffer);
            PQfreeCancel(c);
        }
    }
    while (PGresult* r = PQgetResult(s.conn)) PQclear(r);
    s.end();
}

}  // namespace sluice::postgres
