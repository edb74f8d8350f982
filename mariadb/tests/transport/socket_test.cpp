// Socket and TLS option handling that needs no server.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/transport/socket.hpp"
#include "sluice/mariadb/transport/tls.hpp"

namespace sluice::mariadb {
namespace {

// A loopback port nothing listens on: bind one, note it, release it.
std::uint16_t unused_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
}

TEST(Socket, RefusedConnectNamesHostAndPort) {
    const std::uint16_t port = unused_port();
    try {
        Socket::connect_tcp("127.0.0.1", port, deadline_after(std::chrono::seconds(5)));
        FAIL() << "expected a connect failure";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::io);
        EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + std::to_string(port)), std::string::npos) << e.what();
    }
}

TEST(Socket, MissingUnixSocketNamesThePath) {
    try {
        Socket::connect_unix("/nonexistent/sluice.sock", deadline_after(std::chrono::seconds(5)));
        FAIL() << "expected a connect failure";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::io);
        EXPECT_NE(std::string(e.what()).find("/nonexistent/sluice.sock"), std::string::npos) << e.what();
    }
}

TEST(Socket, OverlongUnixPathIsAUsageError) {
    try {
        Socket::connect_unix(std::string(200, 'x'), deadline_after(std::chrono::seconds(5)));
        FAIL() << "expected a usage error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::usage);
    }
}

TEST(Socket, UnresolvableHostIsAnIoError) {
    try {
        Socket::connect_tcp("no-such-host.invalid", 3306, deadline_after(std::chrono::seconds(5)));
        FAIL() << "expected a resolve failure";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::io);
        EXPECT_NE(std::string(e.what()).find("no-such-host.invalid:3306"), std::string::npos) << e.what();
    }
}

TEST(SslMode, ParsesEveryModeAndRejectsOthers) {
    EXPECT_EQ(parse_ssl_mode("disable"), SslMode::disable);
    EXPECT_EQ(parse_ssl_mode("prefer"), SslMode::prefer);
    EXPECT_EQ(parse_ssl_mode("require"), SslMode::require);
    EXPECT_EQ(parse_ssl_mode("verify-ca"), SslMode::verify_ca);
    EXPECT_EQ(parse_ssl_mode("verify-full"), SslMode::verify_full);
    EXPECT_EQ(parse_ssl_mode("verify_full"), SslMode::verify_full);
    for (SslMode m : {SslMode::disable, SslMode::prefer, SslMode::require, SslMode::verify_ca, SslMode::verify_full}) {
        EXPECT_EQ(parse_ssl_mode(to_string(m)), m);
    }
    try {
        parse_ssl_mode("verify");
        FAIL() << "expected a usage error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::usage);
        EXPECT_NE(std::string(e.what()).find("'verify'"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace sluice::mariadb
