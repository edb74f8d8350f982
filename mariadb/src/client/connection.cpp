#include "sluice/mariadb/connection.hpp"

#include "session.hpp"
#include "sluice/mariadb/auth/auth_plugin.hpp"
#include "sluice/mariadb/exchange/commands.hpp"
#include "sluice/mariadb/exchange/login.hpp"
#include "sluice/mariadb/host_list.hpp"
#include "sluice/mariadb/protocol/commands.hpp"
#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/protocol/handshake.hpp"
#include "sluice/mariadb/protocol/responses.hpp"

namespace sluice::mariadb {

using namespace protocol;

namespace {

Socket open_socket(const ConnectOptions& o) {
    Deadline deadline = deadline_after(o.timeouts.connect);
    if (!o.unix_socket.empty()) return Socket::connect_unix(o.unix_socket, deadline);
    return Socket::connect_tcp(o.host, o.port, deadline);
}

// Opens the socket to the one host of s.options and runs the login
// exchange over it; the session's channel is open after.
void login(detail::Session& s) {
    const ConnectOptions& o = s.options;
    Socket socket = open_socket(o);
    // Decided on the address connected to, not on the name: "localhost"
    // counts when it resolved to 127.0.0.1 or ::1, and so does any name that
    // did (no packet to it leaves the machine); a name or literal that
    // reached another address verifies by default.
    const PeerLocality locality = !o.unix_socket.empty()     ? PeerLocality::unix_socket
                                  : socket.peer_is_loopback() ? PeerLocality::loopback
                                                              : PeerLocality::network;
    std::string peer = socket.peer();
    s.channel.emplace(std::move(socket), o.timeouts);
    s.chan().set_max_packet_size(o.max_packet_size);

    exchange::LoginExchange exchange(o, locality, std::move(peer));
    detail::run_blocking(s.chan(), s.outbox, exchange.start(s.outbox),
                         [&](Bytes p) { return exchange.resume(s.outbox, p); }, &exchange);
    const exchange::LoginOutcome& done = exchange.outcome();
    s.connection_id = done.connection_id;
    s.server_version = done.server_version;
    s.capabilities = done.capabilities;
    s.deprecate_eof = done.deprecate_eof;
    s.result.set_connection(done.capabilities, done.deprecate_eof);
    s.result.server_status = done.server_status;
}

}  // namespace

Connection Connection::connect(const ConnectOptions& options) {
    // A list of servers: each one in turn, through this same function.
    if (!options.hosts.empty()) return connect_in_order(options);
    auto s = std::make_unique<detail::Session>();
    s->options = options;
    try {
        login(*s);
    } catch (const Error& e) {
        s->mark_broken(e.what());
        if (s->lacks_peer(e)) throw s->naming_peer(e);
        throw;
    }
    Connection c(std::move(s));
    for (const std::string& sql : options.init_commands) c.execute(sql);
    return c;
}

Connection::Connection(std::unique_ptr<detail::Session> session) noexcept : session_(std::move(session)) {}
Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&& other) noexcept {
    if (this != &other) {
        close();
        session_ = std::move(other.session_);
    }
    return *this;
}
Connection::~Connection() { close(); }

ResultSet Connection::query(std::string_view sql) {
    if (!session_) throw Error(ErrorKind::usage, "connection was moved from");
    detail::Session& s = *session_;
    return s.guarded([&] {
        s.begin_command();
        exchange::write_query(s.outbox, sql);
        detail::send_outbox(s.chan(), s.outbox);
        s.read_result_head(false);
        return ResultSet(&s, s.result.generation);
    });
}

OkInfo Connection::execute(std::string_view sql) {
    ResultSet rs = query(sql);
    OkInfo last;
    do {
        while (rs.next()) {
        }
        last = rs.ok();
    } while (rs.next_result());
    return last;
}

Statement Connection::prepare(std::string_view sql) {
    if (!session_) throw Error(ErrorKind::usage, "connection was moved from");
    detail::Session& s = *session_;
    return s.guarded([&] {
        s.begin_command();
        exchange::PrepareExchange prepare(s.capabilities, s.deprecate_eof);
        s.run(prepare.start(s.outbox, sql), [&](Bytes p) { return prepare.resume(p); });
        return Statement(&s, prepare.statement_id, std::move(prepare.params), std::move(prepare.columns));
    });
}

namespace {
void simple_command(detail::Session& s, Command command, std::string_view argument = {}) {
    s.guarded([&] {
        s.begin_command();
        exchange::SimpleCommand exchange(s.capabilities);
        s.run(exchange.start(s.outbox, command, argument), [&](Bytes p) { return exchange.resume(p); });
    });
}
}  // namespace

void Connection::ping() { simple_command(*session_, Command::ping); }
void Connection::select_database(std::string_view db) { simple_command(*session_, Command::init_db, db); }
void Connection::reset_session() { simple_command(*session_, Command::reset_connection); }

void Connection::close() noexcept {
    if (!session_) return;
    detail::Session& s = *session_;
    if (!s.is_broken && s.channel && s.result.phase == detail::Phase::idle) {
        try {
            s.chan().reset_sequence();
            s.send([&](Writer& w) { write_command(w, Command::quit); });
        } catch (const Error&) {
            // The connection ends either way.
        }
    }
    s.mark_broken("connection was closed");
}

bool Connection::broken() const noexcept { return !session_ || session_->is_broken; }
bool Connection::is_tls() const noexcept { return session_ && session_->channel && session_->channel->is_tls(); }
bool Connection::is_compressed() const noexcept {
    return session_ && session_->channel && session_->channel->is_compressed();
}
std::uint32_t Connection::connection_id() const noexcept { return session_ ? session_->connection_id : 0; }
std::string_view Connection::server_version() const noexcept {
    return session_ ? std::string_view(session_->server_version) : std::string_view{};
}
std::uint64_t Connection::capabilities() const noexcept { return session_ ? session_->capabilities : 0; }
std::uint16_t Connection::server_status() const noexcept { return session_ ? session_->result.server_status : 0; }
int Connection::native_handle() const noexcept {
    if (!session_ || session_->is_broken || !session_->channel) return -1;
    return session_->channel->socket().fd();
}

detail::Session& Connection::session() {
    if (!session_) throw Error(ErrorKind::usage, "connection was moved from");
    return *session_;
}
std::string Connection::tls_version() const {
    return session_ && session_->channel ? session_->channel->tls_version() : std::string{};
}
bool Connection::tls_session_reused() const noexcept {
    return session_ && session_->channel && session_->channel->tls_session_reused();
}

}  // namespace sluice::mariadb
