#pragma once
// A connected stream socket (TCP or unix domain) with deadlines.
//
// The descriptor is non-blocking; every blocking step waits with poll() until
// its Deadline, so no call can hang. TCP sockets get TCP_NODELAY (the protocol
// is request/response; Nagle would add a round-trip delay to small packets).
// Every error names the peer ("127.0.0.1:3306" or the socket path).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "sluice/mariadb/transport/deadline.hpp"

namespace sluice::mariadb {

class Socket {
public:
    // Resolves host (name or numeric address) and connects to the first
    // address that accepts. Error{io} when refused or unresolvable,
    // Error{timeout} when the deadline passes.
    static Socket connect_tcp(std::string_view host, std::uint16_t port, Deadline deadline);
    static Socket connect_unix(std::string_view path, Deadline deadline);
    // Adopts an already connected descriptor (tests use socketpair()); it is
    // switched to non-blocking mode. `peer` names it in error messages.
    static Socket adopt(int fd, std::string peer);

    Socket() = default;
    Socket(Socket&& other) noexcept;
    Socket& operator=(Socket&& other) noexcept;
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;
    ~Socket();

    // Reads at least one byte into buf (buf must not be empty). Error{closed}
    // on EOF, Error{timeout} on the deadline, Error{io} on a socket error.
    std::size_t read_some(std::span<std::uint8_t> buf, Deadline deadline);
    // Writes every byte or throws (Error{timeout}, Error{io}, Error{closed}).
    void write_all(std::span<const std::uint8_t> data, Deadline deadline);

    // Waits until the descriptor is readable / writable; Error{timeout} when
    // the deadline passes first. Used by the TLS layer on WANT_READ/WANT_WRITE.
    void wait_readable(Deadline deadline) const;
    void wait_writable(Deadline deadline) const;

    int fd() const noexcept { return fd_; }
    bool is_open() const noexcept { return fd_ >= 0; }
    // "host:port" or the unix socket path, for error messages.
    const std::string& peer() const noexcept { return peer_; }
    // True for a TCP socket whose peer address (the one actually connected
    // to, whatever name was resolved) is loopback (loopback.hpp); false for
    // a unix socket, another address, or a closed socket.
    bool peer_is_loopback() const noexcept;
    // Shuts down both directions (the peer sees EOF); the fd stays open.
    void shutdown() noexcept;
    void close() noexcept;

private:
    Socket(int fd, std::string peer) noexcept;
    int fd_ = -1;
    std::string peer_;
};

}  // namespace sluice::mariadb
