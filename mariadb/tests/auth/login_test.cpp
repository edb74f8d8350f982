// Every auth plugin end to end: real logins through Connection against the
// private MariaDB (whose users are identified via native password, ed25519,
// PAM with the dialog plugin, GSSAPI, and a native user that REQUIREs SSL).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "sluice/common/env_file.hpp"
#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/row.hpp"

namespace sluice::mariadb {
namespace {

// ER_ACCESS_DENIED_ERROR
constexpr std::uint16_t access_denied = 1045;

class Login : public ::testing::Test {
protected:
    EnvFile env = EnvFile::from_environment();

    ConnectOptions options(const std::string& user_key, const std::string& password_key = "") const {
        ConnectOptions o;
        o.host = env.require("SLUICE_HOST");
        o.port = static_cast<std::uint16_t>(std::stoi(env.require("SLUICE_MARIADB_PORT")));
        o.user = env.require(user_key);
        if (!password_key.empty()) o.password = env.require(password_key);
        o.database = env.require("SLUICE_MARIADB_DATABASE");
        o.ssl_mode = SslMode::disable;
        return o;
    }

    ConnectOptions with_tls(ConnectOptions o) const {
        o.ssl_mode = SslMode::verify_full;
        o.ssl_ca = env.require("SLUICE_CA");
        return o;
    }

    // The account the server authenticated us as (user part of CURRENT_USER()).
    static std::string current_user(Connection& c) {
        ResultSet rs = c.query("SELECT SUBSTRING_INDEX(CURRENT_USER(), '@', 1)");
        const Row* row = rs.next();
        EXPECT_NE(row, nullptr);
        std::string user = row ? row->get<std::string>(0) : std::string();
        while (rs.next() != nullptr) {
        }
        return user;
    }

    static void expect_access_denied(const ConnectOptions& o) {
        try {
            Connection::connect(o);
            FAIL() << "expected access denied for " << o.user;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::server) << e.what();
            EXPECT_EQ(e.server_code(), access_denied) << e.what();
        }
    }

    static void expect_auth_refusal(const ConnectOptions& o, const std::string& plugin) {
        try {
            Connection::connect(o);
            FAIL() << "expected the client to refuse " << plugin;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::auth) << e.what();
            EXPECT_NE(std::string(e.what()).find(plugin), std::string::npos) << e.what();
        }
    }
};

TEST_F(Login, NativePassword) {
    Connection c = Connection::connect(options("SLUICE_MARIADB_NATIVE_USER", "SLUICE_MARIADB_NATIVE_PASSWORD"));
    EXPECT_EQ(current_user(c), env.require("SLUICE_MARIADB_NATIVE_USER"));
    EXPECT_FALSE(c.is_tls());
}

TEST_F(Login, NativePasswordWrongPassword) {
    ConnectOptions o = options("SLUICE_MARIADB_NATIVE_USER");
    o.password = "not-the-password";
    expect_access_denied(o);
}

TEST_F(Login, NativePasswordOverTlsAndCompression) {
    ConnectOptions o = with_tls(options("SLUICE_MARIADB_NATIVE_USER", "SLUICE_MARIADB_NATIVE_PASSWORD"));
    o.compress = true;
    Connection c = Connection::connect(o);
    EXPECT_TRUE(c.is_tls());
    EXPECT_TRUE(c.is_compressed());
    EXPECT_EQ(current_user(c), env.require("SLUICE_MARIADB_NATIVE_USER"));
}

TEST_F(Login, Ed25519ThroughAuthSwitch) {
    // The server greets with mysql_native_password; the account's plugin
    // makes it switch to client_ed25519 with a 32-byte scramble.
    Connection c = Connection::connect(options("SLUICE_MARIADB_ED25519_USER", "SLUICE_MARIADB_ED25519_PASSWORD"));
    EXPECT_EQ(current_user(c), env.require("SLUICE_MARIADB_ED25519_USER"));
}

TEST_F(Login, Ed25519WrongPassword) {
    ConnectOptions o = options("SLUICE_MARIADB_ED25519_USER");
    o.password = "not-the-password";
    expect_access_denied(o);
}

TEST_F(Login, PamDialogOverTls) {
    Connection c = Connection::connect(with_tls(options("SLUICE_MARIADB_PAM_USER", "SLUICE_MARIADB_PAM_PASSWORD")));
    EXPECT_TRUE(c.is_tls());
    EXPECT_EQ(current_user(c), env.require("SLUICE_MARIADB_PAM_USER"));
}

TEST_F(Login, PamDialogRefusedOnPlainTcp) {
    expect_auth_refusal(options("SLUICE_MARIADB_PAM_USER", "SLUICE_MARIADB_PAM_PASSWORD"), "dialog");
}

TEST_F(Login, PamDialogOnPlainTcpWhenTheCallerOptsIn) {
    ConnectOptions o = options("SLUICE_MARIADB_PAM_USER", "SLUICE_MARIADB_PAM_PASSWORD");
    o.allow_cleartext = true;
    Connection c = Connection::connect(o);
    EXPECT_EQ(current_user(c), env.require("SLUICE_MARIADB_PAM_USER"));
}

TEST_F(Login, PamDialogOverTheUnixSocket) {
    // A unix socket never leaves the machine: the password may go in clear.
    ConnectOptions o = options("SLUICE_MARIADB_PAM_USER", "SLUICE_MARIADB_PAM_PASSWORD");
    o.unix_socket = env.require("SLUICE_MARIADB_SOCKET");
    Connection c = Connection::connect(o);
    EXPECT_EQ(current_user(c), env.require("SLUICE_MARIADB_PAM_USER"));
}

TEST_F(Login, PamDialogWrongPassword) {
    ConnectOptions o = with_tls(options("SLUICE_MARIADB_PAM_USER"));
    o.password = "not-the-password";
    expect_access_denied(o);
}

TEST_F(Login, RequireSslUserNeedsTls) {
    Connection c = Connection::connect(with_tls(options("SLUICE_MARIADB_SSL_USER", "SLUICE_MARIADB_SSL_PASSWORD")));
    EXPECT_TRUE(c.is_tls());
    EXPECT_EQ(current_user(c), env.require("SLUICE_MARIADB_SSL_USER"));
    expect_access_denied(options("SLUICE_MARIADB_SSL_USER", "SLUICE_MARIADB_SSL_PASSWORD"));
}

TEST_F(Login, GssapiWithTheTicketFromTheKdc) {
    ::setenv("KRB5_CONFIG", env.require("KRB5_CONFIG").c_str(), 1);
    ::setenv("KRB5CCNAME", env.require("SLUICE_KRB5_CCACHE").c_str(), 1);
    Connection c = Connection::connect(options("SLUICE_MARIADB_GSSAPI_USER"));
    EXPECT_EQ(current_user(c), env.require("SLUICE_MARIADB_GSSAPI_USER"));
}

TEST_F(Login, GssapiWithoutATicket) {
    ::setenv("KRB5_CONFIG", env.require("KRB5_CONFIG").c_str(), 1);
    ::setenv("KRB5CCNAME", "FILE:/nonexistent/sluice-empty-ccache", 1);
    try {
        Connection::connect(options("SLUICE_MARIADB_GSSAPI_USER"));
        FAIL() << "expected an auth error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::auth) << e.what();
        const std::string what = e.what();
        EXPECT_NE(what.find(env.require("SLUICE_KRB5_SERVICE_PRINCIPAL")), std::string::npos) << what;
        EXPECT_NE(what.find("sluice-empty-ccache"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace sluice::mariadb
