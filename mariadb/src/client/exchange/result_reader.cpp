#include "sluice/mariadb/exchange/result_reader.hpp"

#include <utility>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/protocol/result_head.hpp"

namespace sluice::mariadb::exchange {

using namespace protocol;

void ResultReader::reset() noexcept {
    phase = Phase::idle;
    statement_columns_ = nullptr;
    columns.clear();
    cached_columns.reset();
    result_columns = &columns;
    ok = OkInfo{};
}

void ResultReader::set_ok(const OkPacket& p) {
    ok.affected_rows = p.affected_rows;
    ok.last_insert_id = p.last_insert_id;
    ok.warnings = p.warnings;
    ok.status_flags = p.status_flags;
    ok.info.assign(p.info);
    server_status = p.status_flags;
    phase = (p.status_flags & status::more_results_exist) ? Phase::more_results : Phase::idle;
}

void ResultReader::end_rows(Bytes end_packet) {
    OkPacket p;
    end_of_rows_status(end_packet, deprecate_eof_, capabilities_, &p);
    set_ok(p);
}

Step ResultReader::resume(Bytes p) {
    if (phase == Phase::definitions) {
        phase = Phase::idle;  // a failing definition ends the command
        if (!definitions_.consume(p)) {
            phase = Phase::definitions;
            return Step::read;
        }
        definitions_eof_status = definitions_.eof_status();
        return head_ready();
    }
    if (phase != Phase::head) throw Error(ErrorKind::usage, "result reader resumed without a head to read");
    phase = Phase::idle;  // an ERR head ends the command
    if (is_err(p)) throw_server_error(p);
    if (is_ok(p)) {
        set_ok(parse_ok(p, capabilities_));
        return Step::done;
    }
    if (is_local_infile_request(p)) {
        // The request view dies with the next read: keep the name.
        local_infile_name.assign(parse_local_infile_request(p));
        phase = Phase::local_infile;
        return Step::done;
    }
    ColumnCountHead head = parse_column_count_head(p, capabilities_ & cap::mariadb_cache_metadata);
    const auto n = static_cast<std::size_t>(head.columns);
    if (head.metadata_follows) {
        if (definitions_.begin(n, columns, capabilities_, deprecate_eof_)) return head_ready();
        phase = Phase::definitions;
        return Step::read;
    }
    std::shared_ptr<std::vector<Column>>* cached = std::exchange(statement_columns_, nullptr);
    if (!cached || !*cached || (*cached)->size() != n) {
        throw Error(ErrorKind::protocol, "server skipped the definitions of " + std::to_string(n) +
                                             " columns the client has not cached");
    }
    cached_columns = *cached;
    result_columns = cached_columns.get();
    return head_ready();
}

Step ResultReader::head_ready() {
    // New metadata (e.g. after ALTER TABLE) replaces the cache: in place when
    // only the statement holds it (every execute without the cache: no
    // allocation), else as a new vector, leaving the old one to the results
    // still using it.
    if (std::shared_ptr<std::vector<Column>>* cached = std::exchange(statement_columns_, nullptr);
        cached && result_columns == &columns) {
        if (*cached && cached->use_count() == 1) {
            **cached = columns;
        } else {
            *cached = std::make_shared<std::vector<Column>>(columns);
        }
    }
    const std::vector<Column>& cols = *result_columns;
    types.resize(cols.size());
    for (std::size_t i = 0; i < cols.size(); ++i) types[i] = cols[i].type;
    fields.resize(cols.size());
    phase = Phase::rows;
    return Step::done;
}

bool ResultReader::ends_rows(Bytes p) {
    if (is_err(p)) {
        phase = Phase::idle;
        throw_server_error(p);
    }
    if (is_end_of_rows(p, deprecate_eof_)) {
        end_rows(p);
        return true;
    }
    return false;
}

void ResultReader::decode_row(Bytes p) {
    if (binary) {
        decode_binary_row(p, types, fields);
    } else {
        decode_text_row(p, fields);
    }
    row = Row(result_columns, fields, binary);
}

}  // namespace sluice::mariadb::exchange
