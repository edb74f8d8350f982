#pragma once
// How to reach and log in to a server: a plain struct (names follow
// Connector/C's options where one exists), or a mariadb:// URL. The URL
// grammar is documented in docs/mariadb.md and in parse_url below.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/transport/deadline.hpp"
#include "sluice/mariadb/transport/tls.hpp"

namespace sluice::mariadb {

// Where a connection goes, as far as the default ssl-mode is concerned.
enum class PeerLocality {
    unix_socket,  // a unix domain socket
    loopback,     // TCP to 127.0.0.0/8 or ::1: the traffic never leaves the machine
    network,      // TCP to any other address
};

// One server of a list (host_list.hpp).
struct ServerAddress {
    std::string host;
    std::uint16_t port = 3306;
    std::string unix_socket;  // set: this socket instead of TCP

    friend bool operator==(const ServerAddress&, const ServerAddress&) = default;
};

struct ConnectOptions {
    std::string host = "localhost";
    std::uint16_t port = 3306;
    // Several servers, tried in this order (host_list.hpp); empty: host and
    // port (or unix_socket) alone. parse_url fills it for a URL that lists
    // more than one host, and sets host/port to the first.
    std::vector<ServerAddress> hosts;
    // When set, connect through this unix socket instead of TCP (host is
    // then only used as the TLS name).
    std::string unix_socket;
    std::string user;
    std::string password;
    std::string database;  // empty: no default database

    // TLS. ssl_mode unset (the default; effective_ssl_mode below):
    //   a CA given (ssl_ca or ssl_capath)       verify_full against it;
    //   TCP to a peer that is not loopback      verify_full against the system
    //                                           trust store (OpenSSL's paths);
    //   a loopback peer or a unix socket        prefer.
    // The peer is the address the socket connected to (127.0.0.0/8, ::1), not
    // the name's spelling. `prefer` over a unix socket stays plain (the socket
    // is local); `require` and stricter never fall back to plain.
    std::optional<SslMode> ssl_mode;
    std::string ssl_ca;
    std::string ssl_capath;
    std::string ssl_cert;
    std::string ssl_key;
    std::string ssl_cipher;
    // TLS session resumption: a reconnect to the same server, with the same
    // TLS options, host and mode, offers a session kept from an earlier
    // connection, and the server skips the certificate exchange (the
    // original handshake's verification stands). Off: every handshake is a
    // full one. See TlsOptions::session_reuse.
    bool tls_session_reuse = true;

    Timeouts timeouts;
    // The largest packet the client announces and accepts: a received
    // packet whose pieces would exceed it is Error{protocol}, raised before
    // the excess is buffered (a hostile server cannot make us hold more).
    std::uint32_t max_packet_size = protocol::default_max_packet_size;
    // Statements run once after login (and their results discarded).
    std::vector<std::string> init_commands;
    // Lets mysql_clear_password send the password on a connection that is
    // neither TLS nor a unix socket. Off by default.
    bool allow_cleartext = false;
    // The zlib compressed protocol; payloads below the threshold travel
    // uncompressed.
    bool compress = false;
    std::size_t compress_threshold = 50;
    // MARIADB_CLIENT_CACHE_METADATA: statement executes skip the column
    // definitions the client cached at prepare. Off only to measure it.
    bool cache_metadata = true;
    // Prepared-statement string/blob parameters longer than this go with
    // COM_STMT_SEND_LONG_DATA, in chunks of this size, so no single packet
    // needs to hold them.
    std::size_t long_data_threshold = 4u << 20;
    // Connection collation: utf8mb4_general_ci (45). Only utf8mb4
    // collations make sense with this client, which hands out UTF-8 text.
    std::uint8_t collation = 45;

    // The mode a connection to `peer` uses (see ssl_mode): ssl_mode when
    // set, else the default for that peer.
    SslMode effective_ssl_mode(PeerLocality peer) const noexcept;
};

// Parses
//   mariadb://[user[:password]@][host][:port][,host[:port]...][/database][?key=value[&key=value]...]
// (mysql:// is accepted too). Several hosts make a list (hosts above;
// host_list.hpp), which `socket` cannot go with. Every component is percent-decoded. host may
// be a bracketed IPv6 literal. Keys (underscores may replace dashes):
//   ssl-mode (disable|prefer|require|verify-ca|verify-full), ssl-ca,
//   ssl-capath, ssl-cert, ssl-key, ssl-cipher, ssl-session-reuse
//   (true|false|1|0), socket (unix socket path),
//   connect-timeout, read-timeout, write-timeout (seconds, fractions allowed,
//   0 = none), compress (true|false|1|0), compress-threshold (bytes),
//   allow-cleartext (true|false), long-data-threshold (bytes),
//   init-command (repeatable, run in order).
// Error{usage} naming the offending part for anything else.
ConnectOptions parse_url(std::string_view url);

}  // namespace sluice::mariadb
