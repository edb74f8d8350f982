#pragma once
// Internal: one factory per plugin, each in its own file.
#include <memory>
#include <string_view>

#include "sluice/mariadb/auth/auth_plugin.hpp"

namespace sluice::mariadb::detail {

std::unique_ptr<AuthPlugin> make_native_password();
std::unique_ptr<AuthPlugin> make_ed25519();
std::unique_ptr<AuthPlugin> make_clear_password();
std::unique_ptr<AuthPlugin> make_dialog();
std::unique_ptr<AuthPlugin> make_gssapi();

// Error{auth} unless the password may go in clear (TLS or unix socket, or
// the caller opted in). `plugin` names the plugin in the message.
void require_cleartext_allowed(std::string_view plugin, const AuthContext& context);

// The handshake's scramble may carry a trailing NUL; drop it.
std::span<const std::uint8_t> strip_trailing_nul(std::span<const std::uint8_t> data);

}  // namespace sluice::mariadb::detail
