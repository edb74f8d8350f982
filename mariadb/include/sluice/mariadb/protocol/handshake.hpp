#pragma once
// Connection phase: the server's Handshake v10, the client's SSLRequest and
// HandshakeResponse41, and the server's auth-phase packets (AuthSwitchRequest,
// AuthMoreData). Decoded views point into the packet they came from.
#include <cstdint>
#include <string_view>
#include <vector>

#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/protocol/wire.hpp"

namespace sluice::mariadb::protocol {

struct ServerHandshake {
    std::uint8_t protocol_version = 0;
    std::string_view server_version;
    std::uint32_t connection_id = 0;
    // Both scramble parts joined (20 bytes for the usual plugins).
    std::vector<std::uint8_t> scramble;
    // All 64 capability bits: the MariaDB extension is zero when the server
    // sets CLIENT_MYSQL (it is then MySQL, and those bytes are filler).
    std::uint64_t capabilities = 0;
    std::uint8_t collation = 0;
    std::uint16_t status_flags = 0;
    std::string_view auth_plugin;  // empty without CLIENT_PLUGIN_AUTH
    // MariaDB servers prefix the version with "5.5.5-" for old clients.
    std::string_view display_version() const noexcept;
};

// Error{protocol} for anything but a well-formed v10 handshake; an ERR
// packet instead of a handshake (too many connections, host blocked) must
// be recognised by the caller first (its first byte is 0xFF).
ServerHandshake parse_handshake(Bytes packet);

struct HandshakeResponse {
    std::uint64_t capabilities = 0;  // what the client uses (subset of the server's)
    std::uint32_t max_packet_size = protocol::default_max_packet_size;
    std::uint8_t collation = 0;
    std::string_view user;
    Bytes auth_response;
    std::string_view database;     // sent when capabilities has connect_with_db
    std::string_view auth_plugin;  // sent when capabilities has plugin_auth
};

// The 32-byte SSLRequest: the response's fixed prefix, sent before TLS.
void write_ssl_request(Writer& w, const HandshakeResponse& r);
// HandshakeResponse41 (auth data length-encoded when the capability is on,
// 1-byte length prefix otherwise).
void write_handshake_response(Writer& w, const HandshakeResponse& r);

// 0xFE <plugin name NUL> <plugin data>. The trailing NUL that some plugins'
// data carries (mysql_native_password's scramble) is removed.
struct AuthSwitchRequest {
    std::string_view plugin;
    Bytes data;
};
AuthSwitchRequest parse_auth_switch(Bytes packet);

// Auth-phase packet kinds, by first byte.
enum class AuthReply { ok, error, auth_switch, more_data };
AuthReply classify_auth_reply(Bytes packet);
// AuthMoreData without its 0x01 status byte when present.
Bytes auth_more_data(Bytes packet) noexcept;

}  // namespace sluice::mariadb::protocol
