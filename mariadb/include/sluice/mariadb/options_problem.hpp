#pragma once
// What connect options get wrong by themselves, found before connecting: an
// ssl-mode of verify-ca or verify-full chosen without a CA (ssl-ca or
// ssl-capath), which the TLS handshake would refuse with Error{usage}. The
// tools check it first, so that the mistake is a usage error (exit status
// 2), not a failed connection (issue 32).
#include <string>

#include "sluice/mariadb/connect_options.hpp"

namespace sluice::mariadb {

// Empty when nothing is wrong.
std::string options_problem(const ConnectOptions& o);

}  // namespace sluice::mariadb
