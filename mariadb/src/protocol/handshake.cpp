#include "sluice/mariadb/protocol/handshake.hpp"

#include <algorithm>
#include <string>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/constants.hpp"

namespace sluice::mariadb::protocol {

std::string_view ServerHandshake::display_version() const noexcept {
    constexpr std::string_view prefix = "5.5.5-";
    std::string_view v = server_version;
    if (v.substr(0, prefix.size()) == prefix) v.remove_prefix(prefix.size());
    return v;
}

ServerHandshake parse_handshake(Bytes packet) {
    Reader r(packet, "handshake packet");
    ServerHandshake h;
    h.protocol_version = r.u8("protocol version");
    if (h.protocol_version != 10) {
        r.fail("protocol version", "unsupported protocol version " + std::to_string(h.protocol_version) +
                                       " (only v10 is spoken)");
    }
    h.server_version = r.nul_text("server version");
    h.connection_id = r.u32("connection id");
    Bytes scramble1 = r.bytes(8, "scramble part 1");
    r.skip(1, "reserved");
    std::uint64_t caps = r.u16("capabilities (low)");
    h.collation = r.u8("collation");
    h.status_flags = r.u16("status flags");
    caps |= std::uint64_t{r.u16("capabilities (high)")} << 16;
    std::uint8_t plugin_data_len = r.u8("plugin data length");
    r.skip(6, "filler");
    std::uint32_t extended = r.u32("MariaDB extended capabilities");
    if (!(caps & cap::client_mysql)) caps |= std::uint64_t{extended} << 32;
    h.capabilities = caps;
    h.scramble.assign(scramble1.begin(), scramble1.end());
    if (caps & cap::secure_connection) {
        // The second part is max(12, plugin data length - 9) bytes, then a
        // NUL that is not part of the scramble.
        std::size_t n = std::max<std::size_t>(12, plugin_data_len > 9 ? plugin_data_len - 9u : 0u);
        Bytes scramble2 = r.bytes(n, "scramble part 2");
        h.scramble.insert(h.scramble.end(), scramble2.begin(), scramble2.end());
        if (!r.at_end()) r.skip(1, "scramble terminator");
    }
    if (caps & cap::plugin_auth) {
        // Some servers omit the final NUL of the plugin name.
        Bytes rest = r.rest();
        std::string_view name = as_text(rest);
        auto nul = name.find('\0');
        h.auth_plugin = name.substr(0, nul);
    }
    return h;
}

namespace {
void write_fixed_prefix(Writer& w, const HandshakeResponse& r) {
    w.u32(static_cast<std::uint32_t>(r.capabilities));
    w.u32(r.max_packet_size);
    w.u8(r.collation);
    w.zeros(19);
    // MariaDB's extended client capabilities live in the last 4 reserved bytes.
    if (!(r.capabilities & cap::client_mysql)) {
        w.u32(static_cast<std::uint32_t>(r.capabilities >> 32));
    } else {
        w.zeros(4);
    }
}
}  // namespace

void write_ssl_request(Writer& w, const HandshakeResponse& r) { write_fixed_prefix(w, r); }

void write_handshake_response(Writer& w, const HandshakeResponse& r) {
    write_fixed_prefix(w, r);
    w.nul_text(r.user);
    if (r.capabilities & cap::plugin_auth_lenenc_client_data) {
        w.lenenc_bytes(r.auth_response);
    } else {
        if (r.auth_response.size() > 255) {
            throw Error(ErrorKind::usage, "auth response of " + std::to_string(r.auth_response.size()) +
                                              " bytes needs CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA");
        }
        w.u8(static_cast<std::uint8_t>(r.auth_response.size()));
        w.bytes(r.auth_response);
    }
    if (r.capabilities & cap::connect_with_db) w.nul_text(r.database);
    if (r.capabilities & cap::plugin_auth) w.nul_text(r.auth_plugin);
}

AuthSwitchRequest parse_auth_switch(Bytes packet) {
    Reader r(packet, "auth switch request");
    if (r.u8("header") != 0xFE) r.fail("header", "expected 0xFE");
    if (r.at_end()) {
        r.fail("plugin name", "old-style auth switch (mysql_old_password) is not supported");
    }
    AuthSwitchRequest s;
    s.plugin = r.nul_text("plugin name");
    s.data = r.rest();
    if (!s.data.empty() && s.data.back() == 0) s.data = s.data.first(s.data.size() - 1);
    return s;
}

AuthReply classify_auth_reply(Bytes packet) {
    if (packet.empty()) throw Error(ErrorKind::protocol, "malformed auth reply: empty packet");
    switch (packet[0]) {
        case 0x00: return AuthReply::ok;
        case 0xFF: return AuthReply::error;
        case 0xFE: return AuthReply::auth_switch;
        default: return AuthReply::more_data;
    }
}

Bytes auth_more_data(Bytes packet) noexcept {
    if (!packet.empty() && packet[0] == 0x01) return packet.subspan(1);
    return packet;
}

}  // namespace sluice::mariadb::protocol
