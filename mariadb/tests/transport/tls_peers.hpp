#pragma once
// Two loopback helpers for the TLS resumption tests, each for something the
// private MariaDB cannot be made to do mid-test:
//   Relay    a second port for the same server (bytes forwarded as they
//            are), so a session offered through it would be accepted;
//   TlsPeer  a TLS server in the test's own process that can "restart" with
//            a new ticket key and a certificate from another CA.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace sluice::mariadb::test {

// A listening TCP socket on 127.0.0.1, on a port the kernel picks.
inline int listen_loopback(std::uint16_t& port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error("socket() failed");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 16) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
        ::close(fd);
        throw std::runtime_error("cannot listen on 127.0.0.1");
    }
    port = ntohs(addr.sin_port);
    return fd;
}

// Forwards every connection accepted on its own port to 127.0.0.1:target.
class Relay {
public:
    explicit Relay(std::uint16_t target) : target_(target) {
        listener_ = listen_loopback(port_);
        if (::pipe2(stop_.data(), O_CLOEXEC) != 0) throw std::runtime_error("pipe2() failed");
        acceptor_ = std::thread([this] { accept_loop(); });
    }
    ~Relay() {
        const char byte = 0;
        [[maybe_unused]] const auto n = ::write(stop_[1], &byte, 1);  // every poll below wakes up
        acceptor_.join();
        for (auto& t : pumps_) t.join();
        ::close(listener_);
        ::close(stop_[0]);
        ::close(stop_[1]);
    }
    Relay(const Relay&) = delete;
    Relay& operator=(const Relay&) = delete;
    std::uint16_t port() const { return port_; }

private:
    void accept_loop() {
        for (;;) {
            pollfd fds[2] = {{listener_, POLLIN, 0}, {stop_[0], POLLIN, 0}};
            if (::poll(fds, 2, -1) < 0 || fds[1].revents != 0) return;
            const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
            if (client < 0) continue;
            const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_in addr{};
            addr.sin_family = AF_INET;
            addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            addr.sin_port = htons(target_);
            if (server < 0 || ::connect(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
                ::close(client);
                if (server >= 0) ::close(server);
                continue;
            }
            pumps_.emplace_back([this, client, server] { pump(client, server); });
        }
    }
    // Copies both ways until either side closes (or the relay stops).
    void pump(int a, int b) const {
        char buf[16384];
        for (bool open = true; open;) {
            pollfd fds[3] = {{a, POLLIN, 0}, {b, POLLIN, 0}, {stop_[0], POLLIN, 0}};
            if (::poll(fds, 3, -1) < 0 || fds[2].revents != 0) break;
            for (int i = 0; i < 2 && open; ++i) {
                if (fds[i].revents == 0) continue;
                const ssize_t n = ::recv(fds[i].fd, buf, sizeof buf, 0);
                open = n > 0 && ::send(fds[1 - i].fd, buf, static_cast<std::size_t>(n), MSG_NOSIGNAL) == n;
            }
        }
        ::close(a);
        ::close(b);
    }

    std::uint16_t target_;
    std::uint16_t port_ = 0;
    int listener_ = -1;
    std::array<int, 2> stop_{-1, -1};
    std::thread acceptor_;
    std::vector<std::thread> pumps_;  // only the acceptor adds, before the destructor joins it
};

struct ServerCtxDeleter {
    void operator()(SSL_CTX* ctx) const noexcept { SSL_CTX_free(ctx); }
};
using ServerCtx = std::unique_ptr<SSL_CTX, ServerCtxDeleter>;

// A TLS server context with this certificate and key. Each one has ticket
// keys of its own (OpenSSL draws them at SSL_CTX_new), so switching to a new
// one is what a server restart does to the tickets it issued before.
inline ServerCtx server_context(const std::string& cert_file, const std::string& key_file) {
    ServerCtx ctx(SSL_CTX_new(TLS_server_method()));
    if (!ctx || SSL_CTX_use_certificate_chain_file(ctx.get(), cert_file.c_str()) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx.get(), key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
        throw std::runtime_error("cannot load " + cert_file + " / " + key_file);
    }
    return ctx;
}

// Serves one connection at a time on its own port: the handshake, then
// `greeting` (the client reads it, and the session tickets sent before it),
// then waits for the client to close.
class TlsPeer {
public:
    static constexpr char greeting[] = "hello";

    TlsPeer() { listener_ = listen_loopback(port_); }
    ~TlsPeer() { ::close(listener_); }
    TlsPeer(const TlsPeer&) = delete;
    TlsPeer& operator=(const TlsPeer&) = delete;
    std::uint16_t port() const { return port_; }

    // Accepts the next connection in a thread and serves it with `ctx`; the
    // caller joins the thread after its client is done.
    std::thread serve_one(SSL_CTX* ctx) {
        return std::thread([this, ctx] {
            pollfd fd{listener_, POLLIN, 0};
            if (::poll(&fd, 1, 20000) != 1) return;  // no client came: the test fails on its side
            const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
            if (client < 0) return;
            timeval limit{20, 0};  // a stuck client cannot hang the test
            ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
            ::setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
            SSL* ssl = SSL_new(ctx);
            SSL_set_fd(ssl, client);
            if (SSL_accept(ssl) == 1) {
                SSL_write(ssl, greeting, sizeof greeting - 1);
                char buf[64];
                while (SSL_read(ssl, buf, sizeof buf) > 0) {
                }
                accepted_resumed_ = SSL_session_reused(ssl) == 1;
            }
            SSL_free(ssl);
            ::close(client);
        });
    }
    // Whether the last completed connection was a resumed one, as the
    // server saw it.
    bool last_resumed() const { return accepted_resumed_; }

private:
    std::uint16_t port_ = 0;
    int listener_ = -1;
    bool accepted_resumed_ = false;  // written by the serving thread, read after join
};

}  // namespace sluice::mariadb::test
