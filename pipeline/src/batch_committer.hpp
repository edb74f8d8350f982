#pragma once
// The batch/commit half of the run loop (run.cpp): the batch being built,
// when to cut it (CommitPolicy), and the cut itself: forget, checkpoint
// when due, hand the batch to the SinkWriter with the position it ends at.
// The source says the rest (source.hpp): what a position's text is, when a
// position is resumable, whether input is pending.
//
// Lifetime: the engine, rule, sink and stats passed in must outlive the
// committer; the batch returned by open_batch() is valid until the next
// commit().
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "sink_writer.hpp"
#include "sluice/pipeline/session_applier.hpp"
#include "sluice/pipeline/commit_policy.hpp"
#include "sluice/pipeline/pipeline.hpp"
#include "sluice/pipeline/run_observer.hpp"
#include "sluice/pipeline/sink_batch.hpp"
#include "sluice/pipeline/watermark_rule.hpp"
#include "sluice/tideweave/engine.hpp"

namespace sluice::pipeline {

class BatchCommitter : public SliceOut {
  public:
    // `committed`: the stored position (the state row's), if any.
    // `replaying`: the engine was restored from a checkpoint older than it.
    BatchCommitter(Sink& sink, std::string settings, tideweave::Engine& engine,
                   const WatermarkRule& rule, BatchLimits limits, std::size_t checkpoint_every,
                   std::optional<std::string> committed, bool replaying, RunStats& stats,
                   RunObserver* observer = nullptr);
    BatchCommitter(const BatchCommitter&) = delete;
    BatchCommitter& operator=(const BatchCommitter&) = delete;

    // The batch the next source transaction goes into (an empty one's age
    // starts now).
    SinkBatch& open_batch();
    // The transaction just applied committed at `timestamp` at the source
    // (for the catch-up age and the progress line's lag).
    void source_commit_time(std::uint32_t timestamp) { policy_.source_commit_time(timestamp); }
    // The loop read something: the position moved (with rows or without).
    void moved() { position_moved_ = true; }

    // Call only at a resumable position. Whether to commit now; when the
    // source is idle and quiet, waits for the writer first (so that the
    // batch is not left for an event that may not come).
    // `source_quiet`: nothing arrived lately (a loop that blocks on its
    // source passes true).
    bool due(bool input_pending, bool source_quiet);
    // Cuts the batch at `position` (its text as the state row stores it):
    // the checkpoint, when due, is taken here, where the engine's state is
    // exactly that position's; the writer thread commits it while the next
    // batch builds.
    void commit(const std::string& position);
    // Something read or applied is not committed at `position` yet.
    bool behind(const std::string& position) const;
    // Nothing read since the last commit and the batch is empty.
    bool holds_nothing() const { return !position_moved_ && batch_.empty() && !slices_sent_; }
    // Waits until everything submitted is committed; rethrows a failure.
    void finish();
    // A quiet moment of the source (an idle step): when nothing is held or
    // being committed, a sink connection PostgreSQL ended meanwhile fails
    // the run now (retried, /healthz naming the sink).
    void check_idle_sink();

    // A huge transaction's slices (SessionApplier::slice_into): `batch` is
    // open_batch(); its session rows go to the writer as a slice of the
    // open sink transaction, which the next commit() finishes.
    void send_slice(SinkBatch& batch) override;
    void take_back_slices() override;

    std::uint32_t last_commit_time() const { return policy_.last_commit_time(); }

  private:
    void sync_stats();

    Sink& sink_;
    tideweave::Engine& engine_;
    const WatermarkRule& rule_;
    CommitPolicy policy_;
    std::optional<std::string> committed_;  // the state row's position, as the writer will have it
    bool position_moved_ = false;
    SinkBatch batch_;
    SinkJob job_;  // reused: its buffers keep their capacity
    SinkJob slice_job_;
    bool slices_sent_ = false;  // the sink transaction holds slices not committed yet
    RunStats& stats_;
    RunObserver* observer_;  // may be null
    const std::uint64_t commits_before_;  // of earlier attempts (run_with_retries)
    const double sink_seconds_before_;
    SinkWriter writer_;  // last: its thread stops before the rest goes
};

}  // namespace sluice::pipeline
