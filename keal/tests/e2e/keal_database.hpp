#pragma once
// The end-to-end tests' private database: each test process creates its own
// database in the private PostgreSQL (so concurrent tests never collide),
// deploys Keal programs into it with `keal deploy`, and drops it at exit.
#include "pg_connection.hpp"

#include <set>
#include <string>

namespace keal::e2e {

// Result of running the compiler as a child process.
struct CommandResult {
    int exit_code = -1;
    std::string output;  // stdout and stderr interleaved
};

// Runs `keal <args...>` (the compiler built with these tests) and captures
// its output. Arguments are passed through the shell single-quoted.
CommandResult run_keal(const std::vector<std::string>& args);

// The path of a program under keal/tests/e2e/programs.
std::string program_path(const std::string& file_name);

class KealDatabase {
public:
    // The process's database, created on first use.
    static KealDatabase& get();
    // Drops the database if it was created (called once, at exit).
    static void drop();

    // Deploys programs/<file_name> with `keal deploy --db`, once per process;
    // throws std::runtime_error with the compiler's output if it fails.
    void deploy(const std::string& file_name);
    // A session in the database (also the one the tests use for queries).
    PgConnection& sql() { return session_; }
    // A new, separate session in the database (for per-session settings).
    PgConnection connect() const { return PgConnection(url_); }
    const std::string& url() const { return url_; }
    const std::string& name() const { return name_; }

    KealDatabase(const KealDatabase&) = delete;
    KealDatabase& operator=(const KealDatabase&) = delete;

private:
    KealDatabase(std::string admin_url, std::string name, std::string url);

    std::string admin_url_;
    std::string name_;
    std::string url_;
    PgConnection session_;
    std::set<std::string> deployed_;
};

}  // namespace keal::e2e
