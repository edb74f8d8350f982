#include <gtest/gtest.h>

#include "sluice/mariadb/connect_options.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb {
namespace {

TEST(Url, FullFormWithPercentDecodingAndParameters) {
    ConnectOptions o = parse_url(
        "mariadb://al%40ice:p%3Ass%2Fw@db.example:3307/my%20db?ssl-mode=verify-ca&ssl-ca=/etc/ca%20x.pem"
        "&connect-timeout=2.5&read_timeout=0&compress=true&compress-threshold=100&allow-cleartext=1"
        "&init-command=SET%20@a%3D1&init-command=SET%20@b%3D2&long-data-threshold=65536");
    EXPECT_EQ(o.user, "al@ice");
    EXPECT_EQ(o.password, "p:ss/w");
    EXPECT_EQ(o.host, "db.example");
    EXPECT_EQ(o.port, 3307);
    EXPECT_EQ(o.database, "my db");
    EXPECT_EQ(o.ssl_mode, SslMode::verify_ca);
    EXPECT_EQ(o.ssl_ca, "/etc/ca x.pem");
    EXPECT_EQ(o.timeouts.connect, std::chrono::milliseconds(2500));
    EXPECT_EQ(o.timeouts.read, std::chrono::milliseconds(0));
    EXPECT_TRUE(o.compress);
    EXPECT_EQ(o.compress_threshold, 100u);
    EXPECT_TRUE(o.allow_cleartext);
    EXPECT_EQ(o.init_commands, (std::vector<std::string>{"SET @a=1", "SET @b=2"}));
    EXPECT_EQ(o.long_data_threshold, 65536u);
}

TEST(Url, MinimalFormsAndDefaults) {
    ConnectOptions o = parse_url("mariadb://localhost");
    EXPECT_EQ(o.host, "localhost");
    EXPECT_EQ(o.port, 3306);
    EXPECT_TRUE(o.user.empty());
    EXPECT_TRUE(o.database.empty());
    EXPECT_FALSE(o.ssl_mode.has_value());
    ConnectOptions m = parse_url("mysql://root@127.0.0.1:3306/");
    EXPECT_EQ(m.user, "root");
    EXPECT_TRUE(m.database.empty());
}

TEST(Url, CaImpliesVerifyFullUnlessAModeIsGiven) {
    for (PeerLocality peer : {PeerLocality::unix_socket, PeerLocality::loopback, PeerLocality::network}) {
        EXPECT_EQ(parse_url("mariadb://h/?ssl-ca=/ca.pem").effective_ssl_mode(peer), SslMode::verify_full);
        EXPECT_EQ(parse_url("mariadb://h/?ssl-capath=/certs").effective_ssl_mode(peer), SslMode::verify_full);
        EXPECT_EQ(parse_url("mariadb://h/?ssl-ca=/ca.pem&ssl-mode=require").effective_ssl_mode(peer),
                  SslMode::require);
    }
}

// The default-mode table of docs/mariadb.md, row by row: without a mode and
// without a CA, only TCP to an address that is not loopback verifies.
TEST(Url, WithoutAModeOnlyANetworkPeerVerifiesByDefault) {
    const ConnectOptions bare = parse_url("mariadb://db.example/");
    EXPECT_EQ(bare.effective_ssl_mode(PeerLocality::network), SslMode::verify_full);
    EXPECT_EQ(bare.effective_ssl_mode(PeerLocality::loopback), SslMode::prefer);
    EXPECT_EQ(bare.effective_ssl_mode(PeerLocality::unix_socket), SslMode::prefer);
    // An explicit mode is kept for every peer, prefer and disable included.
    for (SslMode mode : {SslMode::disable, SslMode::prefer, SslMode::require, SslMode::verify_ca,
                         SslMode::verify_full}) {
        ConnectOptions o = bare;
        o.ssl_mode = mode;
        for (PeerLocality peer : {PeerLocality::unix_socket, PeerLocality::loopback, PeerLocality::network}) {
            EXPECT_EQ(o.effective_ssl_mode(peer), mode) << to_string(mode);
        }
    }
}

TEST(Url, TlsSessionReuseIsOnUnlessTurnedOff) {
    EXPECT_TRUE(parse_url("mariadb://h/").tls_session_reuse);
    EXPECT_FALSE(parse_url("mariadb://h/?ssl-session-reuse=0").tls_session_reuse);
    EXPECT_FALSE(parse_url("mariadb://h/?ssl_session_reuse=false").tls_session_reuse);
    EXPECT_TRUE(parse_url("mariadb://h/?ssl-session-reuse=0&ssl-session-reuse=1").tls_session_reuse);
    try {
        parse_url("mariadb://h/?ssl-session-reuse=sometimes");
        ADD_FAILURE() << "expected Error{usage}";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::usage);
        EXPECT_NE(std::string(e.what()).find("ssl-session-reuse=sometimes"), std::string::npos) << e.what();
    }
}

TEST(Url, UnixSocketForms) {
    ConnectOptions a = parse_url("mariadb://user@localhost/db?socket=/run/mysqld/mysqld.sock");
    EXPECT_EQ(a.unix_socket, "/run/mysqld/mysqld.sock");
    EXPECT_EQ(a.database, "db");
    ConnectOptions b = parse_url("mariadb://user@%2Frun%2Fmysqld%2Fmysqld.sock/db");
    EXPECT_EQ(b.unix_socket, "/run/mysqld/mysqld.sock");
}

TEST(Url, Ipv6Literal) {
    ConnectOptions o = parse_url("mariadb://u@[::1]:3310/d");
    EXPECT_EQ(o.host, "::1");
    EXPECT_EQ(o.port, 3310);
}

TEST(Url, ErrorsNameTheOffendingPart) {
    auto message = [](std::string_view url) {
        try {
            parse_url(url);
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::usage);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message("postgres://x").find("mariadb://"), std::string::npos);
    // A wrong scheme's message does not echo the start of the URL (it named
    // up to 16 characters: a short password among them).
    EXPECT_EQ(message("pg://u:secret@h/").find("secret"), std::string::npos) << message("pg://u:secret@h/");
    EXPECT_NE(message("mariadb://h:99999/").find("port"), std::string::npos);
    EXPECT_NE(message("mariadb://h:abc/").find("port"), std::string::npos);
    EXPECT_NE(message("mariadb://h/?bogus=1").find("bogus"), std::string::npos);
    EXPECT_NE(message("mariadb://h/?ssl-mode=sometimes").find("sometimes"), std::string::npos);
    EXPECT_NE(message("mariadb://h/?compress=maybe").find("compress"), std::string::npos);
    EXPECT_NE(message("mariadb://u%zz@h/").find("percent"), std::string::npos);
    EXPECT_NE(message("mariadb://h/?x").find("no value"), std::string::npos);
    EXPECT_NE(message("mariadb://[::1/").find("["), std::string::npos);
}

}  // namespace
}  // namespace sluice::mariadb
