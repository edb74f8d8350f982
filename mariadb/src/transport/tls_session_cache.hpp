#pragma once
// The resumable TLS sessions of one client context (SSL_CTX), kept per
// "resumption key": the peer's address, the expected host name and the
// ssl-mode. A session is offered only to a connection with the same key, so
// one made without verification (require) never serves a verified one, and
// one server's never serves another; and only through the context that made
// it (same CA, client certificate and ciphers): the cache lives with its
// context entry, and a new context (a rotated CA file) starts empty.
//
// TLS 1.3 tickets are single-use (RFC 8446, appendix C.4: reusing one lets an
// observer link the connections): take() hands a TLS 1.3 session out and
// forgets it; the connection that used it gets fresh tickets from the server.
// A TLS 1.2 session stays (it is reusable, and a resumed TLS 1.2 handshake
// need not issue a new one). The server sends two tickets after a full
// handshake and one after a resumed one (MariaDB 10.11 with OpenSSL), so a
// key keeps a few, newest first: that many concurrent reconnects can resume.
//
// Bounded: at most max_keys keys (least recently used dropped) of at most
// max_sessions_per_key sessions. Thread-safe.
#include <openssl/ssl.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace sluice::mariadb::detail {

struct SslSessionDeleter {
    void operator()(SSL_SESSION* session) const noexcept { SSL_SESSION_free(session); }
};
using SslSessionPtr = std::unique_ptr<SSL_SESSION, SslSessionDeleter>;

class TlsSessionCache {
public:
    static constexpr std::size_t max_keys = 32;
    static constexpr std::size_t max_sessions_per_key = 4;

    // Keeps `session` (the cache owns the reference) as the newest for `key`;
    // a session that cannot be resumed is dropped.
    void put(const std::string& key, SslSessionPtr session);
    // The newest resumable, unexpired session for `key` (a new reference),
    // or null. A TLS 1.3 one leaves the cache (single use).
    SslSessionPtr take(const std::string& key);
    // Drops `session` from `key` (a TLS 1.2 session the server refused).
    void forget(const std::string& key, const SSL_SESSION* session);
    // Sessions kept now, all keys together.
    std::size_t size();

private:
    struct Slot {
        std::string key;
        std::vector<SslSessionPtr> sessions;  // newest first (a few: vector beats deque)
    };
    // Moves the slot for `key` to the front (most recently used); creates it
    // when `create`. Null when absent and not created. Needs mutex_ held.
    Slot* find(const std::string& key, bool create);

    std::mutex mutex_;
    std::vector<Slot> slots_;  // most recently used first
};

}  // namespace sluice::mariadb::detail
