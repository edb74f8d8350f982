#pragma once
// The private MariaDB (on 127.0.0.1 in the root namespace) made to appear
// at an address of the test network's server host (test_network.hpp), as a
// server with a certificate of the test's choosing, or as one without TLS:
//
//   tls      the front answers the client's TLS with its own certificate
//            and opens TLS of its own to MariaDB; the bytes in between are
//            forwarded as they are (so the client logs in to the real
//            server, and a client that refuses the certificate sends it
//            nothing);
//   no_tls   the front clears CLIENT_SSL in the server's greeting and
//            forwards bytes untouched: a server that does not offer TLS.
//
// logins() counts connections whose client sent anything after the TLS
// handshake (tls) or after the greeting (no_tls): a refused connection must
// leave it at zero, which proves the login never left the client.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "test_certificates.hpp"
#include "test_network.hpp"

namespace sluice::mariadb::test {

class ServerFront {
public:
    enum class Mode { tls, no_tls };

    // Listens on `address`:<a port the kernel picks>, inside the server
    // namespace when `network` is given, else in this thread's (the root)
    // namespace; forwards to 127.0.0.1:`server_port`. `certificate` is used
    // in tls mode.
    ServerFront(const TestNetwork* network, const char* address, std::uint16_t server_port, Mode mode,
                CertificateFiles certificate = {})
        : server_port_(server_port), mode_(mode) {
        if (mode_ == Mode::tls) {
            server_side_.reset(SSL_CTX_new(TLS_server_method()));
            if (!server_side_ ||
                SSL_CTX_use_certificate_chain_file(server_side_.get(), certificate.cert.c_str()) != 1 ||
                SSL_CTX_use_PrivateKey_file(server_side_.get(), certificate.key.c_str(), SSL_FILETYPE_PEM) != 1) {
                throw std::runtime_error("front: cannot load " + certificate.cert);
            }
            client_side_.reset(SSL_CTX_new(TLS_client_method()));  // to our own server: no verification needed
            if (!client_side_) throw std::runtime_error("front: SSL_CTX_new failed");
        }
        if (network != nullptr) network->on_server([&] { listener_ = listen_on(address, port_); });
        else listener_ = listen_on(address, port_);
        if (::pipe2(stop_.data(), O_CLOEXEC) != 0) throw std::runtime_error("pipe2() failed");
        acceptor_ = std::thread([this] { accept_loop(); });  // this (root) namespace: connects to 127.0.0.1
    }
    ~ServerFront() {
        const char byte = 0;
        [[maybe_unused]] const auto n = ::write(stop_[1], &byte, 1);  // wakes every poll below
        acceptor_.join();
        for (auto& t : connections_) t.join();
        ::close(listener_);
        ::close(stop_[0]);
        ::close(stop_[1]);
    }
    ServerFront(const ServerFront&) = delete;
    ServerFront& operator=(const ServerFront&) = delete;

    std::uint16_t port() const { return port_; }
    int logins() const { return logins_.load(); }

private:
    struct CtxDeleter {
        void operator()(SSL_CTX* c) const noexcept { SSL_CTX_free(c); }
    };
    struct SslDeleter {
        void operator()(SSL* s) const noexcept { SSL_free(s); }
    };
    using SslPtr = std::unique_ptr<SSL, SslDeleter>;
    static constexpr std::uint32_t client_ssl = 0x0800;
    static constexpr int wait_ms = 20000;  // a stuck peer cannot hang the test

    // IPv4 or IPv6 `address`, by its form.
    static int listen_on(const char* address, std::uint16_t& port) {
        sockaddr_storage storage{};
        socklen_t length = 0;
        auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
        auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
        if (::inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
            v4->sin_family = AF_INET;
            length = sizeof *v4;
        } else if (::inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
            v6->sin6_family = AF_INET6;
            length = sizeof *v6;
        } else {
            throw std::runtime_error(std::string("front: not an address: ") + address);
        }
        auto* addr = reinterpret_cast<sockaddr*>(&storage);
        const int fd = ::socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || ::bind(fd, addr, length) != 0 || ::listen(fd, 16) != 0 ||
            ::getsockname(fd, addr, &length) != 0) {
            const std::string reason = std::strerror(errno);
            if (fd >= 0) ::close(fd);
            throw std::runtime_error(std::string("front: cannot listen on ") + address + ": " + reason);
        }
        port = ntohs(storage.ss_family == AF_INET ? v4->sin_port : v6->sin6_port);
        return fd;
    }

    void accept_loop() {
        for (;;) {
            pollfd fds[2] = {{listener_, POLLIN, 0}, {stop_[0], POLLIN, 0}};
            if (::poll(fds, 2, -1) < 0 || fds[1].revents != 0) return;
            const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
            if (client < 0) continue;
            connections_.emplace_back([this, client] { serve(client); });
        }
    }

    static void limit(int fd) {
        timeval t{wait_ms / 1000, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof t);
        ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &t, sizeof t);
    }
    static bool read_exactly(int fd, std::uint8_t* p, std::size_t n) {
        while (n > 0) {
            const ssize_t got = ::recv(fd, p, n, 0);
            if (got <= 0) return false;
            p += got;
            n -= static_cast<std::size_t>(got);
        }
        return true;
    }
    static bool write_all(int fd, const std::uint8_t* p, std::size_t n) {
        while (n > 0) {
            const ssize_t put = ::send(fd, p, n, MSG_NOSIGNAL);
            if (put <= 0) return false;
            p += put;
            n -= static_cast<std::size_t>(put);
        }
        return true;
    }
    // One protocol packet, header included.
    static bool read_packet(int fd, std::vector<std::uint8_t>& packet) {
        packet.assign(4, 0);
        if (!read_exactly(fd, packet.data(), 4)) return false;
        const std::size_t length = std::size_t{packet[0]} | std::size_t{packet[1]} << 8 | std::size_t{packet[2]} << 16;
        packet.resize(4 + length);
        return read_exactly(fd, packet.data() + 4, length);
    }
    // Capabilities' low 16 bits follow: version, NUL-terminated server
    // version, connection id (4), scramble part 1 (8), filler (1).
    static std::size_t greeting_caps_offset(const std::vector<std::uint8_t>& g) {
        std::size_t i = 5;  // header + protocol version
        while (i < g.size() && g[i] != 0) ++i;
        return i + 1 + 4 + 8 + 1;
    }
    static bool is_ssl_request(const std::vector<std::uint8_t>& p) {
        return p.size() == 4 + 32 && ((std::uint32_t{p[4]} | std::uint32_t{p[5]} << 8) & client_ssl) != 0;
    }

    void serve(int client) {
        limit(client);
        const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = htons(server_port_);
        std::vector<std::uint8_t> packet;
        if (server >= 0 && ::connect(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
            limit(server);
            if (read_packet(server, packet)) {
                if (mode_ == Mode::no_tls) {
                    const std::size_t at = greeting_caps_offset(packet) + 1;  // high byte of the low 16 bits
                    if (at < packet.size()) packet[at] = static_cast<std::uint8_t>(packet[at] & ~(client_ssl >> 8));
                }
                if (write_all(client, packet.data(), packet.size()) && read_packet(client, packet) &&
                    write_all(server, packet.data(), packet.size())) {
                    if (mode_ == Mode::tls && is_ssl_request(packet)) {
                        pump_tls(client, server);
                    } else {
                        ++logins_;
                        pump_plain(client, server);
                    }
                }
            }
        }
        ::close(client);
        if (server >= 0) ::close(server);
    }

    void pump_plain(int a, int b) const {
        std::uint8_t buf[16384];
        for (bool open = true; open;) {
            pollfd fds[3] = {{a, POLLIN, 0}, {b, POLLIN, 0}, {stop_[0], POLLIN, 0}};
            if (::poll(fds, 3, wait_ms) <= 0 || fds[2].revents != 0) break;
            for (int i = 0; i < 2 && open; ++i) {
                if (fds[i].revents == 0) continue;
                const ssize_t n = ::recv(fds[i].fd, buf, sizeof buf, 0);
                open = n > 0 && write_all(fds[1 - i].fd, buf, static_cast<std::size_t>(n));
            }
        }
    }

    // TLS to MariaDB first (it has read the SSLRequest and waits for a
    // ClientHello), then the client's handshake with the front's
    // certificate; the client's ClientHello waits in the socket meanwhile.
    void pump_tls(int client, int server) {
        SslPtr to_server(SSL_new(client_side_.get()));
        SslPtr to_client(SSL_new(server_side_.get()));
        if (!to_server || !to_client) return;
        SSL_set_fd(to_server.get(), server);
        SSL_set_fd(to_client.get(), client);
        if (SSL_connect(to_server.get()) != 1 || SSL_accept(to_client.get()) != 1) return;  // e.g. refused by the client
        ::fcntl(client, F_SETFL, ::fcntl(client, F_GETFL) | O_NONBLOCK);
        ::fcntl(server, F_SETFL, ::fcntl(server, F_GETFL) | O_NONBLOCK);
        SSL* ends[2] = {to_client.get(), to_server.get()};
        const int fds_of[2] = {client, server};
        bool counted = false;
        std::uint8_t buf[16384];
        for (;;) {
            bool moved = false;
            for (int i = 0; i < 2; ++i) {
                std::size_t n = 0;
                const int rc = SSL_read_ex(ends[i], buf, sizeof buf, &n);
                if (rc == 1) {
                    if (i == 0 && !counted) {
                        counted = true;
                        ++logins_;
                    }
                    if (!ssl_write_all(ends[1 - i], fds_of[1 - i], buf, n)) return;
                    moved = true;
                } else {
                    const int err = SSL_get_error(ends[i], rc);
                    if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) return;  // closed or failed
                }
            }
            if (moved) continue;
            pollfd fds[3] = {{client, POLLIN, 0}, {server, POLLIN, 0}, {stop_[0], POLLIN, 0}};
            if (::poll(fds, 3, wait_ms) <= 0 || fds[2].revents != 0) return;
        }
    }
    static bool ssl_write_all(SSL* ssl, int fd, const std::uint8_t* p, std::size_t n) {
        while (n > 0) {
            std::size_t put = 0;
            const int rc = SSL_write_ex(ssl, p, n, &put);
            if (rc == 1) {
                p += put;
                n -= put;
                continue;
            }
            const int err = SSL_get_error(ssl, rc);
            pollfd f{fd, static_cast<short>(err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT), 0};
            if ((err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) || ::poll(&f, 1, wait_ms) != 1) {
                return false;
            }
        }
        return true;
    }

    std::uint16_t server_port_;
    Mode mode_;
    std::unique_ptr<SSL_CTX, CtxDeleter> server_side_, client_side_;
    std::uint16_t port_ = 0;
    int listener_ = -1;
    std::array<int, 2> stop_{-1, -1};
    std::atomic<int> logins_{0};
    std::thread acceptor_;
    std::vector<std::thread> connections_;  // only the acceptor adds, before the destructor joins it
};

}  // namespace sluice::mariadb::test
