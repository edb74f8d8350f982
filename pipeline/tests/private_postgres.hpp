#pragma once
// A PostgreSQL server of a test's own (scripts/servers/start --only
// postgres in its own directory), which the test may stop and start again:
// restart() shuts the postmaster down fast (SIGINT) and starts it again with
// the same command line, data and port, as the start script did, so that
// the stop script still finds it by its PID file.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "pipeline_support.hpp"
#include "sluice/common/env_file.hpp"
#include "sluice/postgres/connection.hpp"

namespace sluice::pipeline::test {

class PrivatePostgres {
public:
    explicit PrivatePostgres(const std::string& name) {
        std::filesystem::create_directories(SLUICE_OWN_SERVERS_DIR);
        dir_ = (std::filesystem::path(SLUICE_OWN_SERVERS_DIR) / (name + "-" + std::to_string(::getpid()))).string();
        const std::string start = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/start --dir " + dir_ +
                                  " --only postgres > " + dir_ + ".log 2>&1";
        started_ = std::system(start.c_str()) == 0;
    }
    PrivatePostgres(const PrivatePostgres&) = delete;
    PrivatePostgres& operator=(const PrivatePostgres&) = delete;
    ~PrivatePostgres() {
        const std::string stop = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/stop --dir " + dir_ + " > /dev/null 2>&1";
        [[maybe_unused]] int rc = std::system(stop.c_str());
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
        std::filesystem::remove(dir_ + ".log", ignored);
    }
    bool started() const { return started_; }
    std::string log() const { return slurp(dir_ + ".log"); }
    std::string url() const { return EnvFile::load(dir_ + "/env").require("SLUICE_PG_URL"); }

    // Stops the server (fast shutdown: every client connection is cut) and
    // starts it again on the same port; true once it takes connections.
    bool restart() {
        const pid_t old = pid();
        const std::string cmd_line = slurp("/proc/" + std::to_string(old) + "/cmdline");
        if (old <= 0 || cmd_line.empty()) return false;
        std::string command = "setsid setpriv --reuid=postgres --regid=postgres --init-groups";
        for (std::size_t p = 0; p < cmd_line.size();) {
            const std::string arg = cmd_line.c_str() + p;
            command += " '" + arg + "'";  // the start script's arguments hold no quote
            p += arg.size() + 1;
        }
        ::kill(old, SIGINT);
        for (int i = 0; i < 600 && ::kill(old, 0) == 0; ++i) ::usleep(50000);
        if (::kill(old, 0) == 0) return false;
        command += " </dev/null >> " + dir_ + ".log 2>&1 & echo $! > " + dir_ + "/postgres.pid";
        if (std::system(command.c_str()) != 0) return false;
        for (int i = 0; i < 600; ++i) {
            try {
                postgres::Connection::open(url());
                return true;
            } catch (const std::exception&) {
                ::usleep(50000);
            }
        }
        return false;
    }

private:
    static std::string slurp(const std::string& path) { return read_file(path); }
    pid_t pid() const {
        long p = 0;
        std::ifstream(dir_ + "/postgres.pid") >> p;
        return static_cast<pid_t>(p);
    }
    std::string dir_;
    bool started_ = false;
};

}  // namespace sluice::pipeline::test
