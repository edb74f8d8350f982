#pragma once
// Passwords never leave the process: every endpoint, log line and error
// passes through mask_secrets(), which replaces the password of each
// scheme://user:password@host in the text, and the value of each
// password=... (libpq's key=value form, a URL's query), with ***.
#include <string>
#include <string_view>

namespace sluice::service {

std::string mask_secrets(std::string_view text);

}  // namespace sluice::service
