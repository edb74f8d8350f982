#pragma once
// Helpers of the CDC server tests: running the CLI, SQL on a side
// connection, the binlog position before a workload, and a
// private MariaDB for tests that restart or reconfigure one.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../../tests/support/own_servers.hpp"
#include "../client/server_env.hpp"
#include "sluice/common/env_file.hpp"
#include "sluice/mariadb/mariadb.hpp"

namespace sluice::mariadb::test {

struct Outcome {
    std::string out;
    int status = -1;
};

inline Outcome shell(const std::string& cmd) {
    Outcome r;
    FILE* p = ::popen(cmd.c_str(), "r");
    char buf[65536];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
    int st = ::pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

inline std::string quote_arg(const std::string& s) { return test_support::shell_quote(s); }

// sluice-mariadb with these (already quoted) arguments.
inline Outcome run_cli(const std::string& args, bool merge_stderr = false) {
    return shell(std::string(SLUICE_MARIADB_CLI) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null"));
}

inline std::string url_of(const ConnectOptions& o) {
    return "mariadb://" + o.user + ":" + o.password + "@" + o.host + ":" + std::to_string(o.port) + "/" + o.database;
}

inline std::string scalar(Connection& c, const std::string& sql) {
    ResultSet rs = c.query(sql);
    const Row* r = rs.next();
    std::string v = r ? r->get<std::optional<std::string>>(0).value_or("NULL") : "";
    while (rs.next()) {
    }
    return v;
}

inline std::string binlog_pos(Connection& c) { return scalar(c, "SELECT @@global.gtid_binlog_pos"); }

inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) out.push_back(line);
    return out;
}

inline std::string read_file(const std::string& path) { return test_support::read_text(path); }

// A private MariaDB (scripts/servers/start --only mariadb) under the build
// tree's servers-own/ folder, stopped and removed at the end (the spawning,
// PIDs and directories are tests/support/own_servers.hpp's).
class PrivateServer {
public:
    explicit PrivateServer(const std::string& name) : servers_(name, "mariadb") {}
    bool started() const { return servers_.started(); }
    std::string log() const { return servers_.log(); }
    ConnectOptions options() const { return parse_url(url()); }
    std::string url() const { return servers_.env().require("SLUICE_MARIADB_URL"); }
    pid_t pid() const { return servers_.pid("mariadb"); }
    // Stops mariadbd with SIGTERM (clean shutdown) and starts it again on
    // the same port with the same data, as the start script did.
    bool restart() { return stop() && start_again(); }
    // The two halves of restart(), for tests that look at a client while
    // the server is down.
    bool stop() {
        using namespace std::chrono_literals;
        cnf_.clear();
        for (const std::string& arg : test_support::process_arguments(pid()))
            if (arg.rfind("--defaults-file=", 0) == 0) cnf_ = arg.substr(16);
        if (cnf_.empty()) return false;
        const pid_t old = pid();
        ::kill(old, SIGTERM);
        return test_support::wait_gone(old, 30s);
    }
    bool start_again() {
        using namespace std::chrono_literals;
        if (cnf_.empty()) return false;
        if (!servers_.spawn("mariadb", {"/usr/sbin/mariadbd", "--defaults-file=" + cnf_})) return false;
        return test_support::wait_until(
            [&] {
                try {
                    Connection::connect(options());
                    return true;
                } catch (const Error&) {
                    return false;
                }
            },
            30s);
    }

private:
    test_support::OwnServers servers_;
    std::string cnf_;  // the stopped server's --defaults-file
};

}  // namespace sluice::mariadb::test
