// sluice-mariadb cdc URL [--from-start | --from-gtid GTIDS | --from-now | --snapshot [--snapshot-chunk-rows N]]
//                        [--tables DB.TABLE,DB.*,...] [--until-end] [--out FILE] [--max-line-bytes N]
//                        [--server-id N] [--heartbeat SECONDS]
//                        [--failover-after SECONDS] [--on-lost-transactions stop|continue]
//                        [--to nats://HOST:PORT --stream NAME [--subject PREFIX]
//                         [--replicas N] [--format sluice|debezium]
//                         [--debezium-decimal precise|string|double] [--max-transaction-bytes N]
//                         [--window N]]
//                        [--metrics HOST:PORT] [--log-format text|json]
// One NDJSON line per committed transaction, DDL statement and snapshot
// chunk (docs/mariadb-cdc.md).
#include "cdc_command.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "sluice/mariadb/cdc/change_stream.hpp"
#include "sluice/mariadb/cdc/ndjson.hpp"
#include "sluice/mariadb/cdc/ndjson_file.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/options_problem.hpp"
#include "sluice/mariadb/jetstream/cdc_publisher.hpp"
#include "sluice/nats/error.hpp"
#include "sluice/service/log_output.hpp"
#include "sluice/service/stop_signals.hpp"
#include "cdc_metrics.hpp"
#include "missing_tables.hpp"
#include "url_errors.hpp"

namespace sluice::mariadb::tools {

namespace {

using namespace sluice::mariadb::cdc;

// Row images per TransactionPart of the stream: the bound of what is held of
// a transaction before it is formatted (the line bound is --max-line-bytes).
// 256 KiB, not 1 MiB: a part this size stays in the CPU's cache while it is
// formatted (measured: 1M rows in one transaction 0.86x of 1,000-row
// transactions with 1 MiB parts, 0.98x with 256 KiB; docs/mariadb-cdc.md).
constexpr std::size_t transaction_part_bytes = std::size_t{256} << 10;
// Lines of a transaction in parts after its first (TransactionLines): small
// enough to stay in the CPU's cache while they are filled.
constexpr std::size_t later_part_line_bytes = std::size_t{128} << 10;

int fail(const std::string& message, int status = 1) {
    std::cerr << "sluice-mariadb cdc: error: " << message << "\n";
    return status;
}

std::string describe(const Error& e) {
    std::string m = e.what();
    if (e.kind() == ErrorKind::server) {
        m += " (server error " + std::to_string(e.server_code()) + ", SQLSTATE " + std::string(e.sqlstate()) + ")";
    } else {
        m += " (" + std::string(to_string(e.kind())) + ")";
    }
    return m;
}

// Lines go out in whole-line batches: written as soon as the stream has no
// more input waiting (low latency when following), in bulk while catching up.
// `mutex` is held while a line is added and while the buffer is written: a
// graceful stop that finds the loop blocked on the server writes out the
// buffer from the signal thread (stop_blocked_loop).
class Output {
public:
    explicit Output(std::optional<NdjsonFile> file) : file_(std::move(file)) {}
    mariadb::ndjson::Buffer& buffer() { return buffer_; }
    std::mutex mutex;
    void flush() {
        if (buffer_.empty()) return;
        if (file_) file_->append(buffer_.view());
        else write_all(STDOUT_FILENO, buffer_.view(), "standard output");
        buffer_.clear();
    }
    void finish() {
        flush();
        if (file_) file_->sync();
    }

private:
    std::optional<NdjsonFile> file_;
    mariadb::ndjson::Buffer buffer_;  // formatted in place (no copy, no zeroing)
};

// ChangeStream::open, retried while the server cannot be reached and
// `connect_timeout` has not passed since the first try (--connect-timeout:
// a server that is still starting). 0: one try.
ChangeStream open_patiently(const ConnectOptions& options, const StreamOptions& stream,
                            std::chrono::milliseconds connect_timeout) {
    const auto give_up = std::chrono::steady_clock::now() + connect_timeout;
    auto pause = std::chrono::milliseconds(100);
    for (;;) {
        try {
            return ChangeStream::open(options, stream);
        } catch (const Error& e) {
            const bool unreachable = e.kind() == ErrorKind::io || e.kind() == ErrorKind::timeout ||
                                     e.kind() == ErrorKind::closed;
            if (!unreachable || std::chrono::steady_clock::now() + pause >= give_up) throw;
            std::cerr << "sluice-mariadb cdc: " << e.what() << "; retrying in " << pause.count() << " ms\n";
        }
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(2000));
    }
}

// What the signal thread does when the loop did not stop by itself within
// the grace (it is blocked waiting for the server); set by the loop for its
// output, under a mutex as the signal thread may read it at any moment.
class StopAction {
public:
    void set(std::function<void()> f) {
        std::lock_guard lock(mutex_);
        action_ = std::move(f);
    }
    void run() {
        std::lock_guard lock(mutex_);
        if (action_) action_();
    }

private:
    std::mutex mutex_;
    std::function<void()> action_;
};

// Clears a StopAction when what it refers to goes (an exception included).
struct ClearOnExit {
    StopAction& action;
    ~ClearOnExit() { action.set({}); }
};

}  // namespace

int run_cdc_command(int argc, char** argv) {
    CLI::App app{
        "sluice-mariadb cdc: follow a MariaDB server's binlog and print one NDJSON line per committed\n"
        "transaction, DDL statement and snapshot chunk (see docs/mariadb-cdc.md).",
        "sluice-mariadb cdc"};
    std::string url;
    bool from_start = false;
    bool from_now = false;
    bool snapshot = false;
    std::string from_gtid;
    std::string tables;
    bool until_end = false;
    std::string out;
    std::uint32_t server_id = 0;
    double heartbeat = 5;
    app.add_option("URL", url, "mariadb://user:password@host:port/ (default: $SLUICE_MARIADB_URL)");
    auto* o_start = app.add_flag("--from-start", from_start, "start at the oldest binlog the server has");
    auto* o_gtid = app.add_option("--from-gtid", from_gtid, "start after this GTID state (e.g. 0-1-42,1-2-7)");
    auto* o_now = app.add_flag("--from-now", from_now, "start after the server's current position (the default)");
    auto* o_snap = app.add_flag("--snapshot", snapshot, "a consistent snapshot of the tables first, then the changes after it");
    o_start->excludes(o_gtid, o_now, o_snap);
    o_gtid->excludes(o_now, o_snap);
    o_now->excludes(o_snap);
    std::size_t chunk_rows = 1000;
    app.add_option("--snapshot-chunk-rows", chunk_rows, "with --snapshot: rows per chunk line (and per JetStream message)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}))
        ->capture_default_str();
    app.add_option("--tables", tables, "only these tables: DB.TABLE,DB.*,...");
    app.add_flag("--until-end", until_end, "stop (exit 0) once everything in the binlog at start was delivered");
    app.add_option("--out", out,
                   "append to FILE; if it holds lines, continue right after its last complete transaction "
                   "(the --from-* flag then only applies to an empty or missing FILE)");
    std::size_t max_line_bytes = std::size_t{8} << 20;
    app.add_option("--max-line-bytes", max_line_bytes,
                   "a transaction whose line would be longer is written as consecutive lines, its parts "
                   "(\"part\":K, the last with \"last\":true; docs/mariadb-cdc.md)")
        ->check(CLI::Range(std::size_t{256}, std::size_t{1} << 30))
        ->capture_default_str();
    std::string to, stream_name, subject, format = "sluice", debezium_decimal = "precise";
    std::int64_t replicas = 0;
    std::int64_t window = 1000;
    bool progress = false;
    auto* o_to = app.add_option("--to", to,
                                "publish into NATS JetStream instead of printing: nats://HOST:PORT[,nats://...] "
                                "(see docs/mariadb-cdc.md)");
    auto* o_stream = app.add_option("--stream", stream_name, "with --to: the stream (created if missing)");
    auto* o_subject = app.add_option("--subject", subject, "with --to: subject prefix (default: the stream's name)");
    auto* o_replicas = app.add_option("--replicas", replicas,
                                      "with --to: replicas of a stream created here (default: 3 on a cluster of "
                                      "three or more servers, else 1)")
                           ->check(CLI::Range(std::int64_t{1}, std::int64_t{5}));
    auto* o_format = app.add_option("--format", format, "with --to: sluice (one message per transaction: the NDJSON line) or "
                                       "debezium (one message per row change)")
        ->check(CLI::IsMember({"sluice", "debezium"}))
        ->capture_default_str();
    auto* o_decimal = app.add_option("--debezium-decimal", debezium_decimal,
                   "with --format debezium: DECIMAL as Debezium's decimal.handling.mode writes it: precise "
                   "(base64 of the unscaled value), string or double")
        ->check(CLI::IsMember({"precise", "string", "double"}))
        ->capture_default_str();
    std::size_t max_transaction_bytes = std::size_t{256} << 20;
    auto* o_max_txn = app.add_option("--max-transaction-bytes", max_transaction_bytes,
                   "with --format debezium: a transaction is read whole before it is published (to number its "
                   "changes I/N); one whose row changes take more binlog bytes than this stops the publisher "
                   "with an error naming it (memory: about this much; docs/mariadb-cdc.md)")
        ->check(CLI::Range(std::size_t{1} << 16, std::size_t{1} << 40))
        ->capture_default_str();
    auto* o_window = app.add_option("--window", window, "with --to: unacknowledged messages at most")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1000000}))
        ->capture_default_str();
    auto* o_progress = app.add_flag("--progress", progress, "with --to: a progress line on stderr at most once a second");
    std::string metrics_address, log_format = "text";
    app.add_option("--metrics", metrics_address,
                   "serve /metrics (Prometheus), /healthz, /status and a status page on HOST:PORT (port 0: any free "
                   "port; the URL is printed on stderr). Off by default");
    app.add_option("--log-format", log_format, "stderr lines as text, or as one JSON object per line")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    o_to->excludes("--out");
    o_to->needs(o_stream);
    // The publisher's options mean nothing without --to: refused rather than
    // ignored, so `--format debezium` alone does not print our lines instead.
    for (CLI::Option* o : {o_stream, o_subject, o_replicas, o_format, o_decimal, o_max_txn, o_window, o_progress})
        o->needs(o_to);
    double connect_timeout = 0;
    app.add_option("--connect-timeout", connect_timeout,
                   "SECONDS: at start, keep retrying a server (MariaDB, NATS) that cannot be reached this long "
                   "(default 0: fail at once; with --to, a connection lost after it worked is retried either way)")
        ->check(CLI::Range(0.0, 86400.0));
    app.add_option("--server-id", server_id, "replica server id to register with (default: random)")
        ->check(CLI::Range(1U, 0xFFFFFFFFU));
    app.add_option("--heartbeat", heartbeat, "heartbeat period asked of the server, seconds (0 = none)")
        ->check(CLI::Range(0.0, 4294967.0))
        ->capture_default_str();
    double failover_after = 10;
    std::string on_lost_transactions = "stop";
    app.add_option("--failover-after", failover_after,
                   "SECONDS: with several servers in the URL (mariadb://u:p@HOST1:PORT1,HOST2:PORT2/), a lost "
                   "server not back within this long is left for the next one of the list (see "
                   "docs/mariadb-cdc.md, \"Replicas and failover\")")
        ->check(CLI::Range(0.0, 86400.0))
        ->capture_default_str();
    app.add_option("--on-lost-transactions", on_lost_transactions,
                   "on a server of the list that lacks transactions already delivered (lost in a failover): "
                   "stop (exit 1, naming them) or continue from that server's history (downstream must repair)")
        ->check(CLI::IsMember({"stop", "continue"}))
        ->capture_default_str();
    if (const std::optional<int> status = sluice::cli::parse_or_exit(app, "sluice-mariadb cdc", argc, argv))
        return *status;
    // Every later line on stderr is masked, and JSON when asked.
    service::LogLines& log_lines = service::install_log_lines(service::parse_log_format(log_format), "sluice-mariadb cdc");
    if (!metrics_address.empty()) {
        try {
            service::parse_listen_address(metrics_address);
        } catch (const std::invalid_argument& e) {
            return fail(e.what(), 2);
        }
    }

    // An empty value (an unset shell variable) is a mistake, not "print instead".
    if (o_to->count() && to.empty()) return fail("--to: empty; give nats://HOST:PORT[,nats://...]", 2);
    if (o_stream->count() && stream_name.empty()) return fail("--stream: empty; give the stream's name", 2);
    if (o_decimal->count() && format != "debezium")
        return fail("--debezium-decimal applies to --format debezium only", 2);
    if (o_max_txn->count() && format != "debezium")
        return fail("--max-transaction-bytes applies to --format debezium only (the sluice envelope streams a "
                    "transaction in parts)",
                    2);

    if (url.empty()) {
        if (const char* e = std::getenv("SLUICE_MARIADB_URL")) url = e;
    }
    if (url.empty()) return fail("no server: pass a mariadb:// URL or set SLUICE_MARIADB_URL", 2);

    ConnectOptions options;
    try {
        options = parse_url(url);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::usage) throw;
        return invalid_url(e.what(), url, "sluice-mariadb cdc");
    }
    // The command line's own mistakes are usage errors (2, issue 32): an
    // ssl-mode the URL cannot have, a --tables pattern or --from-gtid that
    // does not parse. (The server's checks, e.g. binlog_format=STATEMENT,
    // are failures: 1.)
    if (const std::string problem = options_problem(options); !problem.empty())
        return fail(problem + " (usage)", sluice::cli::exit_usage);
    try {
        if (!tables.empty()) TableFilter::parse(tables);
        if (o_gtid->count() > 0) GtidState::parse(from_gtid);
    } catch (const Error& e) {
        return fail(describe(e), sluice::cli::exit_usage);
    }
    try {
        StreamOptions stream;
        stream.until_end = until_end;
        stream.server_id = server_id;
        stream.snapshot_chunk_rows = chunk_rows;
        stream.heartbeat = std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(heartbeat * 1000)));
        stream.failover_after =
            std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(failover_after * 1000)));
        stream.on_lost_transactions =
            on_lost_transactions == "continue" ? OnLostTransactions::continue_ : OnLostTransactions::stop;
        stream.log = &std::cerr;
        stream.log_prefix = "sluice-mariadb cdc: ";
        if (!tables.empty()) stream.tables = TableFilter::parse(tables);
        GtidState from;
        const bool gtid_given = o_gtid->count() > 0;
        if (gtid_given) from = GtidState::parse(from_gtid);
        stream.start = from_start ? StartAt::oldest
                       : gtid_given         ? StartAt::gtid
                       : snapshot           ? StartAt::snapshot
                                            : StartAt::now;
        stream.gtid = from;
        try {
            for (const std::string& warning : missing_tables(options, stream.tables))
                std::cerr << "sluice-mariadb cdc: warning: " << warning << "\n";
        } catch (const Error&) {
            // No check without a connection: the stream's own connection
            // says what is wrong (or, with --connect-timeout, waits).
        }

        // Before any thread starts (they inherit the blocked signals).
        // `stop_blocked_loop` runs when the loop did not stop by itself
        // within the grace: it is blocked waiting for the server.
        static StopAction stop_blocked_loop;  // static: the signal thread may outlive this call
        service::install_stop_signals([] { stop_blocked_loop.run(); }, std::chrono::milliseconds(1200));
        std::unique_ptr<CdcMetrics> metrics;
        // Log lines stop reading the metrics before they go (the error
        // lines after this scope included).
        struct ForgetFields {
            service::LogLines& lines;
            ~ForgetFields() { lines.set_fields({}); }
        } forget_fields{log_lines};
        ClearOnExit clear_before_metrics{stop_blocked_loop};
        if (!metrics_address.empty()) {
            const std::string sink = !to.empty() ? to + " stream " + stream_name : !out.empty() ? "file " + out : "stdout";
            metrics = std::make_unique<CdcMetrics>(metrics_address, url, sink);
            stream.observer = metrics.get();
            log_lines.set_fields([m = metrics.get()] { return m->log_fields(); });
        }

        if (!to.empty()) {
            jetstream::PublisherOptions po;
            po.urls = to;
            po.stream = stream_name;
            po.subject_prefix = subject;
            if (o_replicas->count()) po.replicas = replicas;
            po.envelope = format == "debezium" ? jetstream::Envelope::debezium : jetstream::Envelope::sluice;
            po.debezium_values.decimal = debezium_decimal == "string"   ? jetstream::debezium::DecimalHandling::string
                                         : debezium_decimal == "double" ? jetstream::debezium::DecimalHandling::double_
                                                                        : jetstream::debezium::DecimalHandling::precise;
            po.window = window;
            po.progress = progress;
            po.max_line_bytes = max_line_bytes;
            po.max_transaction_bytes = max_transaction_bytes;
            po.connect_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(connect_timeout * 1000)));
            po.observer = metrics.get();
            po.stop_requested = &service::stop_requested;
            // Blocked on the binlog: what was published is in the stream once
            // acknowledged (and a restart resumes from the stream's last
            // message in any case); wait a little for the acknowledgments.
            stop_blocked_loop.set([&metrics] {
                for (int i = 0; i < 40 && metrics && !metrics->all_delivered(); ++i)
                    std::this_thread::sleep_for(std::chrono::milliseconds(10));
                std::cerr << "sluice-mariadb cdc: stopped (signal " << service::stop_signal() << ")\n" << std::flush;
                std::_Exit(0);
            });
            jetstream::publish_changes(options, stream, po, std::cerr);
            if (service::stop_requested())
                std::cerr << "sluice-mariadb cdc: stopped (signal " << service::stop_signal() << ")\n" << std::flush;
            return 0;
        }
        std::optional<NdjsonFile> file;
        if (!out.empty()) {
            file.emplace(NdjsonFile::open(out, from));
            if (file->resume().has_lines) {
                stream.start = StartAt::gtid;
                stream.gtid = file->resume().position;
            }
        }
        Output output(std::move(file));
        // Transactions arrive in parts and are written as they arrive:
        // memory holds one line, not the transaction.
        stream.part_bytes = transaction_part_bytes;
        cdc::ndjson::TransactionLines transaction_lines(max_line_bytes, later_part_line_bytes);
        // Room for a full part 1 and the batch around it, taken once: grown
        // by doubling, the buffer was copied and faulted in anew at each
        // step on the way to a transaction's first 8 MiB line. (Address
        // space only: pages are touched as lines fill them.)
        output.buffer().room(std::min(max_line_bytes, std::size_t{64} << 20) + (std::size_t{2} << 20));
        std::uint64_t transaction_rows = 0, transaction_bytes = 0;
        // Idle events: the buffered lines are flushed when the stream goes
        // quiet after other tables' transactions, not with this table's next.
        stream.idle_events = true;
        ChangeStream cdc = open_patiently(options, stream, std::chrono::milliseconds(static_cast<std::int64_t>(
                                                                std::llround(connect_timeout * 1000))));
        // Blocked waiting for the server: everything applied is in the
        // buffer or written; write it out and stop here.
        ClearOnExit clear_before_output{stop_blocked_loop};
        stop_blocked_loop.set([&output] {
            std::lock_guard lock(output.mutex);
            output.finish();
            std::cerr << "sluice-mariadb cdc: stopped (signal " << service::stop_signal() << ")\n" << std::flush;
            std::_Exit(0);
        });
        while (const ChangeEvent* e = cdc.next()) {
            std::lock_guard lock(output.mutex);
            const std::size_t before = output.buffer().size();
            const auto* part = std::get_if<TransactionPart>(e);
            if (part) {
                transaction_rows += transaction_lines.add(output.buffer(), *part);
                transaction_bytes += output.buffer().size() - before;
                if (part->last) {
                    if (metrics) metrics->written(part->changes.timestamp, transaction_rows, transaction_bytes);
                    transaction_rows = transaction_bytes = 0;
                }
            } else {
                cdc::ndjson::append_line(output.buffer(), *e);
            }
            const bool stopping = service::stop_requested();
            // Inside a transaction the lines written so far are its parts:
            // out they go in 1 MiB batches (a restart cuts them until the
            // last part is in the file).
            if (!cdc.input_pending() || output.buffer().size() >= (1U << 20) || stopping) {
                output.flush();
                if (metrics) metrics->flushed(cdc.position());
            }
            if (stopping) break;
        }
        stop_blocked_loop.set({});  // the output goes with this scope
        output.finish();
        if (service::stop_requested())
            std::cerr << "sluice-mariadb cdc: stopped (signal " << service::stop_signal() << ")\n" << std::flush;
        return 0;
    } catch (const Error& e) {
        return fail(describe(e));
    } catch (const nats::Error& e) {
        return fail(e.describe());
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}

}  // namespace sluice::mariadb::tools
