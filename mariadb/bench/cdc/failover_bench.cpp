// CDC failover benchmark (issue 26): the time from the new primary
// accepting connections as a primary (promoted: replication reset,
// read_only off) to the first transaction written there being delivered by
// `sluice-mariadb cdc` with both servers in its URL. Each run gets a fresh
// primary and replica (scripts/servers/start --only mariadb,mariadb-replica),
// SIGKILLs the primary once cdc has caught up, promotes the replica and
// commits one INSERT there at once. Two settings interleaved: the goal's
// `--failover-after 1`, and `--failover-after 0` (the list tried at the
// first failed reconnect), whose time is the failover's own cost.
// Writes a JSON fragment that scripts/bench/run_mariadb_cdc.sh puts into the
// CDC capture under "failover".
//
//   mariadb_cdc_failover_bench --cli build/release/.../sluice-mariadb --dir SCRATCH --out failover.json [--reps 5]
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "sluice/common/env_file.hpp"
#include "sluice/common/json_write.hpp"
#include "sluice/mariadb/mariadb.hpp"

namespace {

using namespace sluice::mariadb;
using Clock = std::chrono::steady_clock;

struct Args {
    std::string cli, dir, out;
    int reps = 5;
};

std::string scalar(Connection& c, const std::string& sql) {
    ResultSet rs = c.query(sql);
    const Row* r = rs.next();
    std::string v = r ? r->get<std::optional<std::string>>(0).value_or("") : "";
    while (rs.next()) {
    }
    return v;
}

std::string machine() {
    std::string cpu;
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("model name", 0) == 0) {
            cpu = line.substr(line.find(':') + 2);
            break;
        }
    }
    utsname u{};
    ::uname(&u);
    double load[3] = {0, 0, 0};
    ::getloadavg(load, 3);
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s, %ld CPUs online, Linux %s (load average %.2f at the start)", cpu.c_str(),
                  ::sysconf(_SC_NPROCESSORS_ONLN), u.release, load[0]);
    return buf;
}

bool process_alive(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(") ");
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// The CLI with stdout into a pipe the bench reads line by line.
class Cli {
public:
    Cli(const std::string& cli, const std::vector<std::string>& args, const std::string& err) {
        int fds[2];
        if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(fds[1], 1);
            ::close(fds[0]);
            ::close(fds[1]);
            std::freopen(err.c_str(), "a", stderr);
            std::vector<char*> argv{const_cast<char*>(cli.c_str())};
            for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
            argv.push_back(nullptr);
            ::execv(cli.c_str(), argv.data());
            ::_exit(127);
        }
        ::close(fds[1]);
        fd_ = fds[0];
    }
    ~Cli() {
        ::kill(pid_, SIGTERM);
        int st = 0;
        ::waitpid(pid_, &st, 0);
        ::close(fd_);
    }
    // The next line containing `text` (false after `limit`).
    bool wait_for(const std::string& text, std::chrono::seconds limit) {
        const auto end = Clock::now() + limit;
        for (;;) {
            for (std::size_t nl; (nl = buffer_.find('\n')) != std::string::npos;) {
                const std::string line = buffer_.substr(0, nl);
                buffer_.erase(0, nl + 1);
                if (line.find(text) != std::string::npos) return true;
            }
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
            if (left <= 0) return false;
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
            char buf[65536];
            const ssize_t n = ::read(fd_, buf, sizeof buf);
            if (n <= 0) return false;
            buffer_.append(buf, static_cast<std::size_t>(n));
        }
    }

private:
    pid_t pid_ = -1;
    int fd_ = -1;
    std::string buffer_;
};

struct Sample {
    double since_promotion = -1;  // promoted -> the new primary's first transaction delivered
    double since_kill = -1;       // primary SIGKILLed -> that transaction delivered
};

Sample one_run(const Args& a, double failover_after, int run) {
    const std::string dir = a.dir + "/run-" + std::to_string(run);
    const std::string servers = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/";
    if (std::system((servers + "start --dir " + dir + " --only mariadb,mariadb-replica > " + dir + ".log 2>&1").c_str()) != 0)
        throw std::runtime_error("scripts/servers/start failed: see " + dir + ".log");
    struct Stop {
        std::string command;
        ~Stop() { [[maybe_unused]] int rc = std::system(command.c_str()); }
    } stop{servers + "stop --dir " + dir + " > /dev/null 2>&1"};
    const sluice::EnvFile env = sluice::EnvFile::load(dir + "/env");
    Connection primary = Connection::connect(env.require("SLUICE_MARIADB_URL"));
    Connection replica = Connection::connect(env.require("SLUICE_MARIADB_REPLICA_URL"));
    primary.execute("CREATE TABLE sluice.f (id BIGINT PRIMARY KEY, v INT)");
    for (int i = 1; i <= 100; ++i) primary.execute("INSERT INTO sluice.f VALUES (" + std::to_string(i) + ", 0)");
    if (scalar(replica, "SELECT MASTER_GTID_WAIT('" + scalar(primary, "SELECT @@gtid_binlog_pos") + "', 60)") != "0")
        throw std::runtime_error("the replica did not catch up");
    const std::string list = "mariadb://" + env.require("SLUICE_MARIADB_ADMIN_USER") + ":" +
                             env.require("SLUICE_MARIADB_ADMIN_PASSWORD") + "@127.0.0.1:" +
                             env.require("SLUICE_MARIADB_PORT") + ",127.0.0.1:" +
                             env.require("SLUICE_MARIADB_REPLICA_PORT") + "/sluice";
    char after[32];
    std::snprintf(after, sizeof after, "%g", failover_after);
    Cli cdc(a.cli, {"cdc", list, "--from-start", "--failover-after", after}, dir + "-cdc.log");
    if (!cdc.wait_for("\"after\":{\"id\":100,", std::chrono::seconds(60)))
        throw std::runtime_error("cdc did not catch up: see " + dir + "-cdc.log");

    long pid = 0;
    std::ifstream(dir + "/mariadb.pid") >> pid;
    const auto killed = Clock::now();
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    while (process_alive(static_cast<pid_t>(pid))) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    replica.execute("STOP ALL SLAVES");
    replica.execute("RESET SLAVE ALL");
    replica.execute("SET GLOBAL read_only = OFF");
    const auto promoted = Clock::now();
    replica.execute("INSERT INTO sluice.f VALUES (1000, 0)");
    if (!cdc.wait_for("\"after\":{\"id\":1000,", std::chrono::seconds(60)))
        throw std::runtime_error("the new primary's transaction was not delivered: see " + dir + "-cdc.log");
    const auto delivered = Clock::now();
    Sample s;
    s.since_promotion = std::chrono::duration<double>(delivered - promoted).count();
    s.since_kill = std::chrono::duration<double>(delivered - killed).count();
    std::filesystem::remove(dir + ".log");
    std::filesystem::remove(dir + "-cdc.log");
    return s;
}

std::string json_array(const std::vector<double>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.4f", i ? ", " : "", v[i]);
        s += buf;
    }
    return s + "]";
}

}  // namespace

int main(int argc, char** argv) {
    Args a;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--cli") a.cli = v;
        else if (k == "--dir") a.dir = v;
        else if (k == "--out") a.out = v;
        else if (k == "--reps") a.reps = std::stoi(v);
        else {
            std::cerr << "mariadb_cdc_failover_bench: unknown option " << k << "\n";
            return 2;
        }
    }
    if (a.cli.empty() || a.dir.empty() || a.out.empty()) {
        std::cerr << "usage: mariadb_cdc_failover_bench --cli PATH --dir SCRATCH --out FILE.json [--reps N]\n";
        return 2;
    }
    std::filesystem::create_directories(a.dir);
    const std::string started = machine();
    const auto wall = std::chrono::system_clock::now();
    const double settings[] = {1.0, 0.0};
    std::vector<double> promoted[2], killed[2];
    try {
        for (int rep = 0; rep < a.reps; ++rep) {
            // Interleaved, the order alternating per repetition.
            for (int k = 0; k < 2; ++k) {
                const int which = (rep % 2 == 0) ? k : 1 - k;
                const Sample s = one_run(a, settings[which], rep * 2 + k);
                promoted[which].push_back(s.since_promotion);
                killed[which].push_back(s.since_kill);
                std::cerr << "failover-after " << settings[which] << ": " << s.since_promotion
                          << " s from promotion, " << s.since_kill << " s from the kill\n";
            }
        }
    } catch (const std::exception& e) {
        std::cerr << "mariadb_cdc_failover_bench: " << e.what() << "\n";
        return 1;
    }
    auto ts = std::chrono::system_clock::to_time_t(wall);
    char date[64];
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", std::gmtime(&ts));
    double load[3] = {0, 0, 0};
    ::getloadavg(load, 3);
    std::string m;
    sluice::json::append_string(m, started);
    std::ofstream o(a.out);
    o << "{\"date\": \"" << date << "\", \"machine\": " << m << ", \"load_at_end\": " << load[0]
      << ", \"reps\": " << a.reps << ", \"runs\": [\n";
    for (int k = 0; k < 2; ++k) {
        o << "  {\"failover_after\": " << settings[k] << ", \"since_promotion_seconds\": " << json_array(promoted[k])
          << ", \"since_kill_seconds\": " << json_array(killed[k]) << "}" << (k == 0 ? "," : "") << "\n";
    }
    o << "]}\n";
    std::cerr << "wrote " << a.out << "\n";
    return 0;
}
