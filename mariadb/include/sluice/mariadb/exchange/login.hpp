#pragma once
// Login as an exchange: the server's greeting, the TLS decision (SSLRequest,
// then the driver's TLS handshake), the HandshakeResponse, every round of the
// auth plugins (src/auth: switch requests, more data) and, after the OK, the
// switch to the compressed protocol. Errors are the blocking connect's, word
// for word.
//
//   LoginExchange login(options, locality, peer);
//   Step s = login.start(out);          // read: the greeting
//   ... s = login.resume(packet) ...    // until Step::done
//   login.outcome().capabilities ...
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/mariadb/auth/auth_plugin.hpp"
#include "sluice/mariadb/connect_options.hpp"
#include "sluice/mariadb/exchange/step.hpp"
#include "sluice/mariadb/protocol/handshake.hpp"
#include "sluice/mariadb/transport/tls.hpp"

namespace sluice::mariadb::exchange {

struct LoginOutcome {
    std::uint64_t capabilities = 0;  // as negotiated
    bool deprecate_eof = false;
    std::uint16_t server_status = 0;  // of the final OK
    std::uint32_t connection_id = 0;
    std::string server_version;
    bool tls = false;
    bool compress = false;  // the compressed protocol follows the OK
};

class LoginExchange {
public:
    // `options` must outlive the exchange. `locality` is where the socket
    // connected (decides the default TLS mode), `peer` names it in errors.
    LoginExchange(const ConnectOptions& options, PeerLocality locality, std::string peer);

    Step start(Outbox& out);
    Step resume(Outbox& out, protocol::Bytes input);

    // For Step::start_tls.
    const TlsOptions& tls_options() const noexcept { return tls_; }
    std::string_view tls_host() const noexcept;
    // For Step::compress.
    std::size_t compress_threshold() const noexcept { return options_.compress_threshold; }

    const LoginOutcome& outcome() const noexcept { return outcome_; }

private:
    enum class State { greeting, tls_requested, tls_started, auth_sent, auth_reply, compressing, finished };
    Step on_greeting(Outbox& out, protocol::Bytes packet);
    Step send_response(Outbox& out);
    Step on_auth_reply(Outbox& out, protocol::Bytes packet);
    Step expect_auth_reply();

    const ConnectOptions& options_;
    PeerLocality locality_;
    std::string peer_;
    State state_ = State::greeting;
    std::vector<std::uint8_t> scramble_;
    std::vector<std::uint8_t> auth_;
    std::string auth_plugin_name_;
    std::uint64_t caps_ = 0;
    protocol::HandshakeResponse response_;
    TlsOptions tls_;
    AuthContext auth_context_;
    std::unique_ptr<AuthPlugin> plugin_;
    int round_ = 0;
    LoginOutcome outcome_;
};

}  // namespace sluice::mariadb::exchange
