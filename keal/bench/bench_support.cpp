#include "bench_support.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#ifndef SLUICE_SOURCE_DIR
#error "SLUICE_SOURCE_DIR must name the source tree (set by CMake)"
#endif

namespace keal::bench {

namespace fs = std::filesystem;

Connection connect(const std::string& url) {
    Connection c = Connection::open(url);
    c.set_notice_handler({});
    return c;
}

void exec(Connection& c, const std::string& sql) { c.run_script(sql); }

std::string scalar(Connection& c, const std::string& sql) {
    const sluice::postgres::Result r = c.query(sql);
    if (r.size() != 1 || r.columns().size() != 1) throw std::runtime_error("expected one value from: " + sql);
    return r.row(0).get<std::optional<std::string>>(0).value_or("NULL");
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out + "'";
}

// Runs a shell command; throws with its output when it fails.
void run_command(const std::string& command) {
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe) throw std::runtime_error("cannot run " + command);
    std::string output;
    char buffer[4096];
    std::size_t n = 0;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
    const int status = pclose(pipe);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error(command + " failed:\n" + output);
}

std::string make_temp_dir(const std::string& prefix) {
    std::string pattern = (fs::temp_directory_path() / (prefix + "XXXXXX")).string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
    // The postgres user must be able to read what we put here.
    fs::permissions(pattern, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                 fs::perms::others_read | fs::perms::others_exec);
    return pattern;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

OwnServer::OwnServer() : dir_(make_temp_dir("keal-bench-servers-")) {
    std::cerr << "starting a private PostgreSQL in " << dir_ << "\n";
    run_command(shell_quote(std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/start") + " --dir " + shell_quote(dir_) +
                " --only postgres");
}

OwnServer::~OwnServer() {
    try {
        run_command(shell_quote(std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/stop") + " --dir " + shell_quote(dir_));
        fs::remove_all(dir_);
    } catch (const std::exception& e) {
        std::cerr << "warning: " << e.what() << "\n";
    }
}

std::string with_database(const sluice::EnvFile& env, const std::string& db) {
    return "postgresql://" + env.require("SLUICE_PG_USER") + "@" + env.require("SLUICE_HOST") + ":" +
           env.require("SLUICE_PG_PORT") + "/" + db;
}

// Replaces the database of a postgresql:// URL (no query string expected).
std::string replace_database(const std::string& url, const std::string& db) {
    const std::size_t scheme = url.find("://");
    const std::size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
    if (scheme == std::string::npos || url.find('?') != std::string::npos)
        throw std::runtime_error("--db must be a postgresql://user@host:port/db URL without options");
    return (slash == std::string::npos ? url : url.substr(0, slash)) + "/" + db;
}

std::string server_url(const std::string& db_url, std::unique_ptr<OwnServer>& own, const std::string& db,
                       std::string& bench_url) {
    if (!db_url.empty()) {
        bench_url = replace_database(db_url, db);
        return db_url;
    }
    std::optional<sluice::EnvFile> env;
    if (const char* p = std::getenv("SLUICE_ENV_FILE"); p && *p) {
        env = sluice::EnvFile::load(p);
    } else {
        own = std::make_unique<OwnServer>();
        env = sluice::EnvFile::load(own->env_path());
    }
    bench_url = with_database(*env, db);
    return env->require("SLUICE_PG_URL");
}

}  // namespace keal::bench
