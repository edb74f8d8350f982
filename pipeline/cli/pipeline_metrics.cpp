#include "pipeline_metrics.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>

#include "sluice/common/json_write.hpp"
#include "sluice/service/process_stats.hpp"
#include "sluice/service/stop_signals.hpp"

namespace sluice::pipeline::cli {

namespace {

std::uint32_t wall_now() {
    return static_cast<std::uint32_t>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

double seconds_since(std::uint32_t commit_time) {
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return std::max(0.0, now - static_cast<double>(commit_time));
}

}  // namespace

PipelineMetrics::PipelineMetrics() {
    transactions_ = &registry_.counter("sluice_pipeline_source_transactions_total",
                                       "Source transactions committed in the sink (each once, across replays and retries).");
    row_changes_ = &registry_.counter("sluice_pipeline_source_row_changes_total",
                                      "Row changes of those transactions and of the snapshot, committed in the sink.");
    sink_commits_ = &registry_.counter("sluice_pipeline_sink_commits_total", "PostgreSQL transactions committed.");
    late_ = &registry_.counter("sluice_pipeline_late_total", "Late mutations committed to NAME_late.");
    rejected_ = &registry_.counter("sluice_pipeline_rejected_total", "Rows that are not events, committed to NAME_rejected.");
    registry_.computed("sluice_pipeline_lag_seconds",
                       "0 when everything the source sent is committed in the sink, else now minus the source commit "
                       "time of the oldest transaction not yet committed.",
                       service::Type::gauge, [this] { return lag_seconds(); });
    commit_seconds_ = &registry_.histogram("sluice_pipeline_sink_commit_seconds", "Time of one sink commit.",
                                           {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10});
    engine_events_ = &registry_.gauge("sluice_pipeline_engine_events", "Events the Tideweave engine holds (at the last cut).");
    engine_sessions_ = &registry_.gauge("sluice_pipeline_engine_sessions", "Session rows the engine holds (at the last cut).");
    retries_source_ = &registry_.counter("sluice_pipeline_retries_total", "Retries after a lost connection.",
                                         {{"what", "source"}});
    retries_sink_ = &registry_.counter("sluice_pipeline_retries_total", "Retries after a lost connection.", {{"what", "sink"}});
    registry_.info("sluice_pipeline_position_info", "The source position (GTID state, or stream sequence) committed in the sink.",
                   "gtid", [this] {
                       std::lock_guard lock(mutex_);
                       return committed_position_;
                   });
    service::register_process_metrics(registry_);
}

PipelineMetrics::~PipelineMetrics() {
    server_.reset();
    monitor_.reset();
}

void PipelineMetrics::serve(const std::string& listen, const std::string& source_url, const std::string& sink_url) {
    monitor_ = std::make_unique<service::Monitor>(
        service::Description{"sluice-pipeline run", source_url, sink_url}, registry_, health_, [this] {
            service::Figures f;
            {
                std::lock_guard lock(mutex_);
                f.position = committed_position_;
            }
            f.transactions = transactions_->value();
            f.row_changes = row_changes_->value();
            f.late = late_->value();
            f.rejected = rejected_->value();
            f.retries_source = retries_source_->value();
            f.retries_sink = retries_sink_->value();
            f.lag_seconds = lag_seconds();
            return f;
        });
    server_ = std::make_unique<service::HttpServer>(service::parse_listen_address(listen), *monitor_);
    monitor_->start();
    std::cerr << "metrics: " << server_->url() << "\n" << std::flush;
}

void PipelineMetrics::source_transaction(std::uint64_t row_changes, std::uint64_t late, std::uint64_t rejected,
                                         std::uint32_t commit_time, bool replayed) {
    if (replayed) return;  // committed already, and counted then
    std::lock_guard lock(mutex_);
    ++open_.transactions;
    open_.row_changes += row_changes;
    open_.late += late;
    open_.rejected += rejected;
    if (open_.oldest == 0) open_.oldest = commit_time == 0 ? 1 : commit_time;
    open_.has_work = true;
}

void PipelineMetrics::snapshot_applied(std::uint64_t row_changes, std::uint64_t late, std::uint64_t rejected) {
    std::lock_guard lock(mutex_);
    open_.row_changes += row_changes;
    open_.late += late;
    open_.rejected += rejected;
    // Its rows have no commit time: the lag counts from now.
    if (open_.oldest == 0) open_.oldest = wall_now();
    open_.has_work = true;
}

void PipelineMetrics::batch_cut(const std::string& position, std::uint64_t engine_events, std::uint64_t engine_sessions) {
    engine_events_->set(static_cast<double>(engine_events));
    engine_sessions_->set(static_cast<double>(engine_sessions));
    std::lock_guard lock(mutex_);
    open_.position = position;
    in_flight_.push_back(std::move(open_));
    open_ = Batch{};
}

void PipelineMetrics::sink_commit(double seconds) {
    commit_seconds_->observe(seconds);
    std::lock_guard lock(mutex_);
    if (!in_flight_.empty()) {
        const Batch& b = in_flight_.front();
        transactions_->add(b.transactions);
        row_changes_->add(b.row_changes);
        late_->add(b.late);
        rejected_->add(b.rejected);
        committed_position_ = b.position;
        in_flight_.pop_front();
    }
    sink_commits_->add();
}

double PipelineMetrics::lag_seconds() const {
    std::lock_guard lock(mutex_);
    std::uint32_t oldest = 0;
    for (const Batch& b : in_flight_)
        if (b.oldest != 0) {
            oldest = b.oldest;  // in order: the first with a time is the oldest
            break;
        }
    if (oldest == 0) oldest = open_.oldest;
    return oldest == 0 ? 0.0 : seconds_since(oldest);
}

std::string PipelineMetrics::log_fields() const {
    std::string position;
    {
        std::lock_guard lock(mutex_);
        position = committed_position_;
    }
    std::string out = "\"position\":";
    json::append_string(out, position);
    out += ",\"transactions\":" + service::format_value(static_cast<double>(transactions_->value()));
    out += ",\"row_changes\":" + service::format_value(static_cast<double>(row_changes_->value()));
    out += ",\"lag_seconds\":" + service::format_value(lag_seconds());
    return out;
}

bool PipelineMetrics::all_committed() const {
    std::lock_guard lock(mutex_);
    return in_flight_.empty() && !open_.has_work;
}

void PipelineMetrics::retry(const std::string& what, const std::string& why) {
    (what == "sink" ? retries_sink_ : retries_source_)->add();
    health_.problem(what, why + " (retrying)");
    // The next attempt restores from the sink: what was not committed is read again.
    std::lock_guard lock(mutex_);
    in_flight_.clear();
    open_ = Batch{};
}

void PipelineMetrics::running() {
    health_.ok("source");
    health_.ok("sink");
}

void PipelineMetrics::connection_lost(const std::string& why) {
    retries_source_->add();
    health_.problem("source", why + " (reconnecting)");
}

void PipelineMetrics::connection_regained() { health_.ok("source"); }

bool PipelineMetrics::stop_requested() const { return service::stop_requested(); }

}  // namespace sluice::pipeline::cli
