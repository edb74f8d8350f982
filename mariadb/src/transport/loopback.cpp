// Loopback addresses (loopback.hpp), and Socket::peer_is_loopback, which
// asks the kernel for the address a socket is connected to.
#include "sluice/mariadb/transport/loopback.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>
#include <string>

#include "sluice/mariadb/transport/socket.hpp"

namespace sluice::mariadb {
namespace {

// First byte 127 of an IPv4 address in network order.
bool is_loopback_v4(const in_addr& a) noexcept { return (ntohl(a.s_addr) >> 24) == 127; }

bool is_loopback_v6(const in6_addr& a) noexcept {
    if (IN6_IS_ADDR_LOOPBACK(&a)) return true;
    if (!IN6_IS_ADDR_V4MAPPED(&a)) return false;
    in_addr v4{};
    std::memcpy(&v4, &a.s6_addr[12], sizeof v4);  // ::ffff:a.b.c.d carries a.b.c.d last
    return is_loopback_v4(v4);
}

}  // namespace

bool is_loopback_address(std::string_view numeric) noexcept {
    const std::string text(numeric);
    in_addr v4{};
    if (::inet_pton(AF_INET, text.c_str(), &v4) == 1) return is_loopback_v4(v4);
    in6_addr v6{};
    if (::inet_pton(AF_INET6, text.c_str(), &v6) == 1) return is_loopback_v6(v6);
    return false;
}

bool Socket::peer_is_loopback() const noexcept {
    if (fd_ < 0) return false;
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) return false;
    if (address.ss_family == AF_INET) {
        sockaddr_in v4{};
        std::memcpy(&v4, &address, sizeof v4);
        return is_loopback_v4(v4.sin_addr);
    }
    if (address.ss_family == AF_INET6) {
        sockaddr_in6 v6{};
        std::memcpy(&v6, &address, sizeof v6);
        return is_loopback_v6(v6.sin6_addr);
    }
    return false;  // AF_UNIX: local, but not an address (Connection treats sockets apart)
}

}  // namespace sluice::mariadb
