#pragma once
// A list of servers in one URL, as libpq and Connector/J allow:
//
//   mariadb://user:password@HOST1:PORT1,HOST2:PORT2/db?...
//
// A connection tries them in order and keeps the first that logs in; the
// TLS rules (ConnectOptions::ssl_mode and its defaults) apply to each host
// on its own: the default mode is decided on the address each connected to,
// and the certificate is checked against that host's name. The change
// stream (cdc/change_stream.hpp) moves along the same list when the server
// it reads from is gone (docs/mariadb-cdc.md, "Replicas and failover").
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/mariadb/connect_options.hpp"

namespace sluice::mariadb {

class Connection;

// "HOST:PORT" ("[::1]:3306" for an IPv6 literal), or the socket path: for
// messages and logs.
std::string server_name(const ServerAddress& server);

// The servers `options` names, in order: ConnectOptions::hosts, or the one
// of host/port (unix_socket) when the list is empty.
std::vector<ServerAddress> servers_of(const ConnectOptions& options);

// `options` for server `index` of servers_of(options) alone (hosts empty).
ConnectOptions for_server(const ConnectOptions& options, std::size_t index);

// The authority part of a URL with several hosts, "h1:p1,h2:p2" (each one
// percent-decoded, an IPv6 literal in brackets, the port 3306 when left
// out). Error{usage} naming the entry for an empty one or a bad port.
std::vector<ServerAddress> parse_host_list(std::string_view authority);

// Connects to the servers of `options` in order, starting at `first`
// (wrapping around), and returns the first connection that logs in; its
// index goes to *chosen. When none does, the Error of the last one is
// thrown with every server's failure in its message (its kind kept, so a
// caller's retry rules still apply).
Connection connect_in_order(const ConnectOptions& options, std::size_t first = 0, std::size_t* chosen = nullptr);

}  // namespace sluice::mariadb
