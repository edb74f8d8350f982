#include "session.hpp"

#include <utility>

#include "sluice/mariadb/exchange/local_infile.hpp"
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
    result.phase = Phase::idle;
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
    if (result.phase != Phase::idle) drain();
    ++result.generation;
    for (std::uint32_t id : deferred_closes) {
        chan().reset_sequence();
        send([&](protocol::Writer& w) { protocol::write_statement_command(w, protocol::Command::stmt_close, id); });
    }
    deferred_closes.clear();
    chan().reset_sequence();
}

void Session::read_result_head(bool binary_rows, std::shared_ptr<std::vector<Column>>* statement_columns,
                               exchange::LocalInfileSource* infile) {
    result.expect_head(binary_rows, statement_columns);
    run(exchange::Step::read, [&](protocol::Bytes p) { return result.resume(p); });
    if (result.phase == Phase::local_infile) {
        result.phase = Phase::idle;  // until the upload's final OK says otherwise
        exchange::LocalInfileExchange answer(capabilities, std::move(result.local_infile_name), infile);
        run(answer.start(outbox), [&](protocol::Bytes p) { return answer.resume(outbox, p); });
        set_ok(answer.ok());
        answer.finish();
    }
}

bool Session::next_result() {
    while (result.phase == Phase::rows) next_row();
    if (result.phase != Phase::more_results) return false;
    read_result_head(result.binary);
    return true;
}

void Session::drain() {
    // A server error ends its command: when discarding, it is not news to
    // anyone, so it is swallowed (fatal ones still break the session).
    while (result.phase != Phase::idle) {
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
