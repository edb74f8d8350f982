// One attempt (run_once: the source the URL names, the sink, the run loop
// of run.cpp) and the retries around it (run_with_retries).
#include "sluice/pipeline/pipeline.hpp"

#include <chrono>
#include <iostream>
#include <thread>

#include "sluice/common/error.hpp"
#include "sluice/pipeline/error.hpp"
#include "sluice/pipeline/run.hpp"
#include "sluice/pipeline/run_observer.hpp"
#include "sluice/pipeline/sink.hpp"
#include "sluice/pipeline/source.hpp"
#include "start_failure.hpp"

namespace sluice::pipeline {

using Clock = std::chrono::steady_clock;

void run_once(const Options& o, RunStats& stats, std::ostream& log) {
    const std::unique_ptr<Source> source = make_source(o);
    source->check();
    stats.source_reached = true;
    // Checks the sink's tables; creates nothing before the source is open.
    Sink sink = Sink::open(o.run.sink_url, o.run.sink_table, source->state_name());
    stats.sink_reached = true;
    run(*source, sink, o.run, stats, log);
}

namespace {

// A failure as the log shows it: what its part says of it (describe()),
// after the role that part plays here. MariaDB (and NATS, a worker's
// source) is the source ("source: ... (io)"), PostgreSQL the sink ("sink:
// ..."); the pipeline's own errors name their kind ("sink state: ...");
// anything else is its what().
std::string describe(const std::exception& e) {
    const common::Error* error = common::as_error(e);
    if (error == nullptr) return e.what();
    const std::string_view part = error->part();
    const char* role = (part == "mariadb" || part == "nats") ? "source: " : part == "postgres" ? "sink: " : "";
    return role + error->describe();
}

// For the health check: which side a retried failure is on.
const char* failing_part(const std::exception& e) {
    const common::Error* error = common::as_error(e);
    if (error == nullptr) return "source";
    if (error->part() == "postgres") return "sink";
    if (error->part() == "pipeline" && error->kind_name() == to_string(ErrorKind::sink_moved)) return "sink";
    return "source";
}

// An error of the command line's making, found only when it was used (an
// option the URL cannot have).
bool usage_error(const std::exception& e) {
    // The pipeline's own (the library's usage kind also labels server
    // checks, such as binlog_format, which stay failures: issue 32).
    const common::Error* error = common::as_error(e);
    return error != nullptr && error->part() == "pipeline" && error->kind_name() == to_string(ErrorKind::usage);
}

}  // namespace

int run_with_retries(const Options& o, std::ostream& log) {
    RunStats stats;
    auto backoff = std::chrono::milliseconds(100);
    const auto started = Clock::now();
    auto failing_since = started;
    std::uint64_t commits_seen = 0;
    RunObserver& watch = observer_or_none(o.run.observer);
    for (;;) {
        try {
            run_once(o, stats, log);
            return 0;
        } catch (const std::exception& e) {
            // The one place that decides: a transient failure is retried
            // (from the sink's state) until --retry-for passes without
            // progress; any other ends the run, and so does a connection
            // that never worked (start_failure.hpp).
            if (!common::is_transient(e)) {
                log << "sluice-pipeline: error: " << describe(e) << "\n";
                return usage_error(e) ? 2 : 1;
            }
            if (gives_up_at_start(e, stats, Clock::now() - started, o.run.connect_timeout)) {
                log << "sluice-pipeline: error: " << describe(e) << start_failure_note(o.run.connect_timeout) << "\n";
                return 1;
            }
            if (stats.sink_commits != commits_seen) {  // progress since the last failure
                commits_seen = stats.sink_commits;
                failing_since = Clock::now();
                backoff = std::chrono::milliseconds(100);
            }
            if (Clock::now() - failing_since > o.run.retry_for) {
                log << "sluice-pipeline: error: " << describe(e) << " (gave up after retrying for "
                    << std::chrono::duration_cast<std::chrono::seconds>(o.run.retry_for).count() << " s)\n";
                return 1;
            }
            log << "sluice-pipeline: " << describe(e) << "; retrying in " << backoff.count() << " ms\n";
            watch.retry(failing_part(e), describe(e));
            if (watch.stop_requested()) return 0;  // stopped while retrying: nothing to commit
            std::this_thread::sleep_for(backoff);
            backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
        }
    }
}

}  // namespace sluice::pipeline
