// mariadb_metadata_cpu_bench: why the prepared metadata cache saves what it
// saves. For tables of several widths it runs the same primary-key execute
// with and without MARIADB_CLIENT_CACHE_METADATA, alternating the two in
// one process, and splits the time per execution into wall, client CPU
// (user and system, getrusage) and server CPU (mariadbd's utime + stime
// from /proc, every thread). The speed bench's "metadata cache" row gives
// the ratio; this program shows which side of the wire the saving comes
// from and how it grows with the column count.
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sluice/common/env_file.hpp"
#include "sluice/mariadb/mariadb.hpp"
#include "../target.hpp"

namespace {

using namespace sluice::mariadb;
using sluice::EnvFile;

constexpr int text_columns = 24;  // VARCHAR(24), as in the speed bench's speed_wide
constexpr int table_rows = 1000;

struct Cpu {
    double user = 0, system = 0;
};

Cpu own_cpu() {
    rusage r{};
    ::getrusage(RUSAGE_SELF, &r);
    return {static_cast<double>(r.ru_utime.tv_sec) + static_cast<double>(r.ru_utime.tv_usec) / 1e6,
            static_cast<double>(r.ru_stime.tv_sec) + static_cast<double>(r.ru_stime.tv_usec) / 1e6};
}

// utime + stime of the whole server process (fields 14 and 15 of
// /proc/PID/stat, after the parenthesized command name).
double server_cpu(long pid) {
    const std::string path = "/proc/" + std::to_string(pid) + "/stat";
    std::ifstream in(path);
    // One line; getline, not istreambuf_iterator, which GCC 12 at -O2 reports
    // as a false -Wnull-dereference (hidden here by the file's CLI11 exemption).
    std::string stat;
    std::getline(in, stat);
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) throw std::runtime_error("cannot read " + path);
    std::istringstream fields(stat.substr(close + 2));
    std::string field;
    long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
        if (i == 14) utime = std::stol(field);
        if (i == 15) stime = std::stol(field);
    }
    return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

long server_pid(const EnvFile& env) {
    std::ifstream in(env.require("SLUICE_SERVERS_DIR") + "/mariadb.pid");
    long pid = -1;
    if (!(in >> pid)) throw std::runtime_error("no mariadb.pid in SLUICE_SERVERS_DIR: is the server running?");
    return pid;
}

std::string table_name(int width) { return "metadata_cpu_" + std::to_string(width); }

// id BIGINT, (width - 25) INT, 24 VARCHAR(24): the speed bench's shape at 50.
void create_table(const ConnectOptions& o, int width) {
    const int ints = width - 1 - text_columns;
    Connection c = Connection::connect(o);
    c.execute("DROP TABLE IF EXISTS " + table_name(width));
    std::string ddl = "CREATE TABLE " + table_name(width) + " (id BIGINT PRIMARY KEY";
    for (int k = 1; k <= ints; ++k) ddl += ", int_column_" + std::to_string(k) + " INT NOT NULL";
    for (int k = 1; k <= text_columns; ++k) ddl += ", text_column_" + std::to_string(k) + " VARCHAR(24) NOT NULL";
    c.execute(ddl + ")");
    std::string insert;
    for (int id = 1; id <= table_rows; ++id) {
        insert += insert.empty() ? "INSERT INTO " + table_name(width) + " VALUES (" : ",(";
        insert += std::to_string(id);
        for (int k = 1; k <= ints; ++k) insert += "," + std::to_string(id * k);
        for (int k = 1; k <= text_columns; ++k) insert += ",'text-" + std::to_string(id + k) + "'";
        insert += ")";
        if (id % 100 == 0) c.execute(std::exchange(insert, std::string{}));
    }
}

struct Sample {
    double wall_us, user_us, system_us, server_us;
};

Sample run(const ConnectOptions& base, bool cache, int width, int executions, long pid) {
    ConnectOptions o = base;
    o.cache_metadata = cache;
    Connection c = Connection::connect(o);
    Statement stmt = c.prepare("SELECT * FROM " + table_name(width) + " WHERE id = ?");
    const int ints = width - 1 - text_columns;
    std::uint64_t checksum = 0;
    auto execute = [&](int i) {
        ResultSet rs = stmt.execute(1 + (i * 7919) % table_rows);
        const Row* r = rs.next();
        if (r == nullptr || r->size() != static_cast<std::size_t>(width)) throw std::runtime_error("wrong row");
        for (int k = 0; k <= ints; ++k) checksum += r->get<std::uint64_t>(static_cast<std::size_t>(k));
        for (int k = ints + 1; k < width; ++k) checksum += r->get<std::string_view>(static_cast<std::size_t>(k)).size();
        if (rs.next() != nullptr) throw std::runtime_error("more than one row");
    };
    for (int i = 0; i < 500; ++i) execute(i);  // warm-up: buffers, server caches
    checksum = 0;
    const double server0 = server_cpu(pid);
    const Cpu own0 = own_cpu();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < executions; ++i) execute(i);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const Cpu own1 = own_cpu();
    const double server1 = server_cpu(pid);
    // Every value read: the sum of the ids alone cannot be zero.
    if (checksum == 0) throw std::runtime_error("checksum 0: values were not read");
    const double n = executions;
    return {wall / n * 1e6, (own1.user - own0.user) / n * 1e6, (own1.system - own0.system) / n * 1e6,
            (server1 - server0) / n * 1e6};
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double change(double cached, double uncached) { return uncached > 0 ? 100.0 * (cached / uncached - 1.0) : 0.0; }

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"mariadb_metadata_cpu_bench: wall, client and server CPU per wide execute, metadata cache on/off"};
    std::string env_path;
    std::vector<int> widths{50, 100, 200};
    int executions = 20000, reps = 5;
    int client_cpu = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)) - 1;
    app.add_option("--env", env_path, "servers' env file (default: $SLUICE_ENV_FILE)");
    app.add_option("--widths", widths, "column counts (each >= 26)")->delimiter(',')->check(CLI::Range(26, 1000));
    app.add_option("--executions", executions, "timed executions per run")->check(CLI::PositiveNumber);
    app.add_option("--reps", reps, "runs of each mode per width (alternated)")->check(CLI::PositiveNumber);
    app.add_option("--client-cpu", client_cpu, "pin this process to a CPU (-1: no pinning)")->check(CLI::Range(-1, 1023));
    CLI11_PARSE(app, argc, argv);
    try {
        env_path = sluice::mariadb::bench::env_file_path(env_path);
        if (client_cpu >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(static_cast<std::size_t>(client_cpu), &set);
            if (::sched_setaffinity(0, sizeof set, &set) != 0) throw std::runtime_error("cannot pin to the CPU");
        }
        const EnvFile env = EnvFile::load(env_path);
        const ConnectOptions o = sluice::mariadb::bench::admin_options_from(env);
        const long pid = server_pid(env);
        std::printf("per execution, microseconds; median of %d alternated runs of %d executions; client pinned to CPU %d\n",
                    reps, executions, client_cpu);
        std::printf("%6s  %-9s %9s %9s %9s %9s\n", "width", "metadata", "wall", "client-us", "client-sy", "server");
        for (int width : widths) {
            create_table(o, width);
            std::vector<double> wall[2], user[2], system[2], server[2];
            for (int r = 0; r < reps; ++r) {
                for (int cache = 0; cache < 2; ++cache) {
                    const Sample s = run(o, cache == 1, width, executions, pid);
                    wall[cache].push_back(s.wall_us);
                    user[cache].push_back(s.user_us);
                    system[cache].push_back(s.system_us);
                    server[cache].push_back(s.server_us);
                }
            }
            const char* names[2] = {"sent", "cached"};
            for (int cache = 0; cache < 2; ++cache) {
                std::printf("%6d  %-9s %9.1f %9.1f %9.1f %9.1f\n", width, names[cache], median(wall[cache]),
                            median(user[cache]), median(system[cache]), median(server[cache]));
            }
            std::printf("%6d  %-9s %+8.1f%% %+8.1f%% %+8.1f%% %+8.1f%%\n", width, "change",
                        change(median(wall[1]), median(wall[0])), change(median(user[1]), median(user[0])),
                        change(median(system[1]), median(system[0])), change(median(server[1]), median(server[0])));
            Connection c = Connection::connect(o);
            c.execute("DROP TABLE " + table_name(width));
        }
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "mariadb_metadata_cpu_bench: " << e.what() << "\n";
        return 1;
    }
}
