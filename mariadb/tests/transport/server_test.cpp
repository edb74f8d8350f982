// The transport against the private MariaDB: TCP and unix sockets, the
// greeting, TLS in every verifying mode, and a login over TLS and over the
// compressed protocol. Packets are built by hand here, so these tests depend
// on nothing above the transport.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sluice/common/env_file.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/transport/packet_channel.hpp"
#include "handshake_packets.hpp"

namespace sluice::mariadb {
namespace {

using namespace test;  // handshake_packets.hpp

struct Servers {
    EnvFile env = EnvFile::from_environment();
    std::string host = env.require("SLUICE_HOST");
    std::uint16_t port = static_cast<std::uint16_t>(std::stoi(env.require("SLUICE_MARIADB_PORT")));
};

PacketChannel connect(const Servers& s) {
    return PacketChannel(Socket::connect_tcp(s.host, s.port, deadline_after(std::chrono::seconds(10))));
}

// Connects, reads the greeting, sends SSLRequest and starts TLS.
PacketChannel connect_tls(const Servers& s, const TlsOptions& options, const std::string& verify_host,
                          Greeting* greeting_out = nullptr) {
    PacketChannel channel = connect(s);
    const Greeting greeting = parse_greeting(channel.read_packet());
    EXPECT_NE(greeting.capabilities & client_ssl, 0U) << "the server must offer TLS";
    channel.send_packet(response_prefix(client_protocol_41 | client_ssl | client_secure_connection | client_plugin_auth));
    channel.start_tls(options, verify_host);
    if (greeting_out) *greeting_out = greeting;
    return channel;
}

// Logs the REQUIRE-SSL user in over a verify-full TLS channel (its OK
// proves the TLS session works); `greeting_out` gets the server's greeting.
PacketChannel tls_login(const Servers& s, Greeting* greeting_out = nullptr) {
    TlsOptions options{.mode = SslMode::verify_full, .ca_file = s.env.require("SLUICE_CA")};
    Greeting greeting;
    PacketChannel channel = connect_tls(s, options, s.host, &greeting);
    const std::uint32_t caps = client_protocol_41 | client_ssl | client_secure_connection | client_plugin_auth;
    channel.send_packet(login_response(caps, s.env.require("SLUICE_MARIADB_SSL_USER"),
                                       s.env.require("SLUICE_MARIADB_SSL_PASSWORD"), greeting.scramble));
    const auto reply = channel.read_packet();
    EXPECT_FALSE(reply.empty());
    EXPECT_TRUE(!reply.empty() && reply[0] == 0x00)
        << "expected OK, got " << std::string(reply.begin(), reply.end());
    if (greeting_out) *greeting_out = greeting;
    return channel;
}

// SELECT REPEAT('sluice', 3500000) through the text protocol: a 21 MB
// value, so a logical packet over 16 MiB split into two pieces (and, on a
// compressed or TLS channel, across frames or records). Checks both ends.
void expect_large_repeat(PacketChannel& channel) {
    channel.reset_sequence();
    const std::string sql = "SELECT REPEAT('sluice', 3500000)";
    Bytes query{0x03};
    query.insert(query.end(), sql.begin(), sql.end());
    channel.send_packet(query);
    ASSERT_EQ(channel.read_packet()[0], 1);  // one column
    channel.read_packet();
    channel.read_packet();  // EOF
    const auto row = channel.read_packet();
    ASSERT_EQ(row.size(), 9 + 6 * 3500000U);  // 0xFE + 8-byte length + value
    EXPECT_EQ(row[0], 0xFE);
    EXPECT_EQ(std::string(row.begin() + 9, row.begin() + 15), "sluice");
    EXPECT_EQ(std::string(row.end() - 6, row.end()), "sluice");
    EXPECT_EQ(channel.read_packet()[0], 0xFE);
}

// SELECT 1 through the text protocol; checks the single value.
void expect_select_one(PacketChannel& channel) {
    channel.reset_sequence();
    const std::string sql = "SELECT 1";
    Bytes query{0x03};
    query.insert(query.end(), sql.begin(), sql.end());
    channel.send_packet(query);
    const auto column_count = channel.read_packet();
    ASSERT_EQ(column_count.size(), 1U);
    EXPECT_EQ(column_count[0], 1);
    channel.read_packet();                // column definition
    EXPECT_EQ(channel.read_packet()[0], 0xFE);  // EOF
    const auto row = channel.read_packet();
    EXPECT_EQ(Bytes(row.begin(), row.end()), (Bytes{1, '1'}));
    EXPECT_EQ(channel.read_packet()[0], 0xFE);  // EOF
}

TEST(ServerTransport, TcpGreeting) {
    Servers s;
    PacketChannel channel = connect(s);
    const auto greeting = channel.read_packet();
    EXPECT_EQ(channel.sequence(), 1);
    EXPECT_EQ(greeting[0], 10);
    EXPECT_NE(parse_greeting(greeting).capabilities & client_protocol_41, 0U);
}

TEST(ServerTransport, UnixSocketGreeting) {
    Servers s;
    PacketChannel channel(
        Socket::connect_unix(s.env.require("SLUICE_MARIADB_SOCKET"), deadline_after(std::chrono::seconds(10))));
    EXPECT_EQ(channel.read_packet()[0], 10);
    EXPECT_EQ(channel.socket().peer(), s.env.require("SLUICE_MARIADB_SOCKET"));
}

TEST(ServerTransport, VerifyFullWithTheRightCaAndALoginOverTls) {
    Servers s;
    TlsOptions options{.mode = SslMode::verify_full, .ca_file = s.env.require("SLUICE_CA")};
    Greeting greeting;
    PacketChannel channel = connect_tls(s, options, s.host, &greeting);
    EXPECT_TRUE(channel.is_tls());
    EXPECT_TRUE(channel.tls_version() == "TLSv1.3" || channel.tls_version() == "TLSv1.2") << channel.tls_version();
    // The SSL user may only log in over TLS: its OK proves the session works.
    const std::uint32_t caps = client_protocol_41 | client_ssl | client_secure_connection | client_plugin_auth;
    channel.send_packet(login_response(caps, s.env.require("SLUICE_MARIADB_SSL_USER"),
                                       s.env.require("SLUICE_MARIADB_SSL_PASSWORD"), greeting.scramble));
    const auto reply = channel.read_packet();
    ASSERT_FALSE(reply.empty());
    EXPECT_EQ(reply[0], 0x00) << "expected OK, got " << std::string(reply.begin(), reply.end());
    expect_select_one(channel);
}

TEST(ServerTransport, VerifyFullByDnsNameLocalhost) {
    Servers s;
    // The certificate's SAN also holds DNS:localhost; SNI is sent for it.
    TlsOptions options{.mode = SslMode::verify_full, .ca_file = s.env.require("SLUICE_CA")};
    EXPECT_TRUE(connect_tls(s, options, "localhost").is_tls());
}

TEST(ServerTransport, VerifyCaWithTheRightCa) {
    Servers s;
    TlsOptions options{.mode = SslMode::verify_ca, .ca_file = s.env.require("SLUICE_CA")};
    // verify-ca ignores the name: a wrong one still passes.
    EXPECT_TRUE(connect_tls(s, options, "wrong.example").is_tls());
}

TEST(ServerTransport, WrongCaFailsWithTlsError) {
    Servers s;
    for (SslMode mode : {SslMode::verify_ca, SslMode::verify_full}) {
        TlsOptions options{.mode = mode, .ca_file = s.env.require("SLUICE_WRONG_CA")};
        try {
            connect_tls(s, options, s.host);
            FAIL() << "expected a TLS error under " << to_string(mode);
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::tls) << e.what();
            EXPECT_NE(std::string(e.what()).find("certificate"), std::string::npos) << e.what();
        }
    }
}

TEST(ServerTransport, HostNameMismatchFailsUnderVerifyFull) {
    Servers s;
    TlsOptions options{.mode = SslMode::verify_full, .ca_file = s.env.require("SLUICE_CA")};
    try {
        connect_tls(s, options, "wrong.example");
        FAIL() << "expected a TLS error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::tls) << e.what();
        EXPECT_NE(std::string(e.what()).find("wrong.example"), std::string::npos) << e.what();
    }
}

TEST(ServerTransport, RequireWithoutCaEncryptsWithoutVerifying) {
    Servers s;
    TlsOptions options{.mode = SslMode::require};
    PacketChannel channel = connect_tls(s, options, "wrong.example");
    EXPECT_TRUE(channel.is_tls());
    EXPECT_FALSE(channel.tls_cipher().empty());
}

TEST(ServerTransport, VerifyModesWithoutCaAreAUsageError) {
    Servers s;
    TlsOptions options{.mode = SslMode::verify_full};
    try {
        connect_tls(s, options, s.host);
        FAIL() << "expected a usage error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
    }
}

TEST(ServerTransport, CompressedProtocolLoginAndLargeResult) {
    Servers s;
    PacketChannel channel = connect(s);
    const Greeting greeting = parse_greeting(channel.read_packet());
    ASSERT_NE(greeting.capabilities & client_compress, 0U);
    const std::uint32_t caps = client_protocol_41 | client_secure_connection | client_plugin_auth | client_compress;
    channel.send_packet(login_response(caps, s.env.require("SLUICE_MARIADB_NATIVE_USER"),
                                       s.env.require("SLUICE_MARIADB_NATIVE_PASSWORD"), greeting.scramble));
    // The server switches to compression after the OK that ends the
    // authentication, so the OK itself still arrives plain.
    const auto reply = channel.read_packet();
    ASSERT_FALSE(reply.empty());
    ASSERT_EQ(reply[0], 0x00) << std::string(reply.begin(), reply.end());
    channel.enable_compression();
    expect_select_one(channel);

    // A 20 MB value: compressed frames of 16 MiB, and a logical packet that
    // is split into two pieces inside them.
    expect_large_repeat(channel);
}

TEST(ServerTransport, ALargeResultAndPipelinedRepliesOverTls) {
    // The TLS layer reads ahead (as many records as the socket holds): a
    // 20 MB row across many records, then two replies that arrive together,
    // must come out whole and in order.
    Servers s;
    PacketChannel channel = tls_login(s);
    if (HasFailure()) return;

    expect_large_repeat(channel);
    if (HasFailure()) return;

    // Two pings in one write: two OKs, each with its own sequence.
    for (int i = 0; i < 2; ++i) {
        channel.reset_sequence();
        channel.write_packet(Bytes{0x0E});
    }
    channel.flush();
    for (int i = 0; i < 2; ++i) {
        channel.expect_sequence(1);
        EXPECT_EQ(channel.read_packet()[0], 0x00);
    }
    expect_select_one(channel);
}

// Runs one statement on a fresh plain connection as the admin user.
void run_as_admin(const Servers& s, const std::string& sql) {
    PacketChannel admin = connect(s);
    const Greeting greeting = parse_greeting(admin.read_packet());
    const std::uint32_t caps = client_protocol_41 | client_secure_connection | client_plugin_auth;
    admin.send_packet(login_response(caps, s.env.require("SLUICE_MARIADB_ADMIN_USER"),
                                     s.env.require("SLUICE_MARIADB_ADMIN_PASSWORD"), greeting.scramble));
    ASSERT_EQ(admin.read_packet()[0], 0x00);
    admin.reset_sequence();
    Bytes query{0x03};
    query.insert(query.end(), sql.begin(), sql.end());
    admin.send_packet(query);
    const auto reply = admin.read_packet();
    ASSERT_EQ(reply[0], 0x00) << std::string(reply.begin(), reply.end());
}

TEST(ServerTransport, WritingOverTlsToAKilledConnectionIsAnErrorNotSigpipe) {
    // With OpenSSL's own socket BIO, write(2) to a closed peer raises
    // SIGPIPE and kills the process; the channel must report an Error.
    Servers s;
    Greeting greeting;
    PacketChannel channel = tls_login(s, &greeting);
    if (HasFailure()) return;
    run_as_admin(s, "KILL " + std::to_string(greeting.connection_id));
    // The server closes the socket; keep writing until the kernel says so.
    const Bytes chunk(1 << 20, 'x');
    try {
        for (int i = 0; i < 200; ++i) {
            channel.reset_sequence();
            channel.send_packet(chunk);
        }
        FAIL() << "writes to a killed connection kept succeeding";
    } catch (const Error& e) {
        EXPECT_TRUE(e.kind() == ErrorKind::closed || e.kind() == ErrorKind::io) << e.what();
    }
    EXPECT_TRUE(channel.broken());
}

TEST(ServerTransport, ServerClosingMidExchangeIsClosedNotAHang) {
    Servers s;
    PacketChannel channel = connect(s);
    parse_greeting(channel.read_packet());
    // Garbage instead of a handshake response: the server drops us.
    channel.send_packet(Bytes{1, 2, 3});
    try {
        const auto reply = channel.read_packet();
        // Some servers answer with ERR first; the next read sees the close.
        EXPECT_EQ(reply[0], 0xFF);
        channel.read_packet();
        FAIL() << "expected the connection to be closed";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::closed) << e.what();
    }
}

}  // namespace
}  // namespace sluice::mariadb
