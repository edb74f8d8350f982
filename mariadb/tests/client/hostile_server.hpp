#pragma once
// Test helper: a hostile "server" on 127.0.0.1. It is not a model of
// MariaDB: it plays whatever bytes a test scripts (truncated, lying,
// out-of-order, silent), which a real server never sends, and records every
// byte the client sent so tests can check what left the client.
//
// One listener, one accepted connection, one script run on its own thread:
//
//   HostileServer server([](HostilePeer& peer) {
//       peer.send_packet(0, handshake_payload());
//       peer.read_packet();          // the client's handshake response
//       peer.send_raw({0x01, 0x00}); // then garbage, then close
//   });
//   Connection::connect(server.options());
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "../protocol/bytes.hpp"
#include "sluice/mariadb/connect_options.hpp"
#include "sluice/mariadb/protocol/constants.hpp"

namespace sluice::mariadb::test {

// The server end of the accepted connection, as the script sees it.
class HostilePeer {
public:
    explicit HostilePeer(int fd) : fd_(fd) {}

    void send_raw(std::span<const std::uint8_t> bytes) {
        std::size_t done = 0;
        while (done < bytes.size()) {
            ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) throw std::runtime_error("hostile server: send failed");
            done += static_cast<std::size_t>(n);
        }
    }
    void send_raw(std::initializer_list<int> bytes) { send_raw(PacketBuilder{}.raw(bytes).bytes); }

    // One packet: 3-byte length, sequence id, payload.
    void send_packet(std::uint8_t sequence, std::span<const std::uint8_t> payload) {
        std::vector<std::uint8_t> framed = PacketBuilder{}
                                               .u8(static_cast<std::uint8_t>(payload.size()))
                                               .u8(static_cast<std::uint8_t>(payload.size() >> 8))
                                               .u8(static_cast<std::uint8_t>(payload.size() >> 16))
                                               .u8(sequence)
                                               .bytes;
        framed.insert(framed.end(), payload.begin(), payload.end());
        send_raw(framed);
    }

    // The payload of the client's next packet.
    std::vector<std::uint8_t> read_packet() {
        std::vector<std::uint8_t> header = read_exactly(4);
        std::size_t length =
            std::size_t{header[0]} | (std::size_t{header[1]} << 8) | (std::size_t{header[2]} << 16);
        return read_exactly(length);
    }

    // Reads (and records) until the client closes its end: how a script
    // waits out a client that is expected to give up on its own.
    void wait_for_client_close() {
        std::uint8_t buf[512];
        while (read_some(buf) > 0) {
        }
    }

    // Exactly n bytes from the client (e.g. a compressed frame's header).
    std::vector<std::uint8_t> read_raw(std::size_t n) { return read_exactly(n); }

    // Reads the client's next packet if it sends one, or its close.
    void wait_for_one_packet_or_close() {
        std::uint8_t first;
        if (read_some(std::span(&first, 1)) == 0) return;
        std::vector<std::uint8_t> rest = read_exactly(3);
        std::size_t length =
            std::size_t{first} | (std::size_t{rest[0]} << 8) | (std::size_t{rest[1]} << 16);
        read_exactly(length);
    }

    // Everything the client sent so far.
    const std::vector<std::uint8_t>& received() const { return received_; }

private:
    std::vector<std::uint8_t> read_exactly(std::size_t n) {
        std::vector<std::uint8_t> out(n);
        std::size_t done = 0;
        while (done < n) {
            std::size_t got = read_some(std::span(out.data() + done, n - done));
            if (got == 0) throw std::runtime_error("hostile server: client closed mid-packet");
            done += got;
        }
        return out;
    }

    // Bounded wait, so a script can never hang the test on a client that
    // neither writes nor closes.
    std::size_t read_some(std::span<std::uint8_t> buf) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 20000) <= 0)
            throw std::runtime_error("hostile server: client silent for 20 s");
        ssize_t n = ::recv(fd_, buf.data(), buf.size(), 0);
        if (n < 0) {
            if (errno == ECONNRESET) return 0;
            throw std::runtime_error("hostile server: recv failed");
        }
        received_.insert(received_.end(), buf.data(), buf.data() + n);
        return static_cast<std::size_t>(n);
    }

    int fd_;
    std::vector<std::uint8_t> received_;
};

class HostileServer {
public:
    using Script = std::function<void(HostilePeer&)>;

    explicit HostileServer(Script script) {
        listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (listen_fd_ < 0) throw std::runtime_error("hostile server: socket failed");
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = 0;  // ephemeral
        socklen_t len = sizeof addr;
        if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
            ::listen(listen_fd_, 1) != 0 ||
            ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
            ::close(listen_fd_);
            throw std::runtime_error("hostile server: cannot listen on 127.0.0.1");
        }
        port_ = ntohs(addr.sin_port);
        thread_ = std::thread([this, script = std::move(script)] { run(script); });
    }
    HostileServer(const HostileServer&) = delete;
    HostileServer& operator=(const HostileServer&) = delete;
    ~HostileServer() {
        if (thread_.joinable()) thread_.join();
        ::close(listen_fd_);
    }

    // Options pointing at this server: plain TCP (nothing to negotiate TLS
    // with) and short timeouts, so a client bug fails fast instead of hanging.
    ConnectOptions options() const {
        ConnectOptions o;
        o.host = "127.0.0.1";
        o.port = port_;
        o.user = "hostile";
        o.password = "s3cret-password";
        o.ssl_mode = SslMode::disable;
        o.timeouts.connect = std::chrono::milliseconds(5000);
        o.timeouts.read = std::chrono::milliseconds(5000);
        o.timeouts.write = std::chrono::milliseconds(5000);
        return o;
    }

    // Waits for the script to end; returns what the client sent. Throws if
    // the script failed (e.g. the client closed where it should have written).
    std::vector<std::uint8_t> finish() {
        if (thread_.joinable()) thread_.join();
        if (!script_error_.empty()) throw std::runtime_error(script_error_);
        return received_;
    }

private:
    void run(const Script& script) {
        pollfd p{listen_fd_, POLLIN, 0};
        if (::poll(&p, 1, 20000) <= 0) {
            script_error_ = "hostile server: no client connected within 20 s";
            return;
        }
        int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            script_error_ = "hostile server: accept failed";
            return;
        }
        HostilePeer peer(fd);
        try {
            script(peer);
        } catch (const std::exception& e) {
            script_error_ = e.what();
        }
        received_ = peer.received();
        ::close(fd);  // the end of every script: the server hangs up
    }

    int listen_fd_ = -1;
    std::uint16_t port_ = 0;
    std::thread thread_;
    std::string script_error_;
    std::vector<std::uint8_t> received_;
};

// --- Packets a script sends ----------------------------------------------

// What a MariaDB 10.x server offers, minus the features that change the
// result-set layout (deprecate-EOF, extended metadata, metadata cache), so
// the scripted results are the classic, easy-to-read form.
inline constexpr std::uint64_t hostile_default_capabilities =
    protocol::cap::long_flag | protocol::cap::protocol_41 | protocol::cap::transactions |
    protocol::cap::secure_connection | protocol::cap::multi_statements |
    protocol::cap::multi_results | protocol::cap::ps_multi_results | protocol::cap::plugin_auth |
    protocol::cap::plugin_auth_lenenc_client_data;

// A v10 handshake payload (bit 0 clear, so MariaDB's extended capabilities
// travel in the last four filler bytes).
inline std::vector<std::uint8_t> handshake_payload(
    std::uint64_t capabilities = hostile_default_capabilities,
    std::string_view plugin = "mysql_native_password", std::uint8_t protocol_version = 10) {
    return PacketBuilder{}
        .u8(protocol_version)
        .nul("5.5.5-10.11.99-MariaDB-hostile")
        .u32(7)            // connection id
        .text("abcdefgh")  // scramble part 1
        .u8(0)             // reserved
        .u16(static_cast<std::uint16_t>(capabilities))
        .u8(45)  // collation
        .u16(protocol::status::autocommit)
        .u16(static_cast<std::uint16_t>(capabilities >> 16))
        .u8(21)                   // plugin data length: 8 + 12 + NUL
        .raw({0, 0, 0, 0, 0, 0})  // filler
        .u32(static_cast<std::uint32_t>(capabilities >> 32))
        .nul("ijklmnopqrst")  // scramble part 2 and its NUL
        .nul(plugin)
        .bytes;
}

// OK: no rows affected, autocommit.
inline std::vector<std::uint8_t> ok_payload() {
    return PacketBuilder{}.raw({0x00, 0, 0, 0x02, 0x00, 0, 0}).bytes;
}

// EOF (no deprecate-EOF): no warnings, autocommit.
inline std::vector<std::uint8_t> eof_payload() {
    return PacketBuilder{}.raw({0xFE, 0, 0, 0x02, 0x00}).bytes;
}

// A protocol-4.1 column definition of a VARCHAR named `name`.
inline std::vector<std::uint8_t> varchar_column_payload(std::string_view name) {
    return PacketBuilder{}
        .lenenc("def")
        .lenenc("")  // schema
        .lenenc("")  // table alias
        .lenenc("")  // table
        .lenenc(name)
        .lenenc(name)
        .u8(0x0C)   // length of the fixed fields
        .u16(45)    // utf8mb4
        .u32(1020)  // column length
        .u8(0xFD)   // VAR_STRING
        .u16(0)     // flags
        .u8(0)      // decimals
        .u16(0)     // filler
        .bytes;
}

// The script's login: handshake, read the response (any), OK. The client's
// command afterwards starts again at sequence 0.
inline void play_login(HostilePeer& peer) {
    peer.send_packet(0, handshake_payload());
    peer.read_packet();
    peer.send_packet(2, ok_payload());
}

inline bool contains(const std::vector<std::uint8_t>& haystack, std::string_view needle) {
    return std::string_view(reinterpret_cast<const char*>(haystack.data()), haystack.size())
               .find(needle) != std::string_view::npos;
}

}  // namespace sluice::mariadb::test
