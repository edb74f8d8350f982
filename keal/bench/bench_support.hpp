#pragma once
// What the Keal benchmarks share: a server to run against (given, named by
// $SLUICE_ENV_FILE, or started for the run), shell commands, files.
#include <memory>
#include <optional>
#include <string>

#include "sluice/common/env_file.hpp"
#include "sluice/postgres/connection.hpp"

namespace keal::bench {

using Connection = sluice::postgres::Connection;

// A session with notices discarded.
Connection connect(const std::string& url);
void exec(Connection& c, const std::string& sql);
// The one value of a one-row, one-column query ("NULL" for NULL).
std::string scalar(Connection& c, const std::string& sql);

std::string shell_quote(const std::string& s);
// Runs a shell command; throws with its output when it fails.
void run_command(const std::string& command);
// A temporary directory the postgres user can read.
std::string make_temp_dir(const std::string& prefix);
std::string read_file(const std::string& path);

// A PostgreSQL of the benchmark's own, when no server was given
// (scripts/servers/start --only postgres; stopped on destruction).
class OwnServer {
public:
    OwnServer();
    ~OwnServer();
    OwnServer(const OwnServer&) = delete;
    OwnServer& operator=(const OwnServer&) = delete;
    std::string env_path() const { return dir_ + "/env"; }

private:
    std::string dir_;
};

// The superuser URL of the server: `db_url` when given, else $SLUICE_ENV_FILE's,
// else a server started into `own`. `bench_url` receives the URL of database
// `db` on the same server.
std::string server_url(const std::string& db_url, std::unique_ptr<OwnServer>& own, const std::string& db,
                       std::string& bench_url);

std::string with_database(const sluice::EnvFile& env, const std::string& db);
// Replaces the database of a postgresql:// URL (no query string expected).
std::string replace_database(const std::string& url, const std::string& db);

}  // namespace keal::bench
