#include "sluice/mariadb/exchange/local_infile.hpp"

#include <utility>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::exchange {

using namespace protocol;

LocalInfileExchange::LocalInfileExchange(std::uint64_t capabilities, std::string requested,
                                         LocalInfileSource* source) noexcept
    : capabilities_(capabilities),
      requested_(std::move(requested)),
      source_(source),
      registered_(source != nullptr && source->reader != nullptr && requested_ == source->name) {}

Step LocalInfileExchange::start(Outbox& out) {
    state_ = State::sending;
    return next_chunk(out);
}

// One chunk of the source, or the empty packet that ends the data (at once
// for a refusal, and after a reader failure).
Step LocalInfileExchange::next_chunk(Outbox& out) {
    if (registered_ && !reader_failure_) {
        try {
            const std::size_t n = (*source_->reader)(source_->buffer);
            if (n > source_->buffer.size()) {
                throw Error(ErrorKind::usage, "upload reader returned " + std::to_string(n) + " bytes for a buffer of " +
                                                  std::to_string(source_->buffer.size()));
            }
            if (n > 0) {
                out.add_bytes(false, Bytes(source_->buffer.data(), n));
                return Step::write;
            }
        } catch (...) {
            // The reader's: the exchange is still in step, so the data ends
            // here and the failure is thrown once the server answered.
            reader_failure_ = std::current_exception();
        }
    }
    out.add_bytes(false, {});  // end of data (for a refusal: an empty file)
    state_ = State::end_sent;
    return Step::write;
}

Step LocalInfileExchange::resume(Outbox& out, Bytes p) {
    switch (state_) {
        case State::sending: return next_chunk(out);
        case State::end_sent: state_ = State::reply; return Step::read;
        case State::reply:
            if (is_err(p)) {
                state_ = State::finished;
                if (reader_failure_) std::rethrow_exception(reader_failure_);
                throw_server_error(p);
            }
            ok_ = parse_ok(p, capabilities_);
            state_ = State::finished;
            return Step::done;
        case State::finished: break;
    }
    throw Error(ErrorKind::usage, "LOCAL INFILE exchange resumed after it finished");
}

void LocalInfileExchange::finish() const {
    if (reader_failure_) std::rethrow_exception(reader_failure_);
    if (!registered_) {
        throw Error(ErrorKind::usage, "server requested LOCAL INFILE '" + requested_ +
                                          "', which is not the source registered for this statement: refused, "
                                          "nothing was read");
    }
}

}  // namespace sluice::mariadb::exchange
