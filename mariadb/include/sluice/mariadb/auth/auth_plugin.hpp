#pragma once
// Client authentication plugins, sans-I/O: each plugin turns the server's
// bytes into the bytes to answer with. The Connection drives the exchange:
//
//   handshake / AuthSwitchRequest (plugin name + data)
//        -> plugin = make_auth_plugin(name); send plugin->start(data, ctx)
//   loop on the server's next packet:
//        0x00 OK            -> authenticated
//        0xFF ERR           -> Error{server}
//        0xFE AuthSwitch    -> new plugin, start() again with its data
//        anything else      -> AuthMoreData: strip a leading 0x01 if present
//                              (the server prefixes 0x01 only when the data
//                              itself starts with 0x01/0xFE/0xFF; dialog
//                              questions arrive unprefixed), then
//                              send plugin->more(data, ctx) unless nullopt.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace sluice::mariadb {

struct AuthContext {
    std::string_view user{};
    std::string_view password{};
    // TLS is active, or the peer is a unix socket: the password may travel
    // in clear without being readable by a third party.
    bool secure_transport = false;
    // The caller opted in to sending the password in clear without TLS.
    bool allow_cleartext = false;
    // The host connected to (GSSAPI uses it only for messages).
    std::string_view host{};
};

class AuthPlugin {
public:
    virtual ~AuthPlugin() = default;
    virtual std::string_view name() const = 0;

    // First response, to the plugin data of the handshake or of an auth
    // switch request (scramble, question, SPN...).
    virtual std::vector<std::uint8_t> start(std::span<const std::uint8_t> plugin_data,
                                            const AuthContext& context) = 0;

    // Response to an AuthMoreData packet (its 0x01 status byte stripped);
    // std::nullopt when nothing is to be sent. The default throws
    // Error{protocol}: the plugin expects no further data.
    virtual std::optional<std::vector<std::uint8_t>> more(std::span<const std::uint8_t> data,
                                                          const AuthContext& context);
};

// mysql_native_password, client_ed25519, mysql_clear_password, dialog,
// auth_gssapi_client. Error{auth} naming the plugin if unknown.
std::unique_ptr<AuthPlugin> make_auth_plugin(std::string_view name);

}  // namespace sluice::mariadb
