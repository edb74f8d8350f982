#pragma once
// A private three-node NATS JetStream cluster for a test (scripts/servers/start
// --only nats under the build tree's servers-own/ folder), whose nodes the
// test can SIGKILL and start again. Stopped and removed at the end.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "sluice/common/env_file.hpp"

namespace sluice::test {

class NatsCluster {
public:
    explicit NatsCluster(const std::string& name) {
        std::filesystem::create_directories(SLUICE_OWN_SERVERS_DIR);
        dir_ = (std::filesystem::path(SLUICE_OWN_SERVERS_DIR) / (name + "-" + std::to_string(::getpid()))).string();
        const std::string start = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/start --dir " + dir_ +
                                  " --only nats > " + dir_ + ".log 2>&1";
        started_ = std::system(start.c_str()) == 0;
    }
    NatsCluster(const NatsCluster&) = delete;
    NatsCluster& operator=(const NatsCluster&) = delete;
    ~NatsCluster() {
        const std::string stop = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/stop --dir " + dir_ + " > /dev/null 2>&1";
        [[maybe_unused]] int rc = std::system(stop.c_str());
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
        std::filesystem::remove(dir_ + ".log", ignored);
    }
    bool started() const { return started_; }
    std::string log() const {
        std::ifstream in(dir_ + ".log");
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    }
    // All three client URLs, comma-separated (what clients are given).
    std::string urls() const { return env().require("SLUICE_NATS_URL"); }

    pid_t pid(int node) const {
        long pid = 0;
        std::ifstream(dir_ + "/nats-" + std::to_string(node) + ".pid") >> pid;
        return static_cast<pid_t>(pid);
    }
    // SIGKILL of node 1..3; returns once the process is gone.
    void kill(int node) {
        const pid_t p = pid(node);
        if (p <= 0) return;
        ::kill(p, SIGKILL);
        for (int i = 0; i < 200 && alive(p); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // Starts a killed node again from its configuration (it rewrites its PID
    // file); returns once the new process runs.
    bool restart(int node) {
        const std::string n = std::to_string(node);
        const pid_t old = pid(node);
        const std::string cmd = "setsid /usr/sbin/nats-server -c " + env().require("SLUICE_NATS_CONF_" + n) +
                                " </dev/null >> " + dir_ + "/logs/nats-" + n + ".log 2>&1 &";
        if (std::system(cmd.c_str()) != 0) return false;
        for (int i = 0; i < 500; ++i) {
            const pid_t p = pid(node);
            if (p > 0 && p != old && alive(p)) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return false;
    }

private:
    static bool alive(pid_t p) {
        std::ifstream stat("/proc/" + std::to_string(p) + "/stat");
        std::string line;
        std::getline(stat, line);
        return !line.empty() && line.find(") Z ") == std::string::npos;
    }
    const EnvFile& env() const {
        if (!env_) env_.emplace(EnvFile::load(dir_ + "/env"));
        return *env_;
    }
    std::string dir_;
    bool started_ = false;
    mutable std::optional<EnvFile> env_;
};

}  // namespace sluice::test
