// mariadb_speed_bench: the speed features against their same-build
// baselines, and the same workloads through Connector/C, with the reference
// driver's method.
//
// Method. Every profile (client x workload) runs in --processes independent
// processes (7 by default), all of them in one shuffled order. A process
// connects, does --warmups untimed runs, then --reps timed runs; every run
// is validated by count and checksum (a wrong result aborts the process and
// the bench). Memory profiles (peak RSS) run once per process, without
// warm-up. The driver reports, per profile, the median over processes of
// each process's median (min..max across processes), p50/p95/p99 of the
// per-operation latencies of all runs, and allocations per run (a counting
// operator new). Raw samples go to a JSON capture (--out), from which
// scripts/bench/render_mariadb_speed.py renders docs/benchmarks/mariadb.md.
//
// Placement. Every child process is pinned to one CPU (--client-cpu, the
// last online CPU by default; -1 leaves placement to the scheduler). Left
// free, processes on this 2-vCPU VM landed in one of two modes that lasted
// their whole life: stream 130-140 or 230-270 ns/row, a cursor 260-280 or
// 400-460, a 50-column execute 58-62 or 85-110 us, for either client. Which
// mode a process got decided the medians more than the client did; pinned,
// every process measured the fast mode (docs/mariadb-speed.md, Benchmark).
//
// Quiet server. A write-heavy profile (bulk, sequential inserts, uploads)
// leaves the server flushing and purging for a while after its process
// exits; the latency-bound profile that came next in the shuffled order paid
// for it. Before each process the driver waits until the server (its PID
// from the servers' directory) used under 10% of a CPU over 100 ms, at most
// 5 s, and records how long it waited.
#include <CLI/CLI.hpp>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sluice/common/env_file.hpp"
#include "sluice/mariadb/mariadb.hpp"
#include "speed_bench.hpp"

namespace sb = sluice::mariadb::speed_bench;
using sluice::EnvFile;
using sluice::mariadb::Connection;
using sluice::mariadb::ConnectOptions;

namespace {

// The table rows: the feature (Current) against its baseline.
struct TableRow {
    const char* id;
    const char* title;
    const char* current;
    const char* baseline;
};
const std::vector<TableRow> table_rows{
    {"bulk_vs_sequential", "native bulk vs sequential prepared (5,000 rows)", "bulk_native", "bulk_sequential"},
    // The two text batches the design brief names, both shown: one INSERT
    // per row in one multi-statement COM_QUERY (the reading of the reference
    // driver's -82% goal), and one multi-row INSERT ... VALUES (no goal).
    {"bulk_vs_text_statements", "native bulk vs multi-statement text batch (5,000 INSERTs in one COM_QUERY)",
     "bulk_native", "text_batch_statements"},
    {"bulk_vs_text", "native bulk vs multi-row VALUES text batch (one INSERT of 5,000 rows)", "bulk_native",
     "text_batch"},
    {"metadata_cache", "wide (50 columns) prepared: metadata cache vs none", "meta_cached", "meta_uncached"},
    {"pool_reset", "TLS pool reset (reset, restore, re-prepare) vs reconnect (TCP+TLS+auth+prepare)", "pool_reset",
     "pool_reconnect"},
    // The same requests on a pool of two (min_idle 2): the ready-first borrow
    // alternates and rarely waits for a reset. No goal: the row is
    // the one above (one connection).
    {"pool_reset_2", "TLS pool of 2 (min_idle 2, ready-first borrow) vs reconnect", "pool_reset_2",
     "pool_reconnect"},
    // The floor: the same request with no pool at all (one connection held,
    // nothing reset). No goal; it bounds what any reset can reach.
    {"pool_held", "TLS request on a held connection, nothing reset (the floor of any pool) vs reconnect", "pool_held",
     "pool_reconnect"},
    {"upload_1mib", "upload of 1 MiB: streamed vs buffered", "upload_streamed", "upload_buffered"},
    {"upload_64mib_memory", "upload of 64 MiB: retained memory, streamed vs buffered", "upload_streamed_64m",
     "upload_buffered_64m"},
    {"cursor", "100,000 rows: cursor (batches of 512) vs ordinary stream", "cursor_512", "stream_plain"},
    {"zlib_narrow", "100,000-row narrow SELECT: zlib vs plain", "narrow_zlib", "narrow_plain"},
    {"zlib_wide", "10,000-row 50-column SELECT: zlib vs plain", "wide_zlib", "wide_plain"},
    // Pipelines (issue 17): the same 20,000 point SELECTs at three depths,
    // each against one round trip per SELECT; Connector/C runs the
    // sequential baseline only (it has no pipelining: that is its best).
    {"pipeline_point_16", "20,000 prepared point SELECTs: pipelined (depth 16) vs sequential", "point_pipelined_16",
     "point_sequential"},
    {"pipeline_point_64", "20,000 prepared point SELECTs: pipelined (depth 64) vs sequential", "point_pipelined_64",
     "point_sequential"},
    {"pipeline_point_256", "20,000 prepared point SELECTs: pipelined (depth 256) vs sequential",
     "point_pipelined_256", "point_sequential"},
    {"pipeline_insert_vs_bulk", "20,000 single-row INSERTs: pipelined (depth 256, one transaction) vs native bulk",
     "insert_pipelined", "insert_bulk_20k"},
    {"pipeline_insert_vs_sequential",
     "20,000 single-row INSERTs: pipelined (depth 256, one transaction) vs sequential (autocommit)",
     "insert_pipelined", "insert_sequential_20k"},
    // The server floor (no client): the same 20,000 single-row INSERTs run
    // by a stored procedure's loop in one transaction. If this alone is
    // above 1.5x bulk, no client can meet the pipelined-insert goal on
    // this server (docs/mariadb.md, Decisions).
    {"server_loop_vs_bulk",
     "20,000 single-row INSERTs run by the server itself (stored-procedure loop of INSERT, one transaction, no "
     "client) vs native bulk",
     "insert_server_loop_20k", "insert_bulk_20k"},
    {"server_execute_vs_bulk",
     "20,000 single-row INSERTs run by the server itself (stored-procedure loop of EXECUTE ... USING, one "
     "transaction) vs native bulk",
     "insert_server_execute_20k", "insert_bulk_20k"},
    {"server_loop_overhead", "the stored procedure's loop alone (20,000 iterations, no statement) vs the loop of INSERTs",
     "server_loop_empty_20k", "insert_server_loop_20k"},
    {"pipeline_insert_unix_vs_bulk_unix",
     "20,000 single-row INSERTs over the unix socket: pipelined (depth 256, one transaction) vs native bulk",
     "insert_pipelined_unix", "insert_bulk_20k_unix"},
    // Many connections on one thread (issue 29): the async API against 64
    // blocking threads; the last column is sluice's one thread against
    // Connector/C's non-blocking API on one thread (goals: time at most
    // 1.0x, client CPU per SELECT at most 0.8x).
    {"async_64_vs_threads",
     "20,000 point SELECTs over 64 connections: one thread, non-blocking (sluice AsioConnection; Connector/C "
     "_start/_cont on poll) vs 64 blocking threads",
     "point_async_64", "point_threads_64"},
    {"pipeline_insert_vs_server_loop",
     "20,000 single-row INSERTs: pipelined (depth 256, one transaction) vs the server's own loop of INSERT",
     "insert_pipelined", "insert_server_loop_20k"},
};
const std::vector<std::string> client_names{"sluice", "connector-c"};

// Connector/C cannot switch its metadata cache off: no control for that baseline.
// Nor pipelines: sluice alone runs the pipelined profiles. The server-loop
// profiles have no client in them (one CALL), so one client runs them; the
// unix-socket rows compare two sluice transports.
bool has_profile(const std::string& client, const std::string& workload) {
    if (client != "connector-c") return true;
    return workload != "meta_uncached" && workload.rfind("point_pipelined", 0) != 0 &&
           workload.rfind("insert_pipelined", 0) != 0 && workload.find("server_") == std::string::npos &&
           workload.find("_unix") == std::string::npos;
}

long server_pid(const EnvFile& env) {
    const std::optional<std::string> dir = env.get("SLUICE_SERVERS_DIR");
    if (!dir) return -1;
    std::ifstream in(*dir + "/mariadb.pid");
    long pid = -1;
    return in >> pid ? pid : -1;
}

// ---- child ----

void pin_to_cpu(int cpu) {
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<std::size_t>(cpu), &set);
    if (::sched_setaffinity(0, sizeof set, &set) != 0) {
        throw std::runtime_error("cannot pin the process to CPU " + std::to_string(cpu));
    }
}

int run_child(const EnvFile& env, const std::string& client_name, const std::string& workload, int warmups,
              int reps, int client_cpu, long extra_work_ns) {
    pin_to_cpu(client_cpu);
    if (extra_work_ns > 0 && workload != "point_async_64") {
        throw std::runtime_error("--child-extra-work-ns is for point_async_64 alone, not " + workload);
    }
    sb::set_extra_client_work(std::chrono::nanoseconds(extra_work_ns));
    const sb::Target target = sluice::mariadb::bench::target_from(env);
    auto client =
        client_name == "sluice" ? sb::make_sluice(target, server_pid(env)) : sb::make_connector_c(target);
    const sb::Expected expected = sb::expected(workload);
    const bool memory = std::any_of(sb::workloads().begin(), sb::workloads().end(),
                                    [&](const sb::Workload& w) { return w.key == workload && w.memory; });
    auto validate = [&](const sb::Outcome& o) {
        sb::check(o.count == expected.count, workload + ": count " + std::to_string(o.count) + ", expected " +
                                                 std::to_string(expected.count));
        if (!memory) {
            sb::check(o.checksum == expected.checksum, workload + ": checksum " + std::to_string(o.checksum) +
                                                           ", expected " + std::to_string(expected.checksum));
        }
    };
    if (!memory) {
        for (int i = 0; i < warmups; ++i) {
            client->prepare_run(workload);
            validate(client->run(workload));
        }
    }
    for (int i = 0; i < (memory ? 1 : reps); ++i) {
        client->prepare_run(workload);
        sb::Outcome o = client->run(workload);
        validate(o);
        std::printf("run %.0f %.0f %llu %.0f %.0f %.0f\n", o.elapsed_ns, o.units,
                    static_cast<unsigned long long>(o.allocations), o.retained_bytes, o.cpu.client_ns, o.cpu.server_ns);
        for (double l : o.latencies_ns) std::printf("lat %.0f\n", l);
    }
    return 0;
}

// ---- driver ----

struct Run {
    double ns_per_unit = 0;
    double allocations = 0;
    double retained = 0;
    double client_cpu_per_unit = -1;  // negative: not measured
    double server_cpu_per_unit = -1;
};
struct ProcessResult {
    std::vector<Run> runs;
    std::vector<double> latencies;
};

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}
std::string json_number(double v) {
    std::ostringstream s;
    s.precision(12);
    s << v;
    return s.str();
}

std::string read_first_line(const std::string& path, const std::string& key) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(key, 0) == 0) {
            auto colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(line.find_first_not_of(" \t", colon + 1));
        }
    }
    return "";
}

// CPU time (user + system, in clock ticks) the process has used so far, or
// -1 when it cannot be read.
long process_cpu_ticks(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    if (!std::getline(in, stat)) return -1;
    const auto close = stat.rfind(')');
    if (close == std::string::npos) return -1;
    std::istringstream fields(stat.substr(close + 2));
    std::string field;
    long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {  // field numbers as in proc(5)
        if (i == 14) utime = std::stol(field);
        if (i == 15) stime = std::stol(field);
    }
    return utime + stime;
}

// Waits until the server is quiet (see the header comment); returns the
// milliseconds waited.
double wait_for_quiet_server(long pid) {
    if (pid <= 0) return 0;
    const long ticks_per_second = ::sysconf(_SC_CLK_TCK);
    const auto start = std::chrono::steady_clock::now();
    const auto window = std::chrono::milliseconds(100);
    long before = process_cpu_ticks(pid);
    while (before >= 0 && std::chrono::steady_clock::now() - start < std::chrono::seconds(5)) {
        std::this_thread::sleep_for(window);
        const long after = process_cpu_ticks(pid);
        if (after < 0 || (after - before) * 1000 < ticks_per_second * 10) break;  // < 10 ms of CPU in 100 ms
        before = after;
    }
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

ProcessResult run_process(const std::string& self, const std::string& env_path, const std::string& client,
                          const std::string& workload, int warmups, int reps, int client_cpu) {
    const std::string cmd = shell_quote(self) + " --child-client " + client + " --child-workload " + workload +
                            " --env " + shell_quote(env_path) + " --warmups " + std::to_string(warmups) +
                            " --reps " + std::to_string(reps) +
                            " --client-cpu " + std::to_string(client_cpu) + " 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) throw std::runtime_error("cannot start " + cmd);
    ProcessResult result;
    std::string output;
    char line[512];
    while (std::fgets(line, sizeof line, p)) {
        std::istringstream in(line);
        std::string tag;
        in >> tag;
        if (tag == "run") {
            double elapsed = 0, units = 0, allocs = 0, retained = 0, client_cpu_ns = -1, server_cpu_ns = -1;
            in >> elapsed >> units >> allocs >> retained >> client_cpu_ns >> server_cpu_ns;
            result.runs.push_back({elapsed / units, allocs, retained, client_cpu_ns < 0 ? -1 : client_cpu_ns / units,
                                   server_cpu_ns < 0 ? -1 : server_cpu_ns / units});
        } else if (tag == "lat") {
            double v = 0;
            in >> v;
            result.latencies.push_back(v);
        } else {
            output += line;
        }
    }
    const int status = ::pclose(p);
    if (status != 0 || result.runs.empty()) {
        throw std::runtime_error(client + " " + workload + " failed (status " + std::to_string(status) + "):\n" + output);
    }
    return result;
}

int run_driver(const EnvFile& env, const std::string& env_path, int processes, int warmups, int reps,
               int client_cpu, const std::string& out_path, const std::vector<std::string>& only, const std::string& command) {
    const std::string load_at_start = read_first_line("/proc/loadavg", "");
    // Data, made once (and checked by every run's checksum).
    Connection admin = Connection::connect(sluice::mariadb::bench::admin_options_from(env));
    auto count_of = [&](const std::string& table) -> std::uint64_t {
        try {
            auto rs = admin.query("SELECT COUNT(*) FROM " + table);
            std::uint64_t n = std::stoull(rs.next()->get<std::string>(0));
            rs.discard();
            return n;
        } catch (const sluice::mariadb::Error&) {
            return 0;
        }
    };
    if (count_of("speed_narrow") != static_cast<std::uint64_t>(sb::narrow_rows)) {
        admin.execute("CREATE OR REPLACE TABLE speed_narrow (id INT PRIMARY KEY, v BIGINT) "
                      "SELECT seq AS id, seq * 37 % 1000003 AS v FROM seq_1_to_" + std::to_string(sb::narrow_rows));
    }
    if (count_of("speed_wide") != static_cast<std::uint64_t>(sb::wide_rows)) {
        std::string cols = "seq AS id";
        std::string defs = "id INT PRIMARY KEY";
        for (int k = 1; k <= sb::wide_ints; ++k) {
            cols += ", seq * " + std::to_string(k) + " % 100000 AS c" + std::to_string(k);
            defs += ", c" + std::to_string(k) + " INT";
        }
        for (int k = sb::wide_ints + 1; k <= sb::wide_ints + sb::wide_texts; ++k) {
            cols += ", CONCAT('v', seq, '-" + std::to_string(k) + "') AS c" + std::to_string(k);
            defs += ", c" + std::to_string(k) + " VARCHAR(40)";
        }
        admin.execute("CREATE OR REPLACE TABLE speed_wide (" + defs + ") SELECT " + cols + " FROM seq_1_to_" +
                      std::to_string(sb::wide_rows));
    }
    // Server settings for the report.
    std::vector<std::pair<std::string, std::string>> server;
    {
        auto rs = admin.query(
            "SELECT VERSION(), @@max_allowed_packet, @@innodb_flush_log_at_trx_commit, @@innodb_buffer_pool_size, "
            "@@local_infile, @@binlog_format, @@log_bin, @@character_set_server, @@collation_server");
        const auto* r = rs.next();
        const char* names[] = {"version", "max_allowed_packet", "innodb_flush_log_at_trx_commit",
                               "innodb_buffer_pool_size", "local_infile", "binlog_format", "log_bin",
                               "character_set_server", "collation_server"};
        for (std::size_t i = 0; i < std::size(names); ++i) server.emplace_back(names[i], r->get<std::string>(i));
        rs.discard();
        sb::Target t = sluice::mariadb::bench::target_from(env);
        ConnectOptions tls;
        tls.host = t.host;
        tls.port = t.port;
        tls.user = t.user;
        tls.password = t.password;
        tls.database = t.database;
        tls.ssl_ca = t.ca;
        Connection c = Connection::connect(tls);
        server.emplace_back("tls", c.tls_version() + " (verify-full, our client)");
        server.emplace_back("address", t.host + ":" + std::to_string(t.port) + " (loopback TCP)");
    }

    std::vector<std::pair<std::string, std::string>> jobs;
    for (const sb::Workload& w : sb::workloads()) {
        if (!only.empty() && std::find(only.begin(), only.end(), w.key) == only.end()) continue;
        for (const std::string& c : client_names) {
            if (!has_profile(c, w.key)) continue;
            for (int i = 0; i < processes; ++i) jobs.emplace_back(c, w.key);
        }
    }
    const auto seed = static_cast<std::uint32_t>(std::random_device{}());
    std::mt19937 rng(seed);
    std::shuffle(jobs.begin(), jobs.end(), rng);

    char self_buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", self_buf, sizeof self_buf - 1);
    if (n <= 0) throw std::runtime_error("cannot find this executable");
    const std::string self(self_buf, static_cast<std::size_t>(n));

    std::map<std::pair<std::string, std::string>, std::vector<ProcessResult>> results;
    std::size_t done = 0;
    const long mariadbd = server_pid(env);
    std::vector<double> quiet_waits;
    for (const auto& [client, workload] : jobs) {
        quiet_waits.push_back(wait_for_quiet_server(mariadbd));
        results[{client, workload}].push_back(run_process(self, env_path, client, workload, warmups, reps, client_cpu));
        if (++done % 10 == 0 || done == jobs.size()) std::cerr << "\r" << done << "/" << jobs.size() << " processes" << std::flush;
    }
    std::cerr << "\n";

    // Summary per profile.
    struct Summary {
        double median = 0, min = 0, max = 0, p50 = 0, p95 = 0, p99 = 0, allocations = 0;
        double client_cpu = -1, server_cpu = -1;  // per unit, median over processes; negative: not measured
    };
    std::map<std::pair<std::string, std::string>, Summary> summary;
    for (auto& [key, procs] : results) {
        std::vector<double> medians, all_lat, allocs, client_cpus, server_cpus;
        const bool memory = key.second.find("64m") != std::string::npos;
        for (const ProcessResult& p : procs) {
            std::vector<double> v, cc, sc;
            for (const Run& r : p.runs) {
                v.push_back(memory ? r.retained : r.ns_per_unit);
                allocs.push_back(r.allocations);
                if (r.client_cpu_per_unit >= 0) cc.push_back(r.client_cpu_per_unit);
                if (r.server_cpu_per_unit >= 0) sc.push_back(r.server_cpu_per_unit);
            }
            medians.push_back(median(v));
            if (!cc.empty()) client_cpus.push_back(median(cc));
            if (!sc.empty()) server_cpus.push_back(median(sc));
            all_lat.insert(all_lat.end(), p.latencies.begin(), p.latencies.end());
        }
        Summary s;
        s.median = median(medians);
        s.min = *std::min_element(medians.begin(), medians.end());
        s.max = *std::max_element(medians.begin(), medians.end());
        s.p50 = percentile(all_lat, 0.50);
        s.p95 = percentile(all_lat, 0.95);
        s.p99 = percentile(all_lat, 0.99);
        s.allocations = median(allocs);
        if (!client_cpus.empty()) s.client_cpu = median(client_cpus);
        if (!server_cpus.empty()) s.server_cpu = median(server_cpus);
        summary[key] = s;
    }

    // Capture.
    std::ofstream out(out_path);
    utsname u{};
    ::uname(&u);
    out << "{\n  \"command\": " << json_string(command) << ",\n";
    out << "  \"date_utc\": " << json_string([] {
        char buf[64];
        std::time_t t = std::time(nullptr);
        std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", std::gmtime(&t));
        return std::string(buf);
    }()) << ",\n";
    out << "  \"machine\": {\"cpu\": " << json_string(read_first_line("/proc/cpuinfo", "model name"))
        << ", \"cpus\": " << ::sysconf(_SC_NPROCESSORS_ONLN)
        << ", \"memory\": " << json_string(read_first_line("/proc/meminfo", "MemTotal"))
        << ", \"kernel\": " << json_string(std::string(u.sysname) + " " + u.release)
        << ", \"connector_c\": " << json_string(sb::connector_c_version()) << "},\n";
    out << "  \"server\": {";
    for (std::size_t i = 0; i < server.size(); ++i) {
        out << (i ? ", " : "") << json_string(server[i].first) << ": " << json_string(server[i].second);
    }
    out << "},\n";
    out << "  \"method\": {\"processes\": " << processes << ", \"warmups\": " << warmups << ", \"reps\": " << reps
        << ", \"shuffle_seed\": " << seed << ", \"client_cpu\": " << client_cpu
        << ", \"loadavg_start\": " << json_string(load_at_start)
        << ", \"quiet_server\": " << (mariadbd > 0 ? "true" : "false")
        << ", \"quiet_wait_ms_median\": " << (quiet_waits.empty() ? 0.0 : median(quiet_waits))
        << ", \"quiet_wait_ms_max\": "
        << (quiet_waits.empty() ? 0.0 : *std::max_element(quiet_waits.begin(), quiet_waits.end()))
        << ", \"loadavg_end\": " << json_string(read_first_line("/proc/loadavg", "")) << "},\n";
    out << "  \"rows\": [\n";
    for (std::size_t i = 0; i < table_rows.size(); ++i) {
        const TableRow& r = table_rows[i];
        std::string unit;
        for (const sb::Workload& w : sb::workloads()) {
            if (r.current == std::string(w.key)) unit = w.unit;
        }
        out << "    {\"id\": " << json_string(r.id) << ", \"title\": " << json_string(r.title)
            << ", \"current\": " << json_string(r.current) << ", \"baseline\": " << json_string(r.baseline)
            << ", \"unit\": " << json_string(unit) << "}" << (i + 1 < table_rows.size() ? "," : "") << "\n";
    }
    out << "  ],\n  \"profiles\": [\n";
    std::size_t k = 0;
    for (auto& [key, procs] : results) {
        const Summary& s = summary[key];
        out << "    {\"client\": " << json_string(key.first) << ", \"workload\": " << json_string(key.second)
            << ", \"median\": " << json_number(s.median) << ", \"min\": " << json_number(s.min)
            << ", \"max\": " << json_number(s.max) << ", \"p50_ns\": " << json_number(s.p50)
            << ", \"p95_ns\": " << json_number(s.p95) << ", \"p99_ns\": " << json_number(s.p99)
            << ", \"allocations_per_run\": " << json_number(s.allocations);
        auto optional_number = [](double v) { return v < 0 ? std::string("null") : json_number(v); };
        out << ", \"client_cpu_per_unit\": " << optional_number(s.client_cpu)
            << ", \"server_cpu_per_unit\": " << optional_number(s.server_cpu) << ",\n      \"processes\": [";
        for (std::size_t pi = 0; pi < procs.size(); ++pi) {
            out << (pi ? ", " : "") << "{\"runs\": [";
            for (std::size_t ri = 0; ri < procs[pi].runs.size(); ++ri) {
                const Run& r = procs[pi].runs[ri];
                out << (ri ? ", " : "") << "{\"ns_per_unit\": " << json_number(r.ns_per_unit)
                    << ", \"allocations\": " << json_number(r.allocations)
                    << ", \"retained_bytes\": " << json_number(r.retained)
                    << ", \"client_cpu_ns_per_unit\": " << optional_number(r.client_cpu_per_unit)
                    << ", \"server_cpu_ns_per_unit\": " << optional_number(r.server_cpu_per_unit) << "}";
            }
            out << "], \"latencies_ns\": [";
            for (std::size_t li = 0; li < procs[pi].latencies.size(); ++li) {
                out << (li ? "," : "") << json_number(procs[pi].latencies[li]);
            }
            out << "]}";
        }
        out << "]}" << (++k < results.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
    out.close();

    // Console table.
    std::printf("%-24s %-16s %14s %14s %9s %14s %14s %9s\n", "row", "unit", "current", "baseline", "delta",
                "C/C current", "C/C baseline", "ours/C/C");
    auto get = [&](const std::string& c, const std::string& w) -> const Summary* {
        auto it = summary.find({c, w});
        return it == summary.end() ? nullptr : &it->second;
    };
    for (const TableRow& r : table_rows) {
        const Summary* cur = get("sluice", r.current);
        const Summary* base = get("sluice", r.baseline);
        if (!cur || !base) continue;
        const Summary* cc = get("connector-c", r.current);
        const Summary* ccb = get("connector-c", r.baseline);
        std::string unit;
        for (const sb::Workload& w : sb::workloads()) {
            if (r.current == std::string(w.key)) unit = w.unit;
        }
        std::printf("%-24s %-16s %14.2f %14.2f %+8.1f%% %14.2f %14.2f %9.2f\n", r.id, unit.c_str(), cur->median,
                    base->median, (cur->median - base->median) / base->median * 100, cc ? cc->median : 0.0,
                    ccb ? ccb->median : 0.0, cc && cc->median > 0 ? cur->median / cc->median : 0.0);
    }
    // Where the time of the profiles that measure CPU went: the client's
    // own CPU and the server's, per unit, against the wall time.
    bool cpu_header = false;
    for (const auto& [key, s] : summary) {
        if (s.client_cpu < 0 && s.server_cpu < 0) continue;
        if (!cpu_header) {
            std::printf("\n%-12s %-30s %14s %14s %14s\n", "client", "workload", "wall/unit", "client CPU",
                        "server CPU");
            cpu_header = true;
        }
        std::printf("%-12s %-30s %14.2f %14.2f %14.2f\n", key.first.c_str(), key.second.c_str(), s.median,
                    s.client_cpu, s.server_cpu);
    }
    std::printf("capture: %s\n", out_path.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"mariadb_speed_bench: speed features vs same-build baselines, with Connector/C as the control"};
    std::string env_path;
    int processes = 7, warmups = 2, reps = 5;
    int client_cpu = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)) - 1;
    std::string out_path = "mariadb-speed-capture.json";
    std::vector<std::string> only;
    std::string child_client, child_workload;
    long child_extra_work_ns = 0;
    app.add_option("--env", env_path, "servers' env file (default: $SLUICE_ENV_FILE)");
    app.add_option("--processes", processes, "independent processes per profile")->check(CLI::PositiveNumber);
    app.add_option("--warmups", warmups, "untimed runs per process")->check(CLI::NonNegativeNumber);
    app.add_option("--reps", reps, "timed runs per process")->check(CLI::PositiveNumber);
    app.add_option("--out", out_path, "JSON capture of every sample");
    app.add_option("--client-cpu", client_cpu,
                   "pin every client process to this CPU (default: the last online one; -1: no pinning)")
        ->check(CLI::Range(-1, 1023));
    app.add_option("--only", only, "workload keys to run (default: all)")->delimiter(',');
    app.add_option("--child-client", child_client, "internal: run one profile in this process")->group("");
    app.add_option("--child-workload", child_workload, "internal")->group("");
    app.add_option("--child-extra-work-ns", child_extra_work_ns,
                   "internal: busy time added after each reply (point_async_64; ab_mariadb_async.py --extra-work-ns)")
        ->check(CLI::NonNegativeNumber)
        ->group("");
    CLI11_PARSE(app, argc, argv);
    try {
        env_path = sluice::mariadb::bench::env_file_path(env_path);
        const EnvFile env = EnvFile::load(env_path);
        if (!child_client.empty()) return run_child(env, child_client, child_workload, warmups, reps, client_cpu, child_extra_work_ns);
        std::string command;
        for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(i ? argv[i] : "mariadb_speed_bench");
        return run_driver(env, env_path, processes, warmups, reps, client_cpu, out_path, only, command);
    } catch (const std::exception& e) {
        std::cerr << "mariadb_speed_bench: " << e.what() << "\n";
        return 1;
    }
}
