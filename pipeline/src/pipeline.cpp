// One attempt (run_once: the source the URL names, the sink, the run loop
// of run.cpp) and the retries around it (run_with_retries).
#include "sluice/pipeline/pipeline.hpp"

#include <chrono>
#include <iostream>
#include <thread>

#include "sluice/common/error.hpp"
#include "sluice/pipeline/run.hpp"
#include "sluice/pipeline/sink.hpp"
#include "sluice/pipeline/source.hpp"

namespace sluice::pipeline {

using Clock = std::chrono::steady_clock;

void run_once(const Options& o, RunStats& stats, std::ostream& log) {
    const std::unique_ptr<Source> source = make_source(o);
    source->check();
    // Checks the sink's tables; creates nothing before the source is open.
    Sink sink = Sink::open(o.run.sink_url, o.run.sink_table, source->state_name());
    run(*source, sink, o.run, stats, log);
}

namespace {

// A failure as the log shows it: what its part says of it (describe()),
// after the role that part plays here. MariaDB is the source ("source: ...
// (io)"), PostgreSQL the sink ("sink: ..."); the pipeline's own errors name
// their kind ("sink state: ..."); anything else is its what().
std::string describe(const std::exception& e) {
    const common::Error* error = common::as_error(e);
    if (error == nullptr) return e.what();
    const std::string_view part = error->part();
    const char* role = part == "mariadb" ? "source: " : part == "postgres" ? "sink: " : "";
    return role + error->describe();
}

}  // namespace

int run_with_retries(const Options& o, std::ostream& log) {
    RunStats stats;
    auto backoff = std::chrono::milliseconds(100);
    auto failing_since = Clock::now();
    std::uint64_t commits_seen = 0;
    for (;;) {
        try {
            run_once(o, stats, log);
            return 0;
        } catch (const std::exception& e) {
            // The one place that decides: a transient failure is retried
            // (from the sink's state) until --retry-for passes without
            // progress; any other ends the run.
            if (!common::is_transient(e)) {
                log << "sluice-pipeline: error: " << describe(e) << "\n";
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
            std::this_thread::sleep_for(backoff);
            backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
        }
    }
}

}  // namespace sluice::pipeline
