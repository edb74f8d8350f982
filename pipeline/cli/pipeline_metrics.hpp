#pragma once
// `sluice-pipeline run --metrics HOST:PORT`: the figures of a run
// (docs/pipeline.md, "Operating it"), fed through RunObserver by the run
// loop, the batch committer and the sink writer, and served by
// sluice::service. It also answers stop_requested() for the graceful stop,
// with or without --metrics.
//
// The source counters count what the sink committed: a transaction counts
// when the batch holding it is committed, and one the sink had already
// (replayed from an older checkpoint, or read again after a retry) counts
// once. So at the end they equal the row changes written, across retries.
//
// Lag (sluice_pipeline_lag_seconds): 0 when everything the source has sent
// is committed in the sink, else now minus the source commit time of the
// oldest transaction not yet committed: the oldest of the batch being built
// and of the batches cut but not yet committed by the writer.
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "sluice/pipeline/run_observer.hpp"
#include "sluice/service/http_server.hpp"
#include "sluice/service/monitor.hpp"

namespace sluice::pipeline::cli {

class PipelineMetrics final : public RunObserver {
public:
    PipelineMetrics();
    ~PipelineMetrics() override;
    // Starts the HTTP server on `listen` and prints "metrics: http://HOST:PORT/" on stderr.
    void serve(const std::string& listen, const std::string& source_url, const std::string& sink_url);

    void source_transaction(std::uint64_t row_changes, std::uint64_t late, std::uint64_t rejected,
                            std::uint32_t commit_time, bool replayed) override;
    void snapshot_applied(std::uint64_t row_changes, std::uint64_t late, std::uint64_t rejected) override;
    void batch_cut(const std::string& position, std::uint64_t engine_events, std::uint64_t engine_sessions) override;
    void sink_commit(double seconds) override;
    void retry(const std::string& what, const std::string& why) override;
    void running() override;
    void connection_lost(const std::string& why) override;
    void connection_regained() override;
    bool stop_requested() const override;

    double lag_seconds() const;
    // The figures of the moment as JSON members, for the fields of
    // --log-format json lines.
    std::string log_fields() const;
    // Every batch cut is committed and nothing is applied after the last cut.
    bool all_committed() const;

private:
    service::Registry registry_;
    service::Health health_;
    service::Counter* transactions_;
    service::Counter* row_changes_;
    service::Counter* sink_commits_;
    service::Counter* late_;
    service::Counter* rejected_;
    service::Counter* retries_source_;
    service::Counter* retries_sink_;
    service::Histogram* commit_seconds_;
    service::Gauge* engine_events_;
    service::Gauge* engine_sessions_;
    // What a batch brings to the counters once committed.
    struct Batch {
        std::uint64_t transactions = 0, row_changes = 0, late = 0, rejected = 0;
        std::uint32_t oldest = 0;  // commit time of its oldest transaction (0: none)
        bool has_work = false;
        std::string position;  // where it was cut
    };
    mutable std::mutex mutex_;
    Batch open_;                  // being built
    std::deque<Batch> in_flight_;  // cut, not yet committed, in order
    std::string committed_position_;
    std::unique_ptr<service::Monitor> monitor_;
    std::unique_ptr<service::HttpServer> server_;
};

}  // namespace sluice::pipeline::cli
