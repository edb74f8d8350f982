// TLS client sessions with OpenSSL over a non-blocking Socket.
#include "sluice/mariadb/transport/tls.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "poll_wait.hpp"
#include "tls_session_cache.hpp"
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
using CtxPtr = std::unique_ptr<SSL_CTX, CtxDeleter>;
using detail::SslSessionPtr;
using detail::TlsSessionCache;

// ---- Session resumption ----
//
// A full handshake costs the server a signature and the client a chain
// verification; a resumed one (a session kept from an earlier connection)
// skips the certificate exchange. Sessions are kept per context (the cache
// below holds one TlsSessionCache per cached context) and, inside it, per
// resumption key: peer address, expected host, mode (tls_session_cache.hpp).
//
// TLS 1.3 tickets come after the handshake (NewSessionTicket, read by a
// later SSL_read), so they are collected by the context's new-session
// callback, which finds the connection's cache and key through the SSL's
// app data. OpenSSL's own client cache is off (NO_INTERNAL_STORE): it would
// key sessions by nothing but the context.

// What the new-session callback needs: where to keep the session. Lives in
// the connection's Impl, which outlives its SSL's callbacks.
struct ResumptionTarget {
    std::shared_ptr<TlsSessionCache> cache;  // null: reuse is off for this connection
    std::string key;
};

struct SessionCounters {
    std::atomic<std::uint64_t> stored{0}, offered{0}, resumed{0};
};
SessionCounters& session_counters() {
    static SessionCounters counters;
    return counters;
}

// Peer address, expected host, mode: a session made under one key is never
// offered under another.
std::string resumption_key(const std::string& peer, const std::string& host, SslMode mode) {
    std::string key = peer;
    key += '\n';
    key += host;
    key += '\n';
    key += to_string(mode);
    return key;
}

// SSL_CTX_sess_set_new_cb. Keeps a private copy and returns 0 (OpenSSL
// keeps its reference): the session handed over is also the connection's
// current one, which OpenSSL goes on writing to. It marks it not resumable
// when the connection ends without close_notify (a TLS 1.0 rule that TLS 1.1
// dropped: a broken connection would cost the next one its resumption), and
// that write could race with another thread resuming the same object.
int keep_new_session(SSL* ssl, SSL_SESSION* session) {
    const auto* target = static_cast<const ResumptionTarget*>(SSL_get_ex_data(ssl, 0));  // SSL_get_app_data
    if (target == nullptr || !target->cache || SSL_SESSION_is_resumable(session) != 1) return 0;
    // Under verify-ca / verify-full a failed verification ends the
    // handshake before any session exists; this also keeps a session whose
    // verification did not pass from ever serving a verifying connection.
    if (SSL_get_verify_mode(ssl) != SSL_VERIFY_NONE && SSL_get_verify_result(ssl) != X509_V_OK) return 0;
    SslSessionPtr copy(SSL_SESSION_dup(session));
    if (!copy) return 0;  // out of memory: this session is just not kept
    target->cache->put(target->key, std::move(copy));
    ++session_counters().stored;
    return 0;
}

// ---- Client contexts, one per TLS configuration ----
//
// Building an SSL_CTX costs more than the rest of a loopback TLS handshake's
// client work put together: OpenSSL 3 fetches its algorithms for every new
// context, and the CA bundle is parsed again. So a context is built once per
// configuration (CA, client certificate and key, ciphers) and shared by every
// connection that uses it; OpenSSL allows one configured SSL_CTX to back
// SSL objects in many threads. What differs per connection stays on the SSL:
// whether the peer is verified (the mode) and the expected host name.
//
// A file that changes on disk (a rotated CA or certificate) gives a new key,
// so the next connection reads it again: the key holds each file's identity
// and modification time, taken with one stat() per file per connection.

struct FileStamp {
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    std::int64_t mtime_ns = 0;
    bool operator==(const FileStamp&) const = default;
};

// Stamp of `path`, or a zero stamp when it cannot be stat'ed (the build then
// fails on it and reports OpenSSL's reason; nothing is cached).
FileStamp stamp_of(const std::string& path) {
    FileStamp st;
    struct stat info {};
    if (path.empty() || ::stat(path.c_str(), &info) != 0) return st;
    st.device = info.st_dev;
    st.inode = info.st_ino;
    st.size = info.st_size;
    st.mtime_ns = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
    return st;
}

// The files' stamps, taken per connection: comparing them with a cached
// context's needs no allocation.
struct FileStamps {
    FileStamp ca_file, ca_path, cert, key;
    bool operator==(const FileStamps&) const = default;
};

const std::string& key_file_of(const TlsOptions& o) { return o.key_file.empty() ? o.cert_file : o.key_file; }

// The system store stands in for a CA only when none is given.
bool uses_system_trust(const TlsOptions& o) { return o.system_trust && o.ca_file.empty() && o.ca_path.empty(); }

// Where SSL_CTX_set_default_verify_paths will look: $SSL_CERT_FILE /
// $SSL_CERT_DIR, else OpenSSL's compiled-in paths. Stamped like a given CA,
// so an updated system store (or a changed variable) is read again.
std::string system_trust_file() {
    const char* from_env = std::getenv(X509_get_default_cert_file_env());
    return from_env != nullptr ? from_env : X509_get_default_cert_file();
}
std::string system_trust_dir() {
    const char* from_env = std::getenv(X509_get_default_cert_dir_env());
    return from_env != nullptr ? from_env : X509_get_default_cert_dir();
}

FileStamps stamps_of(const TlsOptions& o) {
    const bool system = uses_system_trust(o);
    return {stamp_of(system ? system_trust_file() : o.ca_file), stamp_of(system ? system_trust_dir() : o.ca_path),
            stamp_of(o.cert_file), stamp_of(key_file_of(o))};
}

struct ContextKey {
    std::string ca_file, ca_path, cert_file, key_file, cipher_list;
    bool system_trust = false;
    FileStamps stamps;

    bool same_names(const TlsOptions& o) const {
        return ca_file == o.ca_file && ca_path == o.ca_path && cert_file == o.cert_file &&
               key_file == key_file_of(o) && cipher_list == o.cipher_list && system_trust == uses_system_trust(o);
    }
};

// Builds the context for `key`; Error{tls} naming the file and `peer`.
CtxPtr build_context(const ContextKey& key, const std::string& peer) {
    auto tls_error = [&](const std::string& what) {
        const std::string detail = openssl_errors();
        return Error(ErrorKind::tls, what + " for " + peer + (detail.empty() ? "" : ": " + detail));
    };
    CtxPtr owned(SSL_CTX_new(TLS_client_method()));
    SSL_CTX* ctx = owned.get();
    if (ctx == nullptr) throw tls_error("cannot create the TLS context");
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    // A server that drops the connection without close_notify is reported
    // as closed, like a plain socket, not as a TLS protocol failure.
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    // Read whatever the socket holds in one recv() instead of a record's
    // 5-byte header and then its body: a reply of several records (a
    // pipeline's, a result set's) costs one system call, not two per record.
    // Nothing else reads the socket once TLS is on, so nothing can be taken
    // from under another reader; and OpenSSL asks for more (WANT_READ, so
    // we poll) only when its buffer holds no complete record.
    SSL_CTX_set_read_ahead(ctx, 1);
    // Client sessions go to keep_new_session only (see above).
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx, keep_new_session);
    if (!key.cipher_list.empty() && SSL_CTX_set_cipher_list(ctx, key.cipher_list.c_str()) != 1) {
        throw tls_error("invalid cipher list '" + key.cipher_list + "'");
    }
    if (!key.ca_file.empty() || !key.ca_path.empty()) {
        const char* file = key.ca_file.empty() ? nullptr : key.ca_file.c_str();
        const char* dir = key.ca_path.empty() ? nullptr : key.ca_path.c_str();
        if (SSL_CTX_load_verify_locations(ctx, file, dir) != 1) {
            throw tls_error("cannot load CA '" + (file ? key.ca_file : key.ca_path) + "'");
        }
    } else if (key.system_trust && SSL_CTX_set_default_verify_paths(ctx) != 1) {
        throw tls_error("cannot load the system trust store ('" + system_trust_file() + "', '" +
                        system_trust_dir() + "')");
    }
    if (!key.cert_file.empty()) {
        if (SSL_CTX_use_certificate_chain_file(ctx, key.cert_file.c_str()) != 1) {
            throw tls_error("cannot load client certificate '" + key.cert_file + "'");
        }
        if (SSL_CTX_use_PrivateKey_file(ctx, key.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
            throw tls_error("cannot load client key '" + key.key_file + "'");
        }
    }
    return owned;
}

// A cached context and the sessions kept for it.
struct ContextRef {
    CtxPtr ctx;
    std::shared_ptr<TlsSessionCache> sessions;
};

class ContextCache {
public:
    // A new reference to the context for `options` (built now if there is
    // none yet); the caller's SSL_new takes its own, so the caller frees it.
    ContextRef get(const TlsOptions& options, const std::string& peer) {
        const FileStamps stamps = stamps_of(options);
        // Held while building: concurrent first connections of one
        // configuration build it once, and a build is a fraction of a
        // millisecond.
        std::lock_guard lock(mutex_);
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            if (entries_[i].key.stamps == stamps && entries_[i].key.same_names(options)) {
                ++stats_.reuses;
                std::rotate(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(i),
                            entries_.begin() + static_cast<std::ptrdiff_t>(i) + 1);  // most recent first
                return reference(entries_.front());
            }
        }
        ContextKey key{options.ca_file,          options.ca_path,     options.cert_file,
                       key_file_of(options),     options.cipher_list, uses_system_trust(options),
                       stamps};
        CtxPtr built = build_context(key, peer);
        ++stats_.builds;
        // A configuration whose files changed replaces its old context; the
        // connections still using the old one keep it alive (SSL_new took a
        // reference).
        std::erase_if(entries_, [&](const Entry& e) { return e.key.same_names(options); });
        if (entries_.size() >= max_entries) entries_.pop_back();  // least recently used
        // Its sessions start empty: ones verified with the old CA must not
        // outlive it.
        entries_.insert(entries_.begin(),
                        Entry{std::move(key), std::move(built), std::make_shared<TlsSessionCache>()});
        return reference(entries_.front());
    }

    TlsContextStats stats() {
        std::lock_guard lock(mutex_);
        TlsContextStats s = stats_;
        s.cached = entries_.size();
        const SessionCounters& counters = session_counters();
        s.sessions_stored = counters.stored.load();
        s.sessions_offered = counters.offered.load();
        s.sessions_resumed = counters.resumed.load();
        for (const Entry& e : entries_) s.sessions_cached += e.sessions->size();
        return s;
    }

private:
    struct Entry {
        ContextKey key;
        CtxPtr ctx;
        std::shared_ptr<TlsSessionCache> sessions;
    };
    static ContextRef reference(const Entry& entry) {
        SSL_CTX_up_ref(entry.ctx.get());
        return ContextRef{CtxPtr(entry.ctx.get()), entry.sessions};
    }
    // A process talks TLS with a handful of configurations at most; the
    // bound only keeps a program that cycles through many from growing.
    static constexpr std::size_t max_entries = 16;
    std::mutex mutex_;
    std::vector<Entry> entries_;
    TlsContextStats stats_;
};

ContextCache& context_cache() {
    static ContextCache cache;
    return cache;
}

// Error{tls} unless the resumed session's certificate passed verification
// and, under verify_full, names `host`.
// The names a certificate is valid for, as "DNS:a, IP:b" (its subject
// alternative names; its common name when it has none).
std::string certificate_names(X509* cert) {
    std::string names;
    auto add = [&](const std::string& n) { names += (names.empty() ? "" : ", ") + n; };
    auto* sans = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
    for (int i = 0; sans != nullptr && i < sk_GENERAL_NAME_num(sans); ++i) {
        const GENERAL_NAME* g = sk_GENERAL_NAME_value(sans, i);
        if (g->type == GEN_DNS) {
            const ASN1_IA5STRING* dns = g->d.dNSName;
            add("DNS:" + std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(dns)),
                                     static_cast<std::size_t>(ASN1_STRING_length(dns))));
        } else if (g->type == GEN_IPADD) {
            const ASN1_OCTET_STRING* ip = g->d.iPAddress;
            char text[INET6_ADDRSTRLEN] = {};
            const int len = ASN1_STRING_length(ip);
            const int family = len == 4 ? AF_INET : len == 16 ? AF_INET6 : 0;
            if (family != 0 && inet_ntop(family, ASN1_STRING_get0_data(ip), text, sizeof text) != nullptr)
                add(std::string("IP:") + text);
        }
    }
    GENERAL_NAMES_free(sans);
    if (names.empty()) {
        char cn[256] = {};
        if (X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof cn) > 0)
            add(std::string("CN:") + cn);
    }
    return names;
}

// After a host name mismatch: the CA was right (the chain verified up to
// the name check), so the advice is about the name: the names the
// certificate holds, and the mode that checks only the CA.
std::string name_mismatch_advice(SSL* ssl, const std::string& host) {
    // The peer certificate is not kept after a failed verification, its
    // chain (leaf first, on the client) is.
    STACK_OF(X509)* chain = SSL_get_peer_cert_chain(ssl);
    X509* leaf = chain != nullptr && sk_X509_num(chain) > 0 ? sk_X509_value(chain, 0) : nullptr;
    const std::string names = leaf != nullptr ? certificate_names(leaf) : std::string();
    std::string advice = "; the certificate is signed by a trusted CA but ";
    advice += names.empty() ? "names no host" : "names " + names + ", not '" + host + "'";
    advice += ": connect by one of its names, or choose ssl-mode=verify-ca knowingly (the CA is checked, the "
              "host name is not)";
    return advice;
}

void check_resumed_peer(SSL* ssl, SslMode mode, const std::string& host, bool ip, const std::string& peer,
                        const std::string& advice) {
    const X509* cert = SSL_get0_peer_certificate(ssl);
    const long result = SSL_get_verify_result(ssl);
    std::string problem;
    if (cert == nullptr) {
        problem = "carries no server certificate";
    } else if (result != X509_V_OK) {
        problem = std::string("carries a certificate that failed verification: ") + X509_verify_cert_error_string(result);
    } else if (mode == SslMode::verify_full) {
        auto* x509 = const_cast<X509*>(cert);  // the checks do not modify it
        const int match = ip ? X509_check_ip_asc(x509, host.c_str(), 0)
                             : X509_check_host(x509, host.c_str(), host.size(), X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS,
                                               nullptr);
        if (match != 1) problem = "carries a certificate that does not name the expected host '" + host + "'";
    }
    if (!problem.empty()) {
        ERR_clear_error();
        throw Error(ErrorKind::tls, "TLS session resumed with " + peer + " " + problem + advice);
    }
}

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
    // Before `ssl`: the SSL's callbacks point at it, so it must outlive it.
    ResumptionTarget resumption;
    std::unique_ptr<SSL, SslDeleter> ssl;
    bool resumed = false;
    int fd = -1;
    std::string peer;
    SocketBioState bio_state;

    // The handshake's settings, kept for continue_handshake().
    TlsOptions options;
    std::string host_text;
    bool ip = false;
    bool verify = false;
    SslSessionPtr offered;

    // Waits as OpenSSL asks after a non-blocking call returned `result`;
    // throws for anything that is not WANT_READ / WANT_WRITE.
    void wait_or_throw(int result, Deadline deadline, const char* what) {
        const TlsWant want = want_or_throw(result, what);
        if (!detail::wait_fd(fd, want == TlsWant::read ? POLLIN : POLLOUT, deadline, peer)) {
            throw Error(ErrorKind::timeout, std::string("TLS ") + what + " on " + peer + " timed out");
        }
    }

    // What OpenSSL waits for after a non-blocking call returned `result`;
    // throws for anything that is not WANT_READ / WANT_WRITE.
    TlsWant want_or_throw(int result, const char* what) {
        const int err = SSL_get_error(ssl.get(), result);
        switch (err) {
            case SSL_ERROR_WANT_READ: return TlsWant::read;
            case SSL_ERROR_WANT_WRITE: return TlsWant::write;
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
    TlsSession session = start(socket, options, host);
    for (;;) {
        const TlsWant want = session.continue_handshake();
        if (want == TlsWant::none) return session;
        if (!detail::wait_fd(session.impl_->fd, want == TlsWant::read ? POLLIN : POLLOUT, deadline,
                             session.impl_->peer)) {
            throw Error(ErrorKind::timeout, "TLS handshake on " + session.impl_->peer + " timed out");
        }
    }
}

TlsSession TlsSession::start(const Socket& socket, const TlsOptions& options, std::string_view host) {
    if (options.mode == SslMode::disable) {
        throw Error(ErrorKind::usage, "TLS requested with ssl-mode=disable");
    }
    const bool verify = options.mode == SslMode::verify_ca || options.mode == SslMode::verify_full;
    if (verify && options.ca_file.empty() && options.ca_path.empty() && !options.system_trust) {
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

    // Shared with every connection of the same configuration; the SSL takes
    // its own reference, so this one ends with the handshake.
    ContextRef context = context_cache().get(options, peer);

    impl->ssl.reset(SSL_new(context.ctx.get()));
    SSL* ssl = impl->ssl.get();
    if (ssl == nullptr || socket_bio_method() == nullptr) throw tls_error("cannot create the TLS session");
    // Verification is per connection (the context is shared across modes).
    SSL_set_verify(ssl, verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nullptr);
    BIO* bio = BIO_new(socket_bio_method());
    if (bio == nullptr) throw tls_error("cannot create the TLS session");
    impl->bio_state.fd = socket.fd();
    BIO_set_data(bio, &impl->bio_state);  // Impl lives on the heap: the address is stable
    SSL_set_bio(ssl, bio, bio);     // the SSL owns the BIO from here on
    impl->options = options;
    impl->host_text = std::string(host);
    impl->ip = is_ip_literal(impl->host_text);
    impl->verify = verify;
    const std::string& host_text = impl->host_text;
    const bool ip = impl->ip;
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
    // A kept session for this context, peer, host and mode, if any. OpenSSL
    // falls back to a full handshake (verifying as above) when the server
    // does not accept it, e.g. after a restart with a new ticket key.
    SslSessionPtr& offered = impl->offered;
    if (options.session_reuse) {
        impl->resumption = ResumptionTarget{std::move(context.sessions), resumption_key(peer, host_text, options.mode)};
        SSL_set_ex_data(ssl, 0, &impl->resumption);  // SSL_set_app_data; read by keep_new_session
        offered = impl->resumption.cache->take(impl->resumption.key);
        if (offered && SSL_set_session(ssl, offered.get()) == 1) {
            ++session_counters().offered;
        } else {
            offered.reset();
        }
    }

    return TlsSession(std::move(impl));
}

TlsWant TlsSession::continue_handshake() {
    Impl& im = *impl_;
    SSL* ssl = im.ssl.get();
    const TlsOptions& options = im.options;
    const std::string& peer = im.peer;
    const std::string& host_text = im.host_text;
    const bool verify = im.verify;
    ERR_clear_error();
    const int rc = SSL_connect(ssl);
    if (rc != 1) {
        const long verify_result = SSL_get_verify_result(ssl);
        if (verify && verify_result != X509_V_OK) {
            openssl_errors();  // the verification result says it better
            if (verify_result == X509_V_ERR_HOSTNAME_MISMATCH || verify_result == X509_V_ERR_IP_ADDRESS_MISMATCH)
                throw Error(ErrorKind::tls, "TLS certificate verification of " + peer + " failed: " +
                                                X509_verify_cert_error_string(verify_result) + " (expected host '" +
                                                host_text + "')" + options.default_mode_note +
                                                name_mismatch_advice(ssl, host_text));
            throw Error(ErrorKind::tls, "TLS certificate verification of " + peer + " failed: " +
                                            X509_verify_cert_error_string(verify_result) +
                                            (options.mode == SslMode::verify_full ? " (expected host '" + host_text + "')"
                                                                                  : std::string()) +
                                            (uses_system_trust(options) ? " against the system trust store" : "") +
                                            options.verify_advice);
        }
        return im.want_or_throw(rc, "handshake");
    }
    im.resumed = SSL_session_reused(ssl) == 1;
    if (im.resumed) {
        // A resumed session carries the original handshake's peer
        // certificate and verification result, which OpenSSL reports as
        // this connection's; it does not check the host name again. The
        // resumption key already ties the session to this host, mode and
        // context (CA); checking the kept certificate anyway makes a resumed
        // verify-full connection exactly as strict as a full one.
        if (verify) check_resumed_peer(ssl, options.mode, host_text, im.ip, peer, options.verify_advice);
        ++session_counters().resumed;
    } else if (im.offered) {
        im.resumption.cache->forget(im.resumption.key, im.offered.get());  // refused: do not offer again
    }
    im.offered.reset();
    return TlsWant::none;
}

std::size_t TlsSession::try_read(std::span<std::uint8_t> buf, TlsWant& want) {
    std::size_t n = 0;
    ERR_clear_error();
    const int rc = SSL_read_ex(impl_->ssl.get(), buf.data(), buf.size(), &n);
    if (rc == 1) {
        want = TlsWant::none;
        return n;
    }
    want = impl_->want_or_throw(rc, "read");
    return 0;
}

std::size_t TlsSession::try_write(std::span<const std::uint8_t> data, TlsWant& want) {
    std::size_t n = 0;
    ERR_clear_error();
    const int rc = SSL_write_ex(impl_->ssl.get(), data.data(), data.size(), &n);
    if (rc == 1) {
        want = TlsWant::none;
        return n;
    }
    want = impl_->want_or_throw(rc, "write");
    return 0;
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

TlsContextStats tls_context_stats() { return context_cache().stats(); }

bool TlsSession::session_reused() const noexcept { return impl_ && impl_->resumed; }

std::string TlsSession::protocol_version() const { return SSL_get_version(impl_->ssl.get()); }

std::string TlsSession::cipher() const {
    const char* name = SSL_get_cipher_name(impl_->ssl.get());
    return name ? name : "";
}

}  // namespace sluice::mariadb
