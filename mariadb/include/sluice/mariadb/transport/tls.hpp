#pragma once
// TLS over a Socket, with OpenSSL (TLS 1.2 or newer).
//
// Modes, in increasing strictness:
//   disable      never TLS.
//   prefer       TLS when the server offers CLIENT_SSL, plain otherwise
//                (the fallback is the Connection's decision, never this layer's).
//   require      TLS or fail; the certificate is not verified.
//   verify_ca    TLS, and the server's chain must lead to ca_file/ca_path
//                (or, with system_trust, to OpenSSL's default trust store).
//   verify_full  verify_ca, and the host name (or IP literal) must match the
//                certificate's subjectAltName.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sluice/mariadb/transport/deadline.hpp"

namespace sluice::mariadb {

class Socket;

enum class SslMode { disable, prefer, require, verify_ca, verify_full };

// Accepts "disable", "prefer", "require", "verify-ca", "verify-full"
// (underscores accepted too); Error{usage} naming the value otherwise.
SslMode parse_ssl_mode(std::string_view text);
std::string_view to_string(SslMode mode) noexcept;

struct TlsOptions {
    SslMode mode = SslMode::prefer;
    std::string ca_file{};      // PEM bundle of trusted CAs
    std::string ca_path{};      // directory of hashed CA certificates
    std::string cert_file{};    // client certificate (PEM), optional
    std::string key_file{};     // client private key (PEM), optional
    std::string cipher_list{};  // OpenSSL cipher list for TLS 1.2, optional
    // With neither ca_file nor ca_path, verify against OpenSSL's default
    // trust store (the system's CA certificates, or $SSL_CERT_FILE /
    // $SSL_CERT_DIR) instead of refusing a verifying mode. Connection sets
    // it for the default verify-full of a TCP connection to a non-loopback
    // host; an explicit verify-ca / verify-full without a CA stays
    // Error{usage}, as a silent choice of trust store would be a surprise.
    bool system_trust = false;
    // Appended to the message of a failed certificate verification (and of
    // a resumed session whose kept certificate fails the checks): what the
    // caller can do about it. Connection says how to choose a mode when the
    // mode was its default rather than the caller's.
    std::string verify_advice{};
    // When the mode is the default: why it verifies ("; ssl-mode was not
    // given, so verify-full applies (...)"). A host name mismatch says this
    // and which names the certificate holds, instead of verify_advice's CA
    // advice: the CA was right, the name was not (issue 32).
    std::string default_mode_note{};
    // Offer a session kept from an earlier connection (TLS session
    // resumption: the server skips its certificate, the handshake its
    // signature), and keep the ones this connection receives. A session is
    // offered only to a connection with the same context (the options
    // above), peer address, expected host and mode; see tls.cpp.
    bool session_reuse = true;
};

// Client contexts (the OpenSSL SSL_CTX: CA store, client certificate, cipher
// list) are built once per TLS configuration and shared by every connection
// using it, in any thread; a CA, certificate or key file that changes on
// disk is read again by the next connection. Verification (the mode and the
// expected host) is still decided per connection. These counters say how
// often a context was built and reused, and how often a kept TLS session
// was offered and accepted (resumption), for tests and diagnostics.
struct TlsContextStats {
    std::uint64_t builds = 0;  // contexts built (first use of a configuration, or its files changed)
    std::uint64_t reuses = 0;  // handshakes that found their context built
    std::size_t cached = 0;    // contexts kept now
    std::uint64_t sessions_stored = 0;   // resumable sessions (tickets) received and kept
    std::uint64_t sessions_offered = 0;  // handshakes that offered a kept session
    std::uint64_t sessions_resumed = 0;  // handshakes the server resumed (no certificate exchange)
    std::size_t sessions_cached = 0;     // sessions kept now, in the cached contexts
};
TlsContextStats tls_context_stats();

// What a non-blocking TLS call waits for before it can go on.
enum class TlsWant { none, read, write };

// One TLS session on a connected, non-blocking socket. It does not own the
// socket: it keeps the descriptor (and the peer's name for messages), so the
// Socket object may move, but its descriptor must stay open while the session
// lives (PacketChannel keeps both together).
class TlsSession {
public:
    // Runs the client handshake. `host` is sent as SNI (unless it is an IP
    // literal) and checked under verify_full (on a resumed session too).
    // Error{tls} with OpenSSL's reason and the verification result on
    // failure; Error{usage} when the mode is disable or no CA is given for
    // verify_ca / verify_full (unless system_trust).
    static TlsSession handshake(Socket& socket, const TlsOptions& options,
                                std::string_view host, Deadline deadline);

    // The same handshake for a driver with its own event loop
    // (AsyncConnection): start() sets the session up and sends nothing;
    // continue_handshake() goes as far as it can and says what it waits
    // for (none: done, with the same checks and errors as handshake()).
    static TlsSession start(const Socket& socket, const TlsOptions& options, std::string_view host);
    TlsWant continue_handshake();
    // Non-blocking read / write: the bytes moved, or 0 with `want` saying
    // what to wait for. Errors as read_some / write_all.
    std::size_t try_read(std::span<std::uint8_t> buf, TlsWant& want);
    std::size_t try_write(std::span<const std::uint8_t> data, TlsWant& want);

    TlsSession(TlsSession&&) noexcept;
    TlsSession& operator=(TlsSession&&) noexcept;
    ~TlsSession();

    // Same contract as Socket::read_some / write_all.
    std::size_t read_some(std::span<std::uint8_t> buf, Deadline deadline);
    void write_all(std::span<const std::uint8_t> data, Deadline deadline);
    // Sends close_notify without waiting for the peer's (best effort).
    void shutdown() noexcept;

    std::string protocol_version() const;  // e.g. "TLSv1.3"
    std::string cipher() const;
    // True when the handshake resumed a kept session (abbreviated: no
    // certificate was sent; its verification is the original handshake's).
    bool session_reused() const noexcept;

private:
    struct Impl;
    explicit TlsSession(std::unique_ptr<Impl> impl) noexcept;
    std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::mariadb
