// The plugin registry and the default AuthMoreData handling.
#include "sluice/mariadb/auth/auth_plugin.hpp"

#include <string>

#include "plugins.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb {

std::optional<std::vector<std::uint8_t>> AuthPlugin::more(std::span<const std::uint8_t> data,
                                                          const AuthContext& /*context*/) {
    throw Error(ErrorKind::protocol, "server sent " + std::to_string(data.size()) +
                                         " bytes of unexpected auth data to plugin " + std::string(name()));
}

std::unique_ptr<AuthPlugin> make_auth_plugin(std::string_view name) {
    if (name == "mysql_native_password") return detail::make_native_password();
    if (name == "client_ed25519") return detail::make_ed25519();
    if (name == "mysql_clear_password") return detail::make_clear_password();
    if (name == "dialog") return detail::make_dialog();
    if (name == "auth_gssapi_client") return detail::make_gssapi();
    throw Error(ErrorKind::auth, "the server asks for auth plugin '" + std::string(name) +
                                     "', which this client does not support (supported: mysql_native_password, "
                                     "client_ed25519, mysql_clear_password, dialog, auth_gssapi_client)");
}

}  // namespace sluice::mariadb
