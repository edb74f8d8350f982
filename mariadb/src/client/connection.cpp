#include "sluice/mariadb/connection.hpp"

#include "session.hpp"
#include "sluice/mariadb/host_list.hpp"
#include "sluice/mariadb/auth/auth_plugin.hpp"
#include "sluice/mariadb/protocol/commands.hpp"
#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/protocol/handshake.hpp"
#include "sluice/mariadb/protocol/responses.hpp"

namespace sluice::mariadb {

using namespace protocol;

namespace {

// What this client can do; the negotiated set is this & the server's.
constexpr std::uint64_t client_capabilities =
    cap::long_flag | cap::protocol_41 | cap::transactions | cap::secure_connection | cap::multi_statements |
    cap::multi_results | cap::ps_multi_results | cap::plugin_auth | cap::plugin_auth_lenenc_client_data |
    cap::session_track | cap::deprecate_eof | cap::mariadb_extended_metadata |
    // Speed features. LOCAL INFILE requests are answered only from a source
    // registered for the statement (upload.hpp); anything else is refused.
    cap::local_files | cap::mariadb_stmt_bulk_operations | cap::mariadb_cache_metadata;

Socket open_socket(const ConnectOptions& o) {
    Deadline deadline = deadline_after(o.timeouts.connect);
    if (!o.unix_socket.empty()) return Socket::connect_unix(o.unix_socket, deadline);
    return Socket::connect_tcp(o.host, o.port, deadline);
}

std::unique_ptr<AuthPlugin> plugin_for(std::string_view name) {
    // A server default we do not know: answer as mysql_native_password and
    // let the server switch us to the account's plugin.
    if (name.empty()) name = "mysql_native_password";
    try {
        return make_auth_plugin(name);
    } catch (const Error&) {
        return make_auth_plugin("mysql_native_password");
    }
}

// Why verify-full applies when the caller chose no mode.
std::string_view why_default_verifies(const ConnectOptions& o) {
    const bool ca_given = !o.ssl_ca.empty() || !o.ssl_capath.empty();
    return ca_given ? "the default when a CA is given" : "the default for TCP to a host that is not loopback";
}

// What a failed verification under the default mode adds to OpenSSL's
// reason: why verification was on, and the two ways forward.
std::string default_verify_advice(const ConnectOptions& o) {
    return "; ssl-mode was not given, so verify-full applies (" + std::string(why_default_verifies(o)) +
           "): give ssl-ca (or ssl-capath) with the CA that signed the server's certificate, or choose "
           "ssl-mode=require knowingly (encrypted, but the server is not verified: anyone on the path can "
           "stand in for it)";
}

// Handshake through authentication; the session's channel is open after.
void login(detail::Session& s) {
    const ConnectOptions& o = s.options;
    Socket socket = open_socket(o);
    const bool unix_socket = !o.unix_socket.empty();
    // Decided on the address connected to, not on the name: "localhost"
    // counts when it resolved to 127.0.0.1 or ::1, and so does any name that
    // did (no packet to it leaves the machine); a name or literal that
    // reached another address verifies by default.
    const PeerLocality locality = unix_socket                ? PeerLocality::unix_socket
                                  : socket.peer_is_loopback() ? PeerLocality::loopback
                                                              : PeerLocality::network;
    const std::string peer = socket.peer();
    s.channel.emplace(std::move(socket), o.timeouts);
    PacketChannel& ch = s.chan();
    ch.set_max_packet_size(o.max_packet_size);

    Bytes first = ch.read_packet();
    if (is_err(first)) throw_server_error(first);  // e.g. too many connections
    ServerHandshake hs = parse_handshake(first);
    if (!(hs.capabilities & cap::protocol_41)) {
        throw Error(ErrorKind::protocol, "server does not speak protocol 4.1");
    }
    s.connection_id = hs.connection_id;
    s.server_version = std::string(hs.display_version());

    std::uint64_t caps = client_capabilities & hs.capabilities;
    if (!o.database.empty()) caps |= cap::connect_with_db & hs.capabilities;
    if (o.compress) caps |= cap::compress & hs.capabilities;
    if (!o.cache_metadata) caps &= ~cap::mariadb_cache_metadata;

    // TLS decision. `prefer` over a unix socket stays plain: the socket is
    // local and already counts as secure transport.
    const SslMode mode = o.effective_ssl_mode(locality);
    const bool default_verification = !o.ssl_mode && mode == SslMode::verify_full;
    bool want_tls = mode != SslMode::disable && !(mode == SslMode::prefer && unix_socket);
    bool server_tls = hs.capabilities & cap::ssl;
    if (want_tls && !server_tls && mode != SslMode::prefer) {
        if (default_verification) {
            throw Error(ErrorKind::tls,
                        "ssl-mode=verify-full (" + std::string(why_default_verifies(o)) + ") but the server at " + peer +
                            " does not offer TLS; nothing was sent. Enable TLS on the server, or choose "
                            "ssl-mode=prefer or ssl-mode=disable knowingly (the login and the data then cross "
                            "the network unencrypted)");
        }
        throw Error(ErrorKind::tls, "ssl-mode=" + std::string(to_string(mode)) +
                                        " but the server does not offer TLS");
    }
    bool use_tls = want_tls && server_tls;
    if (use_tls) caps |= cap::ssl;

    HandshakeResponse resp;
    resp.capabilities = caps;
    resp.max_packet_size = o.max_packet_size;
    resp.collation = o.collation;
    resp.user = o.user;
    resp.database = o.database;

    if (use_tls) {
        s.send([&](Writer& w) { write_ssl_request(w, resp); });
        TlsOptions tls;
        tls.mode = mode;
        tls.ca_file = o.ssl_ca;
        tls.ca_path = o.ssl_capath;
        tls.cert_file = o.ssl_cert;
        tls.key_file = o.ssl_key;
        tls.cipher_list = o.ssl_cipher;
        tls.session_reuse = o.tls_session_reuse;
        if (default_verification) {
            // No CA given: the system's trust store, as Connector/C 3.4 does.
            tls.system_trust = true;
            tls.verify_advice = default_verify_advice(o);
            tls.default_mode_note = "; ssl-mode was not given, so verify-full applies (" +
                                    std::string(why_default_verifies(o)) + ")";
        }
        ch.start_tls(tls, unix_socket ? std::string_view("localhost") : std::string_view(o.host));
    }

    AuthContext ctx;
    ctx.user = o.user;
    ctx.password = o.password;
    ctx.secure_transport = use_tls || unix_socket;
    ctx.allow_cleartext = o.allow_cleartext;
    ctx.host = o.host;

    std::unique_ptr<AuthPlugin> plugin = plugin_for(hs.auth_plugin);
    std::vector<std::uint8_t> auth = plugin->start(hs.scramble, ctx);
    resp.auth_plugin = plugin->name();
    resp.auth_response = auth;
    s.send([&](Writer& w) { write_handshake_response(w, resp); });

    // The exchange ends in OK or ERR; a hostile server could keep it going
    // forever, so the number of rounds is bounded.
    for (int round = 0; round < 16; ++round) {
        Bytes p = ch.read_packet();
        switch (classify_auth_reply(p)) {
            case AuthReply::ok: {
                s.capabilities = caps;
                s.deprecate_eof = caps & cap::deprecate_eof;
                s.server_status = parse_ok(p, caps).status_flags;
                if (caps & cap::compress) ch.enable_compression(o.compress_threshold);
                return;
            }
            case AuthReply::error: throw_server_error(p);
            case AuthReply::auth_switch: {
                AuthSwitchRequest sw = parse_auth_switch(p);
                plugin = make_auth_plugin(sw.plugin);
                auth = plugin->start(sw.data, ctx);
                s.send([&](Writer& w) { w.bytes(auth); });
                break;
            }
            case AuthReply::more_data: {
                auto reply = plugin->more(auth_more_data(p), ctx);
                if (reply) s.send([&](Writer& w) { w.bytes(*reply); });
                break;
            }
        }
    }
    throw Error(ErrorKind::protocol, "authentication did not finish after 16 exchanges");
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
        s.send([&](Writer& w) { write_command(w, Command::query, sql); });
        s.read_result_head(false);
        return ResultSet(&s, s.generation);
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
        s.send([&](Writer& w) { write_command(w, Command::stmt_prepare, sql); });
        Bytes p = s.read();
        if (is_err(p)) throw_server_error(p);
        PrepareOk ok = parse_prepare_ok(p);
        std::vector<Column> params;
        std::vector<Column> columns;
        s.read_column_definitions(ok.params, params);
        s.read_column_definitions(ok.columns, columns);
        return Statement(&s, ok.statement_id, std::move(params), std::move(columns));
    });
}

namespace {
void simple_command(detail::Session& s, Command command, std::string_view argument = {}) {
    s.guarded([&] {
        s.begin_command();
        s.send([&](Writer& w) { write_command(w, command, argument); });
        Bytes p = s.read();
        if (is_err(p)) throw_server_error(p);
        parse_ok(p, s.capabilities);
    });
}
}  // namespace

void Connection::ping() { simple_command(*session_, Command::ping); }
void Connection::select_database(std::string_view db) { simple_command(*session_, Command::init_db, db); }
void Connection::reset_session() { simple_command(*session_, Command::reset_connection); }

void Connection::close() noexcept {
    if (!session_) return;
    detail::Session& s = *session_;
    if (!s.is_broken && s.channel && s.phase == detail::Phase::idle) {
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
std::string Connection::tls_version() const {
    return session_ && session_->channel ? session_->channel->tls_version() : std::string{};
}
bool Connection::tls_session_reused() const noexcept {
    return session_ && session_->channel && session_->channel->tls_session_reused();
}

}  // namespace sluice::mariadb
