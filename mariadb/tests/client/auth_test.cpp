// Every auth method and TLS mode through Connection, against the real server.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "server_env.hpp"
#include "sluice/mariadb/mariadb.hpp"

// Private instances live under the build tree's servers-own/ folder, which
// scripts/test sweeps at the end, so none outlives an interrupted run.
static std::filesystem::path own_servers_dir() {
    std::filesystem::create_directories(SLUICE_OWN_SERVERS_DIR);
    return SLUICE_OWN_SERVERS_DIR;
}

namespace sluice::mariadb {
namespace {

using test::env;
using test::options_for;

std::string current_user(Connection& c) {
    ResultSet rs = c.query("SELECT CURRENT_USER()");
    std::string u = rs.next()->get<std::string>(0);
    rs.discard();
    return u.substr(0, u.find('@'));
}

ConnectOptions with_verified_tls(ConnectOptions o) {
    o.ssl_ca = env().require("SLUICE_CA");  // mode defaults to verify_full
    return o;
}

void expect_access_denied(const ConnectOptions& o) {
    try {
        Connection::connect(o);
        FAIL() << "expected access denied for " << o.user;
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::server) << e.what();
        EXPECT_EQ(e.server_code(), 1045) << e.what();
        EXPECT_EQ(e.sqlstate(), "28000");
        EXPECT_NE(std::string(e.what()).find(o.user), std::string::npos) << e.what();
    }
}

TEST(Auth, NativePasswordSucceedsAndWrongPasswordGetsTheServersError) {
    auto o = options_for("SLUICE_MARIADB_NATIVE_USER", "SLUICE_MARIADB_NATIVE_PASSWORD");
    Connection c = Connection::connect(o);
    EXPECT_EQ(current_user(c), o.user);
    o.password += "x";
    expect_access_denied(o);
}

TEST(Auth, Ed25519SucceedsAndWrongPasswordGetsTheServersError) {
    auto o = options_for("SLUICE_MARIADB_ED25519_USER", "SLUICE_MARIADB_ED25519_PASSWORD");
    Connection c = Connection::connect(o);
    EXPECT_EQ(current_user(c), o.user);
    o.password = "wrong";
    expect_access_denied(o);
}

TEST(Auth, PamDialogOverTlsSucceedsAndWrongPasswordFails) {
    auto o = with_verified_tls(options_for("SLUICE_MARIADB_PAM_USER", "SLUICE_MARIADB_PAM_PASSWORD"));
    Connection c = Connection::connect(o);
    EXPECT_TRUE(c.is_tls());
    EXPECT_EQ(current_user(c), o.user);
    o.password = "wrong";
    expect_access_denied(o);
}

TEST(Auth, RequireSslUserNeedsTls) {
    auto o = with_verified_tls(options_for("SLUICE_MARIADB_SSL_USER", "SLUICE_MARIADB_SSL_PASSWORD"));
    Connection c = Connection::connect(o);
    EXPECT_TRUE(c.is_tls());
    EXPECT_FALSE(c.tls_version().empty());
    ResultSet rs = c.query("SHOW STATUS LIKE 'Ssl_version'");
    EXPECT_EQ(rs.next()->get<std::string>(1), c.tls_version());
    rs.discard();
    o.ssl_mode = SslMode::disable;
    expect_access_denied(o);
    o.ssl_mode = SslMode::verify_full;
    o.password = "wrong";
    expect_access_denied(o);
}

// GSSAPI reads its ticket cache from the process environment.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        ::setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (old_) ::setenv(name_, old_->c_str(), 1);
        else ::unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

TEST(Auth, GssapiWithTheTicketCacheSucceeds) {
    ScopedEnv config("KRB5_CONFIG", env().require("KRB5_CONFIG"));
    ScopedEnv cache("KRB5CCNAME", env().require("SLUICE_KRB5_CCACHE"));
    auto o = options_for("SLUICE_MARIADB_GSSAPI_USER", "");
    Connection c = Connection::connect(o);
    EXPECT_EQ(current_user(c), o.user);
}

TEST(Auth, GssapiWithoutATicketFailsClearly) {
    ScopedEnv config("KRB5_CONFIG", env().require("KRB5_CONFIG"));
    std::string missing = "FILE:" + (std::filesystem::temp_directory_path() / "sluice-no-such-ccache").string();
    ScopedEnv cache("KRB5CCNAME", missing);
    auto o = options_for("SLUICE_MARIADB_GSSAPI_USER", "");
    try {
        Connection::connect(o);
        FAIL() << "expected GSSAPI to fail without credentials";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::auth) << e.what();
        EXPECT_NE(std::string(e.what()).find("auth_gssapi_client"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("credentials"), std::string::npos) << e.what();
    }
}

TEST(Tls, VerifyFullWithTheRightCaSucceeds) {
    auto o = with_verified_tls(test::admin_options());
    EXPECT_EQ(o.effective_ssl_mode(PeerLocality::loopback), SslMode::verify_full);
    Connection c = Connection::connect(o);
    EXPECT_TRUE(c.is_tls());
}

TEST(Tls, WrongCaFailsUnderVerifyFullAndVerifyCa) {
    for (SslMode mode : {SslMode::verify_full, SslMode::verify_ca}) {
        auto o = test::admin_options();
        o.ssl_ca = env().require("SLUICE_WRONG_CA");
        o.ssl_mode = mode;
        EXPECT_EQ(test::kind_of([&] { Connection::connect(o); }), ErrorKind::tls) << to_string(mode);
    }
}

TEST(Tls, HostNameMismatchFailsUnderVerifyFullButNotVerifyCa) {
    // "127.1" reaches 127.0.0.1, but is not a name or address the
    // certificate lists (DNS:localhost, IP:127.0.0.1).
    auto o = with_verified_tls(test::admin_options());
    o.host = "127.1";
    try {
        Connection::connect(o);
        FAIL() << "expected a host name mismatch";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::tls) << e.what();
        EXPECT_NE(std::string(e.what()).find("127.1"), std::string::npos) << e.what();
        // Issue 32: which names the certificate holds, and the way forward.
        EXPECT_NE(std::string(e.what()).find("but names DNS:localhost, IP:127.0.0.1, not '127.1': connect by one of "
                                             "its names, or choose ssl-mode=verify-ca knowingly"),
                  std::string::npos)
            << e.what();
    }
    o.ssl_mode = SslMode::verify_ca;
    Connection c = Connection::connect(o);
    EXPECT_TRUE(c.is_tls());
}

TEST(Tls, PreferUsesTlsWhenOfferedAndDisableDoesNot) {
    auto o = test::admin_options();
    EXPECT_TRUE(Connection::connect(o).is_tls());
    o.ssl_mode = SslMode::disable;
    EXPECT_FALSE(Connection::connect(o).is_tls());
}

// A private server whose PAM plugin asks for mysql_clear_password.
class ClearPassword : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new std::string(own_servers_dir() / ("sluice-cleartext-" + std::to_string(::getpid())));
        std::string cmd = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/start --dir " + *dir_ +
                          " --only mariadb --pam-cleartext > " + *dir_ + ".log 2>&1";
        int rc = std::system(cmd.c_str());
        ASSERT_EQ(rc, 0) << "could not start the cleartext server: see " << *dir_ << ".log";
        env_ = new EnvFile(EnvFile::load(*dir_ + "/env"));
    }
    static void TearDownTestSuite() {
        std::string cmd = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/stop --dir " + *dir_ + " > /dev/null 2>&1";
        EXPECT_EQ(std::system(cmd.c_str()), 0);
        std::error_code ignored;
        std::filesystem::remove_all(*dir_, ignored);
        std::filesystem::remove(*dir_ + ".log", ignored);
        delete env_;
        delete dir_;
    }

    static ConnectOptions pam_options() {
        ConnectOptions o;
        o.host = env_->require("SLUICE_HOST");
        o.port = static_cast<std::uint16_t>(std::stoi(env_->require("SLUICE_MARIADB_PORT")));
        o.user = env_->require("SLUICE_MARIADB_PAM_USER");
        o.password = env_->require("SLUICE_MARIADB_PAM_PASSWORD");
        return o;
    }

    static std::string* dir_;
    static EnvFile* env_;
};
std::string* ClearPassword::dir_ = nullptr;
EnvFile* ClearPassword::env_ = nullptr;

TEST_F(ClearPassword, RefusedWithoutTlsUnlessTheCallerOptsIn) {
    ASSERT_EQ(env_->require("SLUICE_MARIADB_PAM_CLEARTEXT"), "1") << "the server must ask for mysql_clear_password";
    auto o = pam_options();
    o.ssl_mode = SslMode::disable;
    try {
        Connection::connect(o);
        FAIL() << "the password must not be sent in clear";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::auth) << e.what();
        EXPECT_NE(std::string(e.what()).find("mysql_clear_password"), std::string::npos) << e.what();
    }
    o.allow_cleartext = true;
    Connection c = Connection::connect(o);
    EXPECT_FALSE(c.is_tls());
    EXPECT_EQ(current_user(c), o.user);
}

TEST_F(ClearPassword, SucceedsOverTls) {
    auto o = pam_options();
    o.ssl_ca = env_->require("SLUICE_CA");
    Connection c = Connection::connect(o);
    EXPECT_TRUE(c.is_tls());
    EXPECT_EQ(current_user(c), o.user);
}

}  // namespace
}  // namespace sluice::mariadb
