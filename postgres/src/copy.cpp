#include "sluice/postgres/copy.hpp"

#include "handle.hpp"

namespace sluice::postgres {

namespace {
// Rows are sent in chunks of about this size: large enough that the per-call
// cost vanishes, small enough to keep memory flat for any number of rows.
constexpr std::size_t flush_threshold = 256 * 1024;

}  // namespace

CopyIn::CopyIn(CopyIn&& other) noexcept
    : connection_(other.connection_), buffer_(std::move(other.buffer_)), done_(other.done_) {
    other.done_ = true;
}

CopyIn::~CopyIn() {
    if (done_) return;
    PGconn* c = connection_->session_->conn;
    PQputCopyEnd(c, "COPY abandoned by the client");
    while (ResultPtr r{PQgetResult(c)}) {
    }
}

void CopyIn::row(const std::vector<Param>& values) {
    if (done_) throw Error(ErrorKind::usage, "COPY already finished");
    append_copy_row(buffer_, values);
    if (buffer_.size() >= flush_threshold) flush();
}

void CopyIn::flush() {
    if (buffer_.empty()) return;
    PGconn* c = connection_->session_->conn;
    if (PQputCopyData(c, buffer_.data(), static_cast<int>(buffer_.size())) != 1)
        detail::throw_failure(c, nullptr, "COPY");
    buffer_.clear();
}

std::uint64_t CopyIn::finish() {
    if (done_) throw Error(ErrorKind::usage, "COPY already finished");
    flush();
    done_ = true;
    PGconn* c = connection_->session_->conn;
    if (PQputCopyEnd(c, nullptr) != 1) detail::throw_failure(c, nullptr, "COPY");
    ResultPtr last;
    ResultPtr failure;
    while (ResultPtr r{PQgetResult(c)}) {
        if (PQresultStatus(r.get()) != PGRES_COMMAND_OK && !failure) failure = std::move(r);
        else last = std::move(r);
    }
    if (failure) detail::throw_failure(c, failure.get(), "COPY");
    const char* n = last ? PQcmdTuples(last.get()) : nullptr;
    return (n != nullptr && *n != '\0') ? std::stoull(n) : 0;
}

}  // namespace sluice::postgres
