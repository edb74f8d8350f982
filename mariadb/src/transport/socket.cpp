// Non-blocking stream sockets with poll()-based deadlines.
#include "sluice/mariadb/transport/socket.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "sluice/mariadb/error.hpp"
#include "poll_wait.hpp"

namespace sluice::mariadb {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

// Milliseconds poll() may wait before the deadline; -1 for no deadline.
int poll_timeout_ms(Deadline deadline) {
    if (deadline == Deadline::max()) return -1;
    const auto now = Clock::now();
    if (deadline <= now) return 0;
    // Round up so a wait never ends a fraction of a millisecond early and
    // spins once more with a zero timeout.
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    return static_cast<int>(std::min<long long>(ms, 1'000'000'000));
}

}  // namespace

bool detail::wait_fd(int fd, short events, Deadline deadline, const std::string& peer) {
    for (;;) {
        pollfd p{fd, events, 0};
        const int rc = ::poll(&p, 1, poll_timeout_ms(deadline));
        if (rc > 0) return true;  // ready, or an error the next syscall reports
        if (rc == 0) {
            if (deadline != Deadline::max() && Clock::now() >= deadline) return false;
            continue;
        }
        if (errno == EINTR) continue;
        throw Error(ErrorKind::io, "poll on " + peer + " failed: " + errno_text(errno));
    }
}

namespace {

void set_nonblocking(int fd, const std::string& peer) {
    const int flags = ::fcntl(fd, F_GETFL, 0);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        throw Error(ErrorKind::io, "cannot make the socket to " + peer +
                                       " non-blocking: " + errno_text(errno));
    }
}

// Connects a fresh non-blocking socket to addr; returns the fd or throws.
int connect_one(int family, const sockaddr* addr, socklen_t addr_len, Deadline deadline,
                const std::string& peer) {
    const int fd = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        throw Error(ErrorKind::io, "cannot create a socket for " + peer + ": " + errno_text(errno));
    }
    auto fail = [&](ErrorKind kind, const std::string& what) -> int {
        ::close(fd);
        throw Error(kind, what);
    };
    if (::connect(fd, addr, addr_len) == 0) return fd;
    if (errno != EINPROGRESS && errno != EAGAIN && errno != EINTR) {
        return fail(ErrorKind::io, "cannot connect to " + peer + ": " + errno_text(errno));
    }
    if (!detail::wait_fd(fd, POLLOUT, deadline, peer)) {
        return fail(ErrorKind::timeout, "connect to " + peer + " timed out");
    }
    int so_error = 0;
    socklen_t len = sizeof so_error;
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) < 0) so_error = errno;
    if (so_error != 0) {
        return fail(ErrorKind::io, "cannot connect to " + peer + ": " + errno_text(so_error));
    }
    return fd;
}

}  // namespace

Socket::Socket(int fd, std::string peer) noexcept : fd_(fd), peer_(std::move(peer)) {}

Socket::Socket(Socket&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), peer_(std::move(other.peer_)) {}

Socket& Socket::operator=(Socket&& other) noexcept {
    if (this != &other) {
        close();
        fd_ = std::exchange(other.fd_, -1);
        peer_ = std::move(other.peer_);
    }
    return *this;
}

Socket::~Socket() { close(); }

Socket Socket::connect_tcp(std::string_view host, std::uint16_t port, Deadline deadline) {
    const std::string host_text(host);
    const std::string peer = host_text + ":" + std::to_string(port);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    // No AI_ADDRCONFIG: on a host whose only interface is loopback it would
    // hide 127.0.0.1 and ::1, the addresses the private servers use.
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    const int rc = ::getaddrinfo(host_text.c_str(), service.c_str(), &hints, &found);
    if (rc != 0) {
        throw Error(ErrorKind::io, "cannot resolve " + peer + ": " + ::gai_strerror(rc));
    }
    std::string last_error = "no address";
    ErrorKind last_kind = ErrorKind::io;
    int fd = -1;
    for (addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
        try {
            fd = connect_one(ai->ai_family, ai->ai_addr, ai->ai_addrlen, deadline, peer);
        } catch (const Error& e) {
            last_error = e.what();
            last_kind = e.kind();
            if (e.kind() == ErrorKind::timeout) break;  // the budget is spent
        }
    }
    ::freeaddrinfo(found);
    if (fd < 0) throw Error(last_kind, last_error);
    const int one = 1;
    // Small request/response packets must not wait for Nagle's algorithm.
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return Socket(fd, peer);
}

Socket Socket::connect_unix(std::string_view path, Deadline deadline) {
    const std::string peer(path);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof addr.sun_path) {
        throw Error(ErrorKind::usage, "unix socket path '" + peer + "' is empty or longer than " +
                                          std::to_string(sizeof addr.sun_path - 1) + " bytes");
    }
    std::memcpy(addr.sun_path, path.data(), path.size());
    const int fd = connect_one(AF_UNIX, reinterpret_cast<const sockaddr*>(&addr),
                               static_cast<socklen_t>(sizeof addr), deadline, peer);
    return Socket(fd, peer);
}

Socket Socket::adopt(int fd, std::string peer) {
    set_nonblocking(fd, peer);
    return Socket(fd, std::move(peer));
}

std::size_t Socket::read_some(std::span<std::uint8_t> buf, Deadline deadline) {
    if (fd_ < 0) throw Error(ErrorKind::broken, "read from " + peer_ + " after close");
    for (;;) {
        // Optimistic read first: on a streaming result the data is usually
        // already there, and poll() would be a wasted syscall.
        const ssize_t n = ::recv(fd_, buf.data(), buf.size(), 0);
        if (n > 0) return static_cast<std::size_t>(n);
        if (n == 0) throw Error(ErrorKind::closed, "connection to " + peer_ + " closed by the server");
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            if (errno == ECONNRESET) {
                throw Error(ErrorKind::closed, "connection to " + peer_ + " reset by the server");
            }
            throw Error(ErrorKind::io, "read from " + peer_ + " failed: " + errno_text(errno));
        }
        wait_readable(deadline);
    }
}

void Socket::write_all(std::span<const std::uint8_t> data, Deadline deadline) {
    if (fd_ < 0) throw Error(ErrorKind::broken, "write to " + peer_ + " after close");
    while (!data.empty()) {
        // MSG_NOSIGNAL: a closed peer must give EPIPE, not kill the process.
        const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
        if (n >= 0) {
            data = data.subspan(static_cast<std::size_t>(n));
            continue;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            wait_writable(deadline);
            continue;
        }
        if (errno == EPIPE || errno == ECONNRESET) {
            throw Error(ErrorKind::closed, "connection to " + peer_ + " closed by the server");
        }
        throw Error(ErrorKind::io, "write to " + peer_ + " failed: " + errno_text(errno));
    }
}

void Socket::wait_readable(Deadline deadline) const {
    if (!detail::wait_fd(fd_, POLLIN, deadline, peer_)) {
        throw Error(ErrorKind::timeout, "read from " + peer_ + " timed out");
    }
}

void Socket::wait_writable(Deadline deadline) const {
    if (!detail::wait_fd(fd_, POLLOUT, deadline, peer_)) {
        throw Error(ErrorKind::timeout, "write to " + peer_ + " timed out");
    }
}

void Socket::shutdown() noexcept {
    if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

void Socket::close() noexcept {
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

}  // namespace sluice::mariadb
