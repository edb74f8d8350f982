// The shared TLS client context against the private MariaDB: one context
// per configuration however many connections (and threads) use it, the
// verification still decided per connection (a wrong host or CA is refused
// through a context that verified the right ones), and a CA file replaced on
// disk read again by the next connection.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sluice/common/env_file.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/transport/packet_channel.hpp"
#include "own_ca.hpp"

namespace sluice::mariadb {
namespace {

namespace fs = std::filesystem;
using test::OwnCa;

struct Servers {
    EnvFile env = EnvFile::from_environment();
    std::string host = env.require("SLUICE_HOST");
    std::uint16_t port = static_cast<std::uint16_t>(std::stoi(env.require("SLUICE_MARIADB_PORT")));
};

// Greeting, SSLRequest (protocol 4.1 + SSL + secure connection), handshake.
PacketChannel connect_tls(const Servers& s, const TlsOptions& options, const std::string& verify_host) {
    PacketChannel channel(Socket::connect_tcp(s.host, s.port, deadline_after(std::chrono::seconds(10))));
    const auto greeting = channel.read_packet();
    EXPECT_EQ(greeting[0], 10);
    std::vector<std::uint8_t> request(32, 0);
    const std::uint32_t caps = (1U << 9) | (1U << 11) | (1U << 15);
    for (int i = 0; i < 4; ++i) request[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(caps >> (8 * i));
    request[7] = 1;    // max packet size 16 MiB
    request[8] = 45;   // utf8mb4_general_ci
    channel.send_packet(request);
    channel.start_tls(options, verify_host);
    return channel;
}

// The kind of error the handshake failed with; nullopt when it succeeded.
std::optional<ErrorKind> failure_of(const Servers& s, const TlsOptions& options, const std::string& verify_host,
                                    std::string* message = nullptr) {
    try {
        connect_tls(s, options, verify_host);
    } catch (const Error& e) {
        if (message) *message = e.what();
        return e.kind();
    }
    return std::nullopt;
}

TEST(TlsContext, SharedAcrossConnectionsWhileVerificationStaysPerConnection) {
    Servers s;
    OwnCa ca("shared");
    ca.install(s.env.require("SLUICE_CA"));
    TlsOptions full{.mode = SslMode::verify_full, .ca_file = ca.path()};

    const TlsContextStats before = tls_context_stats();
    EXPECT_TRUE(connect_tls(s, full, s.host).is_tls());
    const TlsContextStats first = tls_context_stats();
    EXPECT_EQ(first.builds, before.builds + 1) << "a new configuration builds its context";
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(connect_tls(s, full, s.host).is_tls());
    TlsContextStats now = tls_context_stats();
    EXPECT_EQ(now.builds, first.builds) << "the same configuration reuses it";
    EXPECT_GE(now.reuses, first.reuses + 3);

    // Through that same context: a wrong host is still refused under
    // verify-full, accepted under verify-ca, and require verifies nothing.
    std::string message;
    EXPECT_EQ(failure_of(s, full, "wrong.example", &message), ErrorKind::tls);
    EXPECT_NE(message.find("wrong.example"), std::string::npos) << message;
    TlsOptions ca_only = full;
    ca_only.mode = SslMode::verify_ca;
    EXPECT_TRUE(connect_tls(s, ca_only, "wrong.example").is_tls());
    TlsOptions require = full;
    require.mode = SslMode::require;
    EXPECT_TRUE(connect_tls(s, require, "wrong.example").is_tls());
    // And a verified connection after all of them is verified again.
    EXPECT_EQ(failure_of(s, full, "wrong.example"), ErrorKind::tls);
    EXPECT_TRUE(connect_tls(s, full, s.host).is_tls());
    EXPECT_EQ(tls_context_stats().builds, first.builds) << "one context served every mode";
}

TEST(TlsContext, AWrongCaIsRefusedWhileTheRightOneIsCached) {
    Servers s;
    OwnCa right("right");
    right.install(s.env.require("SLUICE_CA"));
    OwnCa wrong("wrong");
    wrong.install(s.env.require("SLUICE_WRONG_CA"));
    const TlsOptions good{.mode = SslMode::verify_ca, .ca_file = right.path()};
    const TlsOptions bad{.mode = SslMode::verify_ca, .ca_file = wrong.path()};
    for (int round = 0; round < 2; ++round) {
        EXPECT_TRUE(connect_tls(s, good, s.host).is_tls());
        std::string message;
        EXPECT_EQ(failure_of(s, bad, s.host, &message), ErrorKind::tls);
        EXPECT_NE(message.find("certificate"), std::string::npos) << message;
    }
}

TEST(TlsContext, ACaFileReplacedOnDiskIsReadAgain) {
    Servers s;
    OwnCa ca("rotated");
    ca.install(s.env.require("SLUICE_CA"));
    const TlsOptions full{.mode = SslMode::verify_full, .ca_file = ca.path()};
    EXPECT_TRUE(connect_tls(s, full, s.host).is_tls());
    const std::uint64_t builds = tls_context_stats().builds;

    ca.install(s.env.require("SLUICE_WRONG_CA"));
    EXPECT_EQ(failure_of(s, full, s.host), ErrorKind::tls) << "the replaced CA must be the one verifying";
    EXPECT_EQ(tls_context_stats().builds, builds + 1);

    ca.install(s.env.require("SLUICE_CA"));
    EXPECT_TRUE(connect_tls(s, full, s.host).is_tls());
    EXPECT_EQ(tls_context_stats().builds, builds + 2);
}

TEST(TlsContext, ConcurrentFirstConnectionsBuildOneContext) {
    Servers s;
    OwnCa ca("concurrent");
    ca.install(s.env.require("SLUICE_CA"));
    const TlsOptions full{.mode = SslMode::verify_full, .ca_file = ca.path()};
    const std::uint64_t builds = tls_context_stats().builds;
    std::atomic<int> ok{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t) {
        threads.emplace_back([&] {
            try {
                if (connect_tls(s, full, s.host).is_tls()) ++ok;
            } catch (const Error&) {
            }
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(ok.load(), 6);
    EXPECT_EQ(tls_context_stats().builds, builds + 1);
}

TEST(TlsContext, AMissingCaFileIsATlsErrorNamingItAndIsNotCached) {
    Servers s;
    const std::string missing = (fs::temp_directory_path() / "sluice-tls-no-such-ca.pem").string();
    const TlsOptions options{.mode = SslMode::verify_full, .ca_file = missing};
    const TlsContextStats before = tls_context_stats();
    for (int i = 0; i < 2; ++i) {
        std::string message;
        EXPECT_EQ(failure_of(s, options, s.host, &message), ErrorKind::tls);
        EXPECT_NE(message.find(missing), std::string::npos) << message;
    }
    EXPECT_EQ(tls_context_stats().builds, before.builds);
    EXPECT_EQ(tls_context_stats().cached, before.cached);
}

}  // namespace
}  // namespace sluice::mariadb
