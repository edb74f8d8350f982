#include "sluice/mariadb/exchange/commands.hpp"

#include <algorithm>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/responses.hpp"

namespace sluice::mariadb::exchange {

using namespace protocol;

void write_query(Outbox& out, std::string_view sql) {
    out.add(true, [&](Writer& w) { write_command(w, Command::query, sql); });
}

void write_execute(Outbox& out, std::uint32_t id, std::span<const ParamValue> values,
                   std::size_t long_data_threshold, const std::function<void(Outbox&)>& chunk_written) {
    std::vector<ParamValue> bound;
    std::span<const ParamValue> to_send = values;
    const std::size_t threshold = std::max<std::size_t>(long_data_threshold, 1);
    for (std::size_t i = 0; i < values.size(); ++i) {
        const ParamValue& v = values[i];
        const bool is_long =
            (v.kind == ParamValue::Kind::text || v.kind == ParamValue::Kind::blob) && v.bytes.size() > threshold;
        if (!is_long) continue;
        if (bound.empty()) bound.assign(values.begin(), values.end());
        bound[i].long_data = true;
        for (std::size_t at = 0; at < v.bytes.size(); at += threshold) {
            Bytes chunk = v.bytes.subspan(at, std::min(threshold, v.bytes.size() - at));
            out.add(true, [&](Writer& w) { write_send_long_data(w, id, static_cast<std::uint16_t>(i), chunk); });
            if (chunk_written) chunk_written(out);
        }
    }
    if (!bound.empty()) to_send = bound;
    out.add(true, [&](Writer& w) { write_stmt_execute(w, id, to_send); });
}

Step SimpleCommand::start(Outbox& out, Command command, std::string_view argument) {
    out.add(true, [&](Writer& w) { write_command(w, command, argument); });
    sent_ = false;
    return Step::write;
}

Step SimpleCommand::start_statement(Outbox& out, Command command, std::uint32_t statement_id) {
    out.add(true, [&](Writer& w) { write_statement_command(w, command, statement_id); });
    sent_ = false;
    return Step::write;
}

Step SimpleCommand::resume(Bytes p) {
    if (!sent_) {
        sent_ = true;
        return Step::read;
    }
    if (is_err(p)) throw_server_error(p);
    parse_ok(p, capabilities_);
    return Step::done;
}

Step PrepareExchange::start(Outbox& out, std::string_view sql) {
    out.add(true, [&](Writer& w) { write_command(w, Command::stmt_prepare, sql); });
    state_ = State::sent;
    return Step::write;
}

Step PrepareExchange::resume(Bytes p) {
    switch (state_) {
        case State::sent: state_ = State::ok; return Step::read;
        case State::ok: {
            if (is_err(p)) throw_server_error(p);
            PrepareOk ok = parse_prepare_ok(p);
            statement_id = ok.statement_id;
            column_count_ = ok.columns;
            state_ = State::params;
            if (!definitions_.begin(ok.params, params, capabilities_, deprecate_eof_)) return Step::read;
            return next_definitions();
        }
        case State::params:
            if (!definitions_.consume(p)) return Step::read;
            return next_definitions();
        case State::columns:
            if (!definitions_.consume(p)) return Step::read;
            state_ = State::finished;
            return Step::done;
        case State::finished: break;
    }
    throw Error(ErrorKind::usage, "prepare exchange resumed after it finished");
}

Step PrepareExchange::next_definitions() {
    state_ = State::columns;
    if (!definitions_.begin(column_count_, columns, capabilities_, deprecate_eof_)) return Step::read;
    state_ = State::finished;
    return Step::done;
}

}  // namespace sluice::mariadb::exchange
