// The pipeline benchmark (docs/benchmarks/pipeline.md), end to end on loopback:
//  1. catch-up: N source row changes already in the binlog (transactions of
//     900 inserts + 100 updates), `sluice-pipeline --until-end` from their
//     first GTID into a fresh sink, beside the same transactions fed from a
//     file through `tideweave stream` (the engine alone); runs interleaved,
//     medians, wall and CPU time of the child;
//  2. steady lag: a writer commits R row changes/s (transactions of 100 rows
//     every 100/R s) while the pipeline follows; lag = the time the sink's
//     state row shows the transaction's GTID minus the time its COMMIT
//     returned (the state row is polled continuously on its own connection);
//     beside it, the same transactions' NDJSON lines written into
//     `tideweave stream` through a pipe, lag = its output line minus the write.
//  3. large transaction (issue 25): N rows inserted in ONE source transaction
//     against the same rows in 1,000-row transactions (two tables, written
//     once), `sluice-pipeline --until-end` into a fresh sink, interleaved,
//     medians of wall time and of the child's peak RSS (wait4 ru_maxrss,
//     its VmHWM); in two shapes: 1,000 sessions (ts = id / 800) and every
//     row its own session (ts = id / 80, the engine's changelog of the
//     transaction as large as the transaction).
// Usage: pipeline_bench --env ENV --pipeline CLI --tideweave CLI [--rows N]
//        [--runs K] [--rate R] [--lag-seconds S] [--large-rows N[,N...]]
//        [--large-session-rows N] --out capture.json
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_engine_alone.hpp"
#include "bench_lag.hpp"
#include "bench_process.hpp"
#include "bench_report.hpp"
#include "bench_sql.hpp"
#include "sluice/common/env_file.hpp"
#include "sluice/mariadb/mariadb.hpp"
#include "sluice/postgres/connection.hpp"

namespace {

using sluice::EnvFile;
namespace my = sluice::mariadb;
namespace pg = sluice::postgres;
using namespace sluice::pipeline_bench;

struct Timing {
    double wall = 0, cpu = 0;
};

// Runs argv with stdin/stdout redirected (empty = inherit), waits; wall and child CPU seconds.
Timing run(const std::vector<std::string>& argv, const std::string& in, const std::string& out) {
    const double cpu0 = children_cpu_seconds();
    const auto t0 = Clock::now();
    pid_t pid = fork();
    if (pid == 0) {
        if (!in.empty()) dup2(open(in.c_str(), O_RDONLY), 0);
        if (!out.empty()) dup2(open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 1);
        exec_child(argv);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    Timing t;
    t.wall = seconds_since(t0);
    t.cpu = children_cpu_seconds() - cpu0;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) throw std::runtime_error("failed: " + argv[0]);
    return t;
}

// CPU seconds of a server process: its own (every thread) and that of the
// children it has reaped (PostgreSQL's backends, once their client left).
double server_cpu(const std::string& servers_dir, const char* name) {
    long pid = 0;
    std::ifstream(servers_dir + "/" + name + ".pid") >> pid;
    const ProcessCpu cpu = process_cpu(static_cast<pid_t>(pid));
    return cpu.own + cpu.reaped_children;
}

// The workload: per transaction 900 inserts (ids n+1..n+900, key id % 1000,
// ts id / 80, value id % 97 + 0.5) and an update of the 100 rows inserted
// first in the previous transaction (value + 1). SQL and NDJSON with the
// watermark rule (lag = gap = 10).
struct Generator {
    std::int64_t next_id = 1;
    std::int64_t prev_first = 0;
    std::int64_t max_ts = 0;
    std::optional<std::int64_t> watermark;
    static std::int64_t ts_of(std::int64_t id) { return id / 80; }
    static double value_of(std::int64_t id) { return static_cast<double>(id % 97) + 0.5; }
    std::pair<std::vector<std::string>, std::string> next(const std::string& table, int inserts, int updates) {
        std::vector<std::string> sql;
        std::string nd = "{\"tx\":[";
        std::string ins = "INSERT INTO " + table + " VALUES ";
        const std::int64_t first = next_id;
        for (int i = 0; i < inserts; ++i, ++next_id) {
            const std::int64_t id = next_id;
            const std::string key = "k" + std::to_string(id % 1000);
            char v[32];
            std::snprintf(v, sizeof v, "%.1f", value_of(id));
            ins += (i ? ",(" : "(") + std::to_string(id) + ",'" + key + "'," + std::to_string(ts_of(id)) + "," + v + ")";
            nd += (i ? "," : "") + std::string("{\"insert\":{\"id\":\"") + std::to_string(id) + "\",\"key\":\"" + key +
                  "\",\"ts\":" + std::to_string(ts_of(id)) + ",\"value\":" + v + "}}";
            max_ts = std::max(max_ts, ts_of(id));
        }
        sql.push_back(ins);
        if (prev_first && updates) {
            sql.push_back("UPDATE " + table + " SET v = v + 1 WHERE id BETWEEN " + std::to_string(prev_first) + " AND " +
                          std::to_string(prev_first + updates - 1));
            for (std::int64_t id = prev_first; id < prev_first + updates; ++id) {
                const std::string key = "k" + std::to_string(id % 1000);
                char b[32], a[32];
                std::snprintf(b, sizeof b, "%.1f", value_of(id));
                std::snprintf(a, sizeof a, "%.1f", value_of(id) + 1);
                nd += ",{\"retract\":{\"id\":\"" + std::to_string(id) + "\",\"key\":\"" + key + "\",\"ts\":" +
                      std::to_string(ts_of(id)) + ",\"value\":" + b + "}},{\"insert\":{\"id\":\"" + std::to_string(id) +
                      "\",\"key\":\"" + key + "\",\"ts\":" + std::to_string(ts_of(id)) + ",\"value\":" + a + "}}";
            }
        }
        prev_first = first;
        nd += "]}\n";
        if (!watermark || max_ts - 10 > *watermark) {
            watermark = max_ts - 10;
            nd += "{\"watermark\":" + std::to_string(*watermark) + "}\n";
        }
        return {sql, nd};
    }
};

// The large-transaction scenario of one shape: `rows` rows (id, key 'k' ||
// id % 1000, ts id / ts_divisor, value id % 97 + 0.5) into bench.large_one
// in one transaction and into bench.large_thousand in 1,000-row ones; then
// `runs` interleaved pipeline runs of each from the GTID before both: the
// one transaction as the pipeline applies it (parts, slices into the open
// sink transaction), the same without slices (--part-changes 100000000:
// only the binlog's 1 MiB stream parts, the changelog held to the commit),
// the 1,000-row transactions, and a snapshot of bench.large_one (the same
// rows read from the table, streamed in chunks: issue 25). JSON.
std::string large_transaction(my::Connection& m, pg::Connection& p, const std::string& my_url,
                              const std::string& pg_url, const std::string& pipeline_cli, std::int64_t rows,
                              int ts_divisor, int runs) {
    m.execute("DROP TABLE IF EXISTS bench.large_one");
    m.execute("DROP TABLE IF EXISTS bench.large_thousand");
    for (const char* t : {"large_one", "large_thousand"})
        m.execute(std::string("CREATE TABLE bench.") + t + " (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    const std::string start = scalar(m, "SELECT @@global.gtid_binlog_pos");
    m.execute("SET SESSION max_recursive_iterations = 100000000");
    const auto insert = [&](const char* table, std::int64_t from, std::int64_t to) {
        m.execute(std::string("INSERT INTO bench.") + table + " WITH RECURSIVE s(n) AS (SELECT " + std::to_string(from) +
                  " UNION ALL SELECT n + 1 FROM s WHERE n < " + std::to_string(to) + ") SELECT n, CONCAT('k', n MOD 1000), n DIV " +
                  std::to_string(ts_divisor) + ", n MOD 97 + 0.5 FROM s");
    };
    insert("large_one", 1, rows);
    for (std::int64_t b = 0; b < rows; b += 1000) insert("large_thousand", b + 1, std::min(rows, b + 1000));
    ::sync();
    std::this_thread::sleep_for(std::chrono::seconds(2));
    struct Contender {
        const char* name;   // its sink table is bench_NAME
        const char* table;  // read from bench.TABLE
        std::vector<std::string> start;
        std::vector<double> wall, rss;
    };
    std::vector<Contender> contenders = {
        {"large_one", "large_one", {"--from-gtid", start}, {}, {}},
        {"large_one_noslice", "large_one", {"--from-gtid", start, "--part-changes", "100000000"}, {}, {}},
        {"large_thousand", "large_thousand", {"--from-gtid", start}, {}, {}},
        {"large_snapshot", "large_one", {"--snapshot"}, {}, {}},
    };
    std::string sessions;
    std::vector<double> engine_alone_rss, engine_alone_wall;
    for (int r = 0; r < runs; ++r) {
        for (Contender& c : contenders) {
            drop_sink(p, std::string("bench_") + c.name);
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            std::vector<std::string> argv = {pipeline_cli, "run", "--source", my_url, "--table",
                                             std::string("bench.") + c.table, "--id", "id", "--key", "k", "--ts", "t",
                                             "--value", "v", "--sink", pg_url, "--sink-table",
                                             std::string("bench_") + c.name, "--until-end", "--quiet"};
            argv.insert(argv.end(), c.start.begin(), c.start.end());
            const Footprint f = run_measured(argv);
            c.wall.push_back(f.wall);
            c.rss.push_back(f.rss_mib);
            std::cerr << "large transaction, ts = id / " << ts_divisor << ", run " << r + 1 << ": " << c.name << " "
                      << f.wall << " s, peak RSS " << f.rss_mib << " MiB\n";
        }
        const Footprint alone =
            run_measured({"/proc/self/exe", "--engine-alone", std::to_string(rows), std::to_string(ts_divisor)});
        engine_alone_rss.push_back(alone.rss_mib);
        engine_alone_wall.push_back(alone.wall);
        std::cerr << "large transaction, ts = id / " << ts_divisor << ", run " << r + 1 << ": the engine alone "
                  << alone.wall << " s, peak RSS " << alone.rss_mib << " MiB\n";
        for (const Contender& c : contenders) {
            const std::string n =
                p.query(std::string("select count(*) from bench_") + c.name).row(0).get<std::string>(0);
            if (!sessions.empty() && n != sessions)
                throw std::runtime_error(std::string("large transaction: ") + c.name + " has " + n + " sessions against " +
                                         sessions);
            sessions = n;
        }
    }
    const auto& one = contenders[0];
    const auto& noslice = contenders[1];
    const auto& thousand = contenders[2];
    const auto& snapshot = contenders[3];
    std::ostringstream o;
    o << "{\"rows\": " << rows << ", \"ts_divisor\": " << ts_divisor << ", \"sessions\": " << sessions
      << ", \"runs\": " << runs << ",\n      \"one_wall_s\": " << json_array(one.wall)
      << ", \"one_peak_rss_mib\": " << json_array(one.rss)
      << ",\n      \"one_noslice_wall_s\": " << json_array(noslice.wall)
      << ", \"one_noslice_peak_rss_mib\": " << json_array(noslice.rss)
      << ",\n      \"thousand_wall_s\": " << json_array(thousand.wall)
      << ", \"thousand_peak_rss_mib\": " << json_array(thousand.rss)
      << ",\n      \"snapshot_wall_s\": " << json_array(snapshot.wall)
      << ", \"snapshot_peak_rss_mib\": " << json_array(snapshot.rss)
      << ",\n      \"engine_alone_peak_rss_mib\": " << json_array(engine_alone_rss)
      << ", \"engine_alone_wall_s\": " << json_array(engine_alone_wall)
      << ",\n      \"one_rows_per_s\": " << static_cast<double>(rows) / median(one.wall)
      << ", \"thousand_rows_per_s\": " << static_cast<double>(rows) / median(thousand.wall) << "}";
    m.execute("DROP TABLE bench.large_one");
    m.execute("DROP TABLE bench.large_thousand");
    return o.str();
}

std::uint64_t seq_of(const std::string& gtid_state) {  // domain 0's sequence
    auto last = gtid_state.rfind('-');
    return last == std::string::npos ? 0 : std::stoull(gtid_state.substr(last + 1));
}

}  // namespace

int main(int argc, char** argv) {
    if (const std::optional<int> status = engine_alone_if_asked(argc, argv)) return *status;
    CLI::App app{"pipeline_bench: catch-up and steady lag of sluice-pipeline beside tideweave stream"};
    std::string env_path, pipeline_cli, tideweave_cli, out_path, work = "/tmp";
    std::int64_t rows = 1000000;
    int runs = 3, rate = 10000, lag_seconds = 10;
    app.add_option("--env", env_path, "servers env file")->required();
    app.add_option("--pipeline", pipeline_cli, "sluice-pipeline")->required();
    app.add_option("--tideweave", tideweave_cli, "tideweave")->required();
    app.add_option("--out", out_path, "JSON capture")->required();
    app.add_option("--work", work, "folder for the NDJSON files");
    app.add_option("--rows", rows, "catch-up row changes");
    app.add_option("--runs", runs, "catch-up runs of each");
    app.add_option("--rate", rate, "steady row changes per second");
    app.add_option("--lag-seconds", lag_seconds, "steady phase length");
    std::vector<std::int64_t> large_rows{1000000};
    std::int64_t large_session_rows = 200000;
    app.add_option("--large-rows", large_rows,
                   "large transaction: rows of the one transaction, 1,000 sessions; a comma-separated list runs "
                   "each size (1000000,3000000,10000000: the issue's sizes)")
        ->delimiter(',');
    app.add_option("--large-session-rows", large_session_rows,
                   "large transaction: rows of the one transaction that makes every row a session");
    CLI11_PARSE(app, argc, argv);

    const EnvFile env = EnvFile::load(env_path);
    const std::string my_url = env.require("SLUICE_MARIADB_URL"), pg_url = env.require("SLUICE_PG_URL");
    // The 10,000,000-row INSERT ... SELECT of the large-transaction rows
    // runs for minutes: past the default 30 s read timeout.
    my::ConnectOptions bench_options = my::parse_url(my_url);
    bench_options.timeouts.read = std::chrono::minutes(30);
    my::Connection m = my::Connection::connect(bench_options);
    pg::Connection p = pg::Connection::open(pg_url);
    p.set_notice_handler({});
    m.execute("CREATE DATABASE IF NOT EXISTS bench");

    // 1. Catch-up.
    m.execute("DROP TABLE IF EXISTS bench.catchup");
    m.execute("CREATE TABLE bench.catchup (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    const std::string start = scalar(m, "SELECT @@global.gtid_binlog_pos");
    const std::string ndjson = work + "/pipeline-bench-catchup.ndjson";
    {
        Generator g;
        std::ofstream nd(ndjson);
        std::int64_t changes = 0;
        while (changes < rows) {
            auto [sql, lines] = g.next("bench.catchup", 900, 100);
            commit_transaction(m, sql);
            nd << lines;
            changes += 900 + (g.prev_first && changes ? 100 : 0);
        }
        rows = changes;
    }
    std::cerr << "catch-up workload: " << rows << " row changes written\n";
    // Writing the workload leaves hundreds of MB of dirty pages (MariaDB's
    // data and binlog, the NDJSON file): write them back before measuring,
    // so that no run pays for it. (The first run was ~1.5-2x slower than
    // the others in every capture; this did not visibly change that.)
    ::sync();
    std::this_thread::sleep_for(std::chrono::seconds(2));
    const std::string servers_dir = env.require("SLUICE_SERVERS_DIR");
    std::vector<double> pipe_wall, pipe_cpu, tw_wall, tw_cpu, pg_cpu, my_cpu;
    const LoadAverage load_before = LoadAverage::now();
    for (int r = 0; r < runs; ++r) {
        drop_sink(p, "bench_catchup");
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the drop's work done
        const double pg0 = server_cpu(servers_dir, "postgres"), my0 = server_cpu(servers_dir, "mariadb");
        Timing a = run({pipeline_cli, "run", "--source", my_url, "--table", "bench.catchup", "--id", "id", "--key", "k",
                        "--ts", "t", "--value", "v", "--sink", pg_url, "--sink-table", "bench_catchup", "--from-gtid",
                        start, "--until-end", "--quiet"},
                       "", "");
        // The pipeline's backend has exited and been reaped by the postmaster.
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        pg_cpu.push_back(server_cpu(servers_dir, "postgres") - pg0);
        my_cpu.push_back(server_cpu(servers_dir, "mariadb") - my0);
        Timing b = run({tideweave_cli, "stream", ndjson}, "", "/dev/null");
        pipe_wall.push_back(a.wall);
        pipe_cpu.push_back(a.cpu);
        tw_wall.push_back(b.wall);
        tw_cpu.push_back(b.cpu);
        std::cerr << "run " << r + 1 << ": pipeline " << a.wall << " s (cpu " << a.cpu << ", PostgreSQL "
                  << pg_cpu.back() << ", MariaDB " << my_cpu.back() << "), tideweave stream " << b.wall
                  << " s (cpu " << b.cpu << ")\n";
    }
    const std::string sink_rows = p.query("select count(*) from bench_catchup").row(0).get<std::string>(0);

    // 2. Steady lag.
    m.execute("DROP TABLE IF EXISTS bench.steady");
    m.execute("CREATE TABLE bench.steady (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    const std::string start2 = scalar(m, "SELECT @@global.gtid_binlog_pos");
    drop_sink(p, "bench_steady");
    pid_t follower = fork();
    if (follower == 0) {
        execl(pipeline_cli.c_str(), pipeline_cli.c_str(), "run", "--source", my_url.c_str(), "--table", "bench.steady",
              "--id", "id", "--key", "k", "--ts", "t", "--value", "v", "--sink", pg_url.c_str(), "--sink-table",
              "bench_steady", "--from-gtid", start2.c_str(), "--quiet", static_cast<char*>(nullptr));
        _exit(127);
    }
    std::this_thread::sleep_for(std::chrono::seconds(2));  // the follower connects and makes its tables

    // 2a. The pipeline: the writer commits in MariaDB at the rate.
    const int per_tx = 100;
    const auto period = std::chrono::microseconds(1000000LL * per_tx / rate);
    Positions committed;  // seq, commit returned
    SinkSightings sightings;
    std::atomic<bool> done{false};
    std::thread poller([&] {
        pg::Connection q = pg::Connection::open(pg_url);
        pg::Statement s = q.prepare("select gtid from sluice_pipeline_state where name = 'bench_steady'");
        while (!done) {
            // 0.5 ms apart: polling flat out would take a core from the servers on a small machine.
            std::this_thread::sleep_for(std::chrono::microseconds(500));
            pg::Result r = q.execute(s, {}, pg::Format::text);
            if (!r.empty()) sightings.saw(seq_of(r.row(0).get<std::string>(0)));
        }
    });
    std::vector<std::string> tx_lines;  // for 2b, the same transactions
    {
        Generator g;
        // Warm-up, not measured: one transaction, until the sink shows it
        // (the follower has connected, made its tables and committed once).
        {
            auto [sql, lines] = g.next("bench.steady", 90, 0);
            commit_transaction(m, sql);
            tx_lines.push_back(lines);
            sightings.wait_for(seq_of(scalar(m, "SELECT @@last_gtid")));
        }
        auto next = Clock::now();
        const auto end = next + std::chrono::seconds(lag_seconds);
        while (Clock::now() < end) {
            auto [sql, lines] = g.next("bench.steady", 90, 10);
            commit_transaction(m, sql);
            const auto t = Clock::now();
            committed.push_back({seq_of(scalar(m, "SELECT @@last_gtid")), t});
            tx_lines.push_back(lines);
            next += period;
            std::this_thread::sleep_until(next);
        }
    }
    std::this_thread::sleep_for(std::chrono::seconds(3));
    done = true;
    poller.join();
    kill(follower, SIGTERM);
    waitpid(follower, nullptr, 0);

    // 2b. The engine alone: the same lines into `tideweave stream` through a
    // pipe, at the same rate, after the pipeline's phase (not beside it: on
    // two cores they would slow each other down).
    int to_tw[2], from_tw[2];
    if (pipe(to_tw) != 0 || pipe(from_tw) != 0) return 1;
    pid_t tw = fork();
    if (tw == 0) {
        dup2(to_tw[0], 0);
        dup2(from_tw[1], 1);
        close(to_tw[1]);
        close(from_tw[0]);
        execl(tideweave_cli.c_str(), tideweave_cli.c_str(), "stream", static_cast<char*>(nullptr));
        _exit(127);
    }
    close(to_tw[0]);
    close(from_tw[1]);
    std::vector<Clock::time_point> tw_written, tw_out;  // per line
    std::thread reader([&] {
        char buf[1 << 16];
        for (;;) {
            ssize_t n = read(from_tw[0], buf, sizeof buf);
            if (n <= 0) break;
            const auto now = Clock::now();
            for (ssize_t i = 0; i < n; ++i)
                if (buf[i] == '\n') tw_out.push_back(now);
        }
    });
    {
        auto next = Clock::now();
        for (const std::string& lines : tx_lines) {
            const auto w = Clock::now();
            for (char c : lines)
                if (c == '\n') tw_written.push_back(w);
            if (write(to_tw[1], lines.data(), lines.size()) < 0) break;
            next += period;
            std::this_thread::sleep_until(next);
        }
    }
    close(to_tw[1]);
    reader.join();
    waitpid(tw, nullptr, 0);

    const std::vector<double> lag_pipe = lag_ms(committed, sightings.taken());
    std::vector<double> lag_tw;
    for (std::size_t i = 0; i < std::min(tw_written.size(), tw_out.size()); ++i)
        lag_tw.push_back(std::chrono::duration<double, std::milli>(tw_out[i] - tw_written[i]).count());

    // 3. Large transaction.
    if (large_rows.empty()) throw std::runtime_error("--large-rows: no size given");
    const std::string large_few = large_transaction(m, p, my_url, pg_url, pipeline_cli, large_rows.front(), 800, runs);
    std::string large_few_larger = "[";
    for (std::size_t i = 1; i < large_rows.size(); ++i)
        large_few_larger += (i > 1 ? ",\n      " : "") + large_transaction(m, p, my_url, pg_url, pipeline_cli, large_rows[i], 800, runs);
    large_few_larger += "]";
    const std::string large_many = large_transaction(m, p, my_url, pg_url, pipeline_cli, large_session_rows, 80, runs);

    const LoadAverage load_at_end = LoadAverage::now();
    const double pm = median(pipe_wall), tm = median(tw_wall);
    std::ofstream out(out_path);
    out << "{\n  \"machine\": "
        << machine_json(Machine::this_one(),
                        {{"load_average_at_end", load_at_end}, {"load_average_before_catchup", load_before}})
        << ",\n"
        << "  \"catchup\": {\"row_changes\": " << rows << ", \"runs\": " << runs << ", \"sink_rows\": " << sink_rows
        << ",\n    \"pipeline_wall_s\": " << json_array(pipe_wall) << ", \"pipeline_cpu_s\": " << json_array(pipe_cpu)
        << ",\n    \"postgres_cpu_s\": " << json_array(pg_cpu) << ", \"mariadb_cpu_s\": " << json_array(my_cpu)
        << ",\n    \"tideweave_wall_s\": " << json_array(tw_wall) << ", \"tideweave_cpu_s\": " << json_array(tw_cpu)
        << ",\n    \"pipeline_rows_per_s\": " << static_cast<double>(rows) / pm
        << ", \"tideweave_rows_per_s\": " << static_cast<double>(rows) / tm << ", \"pipeline_over_tideweave_time\": "
        << pm / tm << "},\n"
        << "  \"steady\": {\"rate_row_changes_per_s\": " << rate << ", \"seconds\": " << lag_seconds
        << ", \"transactions\": " << committed.size() << ", \"measured\": " << lag_pipe.size()
        << ",\n    \"pipeline_lag_ms\": {\"p50\": " << percentile(lag_pipe, 0.5) << ", \"p99\": "
        << percentile(lag_pipe, 0.99) << ", \"max\": " << percentile(lag_pipe, 1.0) << "}"
        << ",\n    \"tideweave_lag_ms\": {\"p50\": " << percentile(lag_tw, 0.5) << ", \"p99\": " << percentile(lag_tw, 0.99)
        << ", \"max\": " << percentile(lag_tw, 1.0) << ", \"lines\": " << lag_tw.size() << "}},\n"
        << "  \"large_transaction\": {\"few_sessions\": " << large_few << ",\n    \"few_sessions_larger\": " << large_few_larger
        << ",\n    \"many_sessions\": " << large_many
        << "}\n}\n";
    std::cerr << "catch-up: pipeline " << static_cast<double>(rows) / pm << " row changes/s, tideweave stream "
              << static_cast<double>(rows) / tm << "; lag p50 " << percentile(lag_pipe, 0.5) << " ms p99 "
              << percentile(lag_pipe, 0.99) << " ms\n";
    std::remove(ndjson.c_str());
    return 0;
}
