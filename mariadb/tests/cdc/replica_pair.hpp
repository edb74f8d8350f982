#pragma once
// A private primary and its replica (scripts/servers/start --only
// mariadb,mariadb-replica), for the failover tests: they SIGKILL, promote
// and rebuild servers, so the pair is the test's own, never the shared
// fixture's. Shared by the CDC and the pipeline failover tests.
#include <signal.h>

#include <chrono>
#include <string>

#include "../../../tests/support/own_servers.hpp"
#include "cdc_support.hpp"
#include "sluice/mariadb/mariadb.hpp"

namespace sluice::mariadb::test {

class ReplicaPair {
public:
    // "mariadb" (server_id 1, the primary at start) and "mariadb-replica"
    // (server_id 2) are the two servers' names.
    explicit ReplicaPair(const std::string& name, const std::string& also = "")
        : servers_(name, "mariadb,mariadb-replica" + (also.empty() ? "" : "," + also)) {}

    bool started() const { return servers_.started(); }
    std::string log() const { return servers_.log(); }
    const EnvFile& env() const { return servers_.env(); }
    test_support::OwnServers& servers() { return servers_; }

    std::string url(const std::string& server) const {
        return env().require(server == "mariadb" ? "SLUICE_MARIADB_URL" : "SLUICE_MARIADB_REPLICA_URL");
    }
    std::string port(const std::string& server) const {
        return env().require(server == "mariadb" ? "SLUICE_MARIADB_PORT" : "SLUICE_MARIADB_REPLICA_PORT");
    }
    // mariadb://admin@127.0.0.1:P1,127.0.0.1:P2/sluice: the primary first.
    std::string list_url() const {
        return "mariadb://" + env().require("SLUICE_MARIADB_ADMIN_USER") + ":" +
               env().require("SLUICE_MARIADB_ADMIN_PASSWORD") + "@127.0.0.1:" + port("mariadb") + ",127.0.0.1:" +
               port("mariadb-replica") + "/sluice";
    }
    Connection connect(const std::string& server) const { return Connection::connect(url(server)); }

    // SIGKILL: an unplanned end, nothing flushed or said to clients.
    bool kill(const std::string& server) {
        const pid_t p = servers_.pid(server);
        if (p <= 0 || ::kill(p, SIGKILL) != 0) return false;
        return test_support::wait_gone(p, std::chrono::seconds(30));
    }

    // The replica becomes a primary: no replication, writable.
    static void promote(Connection& c) {
        c.execute("STOP ALL SLAVES");
        c.execute("RESET SLAVE ALL");
        c.execute("SET GLOBAL read_only = OFF");
    }

    // Until `c` applied `gtid_pos` (MASTER_GTID_WAIT); false after 60 s.
    static bool caught_up(Connection& c, const std::string& gtid_pos) {
        return scalar(c, "SELECT MASTER_GTID_WAIT('" + gtid_pos + "', 60)") == "0";
    }

    // A killed server started again on its port and data (its my.cnf).
    bool start_again(const std::string& server) {
        const std::string cnf = env().require(server == "mariadb" ? "SLUICE_MARIADB_CNF" : "SLUICE_MARIADB_REPLICA_CNF");
        if (!servers_.spawn(server, {"/usr/sbin/mariadbd", "--defaults-file=" + cnf})) return false;
        return test_support::wait_until(
            [&] {
                try {
                    connect(server);
                    return true;
                } catch (const Error&) {
                    return false;
                }
            },
            std::chrono::seconds(60));
    }

    // `server`, started again, made a replica of `primary` from where its
    // own binlog ends (a planned switchover left nothing unsent).
    bool rebuild_as_replica(const std::string& server, const std::string& primary) {
        if (!start_again(server)) return false;
        Connection c = connect(server);
        c.execute("SET GLOBAL read_only = ON");
        c.execute("SET GLOBAL gtid_slave_pos = @@global.gtid_binlog_pos");
        c.execute("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=" + port(primary) + ", MASTER_USER='" +
                  env().require("SLUICE_MARIADB_ADMIN_USER") + "', MASTER_PASSWORD='" +
                  env().require("SLUICE_MARIADB_ADMIN_PASSWORD") + "', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1");
        c.execute("START SLAVE");
        return true;
    }

private:
    test_support::OwnServers servers_;
};

}  // namespace sluice::mariadb::test
