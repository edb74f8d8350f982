#include "sluice/mariadb/statement.hpp"

#include <algorithm>
#include <utility>

#include "session.hpp"
#include "sluice/mariadb/protocol/commands.hpp"
#include "sluice/mariadb/protocol/responses.hpp"

namespace sluice::mariadb {

using namespace protocol;

Statement::Statement(detail::Session* session, std::uint32_t id, std::vector<Column> params,
                     std::vector<Column> columns) noexcept
    : session_(session),
      id_(id),
      params_(std::move(params)),
      columns_(std::make_shared<std::vector<Column>>(std::move(columns))) {}

Statement::Statement(Statement&& other) noexcept
    : session_(std::exchange(other.session_, nullptr)),
      id_(other.id_),
      params_(std::move(other.params_)),
      columns_(other.columns_) {}  // shared: the moved-from statement still answers columns()

Statement& Statement::operator=(Statement&& other) noexcept {
    if (this != &other) {
        close();
        session_ = std::exchange(other.session_, nullptr);
        id_ = other.id_;
        params_ = std::move(other.params_);
        columns_ = other.columns_;
    }
    return *this;
}

Statement::~Statement() { close(); }

detail::Session& Statement::session() const {
    if (!session_) throw Error(ErrorKind::usage, "statement is closed");
    return *session_;
}

ResultSet Statement::execute_values(std::span<const ParamValue> values) {
    detail::Session& s = session();
    if (values.size() != params_.size()) {
        throw Error(ErrorKind::usage, "statement has " + std::to_string(params_.size()) + " parameters, " +
                                          std::to_string(values.size()) + " values given");
    }
    return s.guarded([&] {
        s.begin_command();
        // Long text/blob values go first, in chunks, each its own command
        // (no reply); the execute packet then carries only their type.
        std::vector<ParamValue> bound;
        std::span<const ParamValue> to_send = values;
        const std::size_t threshold = std::max<std::size_t>(s.options.long_data_threshold, 1);
        for (std::size_t i = 0; i < values.size(); ++i) {
            const ParamValue& v = values[i];
            bool is_long = (v.kind == ParamValue::Kind::text || v.kind == ParamValue::Kind::blob) &&
                           v.bytes.size() > threshold;
            if (!is_long) continue;
            if (bound.empty()) bound.assign(values.begin(), values.end());
            bound[i].long_data = true;
            for (std::size_t at = 0; at < v.bytes.size(); at += threshold) {
                s.chan().reset_sequence();
                Bytes chunk = v.bytes.subspan(at, std::min(threshold, v.bytes.size() - at));
                s.send([&](Writer& w) { write_send_long_data(w, id_, static_cast<std::uint16_t>(i), chunk); });
            }
        }
        if (!bound.empty()) {
            to_send = bound;
            s.chan().reset_sequence();
        }
        s.send([&](Writer& w) { write_stmt_execute(w, id_, to_send); });
        s.statement_columns = &columns_;
        s.read_result_head(true);
        return ResultSet(&s, s.generation);
    });
}

void Statement::reset() {
    detail::Session& s = session();
    s.guarded([&] {
        s.begin_command();
        s.send([&](Writer& w) { write_statement_command(w, Command::stmt_reset, id_); });
        Bytes p = s.read();
        if (is_err(p)) throw_server_error(p);
        parse_ok(p, s.capabilities);
    });
}

void Statement::close() {
    detail::Session* s = std::exchange(session_, nullptr);
    if (!s || s->is_broken) return;
    if (s->phase != detail::Phase::idle) {
        s->deferred_closes.push_back(id_);
        return;
    }
    try {
        s->guarded([&] {
            s->chan().reset_sequence();
            s->send([&](Writer& w) { write_statement_command(w, Command::stmt_close, id_); });
        });
    } catch (const Error&) {
        // Closing is best effort: the failure already marked the connection
        // broken, and the server frees the statement with the connection.
    }
}

}  // namespace sluice::mariadb
