// sluice-pipeline run --source MARIADB_URL --table DB.TABLE --id COL --key COL --ts COL --value COL
//                     --sink POSTGRES_URL --sink-table NAME
//                     [--gap N] [--lateness N] [--watermark-lag N]
//                     [--from-start | --from-gtid GTIDS | --from-now | --snapshot] [--until-end]
// (issue 15; docs/pipeline.md). Exit 0 when --until-end finished, 1 for a
// failure the pipeline cannot retry (message on stderr), 2 for bad usage.
#include <CLI/CLI.hpp>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>

#include "sluice/common/cli_exit.hpp"
#include "sluice/mariadb/cdc/gtid_state.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/options_problem.hpp"
#include "sluice/pipeline/error.hpp"
#include "sluice/pipeline/pipeline.hpp"
#include "sluice/pipeline/sink.hpp"
#include "sluice/pipeline/stream_source.hpp"

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
    run->add_option("--id", o.columns.id, "column whose text is the event id (non-empty, at most 256 bytes)")->required();
    run->add_option("--key", o.columns.key, "column whose text is the session key (at most 256 bytes)")->required();
    run->add_option("--ts", o.columns.ts, "integer column: the event time, in [-2^60, 2^60]")->required();
    run->add_option("--value", o.columns.value, "number column: the event value (an integer at most 2^53)")->required();
    run->add_option("--sink", o.sink_url, "the PostgreSQL database: postgresql://user:password@host:port/db")->required();
    run->add_option("--sink-table", o.sink_table,
                    "NAME: sessions go to NAME, late mutations to NAME_late, rows that are not events to "
                    "NAME_rejected; created if missing")
        ->required();
    run->add_option("--gap", o.gap, "session gap: events at most N apart join a session, N in (0, 2^60]")
        ->capture_default_str();
    run->add_option("--lateness", o.lateness,
                    "allowed lateness: a mutation with ts < watermark - N is late (NAME_late), N in [0, 2^60]")
        ->capture_default_str();
    run->add_option("--watermark-lag", lag,
                    "after each source transaction the watermark moves to (largest ts of all after images) - N, "
                    "N in [0, 2^60] (default: the gap)");
    auto* o_start = run->add_flag("--from-start", from_start, "fresh sink: start at the oldest binlog the server has");
    auto* o_gtid = run->add_option("--from-gtid", o.from_gtid, "fresh sink: start after this GTID state (0-1-42,1-2-7)");
    auto* o_now = run->add_flag("--from-now", from_now, "fresh sink: start after the server's current binlog position");
    auto* o_snap = run->add_flag("--snapshot", snapshot,
                                 "fresh sink: the table's current rows, then the binlog after the snapshot (the default)");
    o_start->excludes(o_gtid, o_now, o_snap);
    o_gtid->excludes(o_now, o_snap);
    o_now->excludes(o_snap);
    run->add_flag("--until-end", o.until_end,
                  "commit and exit 0 once everything the binlog held at the start is applied (default: follow forever)");
    run->add_option("--checkpoint-every", o.checkpoint_every,
                    "write the full Tideweave checkpoint with every Nth sink commit (others store only the GTID "
                    "state; a restart replays from the last checkpoint, idempotently)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}))
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
    run->add_flag("--quiet", quiet, "no progress lines on stderr (default: one at most every second)");
    if (const std::optional<int> status = sluice::cli::parse_or_exit(app, "sluice-pipeline", argc, argv)) return *status;
    o.progress = !quiet;
    o.connect_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(connect_timeout * 1000));

    const auto dot = table.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == table.size() || table.find('.', dot + 1) != std::string::npos)
        return usage_error("--table \"" + table + "\": expected DB.TABLE");
    o.db = table.substr(0, dot);
    o.table = table.substr(dot + 1);
    for (const auto& [name, col] : {std::pair{"--id", &o.columns.id}, std::pair{"--key", &o.columns.key},
                                    std::pair{"--ts", &o.columns.ts}, std::pair{"--value", &o.columns.value}})
        if (col->empty()) return usage_error(std::string(name) + ": a column name is required");
    if (o.gap <= 0 || o.gap > two_60) return usage_error("--gap " + std::to_string(o.gap) + ": expected N in (0, 2^60]");
    if (o.lateness < 0 || o.lateness > two_60)
        return usage_error("--lateness " + std::to_string(o.lateness) + ": expected N in [0, 2^60]");
    if (run->count("--watermark-lag")) {
        if (lag < 0 || lag > two_60)
            return usage_error("--watermark-lag " + std::to_string(lag) + ": expected N in [0, 2^60]");
        o.watermark_lag = lag;
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
        o.partition = Partition{i, n};
    }
    o.start = from_start ? StartMode::from_start
              : o_gtid->count() ? StartMode::from_gtid
              : from_now ? StartMode::from_now
                         : StartMode::snapshot;
    try {
        if (o.start == StartMode::from_gtid) sluice::mariadb::cdc::GtidState::parse(o.from_gtid);
        check_sink_name(o.sink_table);
        if (is_stream_source(o.source_url)) {
            parse_stream_source(o.source_url);
        } else if (const std::string problem = sluice::mariadb::options_problem(sluice::mariadb::parse_url(o.source_url));
                   !problem.empty()) {
            return usage_error("--source: " + problem + " (usage)");
        }
    } catch (const std::exception& e) {
        return usage_error(e.what());
    }
    return run_with_retries(o, std::cerr);
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
