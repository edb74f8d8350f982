#pragma once
// What a run tells whoever watches it (`sluice-pipeline run --metrics`,
// graceful stop): a handful of calls at clear points of the run loop and
// the batch committer, so that the loop itself knows nothing of metrics.
// Every call has a no-op default; Options::observer null means none.
//
// Threads: sink_commit() comes from the sink writer's thread, the rest from
// the run loop's.
#include <cstdint>
#include <string>

#include "sluice/mariadb/cdc/change_stream.hpp"

namespace sluice::pipeline {

// Also the binlog stream's ConnectionObserver (StreamOptions::observer):
// its reconnects, which happen inside ChangeStream::next().
class RunObserver : public mariadb::cdc::ConnectionObserver {
public:
    ~RunObserver() override = default;
    void connection_lost(const std::string& /*why*/) override {}
    void connection_regained() override {}
    // A source transaction was applied to the engine; it committed at the
    // source at `commit_time` (seconds since the epoch). `replayed`: the
    // sink has it already (read again from a checkpoint older than the
    // stored position).
    virtual void source_transaction(std::uint64_t /*row_changes*/, std::uint64_t /*late*/, std::uint64_t /*rejected*/,
                                    std::uint32_t /*commit_time*/, bool /*replayed*/) {}
    // The snapshot was applied (one engine transaction, not a source one).
    virtual void snapshot_applied(std::uint64_t /*row_changes*/, std::uint64_t /*late*/, std::uint64_t /*rejected*/) {}
    // The batch was cut at `position` and handed to the sink writer; the
    // engine holds this much after the cut.
    virtual void batch_cut(const std::string& /*position*/, std::uint64_t /*engine_events*/,
                           std::uint64_t /*engine_sessions*/) {}
    // The sink committed the oldest batch cut so far, in `seconds`.
    virtual void sink_commit(double /*seconds*/) {}
    // A failure is being retried: `what` is "source" or "sink".
    virtual void retry(const std::string& /*what*/, const std::string& /*why*/) {}
    // Source and sink are open: the run is working.
    virtual void running() {}
    // A graceful stop was asked for: the loop commits what it applied and
    // returns.
    virtual bool stop_requested() const { return false; }
};

// `o.observer`, or one that does nothing.
inline RunObserver& observer_or_none(RunObserver* o) {
    static RunObserver none;
    return o ? *o : none;
}

}  // namespace sluice::pipeline
