#include "sluice/mariadb/statement.hpp"

#include <algorithm>
#include <utility>

#include "session.hpp"
#include "sluice/mariadb/exchange/commands.hpp"
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
        exchange::write_execute(s.outbox, id_, values, s.options.long_data_threshold,
                                [&](exchange::Outbox& out) { detail::send_outbox(s.chan(), out); });
        detail::send_outbox(s.chan(), s.outbox);
        s.read_result_head(true, &columns_);
        return ResultSet(&s, s.result.generation);
    });
}

void Statement::reset() {
    detail::Session& s = session();
    s.guarded([&] {
        s.begin_command();
        exchange::SimpleCommand exchange(s.capabilities);
        s.run(exchange.start_statement(s.outbox, Command::stmt_reset, id_),
              [&](Bytes p) { return exchange.resume(p); });
    });
}

void Statement::close() {
    detail::Session* s = std::exchange(session_, nullptr);
    if (!s || s->is_broken) return;
    // An AsyncConnection's statement (no channel) is closed before its
    // connection's next command, as one destroyed mid-result is.
    if (s->result.phase != detail::Phase::idle || !s->channel) {
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
