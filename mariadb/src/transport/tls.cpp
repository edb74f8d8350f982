// TLS client sessions with OpenSSL over a non-blocking Socket.
#include "sluice/mariadb/transport/tls.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "poll_wait.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/transport/socket.hpp"

namespace sluice::mariadb {
namespace {

// OpenSSL's socket BIO writes with write(2), so a peer that has closed
// raises SIGPIPE, which kills the process by default, on any call that may
// write (the handshake, SSL_write, but also SSL_read answering a key update).
// This BIO does the socket I/O itself, with send(MSG_NOSIGNAL) and recv():
// EPIPE comes back as an error like on the plain socket path, at no extra
// syscall per write (blocking the signal around each call would cost four).
struct SocketBioState {
    int fd = -1;
    bool eof = false;  // recv() returned 0: answers BIO_CTRL_EOF
};

int socket_bio_write(BIO* bio, const char* data, std::size_t size, std::size_t* written) {
    const int fd = static_cast<const SocketBioState*>(BIO_get_data(bio))->fd;
    BIO_clear_retry_flags(bio);
    for (;;) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n >= 0) {
            *written = static_cast<std::size_t>(n);
            return 1;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_write(bio);
        return 0;
    }
}

int socket_bio_read(BIO* bio, char* data, std::size_t size, std::size_t* read) {
    auto* state = static_cast<SocketBioState*>(BIO_get_data(bio));
    const int fd = state->fd;
    BIO_clear_retry_flags(bio);
    for (;;) {
        const ssize_t n = ::recv(fd, data, size, 0);
        if (n > 0) {
            *read = static_cast<std::size_t>(n);
            return 1;
        }
        if (n == 0) {
            state->eof = true;
            errno = 0;
            return 0;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_read(bio);
        return 0;
    }
}

long socket_bio_ctrl(BIO* bio, int command, long /*larg*/, void* /*parg*/) {
    // Writes go straight to the socket: nothing to flush. EOF lets OpenSSL
    // apply SSL_OP_IGNORE_UNEXPECTED_EOF. Every other control (kTLS,
    // peeking, ...) is "not supported".
    if (command == BIO_CTRL_FLUSH) return 1;
    if (command == BIO_CTRL_EOF) return static_cast<const SocketBioState*>(BIO_get_data(bio))->eof ? 1 : 0;
    return 0;
}

int socket_bio_create(BIO* bio) {
    BIO_set_init(bio, 1);
    return 1;
}

// The method table, made once per process (OpenSSL 3 API).
const BIO_METHOD* socket_bio_method() {
    static BIO_METHOD* const method = [] {
        BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "sluice socket");
        if (m != nullptr) {
            BIO_meth_set_write_ex(m, socket_bio_write);
            BIO_meth_set_read_ex(m, socket_bio_read);
            BIO_meth_set_ctrl(m, socket_bio_ctrl);
            BIO_meth_set_create(m, socket_bio_create);
        }
        return m;
    }();
    return method;
}

// Drains OpenSSL's error queue into one readable line.
std::string openssl_errors() {
    std::string text;
    while (const unsigned long code = ERR_get_error()) {
        char buf[256];
        ERR_error_string_n(code, buf, sizeof buf);
        if (!text.empty()) text += "; ";
        text += buf;
    }
    return text;
}

bool is_ip_literal(const std::string& host) {
    unsigned char buf[sizeof(in6_addr)];
    return ::inet_pton(AF_INET, host.c_str(), buf) == 1 ||
           ::inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

struct CtxDeleter {
    void operator()(SSL_CTX* ctx) const noexcept { SSL_CTX_free(ctx); }
};
struct SslDeleter {
    void operator()(SSL* ssl) const noexcept { SSL_free(ssl); }
};

}  // namespace

SslMode parse_ssl_mode(std::string_view text) {
    std::string t(text);
    for (char& c : t) {
        if (c == '_') c = '-';
    }
    if (t == "disable" || t == "disabled") return SslMode::disable;
    if (t == "prefer" || t == "preferred") return SslMode::prefer;
    if (t == "require" || t == "required") return SslMode::require;
    if (t == "verify-ca") return SslMode::verify_ca;
    if (t == "verify-full" || t == "verify-identity") return SslMode::verify_full;
    throw Error(ErrorKind::usage, "unknown ssl-mode '" + std::string(text) +
                                      "' (expected disable, prefer, require, verify-ca or verify-full)");
}

std::string_view to_string(SslMode mode) noexcept {
    switch (mode) {
        case SslMode::disable: return "disable";
        case SslMode::prefer: return "prefer";
        case SslMode::require: return "require";
        case SslMode::verify_ca: return "verify-ca";
        case SslMode::verify_full: return "verify-full";
    }
    return "unknown";
}

struct TlsSession::Impl {
    std::unique_ptr<SSL_CTX, CtxDeleter> ctx;
    std::unique_ptr<SSL, SslDeleter> ssl;
    int fd = -1;
    std::string peer;
    SocketBioState bio_state;

    // Waits as OpenSSL asks after a non-blocking call returned `result`;
    // throws for anything that is not WANT_READ / WANT_WRITE.
    void wait_or_throw(int result, Deadline deadline, const char* what) {
        const int err = SSL_get_error(ssl.get(), result);
        switch (err) {
            case SSL_ERROR_WANT_READ:
                if (!detail::wait_fd(fd, POLLIN, deadline, peer)) {
                    throw Error(ErrorKind::timeout, std::string("TLS ") + what + " on " + peer + " timed out");
                }
                return;
            case SSL_ERROR_WANT_WRITE:
                if (!detail::wait_fd(fd, POLLOUT, deadline, peer)) {
                    throw Error(ErrorKind::timeout, std::string("TLS ") + what + " on " + peer + " timed out");
                }
                return;
            case SSL_ERROR_ZERO_RETURN:
                throw Error(ErrorKind::closed, "connection to " + peer + " closed by the server");
            case SSL_ERROR_SYSCALL: {
                const int saved = errno;
                const std::string queued = openssl_errors();
                if (saved == 0 || saved == EPIPE || saved == ECONNRESET) {
                    throw Error(ErrorKind::closed, "connection to " + peer + " closed by the server during TLS " + what +
                                                       (queued.empty() ? "" : ": " + queued));
                }
                throw Error(ErrorKind::io, std::string("TLS ") + what + " on " + peer + " failed: " + std::strerror(saved));
            }
            default: {
                std::string text = openssl_errors();
                // OpenSSL 3 reports a peer that vanished without close_notify
                // as an SSL error with this reason.
                if (text.find("unexpected eof") != std::string::npos) {
                    throw Error(ErrorKind::closed, "connection to " + peer + " closed by the server during TLS " + what);
                }
                throw Error(ErrorKind::tls, std::string("TLS ") + what + " on " + peer + " failed: " +
                                                (text.empty() ? "SSL error " + std::to_string(err) : text));
            }
        }
    }
};

TlsSession::TlsSession(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
TlsSession::TlsSession(TlsSession&&) noexcept = default;
TlsSession& TlsSession::operator=(TlsSession&&) noexcept = default;
TlsSession::~TlsSession() = default;

TlsSession TlsSession::handshake(Socket& socket, const TlsOptions& options, std::string_view host,
                                 Deadline deadline) {
    if (options.mode == SslMode::disable) {
        throw Error(ErrorKind::usage, "TLS requested with ssl-mode=disable");
    }
    const bool verify = options.mode == SslMode::verify_ca || options.mode == SslMode::verify_full;
    if (verify && options.ca_file.empty() && options.ca_path.empty()) {
        throw Error(ErrorKind::usage, std::string("ssl-mode=") + std::string(to_string(options.mode)) +
                                          " needs a CA (ssl-ca or ssl-capath)");
    }
    ERR_clear_error();
    auto impl = std::make_unique<Impl>();
    impl->fd = socket.fd();
    impl->peer = socket.peer();
    const std::string& peer = impl->peer;
    auto tls_error = [&](const std::string& what) {
        const std::string detail = openssl_errors();
        return Error(ErrorKind::tls, what + " for " + peer + (detail.empty() ? "" : ": " + detail));
    };

    impl->ctx.reset(SSL_CTX_new(TLS_client_method()));
    SSL_CTX* ctx = impl->ctx.get();
    if (ctx == nullptr) throw tls_error("cannot create the TLS context");
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    // A server that drops the connection without close_notify is reported
    // as closed, like a plain socket, not as a TLS protocol failure.
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (!options.cipher_list.empty() && SSL_CTX_set_cipher_list(ctx, options.cipher_list.c_str()) != 1) {
        throw tls_error("invalid cipher list '" + options.cipher_list + "'");
    }
    if (!options.ca_file.empty() || !options.ca_path.empty()) {
        const char* file = options.ca_file.empty() ? nullptr : options.ca_file.c_str();
        const char* dir = options.ca_path.empty() ? nullptr : options.ca_path.c_str();
        if (SSL_CTX_load_verify_locations(ctx, file, dir) != 1) {
            throw tls_error("cannot load CA '" + (file ? options.ca_file : options.ca_path) + "'");
        }
    }
    if (!options.cert_file.empty()) {
        if (SSL_CTX_use_certificate_chain_file(ctx, options.cert_file.c_str()) != 1) {
            throw tls_error("cannot load client certificate '" + options.cert_file + "'");
        }
        const std::string& key = options.key_file.empty() ? options.cert_file : options.key_file;
        if (SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM) != 1) {
            throw tls_error("cannot load client key '" + key + "'");
        }
    }
    SSL_CTX_set_verify(ctx, verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nullptr);

    impl->ssl.reset(SSL_new(ctx));
    SSL* ssl = impl->ssl.get();
    if (ssl == nullptr || socket_bio_method() == nullptr) throw tls_error("cannot create the TLS session");
    BIO* bio = BIO_new(socket_bio_method());
    if (bio == nullptr) throw tls_error("cannot create the TLS session");
    impl->bio_state.fd = socket.fd();
    BIO_set_data(bio, &impl->bio_state);  // Impl lives on the heap: the address is stable
    SSL_set_bio(ssl, bio, bio);     // the SSL owns the BIO from here on
    const std::string host_text(host);
    const bool ip = is_ip_literal(host_text);
    if (!host_text.empty() && !ip) {
        // SSL_set_tlsext_host_name, spelled out: the macro uses a C cast.
        SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                 const_cast<char*>(host_text.c_str()));
    }
    if (options.mode == SslMode::verify_full) {
        if (host_text.empty()) throw Error(ErrorKind::usage, "ssl-mode=verify-full needs a host name to verify");
        X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        const int ok = ip ? X509_VERIFY_PARAM_set1_ip_asc(param, host_text.c_str())
                          : X509_VERIFY_PARAM_set1_host(param, host_text.c_str(), host_text.size());
        if (ok != 1) throw tls_error("cannot set the expected host '" + host_text + "'");
    }

    for (;;) {
        ERR_clear_error();
        const int rc = SSL_connect(ssl);
        if (rc == 1) break;
        const long verify_result = SSL_get_verify_result(ssl);
        if (verify && verify_result != X509_V_OK) {
            openssl_errors();  // the verification result says it better
            throw Error(ErrorKind::tls, "TLS certificate verification of " + peer + " failed: " +
                                            X509_verify_cert_error_string(verify_result) +
                                            (options.mode == SslMode::verify_full ? " (expected host '" + host_text + "')"
                                                                                  : std::string()));
        }
        impl->wait_or_throw(rc, deadline, "handshake");
    }
    return TlsSession(std::move(impl));
}

std::size_t TlsSession::read_some(std::span<std::uint8_t> buf, Deadline deadline) {
    for (;;) {
        std::size_t n = 0;
        ERR_clear_error();
        const int rc = SSL_read_ex(impl_->ssl.get(), buf.data(), buf.size(), &n);
        if (rc == 1) return n;
        impl_->wait_or_throw(rc, deadline, "read");
    }
}

void TlsSession::write_all(std::span<const std::uint8_t> data, Deadline deadline) {
    while (!data.empty()) {
        std::size_t n = 0;
        ERR_clear_error();
        const int rc = SSL_write_ex(impl_->ssl.get(), data.data(), data.size(), &n);
        if (rc == 1) {
            data = data.subspan(n);
            continue;
        }
        impl_->wait_or_throw(rc, deadline, "write");
    }
}

void TlsSession::shutdown() noexcept {
    if (impl_ && impl_->ssl) {
        // One non-blocking attempt: close_notify is a courtesy, not a step
        // worth waiting for.
        SSL_shutdown(impl_->ssl.get());
        ERR_clear_error();
    }
}

std::string TlsSession::protocol_version() const { return SSL_get_version(impl_->ssl.get()); }

std::string TlsSession::cipher() const {
    const char* name = SSL_get_cipher_name(impl_->ssl.get());
    return name ? name : "";
}

}  // namespace sluice::mariadb
