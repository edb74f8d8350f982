#pragma once
// A private three-node NATS JetStream cluster for a test (scripts/servers/start
// --only nats under the build tree's servers-own/ folder), whose nodes the
// test can SIGKILL and start again. Stopped and removed at the end (the
// spawning, PIDs and directories are tests/support/own_servers.hpp's).
#include <signal.h>

#include <chrono>
#include <string>

#include "../../tests/support/own_servers.hpp"

namespace sluice::test {

class NatsCluster {
public:
    explicit NatsCluster(const std::string& name) : servers_(name, "nats") {}
    bool started() const { return servers_.started(); }
    std::string log() const { return servers_.log(); }
    // All three client URLs, comma-separated (what clients are given).
    std::string urls() const { return servers_.env().require("SLUICE_NATS_URL"); }

    pid_t pid(int node) const { return servers_.pid("nats-" + std::to_string(node)); }
    // SIGKILL of node 1..3; returns once the process is gone.
    void kill(int node) {
        const pid_t p = pid(node);
        if (p <= 0) return;
        ::kill(p, SIGKILL);
        test_support::wait_gone(p, std::chrono::seconds(4));
    }
    // Starts a killed node again from its configuration (the new PID in its
    // PID file, which nats-server also writes); returns once the new process runs.
    bool restart(int node) {
        const std::string n = std::to_string(node);
        return servers_.spawn("nats-" + n, {"/usr/sbin/nats-server", "-c", servers_.env().require("SLUICE_NATS_CONF_" + n)},
                              servers_.dir() + "/logs/nats-" + n + ".log");
    }

private:
    test_support::OwnServers servers_;
};

}  // namespace sluice::test
