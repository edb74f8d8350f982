// CDC benchmark: catch-up over a binlog of row changes of a mixed-type
// table, sluice-mariadb cdc (NDJSON) side by side with mariadb-binlog
// (--read-from-remote-server --base64-output=DECODE-ROWS --verbose) and
// ZongJi, interleaved in one run; lag from an autocommit INSERT to the
// ChangeStream handing out its transaction under a steady insert load; and
// the resume time of `cdc --out FILE` after a SIGKILL. Writes a JSON capture
// (render it with scripts/bench/render_mariadb_cdc.py).
//
//   mariadb_cdc_bench --env SERVERS/env --cli build/release/.../sluice-mariadb
//                     --zongji build/zongji --out capture.json [--changes 500000] [--reps 5]
//                     [--large-sizes 1000000,3000000] [--large-only CAPTURE_PART.json]
//
// Large transactions (issue 25): for each size N, N narrow rows inserted in
// one transaction and the same rows in 1,000-row transactions (two tables,
// one binlog span that both runs read, each formatting its own table), then
// `cdc --out` of each, interleaved, rows/s and peak RSS (the child's
// ru_maxrss, i.e. VmHWM); and `cdc --snapshot` of the N-row table. With
// --large-only only that part runs and is written to the file named (the
// run script merges it into the capture as "large_transaction").
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sluice/common/env_file.hpp"
#include "sluice/common/json_write.hpp"
#include "sluice/mariadb/cdc/change_stream.hpp"
#include "sluice/mariadb/cdc/ndjson.hpp"
#include "sluice/mariadb/mariadb.hpp"

namespace {

using namespace sluice::mariadb;
using Clock = std::chrono::steady_clock;

struct Args {
    std::string env, cli, zongji, out;
    long changes = 500000;
    int reps = 5;
    int lag_seconds = 10;
    int lag_rate = 500;  // inserts per second
    std::vector<long> large_sizes{1000000, 3000000};
    std::string large_only;  // a file: only the large-transaction part, written there
};

std::string scalar(Connection& c, const std::string& sql) {
    ResultSet rs = c.query(sql);
    const Row* r = rs.next();
    std::string v = r ? r->get<std::optional<std::string>>(0).value_or("") : "";
    while (rs.next()) {
    }
    return v;
}

// The server's CPU seconds so far (all its threads), from /proc; -1 when
// the server is not a local process we can see.
double server_cpu_seconds(pid_t server) {
    if (server <= 0) return -1;
    std::ifstream in("/proc/" + std::to_string(server) + "/stat");
    std::string stat;
    std::getline(in, stat);
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) return -1;
    std::istringstream fields(stat.substr(close + 2));
    std::string f;
    double utime = 0, stime = 0;
    for (int i = 3; fields >> f; ++i) {  // field 3 is the state
        if (i == 14) utime = std::stod(f);
        if (i == 15) {
            stime = std::stod(f);
            break;
        }
    }
    return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

struct RunResult {
    double seconds = 0;
    double cpu_seconds = 0;  // the child's user + system
    int status = -1;
};

// Runs argv with stdout to `out_path` and stderr to `err_path`; wall time and CPU.
RunResult run(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path) {
    auto t0 = Clock::now();
    pid_t pid = ::fork();
    if (pid == 0) {
        std::vector<char*> a;
        for (const std::string& s : argv) a.push_back(const_cast<char*>(s.c_str()));
        a.push_back(nullptr);
        if (!std::freopen(out_path.c_str(), "w", stdout)) ::_exit(126);
        if (!std::freopen(err_path.c_str(), "w", stderr)) ::_exit(126);
        ::execvp(a[0], a.data());
        ::_exit(127);
    }
    int status = 0;
    rusage ru{};
    ::wait4(pid, &status, 0, &ru);
    RunResult r;
    r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    r.cpu_seconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                    static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::size_t count(const std::string& text, std::string_view needle) {
    std::size_t n = 0;
    for (std::size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + needle.size())) ++n;
    return n;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    std::size_t i = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size()))) - 1;
    return v[std::min(i, v.size() - 1)];
}

std::string json_array(const std::vector<double>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) s += ",";
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6f", v[i]);
        s += buf;
    }
    return s + "]";
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

// The mixed-type table and its row changes: 60% inserts (100 rows per
// transaction), then 20% updates and 20% deletes of them (100 per
// transaction). Returns the binlog file the workload starts in and the GTID
// state before it.
struct Workload {
    std::string file;
    std::string gtid_before;
    std::string gtid_after;
    long changes = 0;
    long inserts = 0, updates = 0, deletes = 0;
};

Workload make_workload(Connection& c, long changes) {
    c.execute("DROP DATABASE IF EXISTS cdc_bench");
    c.execute("CREATE DATABASE cdc_bench");
    c.execute(
        "CREATE TABLE cdc_bench.mixed (id BIGINT PRIMARY KEY, i INT, u INT UNSIGNED, d DECIMAL(12,2), f FLOAT, "
        "db DOUBLE, s VARCHAR(64), t TEXT, dt DATETIME(6), ts TIMESTAMP(3) NULL, e ENUM('new','paid','shipped'), "
        "b VARBINARY(16), j JSON)");
    c.execute("FLUSH BINARY LOGS");
    Workload w;
    {
        ResultSet rs = c.query("SHOW MASTER STATUS");
        const Row* r = rs.next();
        w.file = r->get<std::string>(0);
        while (rs.next()) {
        }
    }
    w.gtid_before = scalar(c, "SELECT @@global.gtid_binlog_pos");
    w.inserts = changes * 6 / 10;
    w.updates = changes * 2 / 10;
    w.deletes = changes - w.inserts - w.updates;
    constexpr long batch = 100;
    for (long at = 1; at <= w.inserts; at += batch) {
        long to = std::min(w.inserts, at + batch - 1);
        c.execute("INSERT INTO cdc_bench.mixed SELECT seq, CAST(seq AS SIGNED) * 7 - 1000000, seq, seq / 100, seq / 3, seq / 7, "
                  "CONCAT('name-', seq), REPEAT('text ', 20), '2024-02-29 12:34:56.123456' + INTERVAL seq SECOND, "
                  "FROM_UNIXTIME(1700000000 + seq), ELT(1 + seq % 3, 'new', 'paid', 'shipped'), UNHEX(MD5(seq)), "
                  "CONCAT('{\"k\":', seq, '}') FROM seq_" +
                  std::to_string(at) + "_to_" + std::to_string(to));
    }
    for (long at = 1; at <= w.updates; at += batch) {
        long to = std::min(w.updates, at + batch - 1);
        c.execute("UPDATE cdc_bench.mixed SET i = i + 1, e = 'paid', f = f * 2 WHERE id BETWEEN " + std::to_string(at) +
                  " AND " + std::to_string(to));
    }
    for (long at = w.inserts - w.deletes + 1; at <= w.inserts; at += batch) {
        long to = std::min(w.inserts, at + batch - 1);
        c.execute("DELETE FROM cdc_bench.mixed WHERE id BETWEEN " + std::to_string(at) + " AND " + std::to_string(to));
    }
    w.gtid_after = scalar(c, "SELECT @@global.gtid_binlog_pos");
    w.changes = w.inserts + w.updates + w.deletes;
    return w;
}

struct Peer {
    std::string name;
    std::vector<std::string> argv;
    std::vector<double> seconds, cpu, server_cpu;
    std::string error;  // why it could not run
    long validated_changes = -1;
};

// One measured shape of the large-transaction part.
struct LargeRun {
    long rows = 0;
    std::string shape;
    std::vector<std::string> argv;
    std::vector<double> seconds, peak_rss_mib, cpu_seconds;
    std::string error;
    double setup_seconds = 0;  // making the size's two tables (both shapes' rows)
};

// RunResult plus the child's peak RSS in MiB (wait4's ru_maxrss: VmHWM)
// and its CPU time (user + system), which a loaded machine blurs less than
// the wall time.
double last_peak_rss_mib = 0;
double last_cpu_seconds = 0;

RunResult run_measured(const std::vector<std::string>& argv, const std::string& err_path) {
    auto t0 = Clock::now();
    pid_t pid = ::fork();
    if (pid == 0) {
        std::vector<char*> av;
        for (const std::string& x : argv) av.push_back(const_cast<char*>(x.c_str()));
        av.push_back(nullptr);
        if (!std::freopen("/dev/null", "w", stdout)) ::_exit(126);
        if (!std::freopen(err_path.c_str(), "w", stderr)) ::_exit(126);
        ::execvp(av[0], av.data());
        ::_exit(127);
    }
    int status = 0;
    rusage ru{};
    ::wait4(pid, &status, 0, &ru);
    RunResult r;
    r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    last_peak_rss_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;
    auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    last_cpu_seconds = secs(ru.ru_utime) + secs(ru.ru_stime);
    return r;
}

// The large-transaction part as a JSON array (see the file's comment).
std::string large_transactions(const ConnectOptions& options, const std::string& cli, const std::string& url,
                               const std::vector<long>& sizes, int reps, const std::string& tmp) {
    // One INSERT of millions of rows runs longer than the default 30 s read timeout.
    ConnectOptions patient = options;
    patient.timeouts.read = std::chrono::minutes(30);
    Connection c = Connection::connect(patient);
    std::vector<LargeRun> runs;
    for (long n : sizes) {
        std::cerr << "large transaction: " << n << " rows\n";
        c.execute("DROP DATABASE IF EXISTS cdc_large");
        c.execute("CREATE DATABASE cdc_large");
        c.execute("CREATE TABLE cdc_large.one (id BIGINT PRIMARY KEY, v INT, pad CHAR(40))");
        c.execute("CREATE TABLE cdc_large.batched (id BIGINT PRIMARY KEY, v INT, pad CHAR(40))");
        const std::string before = scalar(c, "SELECT @@global.gtid_binlog_pos");
        const auto made_from = Clock::now();
        const std::string rows = "SELECT seq, seq % 1000, REPEAT('p', 40) FROM seq_";
        c.execute("INSERT INTO cdc_large.one " + rows + "1_to_" + std::to_string(n));
        for (long at = 1; at <= n; at += 1000)
            c.execute("INSERT INTO cdc_large.batched " + rows + std::to_string(at) + "_to_" +
                      std::to_string(std::min(n, at + 999)));
        const double setup = std::chrono::duration<double>(Clock::now() - made_from).count();
        std::cerr << "  tables made in " << setup << " s\n";
        const std::string file = tmp + "/large.ndjson";
        auto cdc_of = [&](const std::string& table) {
            return std::vector<std::string>{cli, "cdc", url, "--from-gtid", before, "--until-end", "--tables",
                                            "cdc_large." + table, "--out", file, "--server-id", "4005"};
        };
        std::vector<LargeRun> shapes(4);
        shapes[0] = {n, "one transaction", cdc_of("one"), {}, {}, {}, {}, 0};
        shapes[1] = {n, "1,000-row transactions", cdc_of("batched"), {}, {}, {}, {}, 0};
        shapes[2] = {n, "snapshot (1,000-row chunks)",
                     {cli, "cdc", url, "--snapshot", "--until-end", "--tables", "cdc_large.one", "--out", file, "--server-id",
                      "4006"},
                     {}, {}, {}, {}, 0};
        // The same transaction in 128 KiB lines: how much of its cost is the
        // size of the line being filled (8 MiB by default).
        shapes[3] = {n, "one transaction, 128 KiB lines", cdc_of("one"), {}, {}, {}, {}, 0};
        shapes[3].argv.insert(shapes[3].argv.end(), {"--max-line-bytes", "131072"});
        std::mt19937 rng(static_cast<unsigned>(n));
        // rep -1 is a warm-up pass of every shape, not recorded: the first run
        // after the inserts pays for the binlog's pages coming into the page
        // cache, which would land on whichever shape the shuffle put first.
        for (int rep = -1; rep < reps; ++rep) {
            std::vector<std::size_t> order{0, 1, 2, 3};
            std::shuffle(order.begin(), order.end(), rng);
            for (std::size_t i : order) {
                LargeRun& s = shapes[i];
                if (!s.error.empty()) continue;
                std::filesystem::remove(file);
                RunResult r = run_measured(s.argv, tmp + "/large.err");
                if (r.status != 0) {
                    s.error = "exit status " + std::to_string(r.status) + ": " + read_file(tmp + "/large.err").substr(0, 400);
                    continue;
                }
                const std::string text = i == 2 ? std::string() : read_file(file);
                if (i != 2 && static_cast<long>(count(text, "{\"op\":")) != n) {
                    s.error = "the file holds " + std::to_string(count(text, "{\"op\":")) + " row changes, not " +
                              std::to_string(n);
                    continue;
                }
                if (rep < 0) {
                    std::cerr << "  warm-up " << s.shape << ": " << r.seconds << " s\n";
                    continue;
                }
                s.seconds.push_back(r.seconds);
                s.peak_rss_mib.push_back(last_peak_rss_mib);
                s.cpu_seconds.push_back(last_cpu_seconds);
                std::cerr << "  rep " << rep << " " << s.shape << ": " << r.seconds << " s, "
                          << static_cast<double>(n) / r.seconds << " rows/s, peak RSS " << last_peak_rss_mib << " MiB\n";
            }
        }
        std::filesystem::remove(file);
        for (LargeRun& s : shapes) {
            s.setup_seconds = setup;
            runs.push_back(std::move(s));
        }
        c.execute("DROP DATABASE cdc_large");
    }
    std::string out = "[\n";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const LargeRun& r = runs[i];
        std::string shape, err, cmd;
        sluice::json::append_string(shape, r.shape);
        sluice::json::append_string(err, r.error);
        std::string joined;
        for (std::size_t k = 0; k < r.argv.size(); ++k) joined += (k ? " " : "") + (k == 2 ? std::string("URL") : r.argv[k]);
        sluice::json::append_string(cmd, joined);
        out += "    {\"rows\": " + std::to_string(r.rows) + ", \"shape\": " + shape + ", \"command\": " + cmd +
               ", \"error\": " + err + ", \"seconds\": " + json_array(r.seconds) +
               ", \"peak_rss_mib\": " + json_array(r.peak_rss_mib) + ", \"cpu_seconds\": " + json_array(r.cpu_seconds) +
               ", \"setup_seconds\": " + std::to_string(r.setup_seconds) + "}" + (i + 1 < runs.size() ? "," : "") + "\n";
    }
    return out + "  ]";
}

}  // namespace

int main(int argc, char** argv) {
    Args a;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string k = argv[i], v = argv[i + 1];
        if (k == "--env") a.env = v;
        else if (k == "--cli") a.cli = v;
        else if (k == "--zongji") a.zongji = v;
        else if (k == "--out") a.out = v;
        else if (k == "--changes") a.changes = std::stol(v);
        else if (k == "--reps") a.reps = std::stoi(v);
        else if (k == "--lag-seconds") a.lag_seconds = std::stoi(v);
        else if (k == "--lag-rate") a.lag_rate = std::stoi(v);
        else if (k == "--large-sizes") {
            a.large_sizes.clear();
            std::stringstream list(v);
            for (std::string n; std::getline(list, n, ',');) a.large_sizes.push_back(std::stol(n));
        } else if (k == "--large-only") a.large_only = v;
        else {
            std::cerr << "unknown option " << k << "\n";
            return 2;
        }
    }
    if (a.env.empty() || a.cli.empty() || (a.out.empty() && a.large_only.empty())) {
        std::cerr << "usage: mariadb_cdc_bench --env FILE --cli PATH --zongji DIR --out CAPTURE.json [--changes N] [--reps R]\n";
        return 2;
    }
    const sluice::EnvFile env = sluice::EnvFile::load(a.env);
    // Plain TCP for every peer: mariadb-binlog and ZongJi do not use TLS by
    // default, and sluice would (ssl-mode prefer).
    std::string url = env.require("SLUICE_MARIADB_URL");
    url += (url.find('?') == std::string::npos ? "?" : "&") + std::string("ssl-mode=disable");
    ConnectOptions options = parse_url(url);
    const std::string started = machine();
    pid_t server_pid = 0;
    if (auto dir = env.get("SLUICE_SERVERS_DIR")) {
        long pid = 0;
        std::ifstream(*dir + "/mariadb.pid") >> pid;
        server_pid = static_cast<pid_t>(pid);
    }
    const auto wall_start = std::chrono::system_clock::now();
    Connection c = Connection::connect(options);
    const std::string version = scalar(c, "SELECT @@version");

    if (!a.large_only.empty()) {
        const std::string tmp = std::filesystem::temp_directory_path() / ("cdc-bench-" + std::to_string(::getpid()));
        std::filesystem::create_directories(tmp);
        const std::string large = large_transactions(options, a.cli, url, a.large_sizes, a.reps, tmp);
        std::filesystem::remove_all(tmp);
        auto ts = std::chrono::system_clock::to_time_t(wall_start);
        char date[64];
        std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", std::gmtime(&ts));
        std::string m;
        sluice::json::append_string(m, started);
        std::ofstream(a.large_only) << "{\"date\": \"" << date << "\", \"machine\": " << m << ", \"reps\": " << a.reps
                                    << ",\n  \"runs\": " << large << "}\n";
        std::cerr << "wrote " << a.large_only << "\n";
        return 0;
    }
    std::cerr << "workload: " << a.changes << " row changes...\n";
    auto t_setup = Clock::now();
    Workload w = make_workload(c, a.changes);
    std::cerr << "  made in " << std::chrono::duration<double>(Clock::now() - t_setup).count() << " s; binlog from "
              << w.file << ", GTID " << w.gtid_before << " .. " << w.gtid_after << "\n";

    const std::string tmp = std::filesystem::temp_directory_path() / ("cdc-bench-" + std::to_string(::getpid()));
    std::filesystem::create_directories(tmp);
    std::vector<Peer> peers;
    auto peer = [](std::string name, std::vector<std::string> command) {
        Peer p;
        p.name = std::move(name);
        p.argv = std::move(command);
        return p;
    };
    peers.push_back(peer("sluice-mariadb cdc (NDJSON)",
                     {a.cli, "cdc", url, "--from-gtid", w.gtid_before, "--until-end", "--server-id", "4001"}));
    peers.push_back(peer("mariadb-binlog --read-from-remote-server --base64-output=DECODE-ROWS --verbose",
                     {"mariadb-binlog", "--no-defaults", "--read-from-remote-server", "--host=" + options.host,
                      "--port=" + std::to_string(options.port), "--user=" + options.user, "--password=" + options.password,
                      "--base64-output=DECODE-ROWS", "--verbose", "--to-last-log", w.file}));
    const std::string js = std::string(SLUICE_SOURCE_DIR) + "/mariadb/bench/cdc/zongji_catchup.mjs";
    peers.push_back(peer("ZongJi (@vlasky/zongji, JSON per row)",
                     {"node", js, a.zongji, options.host, std::to_string(options.port), options.user, options.password, w.file,
                      std::to_string(w.changes), "4003"}));

    // Validation run of each (output kept and counted), then interleaved timed runs.
    for (Peer& p : peers) {
        std::string out = tmp + "/validate.out", err = tmp + "/validate.err";
        RunResult r = run(p.argv, out, err);
        std::string text = read_file(out);
        if (r.status != 0) {
            p.error = "exit status " + std::to_string(r.status) + ": " + read_file(err).substr(0, 400);
        } else if (p.name.rfind("sluice", 0) == 0) {
            p.validated_changes = static_cast<long>(count(text, "{\"op\":"));
        } else if (p.name.rfind("mariadb-binlog", 0) == 0) {
            p.validated_changes = static_cast<long>(count(text, "\n### INSERT INTO ") + count(text, "\n### UPDATE ") +
                                                    count(text, "\n### DELETE FROM "));
        } else {
            p.validated_changes = static_cast<long>(count(text, "\n"));
        }
        std::cerr << "  validate " << p.name << ": " << (p.error.empty() ? std::to_string(p.validated_changes) + " row changes" : p.error) << "\n";
        std::filesystem::remove(out);
    }
    std::mt19937 shuffle_rng(20261201);
    for (int rep = 0; rep < a.reps; ++rep) {
        std::vector<std::size_t> order(peers.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), shuffle_rng);
        for (std::size_t i : order) {
            Peer& p = peers[i];
            if (!p.error.empty()) continue;
            const double server_before = server_cpu_seconds(server_pid);
            RunResult r = run(p.argv, "/dev/null", tmp + "/run.err");
            if (server_before >= 0) p.server_cpu.push_back(server_cpu_seconds(server_pid) - server_before);
            if (r.status != 0) {
                p.error = "timed run failed: " + read_file(tmp + "/run.err").substr(0, 400);
                continue;
            }
            p.seconds.push_back(r.seconds);
            p.cpu.push_back(r.cpu_seconds);
            std::cerr << "  rep " << rep << " " << p.name << ": " << r.seconds << " s (cpu " << r.cpu_seconds << " s)\n";
        }
    }

    // Lag: a writer sends autocommit INSERTs at a steady rate; the stream
    // (in this process, formatting each transaction's NDJSON line) notes
    // when each arrives.
    std::cerr << "lag: " << a.lag_rate << " inserts/s for " << a.lag_seconds << " s\n";
    c.execute("CREATE TABLE cdc_bench.lag (id BIGINT PRIMARY KEY, v VARCHAR(32))");
    const long lag_n = static_cast<long>(a.lag_rate) * a.lag_seconds;
    std::vector<std::atomic<std::int64_t>> sent(static_cast<std::size_t>(lag_n + 1));
    std::vector<double> lag_ms;
    {
        cdc::StreamOptions so;
        so.start = cdc::StartAt::now;
        so.tables = cdc::TableFilter::parse("cdc_bench.lag");
        so.server_id = 4002;
        cdc::ChangeStream stream = cdc::ChangeStream::open(options, so);
        std::thread writer([&] {
            Connection wc = Connection::connect(options);
            Statement ins = wc.prepare("INSERT INTO cdc_bench.lag VALUES (?, 'steady')");
            auto next = Clock::now();
            for (long i = 1; i <= lag_n; ++i) {
                next += std::chrono::microseconds(1000000 / a.lag_rate);
                std::this_thread::sleep_until(next);
                sent[static_cast<std::size_t>(i)] = Clock::now().time_since_epoch().count();
                ins.execute(static_cast<std::int64_t>(i));
            }
        });
        std::string line;
        long received = 0;
        while (received < lag_n) {
            const cdc::ChangeEvent* e = stream.next();
            if (!e) break;
            const auto* t = std::get_if<cdc::Transaction>(e);
            if (!t) continue;
            const std::int64_t now = Clock::now().time_since_epoch().count();
            line.clear();
            cdc::ndjson::append_line(line, *e);
            t->for_each_change([&](const cdc::Change& ch) {
                long id = static_cast<long>(std::get<std::int64_t>(ch.after[0].value));
                lag_ms.push_back(static_cast<double>(now - sent[static_cast<std::size_t>(id)].load()) / 1e6);
                ++received;
            });
        }
        writer.join();
    }

    // Resume after a kill: a file holding the whole catch-up; a running
    // `cdc --out` is SIGKILLed, one more transaction is committed, and the
    // same command with --until-end is timed from start to exit (scan and
    // cut the file, reconnect from its last GTID, deliver the new line).
    std::cerr << "resume after kill\n";
    const std::string out_file = tmp + "/resume.ndjson";
    std::vector<std::string> base = {a.cli, "cdc", url, "--from-gtid", w.gtid_before, "--tables", "cdc_bench.mixed",
                                     "--out", out_file, "--server-id", "4004"};
    std::vector<std::string> until = base;
    until.push_back("--until-end");
    run(until, "/dev/null", tmp + "/resume.err");
    const auto file_bytes = std::filesystem::file_size(out_file);
    std::vector<double> resume_s;
    for (int rep = 0; rep < a.reps; ++rep) {
        pid_t pid = ::fork();
        if (pid == 0) {
            std::vector<char*> av;
            for (const std::string& s : base) av.push_back(const_cast<char*>(s.c_str()));
            av.push_back(nullptr);
            if (!std::freopen("/dev/null", "w", stderr)) ::_exit(126);
            ::execv(av[0], av.data());
            ::_exit(127);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        c.execute("UPDATE cdc_bench.mixed SET i = i + 1 WHERE id = 1");
        RunResult r = run(until, "/dev/null", tmp + "/resume.err");
        if (r.status == 0) resume_s.push_back(r.seconds);
    }
    std::string tail = read_file(out_file);
    const long resume_updates = static_cast<long>(count(tail, "\"op\":\"update\"")) - w.updates;
    const std::string large = large_transactions(options, a.cli, url, a.large_sizes, a.reps, tmp);
    std::filesystem::remove_all(tmp);

    // Capture.
    std::ofstream o(a.out);
    auto ts = std::chrono::system_clock::to_time_t(wall_start);
    char date[64];
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", std::gmtime(&ts));
    double load[3] = {0, 0, 0};
    ::getloadavg(load, 3);
    o << "{\n  \"date\": \"" << date << "\",\n  \"machine\": ";
    std::string m;
    sluice::json::append_string(m, started);
    o << m << ",\n  \"load_at_end\": " << load[0] << ",\n  \"server\": ";
    std::string sv;
    sluice::json::append_string(sv, version);
    o << sv << ",\n  \"changes\": " << w.changes << ", \"inserts\": " << w.inserts << ", \"updates\": " << w.updates
      << ", \"deletes\": " << w.deletes << ", \"reps\": " << a.reps << ",\n  \"catch_up\": [\n";
    for (std::size_t i = 0; i < peers.size(); ++i) {
        const Peer& p = peers[i];
        std::string name, err, cmd;
        sluice::json::append_string(name, p.name);
        sluice::json::append_string(err, p.error);
        std::string joined;
        for (std::size_t k = 0; k < p.argv.size(); ++k) {
            std::string arg = p.argv[k];
            if (arg.find(options.password) != std::string::npos && !options.password.empty())
                arg.replace(arg.find(options.password), options.password.size(), "***");
            joined += (k ? " " : "") + arg;
        }
        sluice::json::append_string(cmd, joined);
        o << "    {\"name\": " << name << ", \"command\": " << cmd << ", \"validated_changes\": " << p.validated_changes
          << ", \"error\": " << err << ", \"seconds\": " << json_array(p.seconds) << ", \"cpu_seconds\": "
          << json_array(p.cpu) << ", \"server_cpu_seconds\": " << json_array(p.server_cpu) << "}"
          << (i + 1 < peers.size() ? "," : "") << "\n";
    }
    o << "  ],\n  \"lag\": {\"rate\": " << a.lag_rate << ", \"seconds\": " << a.lag_seconds << ", \"samples\": " << lag_ms.size()
      << ", \"p50_ms\": " << percentile(lag_ms, 50) << ", \"p99_ms\": " << percentile(lag_ms, 99)
      << ", \"max_ms\": " << percentile(lag_ms, 100) << "},\n";
    o << "  \"resume\": {\"file_bytes\": " << file_bytes << ", \"seconds\": " << json_array(resume_s)
      << ", \"new_updates_delivered\": " << resume_updates << "},\n";
    o << "  \"large_transaction\": {\"reps\": " << a.reps << ", \"runs\": " << large << "}\n}\n";
    std::cerr << "wrote " << a.out << "\n";
    for (const Peer& p : peers)
        if (!p.seconds.empty())
            std::cerr << p.name << ": median " << median(p.seconds) << " s = "
                      << static_cast<double>(w.changes) / median(p.seconds) << " row changes/s\n";
    std::cerr << "lag p50 " << percentile(lag_ms, 50) << " ms, p99 " << percentile(lag_ms, 99) << " ms\n";
    std::cerr << "resume median " << median(resume_s) << " s\n";
    return 0;
}
