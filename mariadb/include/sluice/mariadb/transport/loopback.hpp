#pragma once
// Whether an address is a loopback one: traffic to it never leaves this
// machine, so nobody on a network path can read or answer it. Connection's
// default ssl-mode depends on it (docs/mariadb.md, "TLS modes"), and so
// does Socket::peer_is_loopback.
//
// Loopback: IPv4 127.0.0.0/8, IPv6 ::1, and IPv4-mapped ::ffff:127.0.0.0/104.
// Names are not addresses: "localhost" is decided by what it resolved to
// and what the socket actually connected to, not by its spelling.
#include <string_view>

namespace sluice::mariadb {

// `numeric` is an IPv4 or IPv6 address in text ("127.0.0.1", "::1"); any
// other text (a host name, an empty string, a bracketed literal) is false.
bool is_loopback_address(std::string_view numeric) noexcept;

}  // namespace sluice::mariadb
