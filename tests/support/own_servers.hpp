#pragma once
// Servers of a test's own, shared by every part's tests: the spawn, PID,
// wait and directory code that mariadb/tests/cdc/cdc_support.hpp
// (PrivateServer), nats/tests/nats_cluster.hpp (NatsCluster) and
// pipeline/tests/private_postgres.hpp (PrivatePostgres) each had a copy of.
//
//   OwnServers s("pipeline-pg-restart", "postgres");
//   if (!s.started()) FAIL() << s.log();
//   std::string url = s.env().require("SLUICE_PG_URL");
//
// Header-only, included by relative path (like the headers above): a test
// target that includes it needs no new library to link, only the two
// definitions every server test target already has, SLUICE_SOURCE_DIR (the
// checkout, for scripts/servers/) and SLUICE_OWN_SERVERS_DIR (the build
// tree's folder that scripts/test sweeps for leftovers).
//
// Free loopback ports are scripts/servers/start's job (it picks them, and
// retries a port taken meanwhile); a restarted server keeps its port.
//
// LIFETIME: OwnServers stops its servers (scripts/servers/stop, by PID) and
// removes its directory and log when destroyed; env() is loaded once.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sluice/common/env_file.hpp"

namespace sluice::test_support {

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// For /bin/sh: 'text', with every ' spelled '\''.
inline std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

// The process exists and is not a zombie (kill(pid, 0) also succeeds on a
// zombie; PID 1 of a container may reap late).
inline bool process_alive(pid_t pid) {
    if (pid <= 0) return false;
    const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
    const auto close = stat.rfind(") ");
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// Polls `ready` every `step` until it is true (true) or `limit` passed (false).
inline bool wait_until(const std::function<bool()>& ready, std::chrono::milliseconds limit,
                       std::chrono::milliseconds step = std::chrono::milliseconds(50)) {
    const auto end = std::chrono::steady_clock::now() + limit;
    for (;;) {
        if (ready()) return true;
        if (std::chrono::steady_clock::now() >= end) return false;
        std::this_thread::sleep_for(step);
    }
}

// Until `pid` is gone (or a zombie); false after `limit`.
inline bool wait_gone(pid_t pid, std::chrono::milliseconds limit) {
    return wait_until([&] { return !process_alive(pid); }, limit);
}

// A running process's argv, from /proc/PID/cmdline (empty when it is gone).
inline std::vector<std::string> process_arguments(pid_t pid) {
    const std::string cmd_line = read_text("/proc/" + std::to_string(pid) + "/cmdline");
    std::vector<std::string> out;
    for (std::size_t p = 0; p < cmd_line.size();) {
        out.emplace_back(cmd_line.c_str() + p);
        p += out.back().size() + 1;
    }
    return out;
}

class OwnServers {
public:
    // scripts/servers/start --dir SLUICE_OWN_SERVERS_DIR/NAME-PID --only
    // ONLY (e.g. "postgres", "mariadb", "nats"); its output goes to DIR.log.
    OwnServers(const std::string& name, const std::string& only) {
        std::filesystem::create_directories(SLUICE_OWN_SERVERS_DIR);
        dir_ = (std::filesystem::path(SLUICE_OWN_SERVERS_DIR) / (name + "-" + std::to_string(::getpid()))).string();
        const std::string start = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/start --dir " + dir_ +
                                  " --only " + only + " > " + log_path() + " 2>&1";
        started_ = std::system(start.c_str()) == 0;
    }
    OwnServers(const OwnServers&) = delete;
    OwnServers& operator=(const OwnServers&) = delete;
    ~OwnServers() {
        const std::string stop = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/stop --dir " + dir_ + " > /dev/null 2>&1";
        [[maybe_unused]] int rc = std::system(stop.c_str());
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
        std::filesystem::remove(log_path(), ignored);
    }

    bool started() const { return started_; }
    const std::string& dir() const { return dir_; }
    // start's output, and whatever spawn() appended to it.
    std::string log_path() const { return dir_ + ".log"; }
    std::string log() const { return read_text(log_path()); }
    // DIR/env (the servers' URLs, ports, configuration files).
    const EnvFile& env() const {
        if (!env_) env_.emplace(EnvFile::load(dir_ + "/env"));
        return *env_;
    }
    // DIR/SERVER.pid (0 when missing), what scripts/servers/stop signals.
    pid_t pid(const std::string& server) const {
        long p = 0;
        std::ifstream(dir_ + "/" + server + ".pid") >> p;
        return static_cast<pid_t>(p);
    }

    // Starts `argv` in a session of its own (setsid, as start does: stop
    // signals its process group), stdin from /dev/null, stdout and stderr
    // appended to `log` (default: log_path()), its PID in DIR/SERVER.pid.
    // True once the new process runs.
    bool spawn(const std::string& server, const std::vector<std::string>& argv, const std::string& log = {}) {
        const pid_t old = pid(server);
        std::string command = "setsid";
        for (const std::string& a : argv) command += " " + shell_quote(a);
        command += " </dev/null >> " + shell_quote(log.empty() ? log_path() : log) + " 2>&1 & echo $! > " +
                   shell_quote(dir_ + "/" + server + ".pid");
        if (std::system(command.c_str()) != 0) return false;
        return wait_until(
            [&] {
                const pid_t p = pid(server);
                return p > 0 && p != old && process_alive(p);
            },
            std::chrono::seconds(10), std::chrono::milliseconds(20));
    }

private:
    std::string dir_;
    bool started_ = false;
    mutable std::optional<EnvFile> env_;
};

}  // namespace sluice::test_support
