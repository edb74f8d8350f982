#pragma once
// A PostgreSQL server of a test's own (scripts/servers/start --only
// postgres in its own directory), which the test may stop and start again:
// restart() shuts the postmaster down fast (SIGINT) and starts it again with
// the same command line, data and port, as the start script did, so that
// the stop script still finds it by its PID file. The spawning, PIDs and
// directories are tests/support/own_servers.hpp's.
#include <signal.h>

#include <chrono>
#include <string>
#include <vector>

#include "../../tests/support/own_servers.hpp"
#include "pipeline_support.hpp"
#include "sluice/postgres/connection.hpp"

namespace sluice::pipeline::test {

class PrivatePostgres {
public:
    explicit PrivatePostgres(const std::string& name) : servers_(name, "postgres") {}

    bool started() const { return servers_.started(); }
    std::string log() const { return servers_.log(); }
    std::string url() const { return servers_.env().require("SLUICE_PG_URL"); }

    // Stops the server (fast shutdown: every client connection is cut) and
    // starts it again on the same port; true once it takes connections.
    bool restart() { return stop() && start_again(); }
    // The two halves of restart(), for tests that look at a client while
    // the server is down.
    bool stop() {
        using namespace std::chrono_literals;
        const pid_t old = servers_.pid("postgres");
        args_ = test_support::process_arguments(old);
        if (old <= 0 || args_.empty()) return false;
        ::kill(old, SIGINT);
        return test_support::wait_gone(old, 30s);
    }
    bool start_again() {
        using namespace std::chrono_literals;
        if (args_.empty()) return false;
        std::vector<std::string> argv = {"setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"};
        argv.insert(argv.end(), args_.begin(), args_.end());
        if (!servers_.spawn("postgres", argv)) return false;
        return test_support::wait_until(
            [&] {
                try {
                    postgres::Connection::open(url());
                    return true;
                } catch (const std::exception&) {
                    return false;
                }
            },
            30s);
    }

private:
    test_support::OwnServers servers_;
    std::vector<std::string> args_;  // the stopped postmaster's command line
};

}  // namespace sluice::pipeline::test
