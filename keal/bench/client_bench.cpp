// keal_client_bench: the first table of the Keal benchmark page.
//
//   client  the same query 20,000 times on one connection,
//           `select name, score from bench_users where id = $1`, by
//             psql       PREPARE once, then 20,000 EXECUTE lines from a script
//             Keal       programs/client.keal, `keal build --target native`
//             C prepared c/client_prepared.c: PQprepare once, binary in and out
//             C text     c/client_text.c: PQexecParams with the text each time
//           each a process of its own, timed from start to exit (connecting
//           included, alike for all), with its own CPU time (wait4);
//   loop    a function looping over the 300,000 rows of words inside the
//           server: Keal (programs/bench.keal) vs PL/pgSQL vs sum(id).
//
// Every contender's checksum must agree before anything is timed; timed
// rounds interleave the contenders (round-robin), and best and median are
// reported. --json FILE writes the capture that
// scripts/bench/render_keal_client.py renders into docs/benchmarks/keal-client.md.
//
// The server: --db URL (a superuser), else $SLUICE_ENV_FILE's, else a
// PostgreSQL of its own (scripts/servers/start --only postgres).
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "sluice/common/json_write.hpp"

#ifndef KEAL_EXE
#error "KEAL_EXE must name the keal compiler (set by CMake)"
#endif

extern char** environ;

namespace {

namespace fs = std::filesystem;
using namespace keal::bench;

constexpr long kQueries = 20000;  // also fixed in programs/client.keal
constexpr int kUsers = 1000;

struct Timing {
    std::vector<double> wall_ms;
    std::vector<double> cpu_ms;  // the client process's user + system time
};

double best(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::pair<double, double> run_client(const std::vector<std::string>& argv, const std::string& url,
                                     const std::string& out_path);

struct Client {
    std::string name;
    std::vector<std::string> argv;
    std::string checksum{};
    Timing t{};
    double instructions = -1;
};

struct InServer {
    std::string name;
    std::string sql;
    std::string sum{};
    std::vector<double> ms{};
    std::vector<double> cpu_ms{};  // the backend's CPU per call (when the server is local)
};

constexpr int kLoopCalls = 5;  // calls per round, averaged: the backend's CPU clock ticks at 10 ms

// The CPU time (user + system, ms) of a local process from /proc, or -1.
double process_cpu_ms(const std::string& pid) {
    std::ifstream in("/proc/" + pid + "/stat");
    // One line; getline, not istreambuf_iterator, which GCC 12 at -O2 reports
    // as a false -Wnull-dereference (hidden here by the file's CLI11 exemption).
    std::string stat;
    std::getline(in, stat);
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) return -1;
    std::istringstream fields(stat.substr(close + 2));
    std::string f;
    long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> f; ++i) {
        if (i == 14) utime = std::stoll(f);
        if (i == 15) stime = std::stoll(f);
    }
    return static_cast<double>(utime + stime) * 1000.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// User-space instructions of one run under callgrind, or -1 without valgrind.
double instructions(const std::vector<std::string>& argv, const std::string& url, const std::string& work) {
    std::vector<std::string> v = {"valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                                  "--log-file=" + work + "/callgrind.log"};
    v.insert(v.end(), argv.begin(), argv.end());
    try {
        run_client(v, url, "/dev/null");
    } catch (const std::exception&) {
        return -1;
    }
    const std::string log = read_file(work + "/callgrind.log");
    const std::size_t at = log.find("Collected : ");
    if (at == std::string::npos) return -1;
    return std::stod(log.substr(at + 12));
}

// Runs argv with DATABASE_URL set, stdout into `out_path`; returns wall and CPU ms.
std::pair<double, double> run_client(const std::vector<std::string>& argv, const std::string& url,
                                     const std::string& out_path) {
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e)
        if (std::strncmp(*e, "DATABASE_URL=", 13) != 0) env_strings.emplace_back(*e);
    env_strings.push_back("DATABASE_URL=" + url);
    std::vector<char*> envp;
    for (std::string& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = argv;
    std::vector<char*> cargs;
    for (std::string& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const auto start = std::chrono::steady_clock::now();
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, cargs[0], &actions, nullptr, cargs.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(rc));
    int status = 0;
    struct rusage usage {};
    while (wait4(pid, &status, 0, &usage) < 0)
        if (errno != EINTR) throw std::runtime_error("wait4 failed");
    const auto stop = std::chrono::steady_clock::now();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error(argv[0] + " failed");
    const double cpu = (static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 +
                        static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3);
    return {std::chrono::duration<double, std::milli>(stop - start).count(), cpu};
}

// "total chars" from a client's output; psql's -At lines ("name|score") are summed here.
std::string checksum_of(const std::string& output, bool psql_rows) {
    if (!psql_rows) {
        std::istringstream in(output);
        double total = 0;
        long long chars = 0;
        if (!(in >> total >> chars)) throw std::runtime_error("no checksum in: " + output);
        return std::to_string(static_cast<long long>(std::llround(total))) + " " + std::to_string(chars);
    }
    std::istringstream in(output);
    std::string line;
    double total = 0;
    long long chars = 0;
    long rows = 0;
    while (std::getline(in, line)) {
        const std::size_t bar = line.find('|');
        if (bar == std::string::npos) continue;
        chars += static_cast<long long>(bar);
        total += std::stod(line.substr(bar + 1));
        ++rows;
    }
    if (rows != kQueries) throw std::runtime_error("psql returned " + std::to_string(rows) + " rows");
    return std::to_string(static_cast<long long>(std::llround(total))) + " " + std::to_string(chars);
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string json_numbers(const std::vector<double>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + fixed(v[i], 3);
    return out + "]";
}

std::string first_line_of(const std::string& path, const std::string& prefix) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(prefix, 0) == 0) return line.substr(line.find(':') + 1);
    return "";
}

std::string trim(std::string s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.erase(s.begin());
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
    return s;
}

std::vector<double> load_average() {
    std::ifstream in("/proc/loadavg");
    std::vector<double> v(3, 0.0);
    in >> v[0] >> v[1] >> v[2];
    return v;
}

int run(const std::string& db_url, int runs, const std::string& json_path, bool keep) {
    const std::vector<double> load_start = load_average();
    std::unique_ptr<OwnServer> own;
    const std::string db = "keal_client_bench";
    std::string url;
    const std::string admin_url = server_url(db_url, own, db, url);
    {
        Connection admin = connect(admin_url);
        exec(admin, "DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
        exec(admin, "CREATE DATABASE " + db);
    }
    Connection c = connect(url);
    std::cerr << "creating bench_users, words and the PL/pgSQL functions\n";
    exec(c, "CREATE TABLE bench_users (id int8 PRIMARY KEY, name text NOT NULL, score float8 NOT NULL);"
            "INSERT INTO bench_users SELECT g, 'user' || g, g * 0.5 FROM generate_series(1, " +
                std::to_string(kUsers) + ") g;");
    exec(c, "VACUUM ANALYZE bench_users");
    exec(c, read_file(KEAL_BENCH_REFERENCE_SQL));
    exec(c, "VACUUM ANALYZE words");
    std::cerr << "deploying " << KEAL_BENCH_PROGRAM << "\n";
    run_command(shell_quote(KEAL_EXE) + " deploy " + shell_quote(KEAL_BENCH_PROGRAM) + " --db " + shell_quote(url));
    const std::string work = make_temp_dir("keal-client-bench-");
    const std::string keal_client = work + "/client";
    std::cerr << "building " << KEAL_BENCH_CLIENT << " --target native\n";
    run_command(shell_quote(KEAL_EXE) + " build " + shell_quote(KEAL_BENCH_CLIENT) + " --target native -o " +
                shell_quote(keal_client));
    const std::string script = work + "/execute.sql";
    {
        std::ofstream s(script);
        s << "PREPARE q(int8) AS select name, score from bench_users where id = $1;\n";
        for (long i = 0; i < kQueries; ++i) s << "EXECUTE q(" << (i % kUsers + 1) << ");\n";
    }

    std::vector<Client> clients = {
        {"psql EXECUTE", {"psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-f", script, url}},
        {"Keal client", {keal_client}},
        {"C, prepared once", {KEAL_BENCH_CLIENT_PREPARED, std::to_string(kQueries)}},
        {"C, text each time", {KEAL_BENCH_CLIENT_TEXT, std::to_string(kQueries)}},
    };
    std::vector<InServer> loops = {
        {"Keal", "SELECT loop_sum()"},
        {"PL/pgSQL", "SELECT loop_sum_plpgsql()"},
        {"SQL sum()", "SELECT sum(id) FROM words"},
    };
    exec(c, "SET jit = off");
    exec(c, "SET max_parallel_workers_per_gather = 0");

    // Agreement first.
    const std::string out = work + "/out";
    for (Client& x : clients) {
        run_client(x.argv, url, out);
        x.checksum = checksum_of(read_file(out), x.name == "psql EXECUTE");
    }
    for (InServer& x : loops) x.sum = scalar(c, x.sql);
    bool agree = true;
    for (const Client& x : clients) {
        if (x.checksum != clients[2].checksum) {
            std::cerr << "DISAGREE: " << x.name << " gives " << x.checksum << ", C gives " << clients[2].checksum << "\n";
            agree = false;
        }
    }
    for (const InServer& x : loops) {
        if (x.sum != loops[2].sum) {
            std::cerr << "DISAGREE: loop " << x.name << " sums to " << x.sum << "\n";
            agree = false;
        }
    }
    if (!agree) return 1;

    // The backend's CPU time, when the server runs on this machine.
    const std::string backend = scalar(c, "SELECT pg_backend_pid()");
    std::cerr << "counting the clients' instructions (valgrind --tool=callgrind)\n";
    for (Client& x : clients)
        if (x.name != "psql EXECUTE") x.instructions = instructions(x.argv, url, work);

    for (int round = 1; round <= runs; ++round) {
        std::cerr << "round " << round << "/" << runs << "\n";
        for (Client& x : clients) {
            const auto [wall, cpu] = run_client(x.argv, url, "/dev/null");
            x.t.wall_ms.push_back(wall);
            x.t.cpu_ms.push_back(cpu);
        }
        for (InServer& x : loops) {
            const double cpu0 = process_cpu_ms(backend);
            const auto start = std::chrono::steady_clock::now();
            for (int i = 0; i < kLoopCalls; ++i) scalar(c, x.sql);
            x.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() /
                           kLoopCalls);
            if (cpu0 >= 0) x.cpu_ms.push_back((process_cpu_ms(backend) - cpu0) / kLoopCalls);
        }
    }
    const std::vector<double> load_end = load_average();

    std::cout << "server: " << scalar(c, "SELECT version()") << "\n";
    std::cout << "\n| contender (" << kQueries
              << " queries) | best (ms) | median (ms) | client CPU, median (ms) | client instructions | checksum |\n"
              << "|---|---:|---:|---:|---:|---|\n";
    for (const Client& x : clients)
        std::cout << "| " << x.name << " | " << fixed(best(x.t.wall_ms), 1) << " | " << fixed(median(x.t.wall_ms), 1)
                  << " | " << fixed(median(x.t.cpu_ms), 1) << " | "
                  << (x.instructions < 0 ? std::string("-") : fixed(x.instructions / 1e6, 1) + "M") << " | " << x.checksum
                  << " |\n";
    std::cout << "\n| loop over 300,000 rows | best (ms) | median (ms) | backend CPU, median (ms) | sum |\n"
              << "|---|---:|---:|---:|---:|\n";
    for (const InServer& x : loops)
        std::cout << "| " << x.name << " | " << fixed(best(x.ms), 1) << " | " << fixed(median(x.ms), 1) << " | "
                  << (x.cpu_ms.empty() ? std::string("-") : fixed(median(x.cpu_ms), 1)) << " | " << x.sum << " |\n";
    const double client_ratio = median(clients[1].t.wall_ms) / median(clients[2].t.wall_ms);
    const double client_best_ratio = best(clients[1].t.wall_ms) / best(clients[2].t.wall_ms);
    const double loop_ratio = median(loops[0].ms) / median(loops[1].ms);
    std::cout << "\nKeal client / C prepared: " << fixed(client_ratio, 3) << "x median, " << fixed(client_best_ratio, 3)
              << "x best (goal 1.05x, on the median: " << (client_ratio <= 1.05 ? "met" : "MISSED") << ")\n"
              << "Keal loop / PL/pgSQL loop: " << fixed(loop_ratio, 3) << "x median wall"
              << (loops[0].cpu_ms.empty() ? std::string()
                                          : ", " + fixed(median(loops[0].cpu_ms) / median(loops[1].cpu_ms), 3) +
                                                "x median backend CPU")
              << " (goal 0.5x, on the median wall: " << (loop_ratio <= 0.5 ? "met" : "MISSED") << ")\n"
              << "load average: start " << fixed(load_start[0], 2) << ", end " << fixed(load_end[0], 2) << "\n";

    if (!json_path.empty()) {
        std::string j = "{\n  \"machine\": {\"host\": ";
        char host[256] = {};
        gethostname(host, sizeof host - 1);
        sluice::json::append_string(j, host);
        j += ", \"cpu\": ";
        sluice::json::append_string(j, trim(first_line_of("/proc/cpuinfo", "model name")));
        j += ", \"cores\": " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN));
        j += ", \"load_average_at_start\": " + json_numbers(load_start) + ", \"load_average_at_end\": " +
             json_numbers(load_end) + "},\n  \"server\": ";
        sluice::json::append_string(j, scalar(c, "SELECT version()"));
        j += ",\n  \"queries\": " + std::to_string(kQueries) + ",\n  \"loop_calls_per_round\": " +
             std::to_string(kLoopCalls) + ",\n  \"rounds\": " + std::to_string(runs) +
             ",\n  \"clients\": [\n";
        for (std::size_t i = 0; i < clients.size(); ++i) {
            j += "    {\"name\": ";
            sluice::json::append_string(j, clients[i].name);
            j += ", \"checksum\": ";
            sluice::json::append_string(j, clients[i].checksum);
            j += ", \"wall_ms\": " + json_numbers(clients[i].t.wall_ms) + ", \"cpu_ms\": " + json_numbers(clients[i].t.cpu_ms) +
                 ", \"instructions\": " + (clients[i].instructions < 0 ? std::string("null") : fixed(clients[i].instructions, 0)) +
                 "}" + (i + 1 < clients.size() ? "," : "") + "\n";
        }
        j += "  ],\n  \"loop\": [\n";
        for (std::size_t i = 0; i < loops.size(); ++i) {
            j += "    {\"name\": ";
            sluice::json::append_string(j, loops[i].name);
            j += ", \"sum\": ";
            sluice::json::append_string(j, loops[i].sum);
            j += ", \"ms\": " + json_numbers(loops[i].ms) + ", \"backend_cpu_ms\": " + json_numbers(loops[i].cpu_ms) + "}" +
                 (i + 1 < loops.size() ? "," : "") + "\n";
        }
        j += "  ]\n}\n";
        std::ofstream(json_path) << j;
        std::cerr << "wrote " << json_path << "\n";
    }

    { Connection closing = std::move(c); }
    if (!keep) {
        Connection admin = connect(admin_url);
        exec(admin, "DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
    }
    fs::remove_all(work);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"keal_client_bench: a Keal client against psql and C libpq; a Keal query loop against PL/pgSQL"};
    std::string db_url;
    std::string json_path;
    int runs = 7;
    bool keep = false;
    app.add_option("--db", db_url, "superuser URL of a running PostgreSQL (default: $SLUICE_ENV_FILE, else a private server)");
    app.add_option("--runs", runs, "timed rounds per contender")->check(CLI::Range(1, 100));
    app.add_option("--json", json_path, "write the capture (for scripts/bench/render_keal_client.py)");
    app.add_flag("--keep", keep, "keep the keal_client_bench database afterwards");
    CLI11_PARSE(app, argc, argv);
    try {
        return run(db_url, runs, json_path, keep);
    } catch (const std::exception& e) {
        std::cerr << "keal_client_bench: " << e.what() << "\n";
        return 1;
    }
}
