// Which addresses count as loopback (the default ssl-mode depends on it), on
// address text and on sockets actually connected.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "socket_pair.hpp"
#include "sluice/mariadb/transport/loopback.hpp"
#include "sluice/mariadb/transport/socket.hpp"

namespace sluice::mariadb {
namespace {

TEST(Loopback, AddressesOfTheWholeLoopbackRangesCount) {
    for (const char* a : {"127.0.0.1", "127.0.0.2", "127.255.255.254", "::1", "0:0:0:0:0:0:0:1",
                          "::ffff:127.0.0.1", "::ffff:127.9.8.7"}) {
        EXPECT_TRUE(is_loopback_address(a)) << a;
    }
}

TEST(Loopback, OtherAddressesAndNamesDoNot) {
    // Names are decided by what they resolve to, never by their spelling.
    for (const char* a : {"10.231.19.2", "192.0.2.1", "128.0.0.1", "126.255.255.255", "0.0.0.0", "::",
                          "::2", "fe80::1", "::ffff:10.0.0.1", "::127.0.0.1", "localhost", "127.0.0.1.example",
                          "[::1]", "", "127.1"}) {
        EXPECT_FALSE(is_loopback_address(a)) << a;
    }
}

// A listener on `address` (IPv4) with a port the kernel picks.
int listen_on(const char* address, std::uint16_t& port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    EXPECT_EQ(::inet_pton(AF_INET, address, &addr.sin_addr), 1);
    socklen_t length = sizeof addr;
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << address;
    EXPECT_EQ(::listen(fd, 4), 0);
    EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length), 0);
    port = ntohs(addr.sin_port);
    return fd;
}

TEST(Loopback, AConnectedTcpSocketReportsItsPeersAddress) {
    for (const char* address : {"127.0.0.1", "127.0.0.2"}) {
        std::uint16_t port = 0;
        const int listener = listen_on(address, port);
        Socket s = Socket::connect_tcp(address, port, deadline_after(std::chrono::seconds(5)));
        EXPECT_TRUE(s.peer_is_loopback()) << address;
        s.close();
        EXPECT_FALSE(s.peer_is_loopback()) << "a closed socket has no peer";
        ::close(listener);
    }
    // A name is judged by the address it reached.
    std::uint16_t port = 0;
    const int listener = listen_on("127.0.0.1", port);
    Socket by_name = Socket::connect_tcp("localhost", port, deadline_after(std::chrono::seconds(5)));
    EXPECT_TRUE(by_name.peer_is_loopback());
    ::close(listener);
}

TEST(Loopback, AUnixSocketIsNotALoopbackAddress) {
    auto [a, b] = testing::socket_pair();
    EXPECT_FALSE(a.peer_is_loopback());
    EXPECT_FALSE(b.peer_is_loopback());
}

}  // namespace
}  // namespace sluice::mariadb
