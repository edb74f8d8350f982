// sluice-pipeline run --source MARIADB_URL --table DB.TABLE --id COL --key COL --ts COL --value COL
//                     --sink POSTGRES_URL --sink-table NAME
//                     [--gap N] [--lateness N] [--watermark-lag N]
//                     [--from-start | --from-gtid GTIDS | --from-now | --snapshot] [--until-end]
//                     [--failover-after SECONDS] [--on-lost-transactions stop|continue]
//                     [--metrics HOST:PORT] [--log-format text|json]
// (issue 15; docs/pipeline.md). Exit 0 when --until-end finished, 1 for a
// failure the pipeline cannot retry (message on stderr), 2 for bad usage.
#include <CLI/CLI.hpp>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "sluice/common/cli_exit.hpp"
#include "sluice/mariadb/cdc/gtid_state.hpp"
#include "sluice/common/version.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/options_problem.hpp"
#include "sluice/pipeline/error.hpp"
#include "sluice/pipeline/pipeline.hpp"
#include "sluice/pipeline/sink.hpp"
#include "sluice/pipeline/stream_source.hpp"
#include "sluice/service/http_server.hpp"
#include "sluice/service/log_output.hpp"
#include "sluice/service/stop_signals.hpp"
#include "pipeline_metrics.hpp"

namespace {

using namespace sluice::pipeline;

constexpr std::int64_t two_60 = std::int64_t{1} << 60;

int usage_error(const std::string& message) {
    std::cerr << "sluice-pipeline run: error: " << message << "\n";
    return 2;
}

int run_command(int argc, char** argv) {
    CLI::App app{
        "sluice-pipeline: a MariaDB table's row changes (binlog CDC) as Tideweave session windows in PostgreSQL,\n"
        "exactly once across crashes (docs/pipeline.md).",
        "sluice-pipeline"};
    app.set_version_flag("--version", sluice::version_line("sluice-pipeline"));
    app.require_subcommand(1);
    CLI::App* run = app.add_subcommand(
        "run",
        "Follow DB.TABLE's binlog and keep NAME, NAME_late and NAME_rejected in the sink equal to the session\n"
        "windows of its rows. Restarts resume from the state stored in the sink (sluice_pipeline_state).");
    Options o;
    std::string table;
    bool from_start = false, from_now = false, snapshot = false, quiet = false;
    std::int64_t lag = -1;
    run->add_option("--source", o.source_url,
                    "the MariaDB server: mariadb://user:password@host:port/ (the user needs REPLICATION SLAVE and "
                    "SELECT on the table), or a NATS JetStream stream that sluice-mariadb cdc --to fills: "
                    "nats://HOST:PORT[,nats://...]?stream=NAME (read from its first message; --from-* do not apply)")
        ->required();
    run->add_option("--table", table, "the source table, DB.TABLE")->required();
    run->add_option("--id", o.run.columns.id, "column whose text is the event id (non-empty, at most 256 bytes)")->required();
    run->add_option("--key", o.run.columns.key, "column whose text is the session key (at most 256 bytes)")->required();
    run->add_option("--ts", o.run.columns.ts, "integer column: the event time, in [-2^60, 2^60]")->required();
    run->add_option("--value", o.run.columns.value, "number column: the event value (an integer at most 2^53)")->required();
    run->add_option("--sink", o.run.sink_url, "the PostgreSQL database: postgresql://user:password@host:port/db")->required();
    run->add_option("--sink-table", o.run.sink_table,
                    "NAME: sessions go to NAME, late mutations to NAME_late, rows that are not events to "
                    "NAME_rejected; created if missing")
        ->required();
    run->add_option("--gap", o.run.gap, "session gap: events at most N apart join a session, N in (0, 2^60]")
        ->capture_default_str();
    run->add_option("--lateness", o.run.lateness,
                    "allowed lateness: a mutation with ts < watermark - N is late (NAME_late), N in [0, 2^60]")
        ->capture_default_str();
    run->add_option("--watermark-lag", lag,
                    "after each source transaction the watermark moves to (largest ts of all after images) - N, "
                    "N in [0, 2^60] (default: the gap)");
    auto* o_start = run->add_flag("--from-start", from_start, "fresh sink: start at the oldest binlog the server has");
    auto* o_gtid = run->add_option("--from-gtid", o.binlog.from_gtid, "fresh sink: start after this GTID state (0-1-42,1-2-7)");
    auto* o_now = run->add_flag("--from-now", from_now, "fresh sink: start after the server's current binlog position");
    auto* o_snap = run->add_flag("--snapshot", snapshot,
                                 "fresh sink: the table's current rows, then the binlog after the snapshot (the default)");
    o_start->excludes(o_gtid, o_now, o_snap);
    o_gtid->excludes(o_now, o_snap);
    o_now->excludes(o_snap);
    run->add_flag("--until-end", o.run.until_end,
                  "commit and exit 0 once everything the binlog held at the start is applied (default: follow forever)");
    run->add_option("--checkpoint-every", o.run.checkpoint_every,
                    "write the full Tideweave checkpoint with every Nth sink commit (others store only the GTID "
                    "state; a restart replays from the last checkpoint, idempotently)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}))
        ->capture_default_str();
    run->add_option("--part-changes", o.run.part_changes,
                    "apply a larger source transaction this many row changes at a time, into one open Tideweave "
                    "transaction (bounded memory; still atomic and exactly once)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{100000000}))
        ->capture_default_str();
    std::string partition;
    run->add_option("--partition", partition,
                    "I/N: with a nats:// source, apply only the keys of partition I of N (0 <= I < N; FNV-1a 64 of "
                    "the key modulo N, docs/pipeline.md); N workers together fill NAME as one process does");
    double connect_timeout = 0;
    run->add_option("--connect-timeout", connect_timeout,
                    "SECONDS: at start, keep retrying a source, sink or NATS that cannot be reached or refuses the "
                    "login this long (default 0: fail at once; a connection lost after it worked is retried for "
                    "5 minutes either way)")
        ->check(CLI::Range(0.0, 86400.0));
    double failover_after = 10;
    std::string on_lost_transactions = "stop";
    run->add_option("--failover-after", failover_after,
                    "SECONDS: with several servers in --source (mariadb://u:p@HOST1:PORT1,HOST2:PORT2/), a lost "
                    "server not back within this long is left for the next one of the list (docs/mariadb-cdc.md, "
                    "\"Replicas and failover\")")
        ->check(CLI::Range(0.0, 86400.0))
        ->capture_default_str();
    run->add_option("--on-lost-transactions", on_lost_transactions,
                    "on a server of the list that lacks transactions already applied (lost in a failover): stop "
                    "(exit 1, naming them) or continue from that server's history (the sink must then be repaired)")
        ->check(CLI::IsMember({"stop", "continue"}))
        ->capture_default_str();
    run->add_flag("--quiet", quiet, "no progress lines on stderr (default: one at most every second)");
    std::string metrics_address, log_format = "text";
    run->add_option("--metrics", metrics_address,
                    "serve /metrics (Prometheus), /healthz, /status and a status page on HOST:PORT (port 0: any free "
                    "port; the URL is printed on stderr). Off by default");
    run->add_option("--log-format", log_format, "stderr lines as text, or as one JSON object per line")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    if (const std::optional<int> status = sluice::cli::parse_or_exit(app, "sluice-pipeline", argc, argv)) return *status;
    o.run.progress = !quiet;
    o.binlog.failover_after = std::chrono::milliseconds(static_cast<std::int64_t>(failover_after * 1000));
    o.binlog.continue_after_lost = on_lost_transactions == "continue";
    o.run.connect_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(connect_timeout * 1000));
    // Every later line on stderr is masked, and JSON when asked.
    sluice::service::LogLines& log_lines =
        sluice::service::install_log_lines(sluice::service::parse_log_format(log_format), "sluice-pipeline");
    if (!metrics_address.empty()) {
        try {
            sluice::service::parse_listen_address(metrics_address);
        } catch (const std::invalid_argument& e) {
            return usage_error(e.what());
        }
    }

    const auto dot = table.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == table.size() || table.find('.', dot + 1) != std::string::npos)
        return usage_error("--table \"" + table + "\": expected DB.TABLE");
    o.run.db = table.substr(0, dot);
    o.run.table = table.substr(dot + 1);
    for (const auto& [name, col] : {std::pair{"--id", &o.run.columns.id}, std::pair{"--key", &o.run.columns.key},
                                    std::pair{"--ts", &o.run.columns.ts}, std::pair{"--value", &o.run.columns.value}})
        if (col->empty()) return usage_error(std::string(name) + ": a column name is required");
    if (o.run.gap <= 0 || o.run.gap > two_60) return usage_error("--gap " + std::to_string(o.run.gap) + ": expected N in (0, 2^60]");
    if (o.run.lateness < 0 || o.run.lateness > two_60)
        return usage_error("--lateness " + std::to_string(o.run.lateness) + ": expected N in [0, 2^60]");
    if (run->count("--watermark-lag")) {
        if (lag < 0 || lag > two_60)
            return usage_error("--watermark-lag " + std::to_string(lag) + ": expected N in [0, 2^60]");
        o.run.watermark_lag = lag;
    }
    if (!partition.empty()) {
        const auto slash = partition.find('/');
        std::uint32_t i = 0, n = 0;
        bool ok = slash != std::string::npos;
        if (ok) {
            const char* b = partition.data();
            auto r1 = std::from_chars(b, b + slash, i);
            auto r2 = std::from_chars(b + slash + 1, b + partition.size(), n);
            ok = r1.ec == std::errc() && r1.ptr == b + slash && r2.ec == std::errc() &&
                 r2.ptr == b + partition.size() && slash > 0 && slash + 1 < partition.size() && n >= 1 && i < n &&
                 n <= 1024;
        }
        if (!ok) return usage_error("--partition \"" + partition + "\": expected I/N with 0 <= I < N <= 1024");
        if (o.source_url.rfind("nats://", 0) != 0)
            return usage_error("--partition needs a nats://HOST:PORT?stream=NAME source (one process reads the binlog)");
        o.jetstream.partition = Partition{i, n};
    }
    o.binlog.start = from_start ? StartMode::from_start
              : o_gtid->count() ? StartMode::from_gtid
              : from_now ? StartMode::from_now
                         : StartMode::snapshot;
    try {
        if (o.binlog.start == StartMode::from_gtid) sluice::mariadb::cdc::GtidState::parse(o.binlog.from_gtid);
        check_sink_name(o.run.sink_table);
        if (is_stream_source(o.source_url)) {
            parse_stream_source(o.source_url);
        } else if (const std::string problem = sluice::mariadb::options_problem(sluice::mariadb::parse_url(o.source_url));
                   !problem.empty()) {
            return usage_error("--source: " + problem + " (usage)");
        }
    } catch (const std::exception& e) {
        return usage_error(e.what());
    }
    // Graceful stop: the run loop commits what it applied and returns. Blocked
    // waiting for the source (nothing in hand: every batch is cut when the
    // source has nothing pending), it cannot look: after the grace, this
    // waits for the writer's last commit and exits 0 (a SIGKILL would be
    // exact too; this only makes the stop quick and clean). Before any
    // thread starts.
    static cli::PipelineMetrics observer;
    sluice::service::install_stop_signals(
        [] {
            for (int i = 0; i < 60 && !observer.all_committed(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
            std::cerr << "sluice-pipeline: stopped (signal " << sluice::service::stop_signal() << ")"
                      << (observer.all_committed() ? "" : "; the last batch was not committed: a restart reads it again")
                      << "\n" << std::flush;
            std::_Exit(0);
        },
        std::chrono::milliseconds(1200));
    o.run.observer = &observer;
    log_lines.set_fields([] { return observer.log_fields(); });
    if (!metrics_address.empty()) observer.serve(metrics_address, o.source_url, o.run.sink_url);
    const int status = run_with_retries(o, std::cerr);
    if (status == 0 && sluice::service::stop_requested())
        std::cerr << "sluice-pipeline: stopped (signal " << sluice::service::stop_signal() << ")\n" << std::flush;
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run_command(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "sluice-pipeline: error: " << e.what() << "\n";
        return 1;
    }
}
