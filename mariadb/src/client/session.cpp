#include "session.hpp"

#include <utility>

#include "sluice/mariadb/protocol/column.hpp"
#include "sluice/mariadb/protocol/commands.hpp"
#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/protocol/responses.hpp"
#include "sluice/mariadb/protocol/result_head.hpp"

namespace sluice::mariadb::detail {

namespace {
// Server errors after which the server closes the connection.
bool is_fatal_server_error(std::uint16_t code) noexcept {
    switch (code) {
        case 1053:  // ER_SERVER_SHUTDOWN
        case 1152:  // ER_ABORTING_CONNECTION
        case 1927:  // ER_CONNECTION_KILLED
        case 4031:  // ER_CLIENT_INTERACTION_TIMEOUT
            return true;
        default: return false;
    }
}
}  // namespace

void Session::check_usable() const {
    if (is_broken) throw Error(ErrorKind::broken, "connection is broken: " + broken_reason);
}

void Session::mark_broken(std::string reason) noexcept {
    if (is_broken) return;
    is_broken = true;
    broken_reason = std::move(reason);
    phase = Phase::idle;
    pending_reply = nullptr;
    if (channel) channel->close();
}

void Session::on_error(const Error& e) noexcept {
    switch (e.kind()) {
        case ErrorKind::usage:
        case ErrorKind::conversion: return;
        case ErrorKind::server:
            if (is_fatal_server_error(e.server_code())) mark_broken(e.what());
            return;
        default: mark_broken(std::string(to_string(e.kind())) + " error: " + e.what());
    }
}

namespace {
std::string peer_of(const Session& s) {
    if (s.channel && !s.channel->socket().peer().empty()) return s.channel->socket().peer();
    if (!s.options.unix_socket.empty()) return s.options.unix_socket;
    return s.options.host + ":" + std::to_string(s.options.port);
}
}  // namespace

bool Session::lacks_peer(const Error& e) const noexcept {
    if (e.kind() != ErrorKind::protocol && e.kind() != ErrorKind::auth) return false;
    try {
        return std::string_view(e.what()).find(peer_of(*this)) == std::string_view::npos;
    } catch (...) {
        return false;  // no memory for the peer's name: keep the original error
    }
}

Error Session::naming_peer(const Error& e) const {
    return Error(e.kind(), std::string(e.what()) + " (server " + peer_of(*this) + ")");
}

void Session::begin_command() {
    if (PendingReply* r = std::exchange(pending_reply, nullptr)) {
        r->read(*this);
        check_usable();  // a fatal error in that reply broke the session
    }
    if (phase != Phase::idle) drain();
    ++generation;
    for (std::uint32_t id : deferred_closes) {
        chan().reset_sequence();
        send([&](protocol::Writer& w) { protocol::write_statement_command(w, protocol::Command::stmt_close, id); });
    }
    deferred_closes.clear();
    chan().reset_sequence();
}

void Session::set_ok(const protocol::OkPacket& p) {
    ok.affected_rows = p.affected_rows;
    ok.last_insert_id = p.last_insert_id;
    ok.warnings = p.warnings;
    ok.status_flags = p.status_flags;
    ok.info.assign(p.info);
    server_status = p.status_flags;
    phase = (p.status_flags & protocol::status::more_results_exist) ? Phase::more_results : Phase::idle;
}

void Session::read_result_head(bool binary_rows) {
    using namespace protocol;
    phase = Phase::idle;  // an ERR head ends the command
    // The statement's cache applies to this head only (not to later results).
    std::shared_ptr<std::vector<Column>>* cached = std::exchange(statement_columns, nullptr);
    binary = binary_rows;
    columns.clear();
    cached_columns.reset();
    result_columns = &columns;
    ok = OkInfo{};
    Bytes p = read();
    if (is_err(p)) throw_server_error(p);
    if (is_ok(p)) {
        set_ok(parse_ok(p, capabilities));
        return;
    }
    if (is_local_infile_request(p)) {
        answer_local_infile(p);
        return;
    }
    ColumnCountHead head = parse_column_count_head(p, capabilities & cap::mariadb_cache_metadata);
    const auto n = static_cast<std::size_t>(head.columns);
    if (head.metadata_follows) {
        read_column_definitions(n, columns);
        // New metadata (e.g. after ALTER TABLE) replaces the cache: in place
        // when only the statement holds it (every execute without the
        // cache: no allocation), else as a new vector, leaving the old one
        // to the results still using it.
        if (cached) {
            if (*cached && cached->use_count() == 1) {
                **cached = columns;
            } else {
                *cached = std::make_shared<std::vector<Column>>(columns);
            }
        }
    } else {
        if (!cached || !*cached || (*cached)->size() != n) {
            throw Error(ErrorKind::protocol, "server skipped the definitions of " + std::to_string(n) +
                                                 " columns the client has not cached");
        }
        cached_columns = *cached;
        result_columns = cached_columns.get();
    }
    const std::vector<Column>& cols = *result_columns;
    types.resize(cols.size());
    for (std::size_t i = 0; i < cols.size(); ++i) types[i] = cols[i].type;
    fields.resize(cols.size());
    phase = Phase::rows;
}

void Session::read_column_definitions(std::size_t n, std::vector<Column>& into) {
    using namespace protocol;
    into.clear();
    // Grows packet by packet: the count alone never sizes memory.
    for (std::size_t i = 0; i < n; ++i) {
        Bytes p = read();
        if (is_err(p)) throw_server_error(p);
        into.push_back(Column::from(parse_column_definition(p, capabilities)));
    }
    if (!deprecate_eof && n > 0) {
        Bytes p = read();
        if (!is_end_of_rows(p, false)) {
            throw Error(ErrorKind::protocol, "malformed result set: expected EOF after the column definitions");
        }
        definitions_eof_status = end_of_rows_status(p, false, capabilities, nullptr);
    }
}

void Session::end_rows(protocol::Bytes end_packet) {
    protocol::OkPacket p;
    protocol::end_of_rows_status(end_packet, deprecate_eof, capabilities, &p);
    set_ok(p);
}

bool Session::next_row() {
    using namespace protocol;
    if (phase != Phase::rows) return false;
    Bytes p = read();
    if (is_err(p)) {
        phase = Phase::idle;
        throw_server_error(p);
    }
    if (is_end_of_rows(p, deprecate_eof)) {
        end_rows(p);
        return false;
    }
    if (binary) {
        decode_binary_row(p, types, fields);
    } else {
        decode_text_row(p, fields);
    }
    row = Row(result_columns, fields, binary);
    return true;
}

bool Session::next_result() {
    while (phase == Phase::rows) next_row();
    if (phase != Phase::more_results) return false;
    read_result_head(binary);
    return true;
}

void Session::drain() {
    // A server error ends its command: when discarding, it is not news to
    // anyone, so it is swallowed (fatal ones still break the session).
    while (phase != Phase::idle) {
        try {
            next_result();
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::server) throw;
            on_error(e);
            check_usable();
        }
    }
}

}  // namespace sluice::mariadb::detail
