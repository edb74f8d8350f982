// The scaled-out pipeline benchmark (docs/benchmarks/pipeline-scaleout.md),
// end to end on loopback, three layouts side by side:
//   single   one `sluice-pipeline run --source mariadb://` reading the binlog;
//   w1, w2   `sluice-mariadb cdc --to nats://` into a three-node JetStream
//            cluster (3 replicas) and 1 or 2 `sluice-pipeline run --source
//            nats://...?stream=... --partition I/N` workers.
//  1. catch-up: N source row changes already in the binlog (transactions of
//     900 inserts + 100 updates); time from starting the processes until the
//     sink holds everything (single: --until-end exits; w1/w2: the publisher
//     with --until-end, the workers following until every worker's state row
//     names the stream's last sequence). Runs interleaved, medians; CPU time
//     of our processes and, apart, of the three nats-server processes; the
//     sinks of each layout compared with the single process's.
//  2. steady lag: a writer commits R row changes/s (transactions of 100 rows)
//     while the layout follows; lag = the time the sink's state shows the
//     transaction (every worker's state row past its stream sequence) minus
//     the time its COMMIT returned.
//  3. large transaction (issue 25): N rows inserted in ONE source transaction
//     (key id % 1000, ts id / 800: 1,000 sessions), published once (part
//     messages; the publisher's wall time and peak RSS too); the single process on the binlog and one worker on the
//     stream each apply it with --until-end, runs interleaved; wall time and
//     peak RSS (wait4 ru_maxrss: the process's VmHWM) of each.
// Usage: scaleout_bench --env ENV --pipeline CLI --mariadb-cli CLI [--rows N]
//        [--runs K] [--rate R] [--lag-seconds S] [--large-rows N] --out capture.json
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
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "bench_engine_alone.hpp"
#include "bench_lag.hpp"
#include "bench_process.hpp"
#include "bench_report.hpp"
#include "bench_sql.hpp"
#include "sluice/common/env_file.hpp"
#include "sluice/mariadb/mariadb.hpp"
#include "sluice/nats/client.hpp"
#include "sluice/postgres/connection.hpp"

namespace {

using sluice::EnvFile;
namespace my = sluice::mariadb;
namespace pg = sluice::postgres;
namespace js = sluice::nats;
using namespace sluice::pipeline_bench;

pid_t spawn(const std::vector<std::string>& argv) {
    pid_t pid = fork();
    if (pid == 0) {
        std::freopen("/dev/null", "w", stdout);
        exec_child(argv);
    }
    return pid;
}

int wait_for(pid_t pid) {
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// Per transaction `inserts` inserts (key id % 1000, ts id / 80, value
// id % 97 + 0.5) and an update of the first `updates` rows of the previous
// transaction: the workload of pipeline_bench.
struct Generator {
    std::int64_t next_id = 1;
    std::int64_t prev_first = 0;
    std::vector<std::string> next(const std::string& table, int inserts, int updates) {
        std::vector<std::string> sql;
        std::string ins = "INSERT INTO " + table + " VALUES ";
        const std::int64_t first = next_id;
        for (int i = 0; i < inserts; ++i, ++next_id) {
            const std::int64_t id = next_id;
            char v[32];
            std::snprintf(v, sizeof v, "%.1f", static_cast<double>(id % 97) + 0.5);
            ins += (i ? ",(" : "(") + std::to_string(id) + ",'k" + std::to_string(id % 1000) + "'," +
                   std::to_string(id / 80) + "," + v + ")";
        }
        sql.push_back(ins);
        if (prev_first && updates)
            sql.push_back("UPDATE " + table + " SET v = v + 1 WHERE id BETWEEN " + std::to_string(prev_first) + " AND " +
                          std::to_string(prev_first + updates - 1));
        prev_first = first;
        return sql;
    }
};

std::uint64_t seq_after_last_dash(const std::string& s) {
    auto last = s.rfind(s.find("jetstream:") == 0 ? ':' : '-');
    return last == std::string::npos ? 0 : std::stoull(s.substr(last + 1));
}

struct Bench {
    EnvFile env;
    std::string my_url, pg_url, nats_urls, pipeline_cli, mariadb_cli;
    std::vector<pid_t> nats_pids;

    std::vector<std::string> run_args(const std::string& source, const std::string& table, const std::string& sink) {
        return {pipeline_cli, "run",  "--source", source, "--table", table,  "--id",        "id",    "--key",
                "k",          "--ts", "t",        "--value", "v",    "--sink", pg_url, "--sink-table", sink, "--quiet"};
    }
    std::vector<std::string> publish_args(const std::string& start, const std::string& table, const std::string& stream) {
        return {mariadb_cli, "cdc",  my_url, "--from-gtid", start, "--tables", table, "--to", nats_urls,
                "--stream",  stream, "--replicas", "3"};
    }
    double nats_cpu() {
        double s = 0;
        for (pid_t p : nats_pids) s += process_cpu(p).own;
        return s;
    }
    // The smallest position over the layout's state rows (GTID sequence for
    // the single process, stream sequence for workers); 0 until all exist.
    std::uint64_t sink_position(pg::Connection& q, const std::string& sink, int workers) {
        pg::Result r = workers == 0
                           ? q.query("select gtid from sluice_pipeline_state where name = $1", {sink})
                           : q.query("select gtid from sluice_pipeline_state where name like $1", {sink + "#%"});
        if (static_cast<int>(r.size()) < std::max(1, workers)) return 0;
        std::uint64_t low = UINT64_MAX;
        for (int i = 0; i < r.size(); ++i) low = std::min(low, seq_after_last_dash(r.row(i).get<std::string>(0)));
        return low;
    }
};

struct CatchupRun {
    double wall = 0, cpu = 0, nats_cpu = 0;
};

}  // namespace

int main(int argc, char** argv) {
    if (const std::optional<int> status = engine_alone_if_asked(argc, argv)) return *status;
    CLI::App app{"scaleout_bench: one pipeline process against the publisher and 1 or 2 workers on NATS JetStream"};
    std::string env_path, out_path;
    Bench b;
    std::int64_t rows = 1000000;
    int runs = 3, rate = 10000, lag_seconds = 10;
    app.add_option("--env", env_path, "servers env file (mariadb, postgres, nats)")->required();
    app.add_option("--pipeline", b.pipeline_cli, "sluice-pipeline")->required();
    app.add_option("--mariadb-cli", b.mariadb_cli, "sluice-mariadb")->required();
    app.add_option("--out", out_path, "JSON capture")->required();
    app.add_option("--rows", rows, "catch-up row changes");
    app.add_option("--runs", runs, "catch-up runs of each layout");
    app.add_option("--rate", rate, "steady row changes per second");
    app.add_option("--lag-seconds", lag_seconds, "steady phase length per layout");
    std::int64_t large_rows = 1000000;
    app.add_option("--large-rows", large_rows, "large transaction: rows of the one transaction (1,000 sessions)");
    CLI11_PARSE(app, argc, argv);

    b.env = EnvFile::load(env_path);
    b.my_url = b.env.require("SLUICE_MARIADB_URL");
    b.pg_url = b.env.require("SLUICE_PG_URL");
    b.nats_urls = b.env.require("SLUICE_NATS_URL");
    const std::string servers_dir = b.env.require("SLUICE_SERVERS_DIR");
    for (int n = 1; n <= 3; ++n) {
        long pid = 0;
        std::ifstream(servers_dir + "/nats-" + std::to_string(n) + ".pid") >> pid;
        b.nats_pids.push_back(static_cast<pid_t>(pid));
    }
    my::Connection m = my::Connection::connect(b.my_url);
    pg::Connection p = pg::Connection::open(b.pg_url);
    p.set_notice_handler({});
    js::JetStreamClient nats = js::JetStreamClient::connect(b.nats_urls);
    m.execute("CREATE DATABASE IF NOT EXISTS bench");
    const std::vector<std::pair<std::string, int>> layouts = {{"single", 0}, {"w1", 1}, {"w2", 2}};

    // 1. Catch-up.
    m.execute("DROP TABLE IF EXISTS bench.scale_catchup");
    m.execute("CREATE TABLE bench.scale_catchup (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    const std::string start = scalar(m, "SELECT @@global.gtid_binlog_pos");
    {
        Generator g;
        std::int64_t changes = 0;
        while (changes < rows) {
            commit_transaction(m, g.next("bench.scale_catchup", 900, 100));
            changes += 900 + (changes ? 100 : 0);
        }
        rows = changes;
    }
    std::cerr << "catch-up workload: " << rows << " row changes written\n";
    std::map<std::string, std::vector<CatchupRun>> catchup;
    std::map<std::string, bool> sink_equal;
    auto digest = [&](const std::string& sink) {
        return p.query("select count(*)::text || ' ' || coalesce(md5(string_agg(concat_ws(' ', key, start, \"end\", "
                       "count, sum, min, max, final), ',' order by key, start)), '') from " + sink)
            .row(0)
            .get<std::string>(0);
    };
    for (int r = 0; r < runs; ++r) {
        for (const auto& [name, workers] : layouts) {
            const std::string sink = "scale_cu_" + name;
            drop_sink(p, sink);
            CatchupRun run;
            const double cpu0 = children_cpu_seconds(), nats0 = b.nats_cpu();
            const auto t0 = Clock::now();
            if (workers == 0) {
                std::vector<std::string> a = b.run_args(b.my_url, "bench.scale_catchup", sink);
                a.insert(a.end(), {"--from-gtid", start, "--until-end"});
                if (wait_for(spawn(a)) != 0) throw std::runtime_error("single pipeline failed");
            } else {
                const std::string stream = "SCALE_CU";
                nats.delete_stream(stream);
                std::vector<std::string> pub = b.publish_args(start, "bench.scale_catchup", stream);
                pub.push_back("--until-end");
                pid_t publisher = spawn(pub);
                std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the publisher creates the stream
                std::vector<pid_t> ws;
                for (int i = 0; i < workers; ++i) {
                    std::vector<std::string> a = b.run_args(b.nats_urls + "?stream=" + stream, "bench.scale_catchup", sink);
                    a.insert(a.end(), {"--partition", std::to_string(i) + "/" + std::to_string(workers)});
                    ws.push_back(spawn(a));
                }
                if (wait_for(publisher) != 0) throw std::runtime_error("publisher failed");
                const std::uint64_t last = nats.stream_state(stream)->last_seq;
                pg::Connection q = pg::Connection::open(b.pg_url);
                while (b.sink_position(q, sink, workers) < last) std::this_thread::sleep_for(std::chrono::milliseconds(2));
                run.wall = seconds_since(t0);
                for (pid_t w : ws) {
                    kill(w, SIGTERM);
                    wait_for(w);
                }
            }
            if (workers == 0) run.wall = seconds_since(t0);
            run.cpu = children_cpu_seconds() - cpu0;
            run.nats_cpu = b.nats_cpu() - nats0;
            catchup[name].push_back(run);
            if (workers > 0) {
                const bool same = digest(sink) == digest("scale_cu_single");
                sink_equal[name] = (r == 0 ? true : sink_equal[name]) && same;
            }
            std::cerr << "run " << r + 1 << " " << name << ": " << run.wall << " s, cpu " << run.cpu << " s, nats cpu "
                      << run.nats_cpu << " s\n";
        }
    }
    nats.delete_stream("SCALE_CU");

    // 2. Steady lag, one layout after the other.
    struct Lag {
        std::vector<double> ms;
        std::size_t transactions = 0;
    };
    std::map<std::string, Lag> lags;
    const int per_tx = 100;
    const auto period = std::chrono::microseconds(1000000LL * per_tx / rate);
    for (const auto& layout : layouts) {
        const std::string& name = layout.first;
        const int workers = layout.second;  // a copy: lambdas below capture it (clang-14: no captured bindings)
        const std::string table = "bench.scale_steady_" + name, sink = "scale_st_" + name, stream = "SCALE_ST_" + name;
        m.execute("DROP TABLE IF EXISTS " + table);
        m.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
        const std::string start2 = scalar(m, "SELECT @@global.gtid_binlog_pos");
        drop_sink(p, sink);
        std::vector<pid_t> procs;
        if (workers == 0) {
            std::vector<std::string> a = b.run_args(b.my_url, table, sink);
            a.insert(a.end(), {"--from-gtid", start2});
            procs.push_back(spawn(a));
        } else {
            nats.delete_stream(stream);
            procs.push_back(spawn(b.publish_args(start2, table, stream)));
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            for (int i = 0; i < workers; ++i) {
                std::vector<std::string> a = b.run_args(b.nats_urls + "?stream=" + stream, table, sink);
                a.insert(a.end(), {"--partition", std::to_string(i) + "/" + std::to_string(workers)});
                procs.push_back(spawn(a));
            }
        }
        Positions committed;
        SinkSightings sightings;
        std::atomic<bool> done{false};
        std::thread poller([&] {
            pg::Connection q = pg::Connection::open(b.pg_url);
            while (!done) {
                std::this_thread::sleep_for(std::chrono::microseconds(500));
                sightings.saw(b.sink_position(q, sink, workers));
            }
        });
        Generator g;
        std::uint64_t stream_index = 0;  // workers: one message per transaction
        auto position_of_last = [&] {
            ++stream_index;
            return workers == 0 ? seq_after_last_dash(scalar(m, "SELECT @@last_gtid")) : stream_index;
        };
        {
            commit_transaction(m, g.next(table, 90, 0));  // warm-up, not measured
            sightings.wait_for(position_of_last());
        }
        auto next = Clock::now();
        const auto end = next + std::chrono::seconds(lag_seconds);
        while (Clock::now() < end) {
            commit_transaction(m, g.next(table, 90, 10));
            const auto t = Clock::now();
            committed.push_back({position_of_last(), t});
            next += period;
            std::this_thread::sleep_until(next);
        }
        std::this_thread::sleep_for(std::chrono::seconds(3));
        done = true;
        poller.join();
        for (pid_t pr : procs) {
            kill(pr, SIGTERM);
            wait_for(pr);
        }
        if (workers) nats.delete_stream(stream);
        Lag& l = lags[name];
        l.transactions = committed.size();
        l.ms = lag_ms(committed, sightings.taken());
        std::cerr << "steady " << name << ": " << l.ms.size() << "/" << l.transactions << " measured, p50 "
                  << percentile(l.ms, 0.5) << " ms, p99 " << percentile(l.ms, 0.99) << " ms\n";
    }

    // 3. Large transaction: the single process against one worker.
    m.execute("DROP TABLE IF EXISTS bench.scale_large");
    m.execute("CREATE TABLE bench.scale_large (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    const std::string start3 = scalar(m, "SELECT @@global.gtid_binlog_pos");
    m.execute("SET SESSION max_recursive_iterations = 100000000");
    m.execute("INSERT INTO bench.scale_large WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < " +
              std::to_string(large_rows) + ") SELECT n, CONCAT('k', n MOD 1000), n DIV 800, n MOD 97 + 0.5 FROM s");
    const std::string large_stream = "SCALE_LARGE";
    nats.delete_stream(large_stream);
    // The publisher is measured too: `cdc --to nats://` on the huge
    // transaction, its peak RSS against the CDC bound (64 MiB, issue 25).
    double publisher_wall = 0, publisher_rss = 0;
    {
        std::vector<std::string> pub = b.publish_args(start3, "bench.scale_large", large_stream);
        pub.push_back("--until-end");
        const Footprint f = run_measured(pub, /*discard_stdout=*/true);
        publisher_wall = f.wall;
        publisher_rss = f.rss_mib;
        std::cerr << "large transaction: publisher " << publisher_wall << " s, " << publisher_rss << " MiB\n";
    }
    const std::uint64_t large_messages = nats.stream_state(large_stream)->last_seq;
    // The transaction's part messages: the first is filled up to the line
    // bound, the later ones at most 1 MiB (docs/mariadb-cdc.md).
    std::size_t first_part_bytes = 0, largest_later_part_bytes = 0;
    for (std::uint64_t seq = 1; seq <= large_messages; ++seq) {
        const auto msg = nats.message(large_stream, seq);
        const auto part = msg.headers.find("Sluice-Part");
        if (part == msg.headers.end()) continue;
        if (part->second == "1") first_part_bytes = msg.data.size();
        else largest_later_part_bytes = std::max(largest_later_part_bytes, msg.data.size());
    }
    std::vector<double> large_single_wall, large_single_rss, large_worker_wall, large_worker_rss, large_engine_rss;
    for (int r = 0; r < runs; ++r) {
        // The engine's own state on this transaction (bench_engine_alone.hpp).
        large_engine_rss.push_back(
            run_measured({"/proc/self/exe", "--engine-alone", std::to_string(large_rows), "800"}, true).rss_mib);
        drop_sink(p, "scale_large_single");
        drop_sink(p, "scale_large_worker");
        std::vector<std::string> single = b.run_args(b.my_url, "bench.scale_large", "scale_large_single");
        single.insert(single.end(), {"--from-gtid", start3, "--until-end"});
        const auto [sw, srss] = run_measured(single, true);
        std::vector<std::string> worker =
            b.run_args(b.nats_urls + "?stream=" + large_stream, "bench.scale_large", "scale_large_worker");
        worker.push_back("--until-end");
        const auto [ww, wrss] = run_measured(worker, true);
        large_single_wall.push_back(sw);
        large_single_rss.push_back(srss);
        large_worker_wall.push_back(ww);
        large_worker_rss.push_back(wrss);
        if (digest("scale_large_worker") != digest("scale_large_single"))
            throw std::runtime_error("large transaction: the worker's sink differs from the single process's");
        std::cerr << "large transaction run " << r + 1 << ": single " << sw << " s, " << srss << " MiB; worker " << ww
                  << " s, " << wrss << " MiB\n";
    }
    nats.delete_stream(large_stream);
    m.execute("DROP TABLE bench.scale_large");

    std::ofstream out(out_path);
    out << "{\n  \"machine\": " << machine_json(Machine::this_one(), {{"load_average_at_end", LoadAverage::now()}})
        << ",\n  \"row_changes\": " << rows << ", \"runs\": " << runs << ", \"rate_row_changes_per_s\": " << rate
        << ", \"lag_seconds\": " << lag_seconds << ",\n  \"layouts\": {";
    const double single_wall = median([&] {
        std::vector<double> v;
        for (const auto& r : catchup["single"]) v.push_back(r.wall);
        return v;
    }());
    bool first = true;
    for (const auto& [name, workers] : layouts) {
        std::vector<double> wall, cpu, ncpu;
        for (const auto& r : catchup[name]) {
            wall.push_back(r.wall);
            cpu.push_back(r.cpu);
            ncpu.push_back(r.nats_cpu);
        }
        const Lag& l = lags[name];
        out << (first ? "" : ",") << "\n    \"" << name << "\": {\"workers\": " << workers << ", \"catchup_wall_s\": " << json_array(wall)
            << ", \"catchup_cpu_s\": " << json_array(cpu) << ", \"nats_cpu_s\": " << json_array(ncpu)
            << ", \"rows_per_s\": " << static_cast<double>(rows) / median(wall)
            << ", \"time_over_single\": " << median(wall) / single_wall;
        if (workers) out << ", \"sink_equals_single\": " << (sink_equal[name] ? "true" : "false");
        out << ",\n      \"lag_ms\": {\"p50\": " << percentile(l.ms, 0.5) << ", \"p99\": " << percentile(l.ms, 0.99)
            << ", \"max\": " << percentile(l.ms, 1.0) << ", \"measured\": " << l.ms.size()
            << ", \"transactions\": " << l.transactions << "}}";
        first = false;
    }
    out << "\n  },\n  \"large_transaction\": {\"rows\": " << large_rows << ", \"messages\": " << large_messages
        << ", \"first_part_bytes\": " << first_part_bytes
        << ", \"largest_later_part_bytes\": " << largest_later_part_bytes
        << ", \"publisher_wall_s\": " << publisher_wall << ", \"publisher_peak_rss_mib\": " << publisher_rss
        << ", \"runs\": " << runs << ", \"single_wall_s\": " << json_array(large_single_wall)
        << ", \"single_peak_rss_mib\": " << json_array(large_single_rss)
        << ",\n    \"worker_wall_s\": " << json_array(large_worker_wall)
        << ", \"worker_peak_rss_mib\": " << json_array(large_worker_rss)
        << ",\n    \"engine_alone_peak_rss_mib\": " << json_array(large_engine_rss) << "}\n}\n";
    return 0;
}
