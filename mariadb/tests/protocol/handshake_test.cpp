#include "sluice/mariadb/protocol/handshake.hpp"

#include <gtest/gtest.h>

#include "bytes.hpp"
#include "sluice/mariadb/protocol/constants.hpp"

namespace sluice::mariadb::protocol {
namespace {

using test::PacketBuilder;

// A MariaDB 10.11 handshake as the server sends it: CLIENT_MYSQL clear, the
// extended capabilities in the last 4 reserved bytes.
std::vector<std::uint8_t> mariadb_handshake(std::uint32_t low_caps = 0xF7FEu, std::uint32_t extended = 0x3Du) {
    std::uint32_t high_caps = 0x81BFu;  // plugin auth, deprecate EOF, ...
    PacketBuilder p;
    p.u8(10).nul("5.5.5-10.11.6-MariaDB-0+deb12u1").u32(42);
    p.text("abcdefgh").u8(0);
    p.u16(static_cast<std::uint16_t>(low_caps)).u8(45).u16(0x0002).u16(static_cast<std::uint16_t>(high_caps));
    p.u8(21).raw({0, 0, 0, 0, 0, 0}).u32(extended);
    p.text("ijklmnopqrst").u8(0);
    p.nul("mysql_native_password");
    return p.bytes;
}

TEST(Handshake, ParsesMariaDbHandshakeWithExtendedCapabilities) {
    auto bytes = mariadb_handshake();
    ServerHandshake h = parse_handshake(bytes);
    EXPECT_EQ(h.protocol_version, 10);
    EXPECT_EQ(h.server_version, "5.5.5-10.11.6-MariaDB-0+deb12u1");
    EXPECT_EQ(h.display_version(), "10.11.6-MariaDB-0+deb12u1");
    EXPECT_EQ(h.connection_id, 42u);
    EXPECT_EQ(std::string(h.scramble.begin(), h.scramble.end()), "abcdefghijklmnopqrst");
    EXPECT_EQ(h.collation, 45);
    EXPECT_EQ(h.status_flags, 2);
    EXPECT_EQ(h.auth_plugin, "mysql_native_password");
    EXPECT_FALSE(h.capabilities & cap::client_mysql);
    EXPECT_TRUE(h.capabilities & cap::plugin_auth);
    EXPECT_TRUE(h.capabilities & cap::secure_connection);
    EXPECT_TRUE(h.capabilities & cap::mariadb_stmt_bulk_operations);
    EXPECT_TRUE(h.capabilities & cap::mariadb_extended_metadata);
}

TEST(Handshake, ExtendedBytesAreFillerWhenTheServerIsMySql) {
    auto bytes = mariadb_handshake(0xF7FFu, 0xFFFFFFFFu);
    ServerHandshake h = parse_handshake(bytes);
    EXPECT_TRUE(h.capabilities & cap::client_mysql);
    EXPECT_EQ(h.capabilities >> 32, 0u);
}

TEST(Handshake, EveryTruncationIsAProtocolErrorNeverACrash) {
    auto bytes = mariadb_handshake();
    // Up to the end of scramble part 2 every cut is an error; later cuts
    // only shorten the plugin name, which servers may leave unterminated.
    std::size_t plugin_name_at = bytes.size() - std::string_view("mysql_native_password").size() - 1;
    for (std::size_t n = 0; n < plugin_name_at - 1; ++n) {
        std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(n));
        EXPECT_EQ(test::kind_of_error([&] { parse_handshake(cut); }), ErrorKind::protocol) << n;
    }
}

TEST(Handshake, RejectsOtherProtocolVersions) {
    auto bytes = mariadb_handshake();
    bytes[0] = 9;
    try {
        parse_handshake(bytes);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("protocol version 9"), std::string::npos) << e.what();
    }
}

TEST(HandshakeResponse, SslRequestIsTheFixed32BytePrefixWithExtendedCapabilities) {
    HandshakeResponse r;
    r.capabilities = cap::protocol_41 | cap::ssl | cap::plugin_auth | cap::mariadb_extended_metadata;
    r.collation = utf8mb4_general_ci;
    std::vector<std::uint8_t> out;
    Writer w(out);
    write_ssl_request(w, r);
    ASSERT_EQ(out.size(), 32u);
    Reader rd(out, "t");
    EXPECT_EQ(rd.u32("caps"), static_cast<std::uint32_t>(r.capabilities));
    EXPECT_EQ(rd.u32("max"), 0x40000000u);
    EXPECT_EQ(rd.u8("collation"), 45);
    rd.skip(19, "reserved");
    EXPECT_EQ(rd.u32("ext"), 1u << 3);
}

TEST(HandshakeResponse, CarriesUserAuthDataDatabaseAndPlugin) {
    HandshakeResponse r;
    r.capabilities = cap::protocol_41 | cap::secure_connection | cap::plugin_auth |
                     cap::plugin_auth_lenenc_client_data | cap::connect_with_db;
    r.collation = 45;
    r.user = "alice";
    std::vector<std::uint8_t> auth(20, 0xAB);
    r.auth_response = auth;
    r.database = "sluice";
    r.auth_plugin = "mysql_native_password";
    std::vector<std::uint8_t> out;
    Writer w(out);
    write_handshake_response(w, r);
    Reader rd(out, "t");
    rd.skip(32, "prefix");
    EXPECT_EQ(rd.nul_text("user"), "alice");
    auto data = rd.lenenc_bytes("auth");
    EXPECT_EQ(std::vector<std::uint8_t>(data.begin(), data.end()), auth);
    EXPECT_EQ(rd.nul_text("db"), "sluice");
    EXPECT_EQ(rd.nul_text("plugin"), "mysql_native_password");
    EXPECT_TRUE(rd.at_end());
}

TEST(AuthSwitch, ParsesPluginAndStripsTrailingNul) {
    PacketBuilder p;
    p.u8(0xFE).nul("client_ed25519").text("0123456789").u8(0);
    AuthSwitchRequest s = parse_auth_switch(p.bytes);
    EXPECT_EQ(s.plugin, "client_ed25519");
    EXPECT_EQ(as_text(s.data), "0123456789");
    EXPECT_EQ(classify_auth_reply(p.bytes), AuthReply::auth_switch);
}

TEST(AuthSwitch, OldStyleSwitchAndMissingTerminatorAreErrors) {
    std::vector<std::uint8_t> old{0xFE};
    EXPECT_EQ(test::kind_of_error([&] { parse_auth_switch(old); }), ErrorKind::protocol);
    PacketBuilder p;
    p.u8(0xFE).text("dialog");
    EXPECT_EQ(test::kind_of_error([&] { parse_auth_switch(p.bytes); }), ErrorKind::protocol);
}

TEST(AuthMoreData, StripsOnlyTheStatusByte) {
    std::vector<std::uint8_t> prefixed{0x01, 0x04, 'P'};
    EXPECT_EQ(auth_more_data(prefixed).size(), 2u);
    std::vector<std::uint8_t> dialog{0x04, 'P', 'w'};
    EXPECT_EQ(auth_more_data(dialog).size(), 3u);
    EXPECT_EQ(classify_auth_reply(dialog), AuthReply::more_data);
    std::vector<std::uint8_t> empty;
    EXPECT_THROW(classify_auth_reply(empty), Error);
}

}  // namespace
}  // namespace sluice::mariadb::protocol
