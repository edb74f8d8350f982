// Connecting: from a URL, from DATABASE_URL, from the PG* variables; and
// what a failed connection says.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <thread>

#include "sluice/common/env_file.hpp"
#include "sluice/postgres/connection.hpp"
#include "support.hpp"

using namespace sluice::postgres;

namespace {

// Sets an environment variable for one scope and restores it after.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) {
        if (const char* old = getenv(name)) old_ = old;
        setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (old_) setenv(name_, old_->c_str(), 1);
        else unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

std::string current_database(Connection& c) {
    return c.query("select current_database()").row(0).get<std::string>(0);
}

}  // namespace

TEST(Connect, FromAUrl) {
    Connection c = test::connect();
    EXPECT_EQ(current_database(c), "sluice");
    EXPECT_GE(c.server_version(), 150000);
    EXPECT_NE(c.target().find("postgres@127.0.0.1:"), std::string::npos) << c.target();
}

TEST(Connect, FromDatabaseUrlWhenNoUrlIsGiven) {
    ScopedEnv url("DATABASE_URL", test::server_url());
    Connection c = Connection::from_environment();
    EXPECT_EQ(current_database(c), "sluice");
}

TEST(Connect, AnExplicitUrlOverridesDatabaseUrl) {
    ScopedEnv url("DATABASE_URL", "postgresql://nobody@127.0.0.1:1/nowhere");
    Connection c = Connection::from_environment(test::server_url());
    EXPECT_EQ(current_database(c), "sluice");
}

TEST(Connect, FromThePgVariables) {
    const sluice::EnvFile env = sluice::EnvFile::from_environment();
    ScopedEnv no_url("DATABASE_URL", "");
    ScopedEnv host("PGHOST", "127.0.0.1");
    ScopedEnv port("PGPORT", env.require("SLUICE_PG_PORT"));
    ScopedEnv user("PGUSER", env.require("SLUICE_PG_USER"));
    ScopedEnv db("PGDATABASE", "postgres");
    Connection c = Connection::from_environment();
    EXPECT_EQ(current_database(c), "postgres");
}

TEST(Connect, AFailedConnectionNamesTheTargetNotThePassword) {
    try {
        Connection::open("postgresql://someone:secret@127.0.0.1:1/nowhere?connect_timeout=5");
        FAIL() << "connected";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::connection);
        const std::string what = e.what();
        EXPECT_NE(what.find("cannot connect to someone@127.0.0.1:1/nowhere"), std::string::npos) << what;
        EXPECT_EQ(what.find("secret"), std::string::npos) << what;
    }
}

TEST(Connect, ABadUrlIsAConnectionError) {
    try {
        Connection::open("postgresql://[bad");
        FAIL() << "connected";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::connection);
        EXPECT_EQ(std::string(e.what()).rfind("connection string rejected: ", 0), 0u) << e.what();
        EXPECT_NE(std::string(e.what()).find("IPv6 host address"), std::string::npos) << e.what();
    }
}

TEST(Connect, NoticesReachTheHandler) {
    Connection c = test::connect();
    std::vector<std::string> notices;
    c.set_notice_handler([&](const ServerDiagnostics& d) { notices.push_back(d.sqlstate + " " + d.message); });
    c.run_script("do $$ begin raise notice 'hello %', 42; end $$");
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_EQ(notices[0], "00000 hello 42");
}

TEST(Connect, ServerErrorsKeepTheirSqlstateAndTheConnectionStaysUsable) {
    Connection c = test::connect();
    try {
        c.query("select 1 / 0");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::server);
        EXPECT_EQ(e.sqlstate(), "22012");
        EXPECT_EQ(e.server_message(), "division by zero");
    }
    try {
        c.query("select nope from pg_class");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate(), "42703");
        EXPECT_EQ(e.diagnostics().position, 8);
    }
    EXPECT_EQ(c.query("select 2").row(0).get<std::string>(0), "2");
}

// check_not_ended(): an idle connection the server ended (here
// pg_terminate_backend, as a shutdown does: a FATAL, then the close) is an
// Error{connection} at once, without a statement; a live one, also one
// that was sent a notification meanwhile, passes and stays usable.
TEST(Connect, AnIdleConnectionTheServerEndedIsFoundWithoutAStatement) {
    Connection live = test::connect();
    Connection doomed = test::connect();
    Connection admin = test::connect();
    const std::string doomed_pid = doomed.query("select pg_backend_pid()").row(0).get<std::string>(0);
    live.run_script("listen sluice_check_not_ended");
    admin.run_script("notify sluice_check_not_ended, 'hello'");
    live.check_not_ended();
    EXPECT_EQ(live.query("select 3").row(0).get<std::string>(0), "3");

    doomed.check_not_ended();  // alive so far
    admin.query("select pg_terminate_backend($1::int)", {doomed_pid});
    try {
        // The FATAL and the close take a moment to arrive.
        for (int i = 0; i < 500; ++i) {
            doomed.check_not_ended();
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        FAIL() << "the ended connection was not found in 5 s";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::connection);
        EXPECT_NE(std::string(e.what()).find("was ended by the server"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();  // one line, for a log
    }
}
