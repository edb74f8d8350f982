#pragma once
// When the run loop (run.cpp, on the binlog or a JetStream stream) cuts
// its batch into a sink commit, and which commits carry a full checkpoint.
// Decisions on values only: the caller passes the clocks' readings in
// (BatchCommitter the real ones, the unit tests chosen ones), so the policy
// is tested without servers. The exactly-once argument does not depend on these choices (any
// cut at a resumable position is correct); they trade lag against the
// sink's cost per cut (docs/pipeline.md, "Batches").
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace sluice::pipeline {

struct BatchLimits {
    std::size_t row_changes = 100000;  // a batch this big is cut at once
    // A batch this old is cut while the source keeps the loop busy. While
    // catching up (the newest source transaction committed more than
    // catch_up_behind ago, by the source's clock against ours) the age is
    // catch_up_age: bigger batches, as every cut costs PostgreSQL an upsert
    // of each session open at the cut. Equal ages: no catch-up mode.
    std::chrono::steady_clock::duration age = std::chrono::milliseconds(200);
    std::chrono::steady_clock::duration catch_up_age = std::chrono::milliseconds(1000);
    std::chrono::seconds catch_up_behind{2};
};

// What the loop holds when it asks whether to commit.
struct BatchState {
    std::size_t row_changes = 0;
    bool has_rows = false;          // the batch is not empty
    bool position_moved = false;    // something was read since the last commit (maybe without rows)
    bool committed_before = false;  // this run has a committed position (stored or its own)
    bool writer_free = false;       // nothing in flight at the sink writer
    bool input_pending = false;     // more input already arrived: reading on will not block
};

class CommitPolicy {
  public:
    using Clock = std::chrono::steady_clock;

    // `replaying`: restored from a checkpoint older than the stored
    // position, so the first commit replays what the sink already holds.
    CommitPolicy(BatchLimits limits, std::size_t checkpoint_every, bool replaying,
                 Clock::time_point now)
        : limits_(limits),
          checkpoint_every_(checkpoint_every),
          force_checkpoint_(replaying),
          replaying_(replaying),
          batch_opened_(now) {}

    // A source transaction is about to go into an empty batch: its age
    // starts now (a batch that only moved the position keeps its age from
    // the last cut).
    void batch_opened(Clock::time_point now) { batch_opened_ = now; }
    // The newest source transaction read committed at `commit_time` (the
    // source's whole seconds since the epoch).
    void source_commit_time(std::uint32_t commit_time) { last_commit_time_ = commit_time; }
    std::uint32_t last_commit_time() const { return last_commit_time_; }

    // `wall_seconds`: our clock, in seconds since the epoch.
    bool catching_up(std::int64_t wall_seconds) const {
        return last_commit_time_ != 0 &&
               wall_seconds - last_commit_time_ > limits_.catch_up_behind.count();
    }
    bool old(Clock::time_point now, std::int64_t wall_seconds) const {
        return now - batch_opened_ >=
               (catching_up(wall_seconds) ? limits_.catch_up_age : limits_.age);
    }

    // The loop should wait for the writer before deciding: nothing more to
    // read (`source_quiet`: the source has had nothing for a while) and
    // something to commit, so rather than leave this batch for an event
    // that may not come. While the writer is busy and input keeps coming
    // the batch grows instead (up to the size cap): bigger batches merge
    // more changes per (key, start).
    static bool wait_for_writer(const BatchState& b, bool source_quiet) {
        return !b.writer_free && !b.input_pending && source_quiet &&
               (b.has_rows || b.position_moved);
    }

    // Cut now? Always when full, and at the first position this run reaches
    // without a stored one (the state row exists from then on); else when
    // the writer can take it and the input has paused or the batch is old
    // (a batch without rows only for a pause after an old one, so that a
    // source writing other tables still moves the stored position).
    bool due(const BatchState& b, Clock::time_point now, std::int64_t wall_seconds) const {
        if (b.row_changes >= limits_.row_changes) return true;
        if (!b.committed_before && b.position_moved) return true;
        if (!b.writer_free) return false;
        const bool idle = !b.input_pending;
        const bool is_old = old(now, wall_seconds);
        return (b.has_rows && (idle || is_old)) ||
               (!b.has_rows && b.position_moved && is_old && idle);
    }

    // Does the commit about to be made carry a full checkpoint: the first
    // one of a run without state, every checkpoint_every-th, and the first
    // after a replay (so that repeated crashes never replay further and
    // further back). The others store only the position; a restart replays
    // from the last checkpoint (idempotently).
    bool checkpoint_due(bool committed_before) const {
        return !committed_before || force_checkpoint_ ||
               commits_since_checkpoint_ + 1 >= checkpoint_every_;
    }

    // The commit about to be made replays source transactions the sink
    // already holds (the first after a restore from an older checkpoint):
    // Sink::commit upserts every row instead of COPYing.
    bool replaying() const { return replaying_; }

    // Records the commit just handed to the writer; the next batch's age
    // starts at `now`.
    void committed(bool with_checkpoint, Clock::time_point now) {
        replaying_ = false;
        force_checkpoint_ = false;
        commits_since_checkpoint_ = with_checkpoint ? 0 : commits_since_checkpoint_ + 1;
        batch_opened_ = now;
    }

  private:
    BatchLimits limits_;
    std::size_t checkpoint_every_;
    std::size_t commits_since_checkpoint_ = 0;
    bool force_checkpoint_;
    bool replaying_;
    Clock::time_point batch_opened_;
    std::uint32_t last_commit_time_ = 0;  // 0: no source transaction read yet
};

}  // namespace sluice::pipeline
