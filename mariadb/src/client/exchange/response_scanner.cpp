#include "sluice/mariadb/exchange/response_scanner.hpp"

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/protocol/responses.hpp"
#include "sluice/mariadb/protocol/result_head.hpp"

namespace sluice::mariadb::exchange {

using namespace protocol;

Step ResponseScanner::after_status(std::uint16_t status) {
    if (status & status::more_results_exist) {
        state_ = State::head;
        return Step::read;
    }
    return Step::done;
}

Step ResponseScanner::ended_in_error(Bytes err) {
    final_error_code_ = parse_err(err).code;
    return Step::done;
}

Step ResponseScanner::resume(Outbox& out, Bytes p) {
    switch (state_) {
        case State::head: {
            // An ERR ends the command, as an OK without more results does.
            if (is_err(p)) return ended_in_error(p);
            if (is_ok(p)) return after_status(parse_ok(p, capabilities_).status_flags);
            if (is_local_infile_request(p)) {
                refused_.assign(parse_local_infile_request(p));
                out.add_bytes(false, {});  // an empty file
                state_ = State::infile_refused;
                return Step::write;
            }
            const ColumnCountHead head = parse_column_count_head(p, capabilities_ & cap::mariadb_cache_metadata);
            definitions_left_ = head.metadata_follows ? head.columns + (deprecate_eof_ ? 0 : 1) : 0;
            state_ = definitions_left_ > 0 ? State::definitions : State::rows;
            return Step::read;
        }
        case State::definitions:
            if (is_err(p)) return ended_in_error(p);
            if (--definitions_left_ == 0) state_ = State::rows;
            return Step::read;
        case State::rows:
            if (is_err(p)) return ended_in_error(p);
            if (is_end_of_rows(p, deprecate_eof_)) {
                return after_status(end_of_rows_status(p, deprecate_eof_, capabilities_, nullptr));
            }
            return Step::read;
        case State::infile_refused: state_ = State::infile_reply; return Step::read;
        case State::infile_reply:
            if (is_err(p)) return ended_in_error(p);
            return after_status(parse_ok(p, capabilities_).status_flags);
    }
    throw Error(ErrorKind::usage, "response scanner in an unknown state");
}

}  // namespace sluice::mariadb::exchange
