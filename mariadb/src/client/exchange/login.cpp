#include "sluice/mariadb/exchange/login.hpp"

#include <utility>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/protocol/responses.hpp"

namespace sluice::mariadb::exchange {

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

}  // namespace

LoginExchange::LoginExchange(const ConnectOptions& options, PeerLocality locality, std::string peer)
    : options_(options), locality_(locality), peer_(std::move(peer)) {}

std::string_view LoginExchange::tls_host() const noexcept {
    return locality_ == PeerLocality::unix_socket ? std::string_view("localhost") : std::string_view(options_.host);
}

Step LoginExchange::start(Outbox&) {
    state_ = State::greeting;
    return Step::read;
}

Step LoginExchange::resume(Outbox& out, Bytes input) {
    switch (state_) {
        case State::greeting: return on_greeting(out, input);
        case State::tls_requested:
            state_ = State::tls_started;
            return Step::start_tls;
        case State::tls_started: return send_response(out);
        case State::auth_sent: return expect_auth_reply();
        case State::auth_reply: return on_auth_reply(out, input);
        case State::compressing: state_ = State::finished; return Step::done;
        case State::finished: break;
    }
    throw Error(ErrorKind::usage, "login exchange resumed after it finished");
}

Step LoginExchange::on_greeting(Outbox& out, Bytes first) {
    const ConnectOptions& o = options_;
    const bool unix_socket = locality_ == PeerLocality::unix_socket;
    if (is_err(first)) throw_server_error(first);  // e.g. too many connections
    ServerHandshake hs = parse_handshake(first);
    if (!(hs.capabilities & cap::protocol_41)) {
        throw Error(ErrorKind::protocol, "server does not speak protocol 4.1");
    }
    outcome_.connection_id = hs.connection_id;
    outcome_.server_version = std::string(hs.display_version());
    scramble_ = hs.scramble;
    auth_plugin_name_ = std::string(hs.auth_plugin);

    std::uint64_t caps = client_capabilities & hs.capabilities;
    if (!o.database.empty()) caps |= cap::connect_with_db & hs.capabilities;
    if (o.compress) caps |= cap::compress & hs.capabilities;
    if (!o.cache_metadata) caps &= ~cap::mariadb_cache_metadata;

    // TLS decision. `prefer` over a unix socket stays plain: the socket is
    // local and already counts as secure transport.
    const SslMode mode = o.effective_ssl_mode(locality_);
    const bool default_verification = !o.ssl_mode && mode == SslMode::verify_full;
    bool want_tls = mode != SslMode::disable && !(mode == SslMode::prefer && unix_socket);
    bool server_tls = hs.capabilities & cap::ssl;
    if (want_tls && !server_tls && mode != SslMode::prefer) {
        if (default_verification) {
            throw Error(ErrorKind::tls,
                        "ssl-mode=verify-full (" + std::string(why_default_verifies(o)) + ") but the server at " +
                            peer_ +
                            " does not offer TLS; nothing was sent. Enable TLS on the server, or choose "
                            "ssl-mode=prefer or ssl-mode=disable knowingly (the login and the data then cross "
                            "the network unencrypted)");
        }
        throw Error(ErrorKind::tls, "ssl-mode=" + std::string(to_string(mode)) +
                                        " but the server does not offer TLS");
    }
    const bool use_tls = want_tls && server_tls;
    if (use_tls) caps |= cap::ssl;
    caps_ = caps;
    outcome_.tls = use_tls;

    response_ = HandshakeResponse{};
    response_.capabilities = caps;
    response_.max_packet_size = o.max_packet_size;
    response_.collation = o.collation;
    response_.user = o.user;
    response_.database = o.database;

    auth_context_ = AuthContext{};
    auth_context_.user = o.user;
    auth_context_.password = o.password;
    auth_context_.secure_transport = use_tls || unix_socket;
    auth_context_.allow_cleartext = o.allow_cleartext;
    auth_context_.host = o.host;

    if (!use_tls) return send_response(out);
    out.add(false, [&](Writer& w) { write_ssl_request(w, response_); });
    tls_ = TlsOptions{};
    tls_.mode = mode;
    tls_.ca_file = o.ssl_ca;
    tls_.ca_path = o.ssl_capath;
    tls_.cert_file = o.ssl_cert;
    tls_.key_file = o.ssl_key;
    tls_.cipher_list = o.ssl_cipher;
    tls_.session_reuse = o.tls_session_reuse;
    if (default_verification) {
        // No CA given: the system's trust store, as Connector/C 3.4 does.
        tls_.system_trust = true;
        tls_.verify_advice = default_verify_advice(o);
        tls_.default_mode_note =
            "; ssl-mode was not given, so verify-full applies (" + std::string(why_default_verifies(o)) + ")";
    }
    state_ = State::tls_requested;
    return Step::write;
}

Step LoginExchange::send_response(Outbox& out) {
    plugin_ = plugin_for(auth_plugin_name_);
    auth_ = plugin_->start(scramble_, auth_context_);
    response_.auth_plugin = plugin_->name();
    response_.auth_response = auth_;
    out.add(false, [&](Writer& w) { write_handshake_response(w, response_); });
    state_ = State::auth_sent;
    round_ = 0;
    return Step::write;
}

Step LoginExchange::expect_auth_reply() {
    // The exchange ends in OK or ERR; a hostile server could keep it going
    // forever, so the number of replies read is bounded.
    if (round_++ >= 16) throw Error(ErrorKind::protocol, "authentication did not finish after 16 exchanges");
    state_ = State::auth_reply;
    return Step::read;
}

Step LoginExchange::on_auth_reply(Outbox& out, Bytes p) {
    switch (classify_auth_reply(p)) {
        case AuthReply::ok: {
            outcome_.capabilities = caps_;
            outcome_.deprecate_eof = caps_ & cap::deprecate_eof;
            outcome_.server_status = parse_ok(p, caps_).status_flags;
            outcome_.compress = caps_ & cap::compress;
            if (outcome_.compress) {
                state_ = State::compressing;
                return Step::compress;
            }
            state_ = State::finished;
            return Step::done;
        }
        case AuthReply::error: throw_server_error(p);
        case AuthReply::auth_switch: {
            AuthSwitchRequest sw = parse_auth_switch(p);
            plugin_ = make_auth_plugin(sw.plugin);
            auth_ = plugin_->start(sw.data, auth_context_);
            out.add_bytes(false, auth_);
            state_ = State::auth_sent;
            return Step::write;
        }
        case AuthReply::more_data: {
            auto reply = plugin_->more(auth_more_data(p), auth_context_);
            if (!reply) return expect_auth_reply();
            auth_ = std::move(*reply);
            out.add_bytes(false, auth_);
            state_ = State::auth_sent;
            return Step::write;
        }
    }
    throw Error(ErrorKind::protocol, "unreachable auth reply kind");
}

}  // namespace sluice::mariadb::exchange
