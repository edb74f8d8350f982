// TLS session resumption against the private MariaDB: a reconnect with the
// same options resumes (no certificate exchange), and a kept session is
// never offered where it does not belong: not to a verifying mode when it
// was made without verification, not under another expected host name, not
// to another port, not after the CA file changed. A ticket the server no
// longer accepts falls back to a full handshake that verifies as always.
//
// Logins are built by hand (handshake_packets.hpp): the server's OK is read
// after the TLS handshake, and with it the TLS 1.3 session tickets the
// server sends right after the handshake. Each test uses a CA file of its
// own (own_ca.hpp), so it starts with a context that keeps no sessions.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "handshake_packets.hpp"
#include "own_ca.hpp"
#include "sluice/common/env_file.hpp"
#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/transport/packet_channel.hpp"
#include "tls_peers.hpp"

namespace sluice::mariadb {
namespace {

using namespace test;  // handshake_packets.hpp, own_ca.hpp, tls_peers.hpp

struct Servers {
    EnvFile env = EnvFile::from_environment();
    std::string host = env.require("SLUICE_HOST");  // 127.0.0.1: the certificate names it (and localhost)
    std::uint16_t port = static_cast<std::uint16_t>(std::stoi(env.require("SLUICE_MARIADB_PORT")));
    // The server's certificate files, next to the CA the harness made.
    std::string tls_dir = std::filesystem::path(env.require("SLUICE_CA")).parent_path().string();
};

struct Account {
    std::string user, password;
};
Account ssl_user(const Servers& s) {
    return {s.env.require("SLUICE_MARIADB_SSL_USER"), s.env.require("SLUICE_MARIADB_SSL_PASSWORD")};
}
Account admin(const Servers& s) {
    return {s.env.require("SLUICE_MARIADB_ADMIN_USER"), s.env.require("SLUICE_MARIADB_ADMIN_PASSWORD")};
}

// Connects to 127.0.0.1:port, starts TLS expecting `verify_host` and logs in.
// Throws what the TLS handshake throws.
PacketChannel login_tls(const Servers& s, const TlsOptions& options, const std::string& verify_host,
                        std::optional<std::uint16_t> port = std::nullopt, std::optional<Account> who = std::nullopt) {
    const Account account = who ? *who : ssl_user(s);
    PacketChannel channel(Socket::connect_tcp(s.host, port ? *port : s.port, deadline_after(std::chrono::seconds(10))));
    const Greeting greeting = parse_greeting(channel.read_packet());
    const std::uint32_t caps = client_protocol_41 | client_ssl | client_secure_connection | client_plugin_auth;
    channel.send_packet(response_prefix(caps));
    channel.start_tls(options, verify_host);
    channel.send_packet(login_response(caps, account.user, account.password, greeting.scramble));
    const auto reply = channel.read_packet();
    EXPECT_TRUE(!reply.empty() && reply[0] == 0x00) << "expected OK, got " << std::string(reply.begin(), reply.end());
    return channel;
}

// Whether a login resumed a session; nullopt when the handshake failed
// (`message` then gets the error).
std::optional<bool> resumed_login(const Servers& s, const TlsOptions& options, const std::string& verify_host,
                                  std::string* message = nullptr, std::optional<std::uint16_t> port = std::nullopt) {
    try {
        return login_tls(s, options, verify_host, port).tls_session_reused();
    } catch (const Error& e) {
        if (message) *message = e.what();
        return std::nullopt;
    }
}

TlsOptions verify_full_with(const OwnCa& ca) { return TlsOptions{.mode = SslMode::verify_full, .ca_file = ca.path()}; }

TEST(TlsResumption, ASecondLoginResumesAndGetsFreshTickets) {
    Servers s;
    OwnCa ca("resume");
    ca.install(s.env.require("SLUICE_CA"));
    const TlsOptions full = verify_full_with(ca);

    const TlsContextStats before = tls_context_stats();
    EXPECT_EQ(resumed_login(s, full, s.host), false) << "nothing kept yet: a full handshake";
    const TlsContextStats first = tls_context_stats();
    EXPECT_GT(first.sessions_stored, before.sessions_stored) << "the server's tickets are kept";
    EXPECT_EQ(first.sessions_offered, before.sessions_offered);
    EXPECT_GT(first.sessions_cached, 0U);

    // Each resumed login gets a fresh ticket (TLS 1.3 tickets are used once),
    // so every later one resumes too. These channels end without
    // close_notify, after which OpenSSL marks the connection's own session
    // object not resumable: the kept copies must stay usable.
    for (int i = 0; i < 3; ++i) EXPECT_EQ(resumed_login(s, full, s.host), true) << "login " << i + 2;
    const TlsContextStats now = tls_context_stats();
    EXPECT_EQ(now.sessions_offered, first.sessions_offered + 3);
    EXPECT_EQ(now.sessions_resumed, first.sessions_resumed + 3);
    EXPECT_GT(now.sessions_stored, first.sessions_stored);
}

TEST(TlsResumption, ReuseOffNeitherOffersNorKeepsSessions) {
    Servers s;
    OwnCa ca("reuse-off");
    ca.install(s.env.require("SLUICE_CA"));
    TlsOptions off = verify_full_with(ca);
    off.session_reuse = false;

    const TlsContextStats before = tls_context_stats();
    for (int i = 0; i < 2; ++i) EXPECT_EQ(resumed_login(s, off, s.host), false);
    const TlsContextStats after = tls_context_stats();
    EXPECT_EQ(after.sessions_stored, before.sessions_stored);
    EXPECT_EQ(after.sessions_offered, before.sessions_offered);

    // Turned on for the same configuration: nothing was kept, so the first
    // login is a full one, and the next resumes.
    const TlsOptions on = verify_full_with(ca);
    EXPECT_EQ(resumed_login(s, on, s.host), false);
    EXPECT_EQ(resumed_login(s, on, s.host), true);
    // And off again: the kept session is not offered.
    const TlsContextStats kept = tls_context_stats();
    EXPECT_EQ(resumed_login(s, off, s.host), false);
    EXPECT_EQ(tls_context_stats().sessions_offered, kept.sessions_offered);
}

TEST(TlsResumption, ASessionMadeWithoutVerificationNeverServesAVerifyingMode) {
    Servers s;
    OwnCa ca("require");
    ca.install(s.env.require("SLUICE_CA"));
    const TlsOptions full = verify_full_with(ca);
    TlsOptions require = full;  // same context: only the mode differs
    require.mode = SslMode::require;
    TlsOptions ca_only = full;
    ca_only.mode = SslMode::verify_ca;

    // require accepts a name the certificate does not carry, and keeps
    // sessions for it: the second such login resumes.
    EXPECT_EQ(resumed_login(s, require, "wrong.example"), false);
    EXPECT_EQ(resumed_login(s, require, "wrong.example"), true);
    EXPECT_EQ(resumed_login(s, require, s.host), false);

    // A session for this server and these names exists; verify-full with
    // the wrong name is still refused, and offered nothing.
    const TlsContextStats before = tls_context_stats();
    std::string message;
    EXPECT_EQ(resumed_login(s, full, "wrong.example", &message), std::nullopt);
    EXPECT_NE(message.find("verification"), std::string::npos) << message;
    EXPECT_NE(message.find("wrong.example"), std::string::npos) << message;
    // The right name verifies in a full handshake, as does verify-ca.
    EXPECT_EQ(resumed_login(s, full, s.host), false);
    EXPECT_EQ(resumed_login(s, ca_only, s.host), false);
    EXPECT_EQ(tls_context_stats().sessions_offered, before.sessions_offered)
        << "no session made under require was offered to a verifying mode";

    // Now that verify-full has a session of its own, the wrong name is
    // refused all the same.
    EXPECT_EQ(resumed_login(s, full, s.host), true);
    EXPECT_EQ(resumed_login(s, full, "wrong.example"), std::nullopt);
}

TEST(TlsResumption, AnotherHostNameOrPortDoesNotGetTheSession) {
    Servers s;
    OwnCa ca("peers");
    ca.install(s.env.require("SLUICE_CA"));
    const TlsOptions full = verify_full_with(ca);
    EXPECT_EQ(resumed_login(s, full, s.host), false);

    // Same server and address, another name its certificate carries.
    TlsContextStats before = tls_context_stats();
    EXPECT_EQ(resumed_login(s, full, "localhost"), false);
    EXPECT_EQ(tls_context_stats().sessions_offered, before.sessions_offered);

    // Same server through another port: the server would accept the
    // session, so only the client's keying keeps it from being offered.
    Relay relay(s.port);
    before = tls_context_stats();
    EXPECT_EQ(resumed_login(s, full, s.host, nullptr, relay.port()), false);
    EXPECT_EQ(tls_context_stats().sessions_offered, before.sessions_offered);
    EXPECT_EQ(resumed_login(s, full, s.host, nullptr, relay.port()), true) << "the relay's own session resumes";
    EXPECT_EQ(resumed_login(s, full, s.host), true) << "and the direct one still has its own";
}

TEST(TlsResumption, ARotatedCaFileDropsTheSessions) {
    Servers s;
    OwnCa ca("rotation");
    ca.install(s.env.require("SLUICE_CA"));
    const TlsOptions full = verify_full_with(ca);
    EXPECT_EQ(resumed_login(s, full, s.host), false);
    EXPECT_EQ(resumed_login(s, full, s.host), true);

    // The same CA, installed again (a new file): the next login verifies
    // the server with a new context, whose sessions start empty.
    ca.install(s.env.require("SLUICE_CA"));
    const TlsContextStats before = tls_context_stats();
    EXPECT_EQ(resumed_login(s, full, s.host), false);
    EXPECT_EQ(tls_context_stats().builds, before.builds + 1);
    EXPECT_EQ(tls_context_stats().sessions_offered, before.sessions_offered);

    // A CA that did not sign the server's certificate: refused, with no
    // session offered from before.
    ca.install(s.env.require("SLUICE_WRONG_CA"));
    const TlsContextStats wrong = tls_context_stats();
    EXPECT_EQ(resumed_login(s, full, s.host), std::nullopt);
    EXPECT_EQ(tls_context_stats().sessions_offered, wrong.sessions_offered);
}

TEST(TlsResumption, ATicketTheServerNoLongerAcceptsFallsBackToAFullHandshake) {
    Servers s;
    OwnCa ca("flush");
    ca.install(s.env.require("SLUICE_CA"));
    const TlsOptions full = verify_full_with(ca);
    EXPECT_EQ(resumed_login(s, full, s.host), false);
    EXPECT_EQ(resumed_login(s, full, s.host), true);

    // FLUSH SSL gives the server a new TLS context, with new ticket keys:
    // the tickets it issued before no longer open.
    {
        TlsOptions admin_tls = full;
        admin_tls.session_reuse = false;  // keeps this login out of the counts
        PacketChannel channel = login_tls(s, admin_tls, s.host, std::nullopt, admin(s));
        channel.reset_sequence();
        const std::string sql = "FLUSH SSL";
        Bytes query{0x03};
        query.insert(query.end(), sql.begin(), sql.end());
        channel.send_packet(query);
        const auto reply = channel.read_packet();
        ASSERT_FALSE(reply.empty());
        ASSERT_EQ(reply[0], 0x00) << std::string(reply.begin(), reply.end());
    }
    const TlsContextStats before = tls_context_stats();
    EXPECT_EQ(resumed_login(s, full, s.host), false) << "the refused ticket costs a full handshake, not a failure";
    const TlsContextStats after = tls_context_stats();
    EXPECT_EQ(after.sessions_offered, before.sessions_offered + 1);
    EXPECT_EQ(after.sessions_resumed, before.sessions_resumed);
    EXPECT_EQ(resumed_login(s, full, s.host), true) << "the new key's tickets resume";
}

// The server MariaDB cannot be made to present another certificate mid-test;
// this TLS peer can, and restarting it (a new server context) changes its
// ticket keys as a real restart does.
TEST(TlsResumption, AfterARestartWithAnotherCertificateTheFallbackStillVerifies) {
    Servers s;
    OwnCa ca("impostor");
    ca.install(s.env.require("SLUICE_CA"));
    const TlsOptions full = verify_full_with(ca);
    TlsPeer peer;
    const ServerCtx genuine = server_context(s.tls_dir + "/server-cert.pem", s.tls_dir + "/server-key.pem");
    const ServerCtx impostor = server_context(s.tls_dir + "/wrong-ca.pem", s.tls_dir + "/wrong-ca-key.pem");
    const ServerCtx restarted = server_context(s.tls_dir + "/server-cert.pem", s.tls_dir + "/server-key.pem");

    // One exchange with the peer: handshake, read its greeting (and the
    // tickets before it), close. Whether the client resumed; throws Error.
    auto exchange = [&](SSL_CTX* server) {
        std::thread serving = peer.serve_one(server);
        struct Join {
            std::thread& t;
            ~Join() { t.join(); }
        } join{serving};
        const Deadline deadline = deadline_after(std::chrono::seconds(10));
        Socket socket = Socket::connect_tcp(s.host, peer.port(), deadline);
        TlsSession tls = TlsSession::handshake(socket, full, s.host, deadline);
        std::uint8_t buf[16];
        std::string got;
        while (got.size() < sizeof TlsPeer::greeting - 1) {
            const std::size_t n = tls.read_some(buf, deadline);
            got.append(reinterpret_cast<const char*>(buf), n);
        }
        EXPECT_EQ(got, TlsPeer::greeting);
        tls.shutdown();
        socket.shutdown();
        return tls.session_reused();
    };

    EXPECT_FALSE(exchange(genuine.get()));
    EXPECT_TRUE(exchange(genuine.get()));
    EXPECT_TRUE(peer.last_resumed()) << "the server saw the resumption too";

    // Restarted with a certificate from another CA: the ticket is offered,
    // refused (new keys), and the full handshake rejects the certificate.
    TlsContextStats before = tls_context_stats();
    try {
        exchange(impostor.get());
        ADD_FAILURE() << "a certificate from another CA was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::tls);
        EXPECT_NE(std::string(e.what()).find("verification"), std::string::npos) << e.what();
    }
    EXPECT_EQ(tls_context_stats().sessions_offered, before.sessions_offered + 1);
    EXPECT_EQ(tls_context_stats().sessions_resumed, before.sessions_resumed);

    // Restarted with its own certificate again: offered, refused, verified.
    before = tls_context_stats();
    EXPECT_FALSE(exchange(restarted.get()));
    EXPECT_EQ(tls_context_stats().sessions_offered, before.sessions_offered + 1);
    EXPECT_TRUE(exchange(restarted.get()));
}

TEST(TlsResumption, ManyThreadsLoggingInAtOnce) {
    Servers s;
    OwnCa ca("threads");
    ca.install(s.env.require("SLUICE_CA"));
    const TlsOptions full = verify_full_with(ca);
    EXPECT_EQ(resumed_login(s, full, s.host), false);  // tickets to start with

    constexpr int threads = 8, logins = 5;
    const TlsContextStats before = tls_context_stats();
    std::atomic<int> ok{0}, resumed{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&] {
            for (int i = 0; i < logins; ++i) {
                const std::optional<bool> r = resumed_login(s, full, s.host);
                if (r) ++ok;
                if (r == true) ++resumed;
            }
        });
    }
    for (auto& t : pool) t.join();
    const TlsContextStats after = tls_context_stats();
    EXPECT_EQ(ok.load(), threads * logins);
    EXPECT_GT(resumed.load(), 0);
    EXPECT_EQ(after.sessions_resumed - before.sessions_resumed, static_cast<std::uint64_t>(resumed.load()));
    EXPECT_GE(after.sessions_offered - before.sessions_offered, after.sessions_resumed - before.sessions_resumed);
}

// The same through the client: the option, its URL parameter and the
// Connection's accessor.
TEST(TlsResumption, ConnectionReportsItAndTheUrlTurnsItOff) {
    Servers s;
    OwnCa ca("connection");
    ca.install(s.env.require("SLUICE_CA"));
    ConnectOptions o;
    o.host = s.host;
    o.port = s.port;
    o.user = s.env.require("SLUICE_MARIADB_SSL_USER");
    o.password = s.env.require("SLUICE_MARIADB_SSL_PASSWORD");
    o.ssl_ca = ca.path();  // verify-full
    EXPECT_FALSE(Connection::connect(o).tls_session_reused());
    Connection again = Connection::connect(o);
    EXPECT_TRUE(again.is_tls());
    EXPECT_TRUE(again.tls_session_reused());
    EXPECT_EQ(again.execute("DO 1").affected_rows, 0U) << "the resumed connection works";

    const std::string url = "mariadb://" + o.user + ":" + o.password + "@" + s.host + ":" + std::to_string(s.port) +
                            "/?ssl-ca=" + ca.path() + "&ssl-session-reuse=0";
    const TlsContextStats before = tls_context_stats();
    for (int i = 0; i < 2; ++i) {
        Connection c = Connection::connect(url);
        EXPECT_TRUE(c.is_tls());
        EXPECT_FALSE(c.tls_session_reused());
    }
    EXPECT_EQ(tls_context_stats().sessions_offered, before.sessions_offered);
}

}  // namespace
}  // namespace sluice::mariadb
