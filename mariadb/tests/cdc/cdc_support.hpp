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

inline std::string quote_arg(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

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

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// A private MariaDB (scripts/servers/start --only mariadb) under the build
// tree's servers-own/ folder, stopped and removed at the end.
class PrivateServer {
public:
    explicit PrivateServer(const std::string& name) {
        std::filesystem::create_directories(SLUICE_OWN_SERVERS_DIR);
        dir_ = (std::filesystem::path(SLUICE_OWN_SERVERS_DIR) / (name + "-" + std::to_string(::getpid()))).string();
        const std::string start = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/start --dir " + dir_ +
                                  " --only mariadb > " + dir_ + ".log 2>&1";
        started_ = std::system(start.c_str()) == 0;
    }
    PrivateServer(const PrivateServer&) = delete;
    PrivateServer& operator=(const PrivateServer&) = delete;
    ~PrivateServer() {
        const std::string stop = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/stop --dir " + dir_ + " > /dev/null 2>&1";
        [[maybe_unused]] int rc = std::system(stop.c_str());
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
        std::filesystem::remove(dir_ + ".log", ignored);
    }
    bool started() const { return started_; }
    std::string log() const { return read_file(dir_ + ".log"); }
    ConnectOptions options() const { return parse_url(EnvFile::load(dir_ + "/env").require("SLUICE_MARIADB_URL")); }
    std::string url() const { return EnvFile::load(dir_ + "/env").require("SLUICE_MARIADB_URL"); }
    pid_t pid() const {
        long pid = 0;
        std::ifstream(dir_ + "/mariadb.pid") >> pid;
        return static_cast<pid_t>(pid);
    }
    // Stops mariadbd with SIGTERM (clean shutdown) and starts it again on
    // the same port with the same data, as the start script did.
    bool restart() {
        std::string cmd_line = read_file("/proc/" + std::to_string(pid()) + "/cmdline");
        std::string cnf;
        for (std::size_t p = 0; p < cmd_line.size();) {
            std::string arg = cmd_line.c_str() + p;
            if (arg.rfind("--defaults-file=", 0) == 0) cnf = arg.substr(16);
            p += arg.size() + 1;
        }
        if (cnf.empty()) return false;
        pid_t old = pid();
        ::kill(old, SIGTERM);
        for (int i = 0; i < 600 && ::kill(old, 0) == 0; ++i) ::usleep(50000);
        if (::kill(old, 0) == 0) return false;
        const std::string start = "setsid /usr/sbin/mariadbd --defaults-file=" + cnf + " </dev/null >> " + dir_ +
                                  ".log 2>&1 & echo $! > " + dir_ + "/mariadb.pid";
        if (std::system(start.c_str()) != 0) return false;
        for (int i = 0; i < 600; ++i) {
            try {
                Connection::connect(options());
                return true;
            } catch (const Error&) {
                ::usleep(50000);
            }
        }
        return false;
    }

private:
    std::string dir_;
    bool started_ = false;
};

}  // namespace sluice::mariadb::test
