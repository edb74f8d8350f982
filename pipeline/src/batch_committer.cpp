#include "batch_committer.hpp"

#include "sluice/pipeline/progress_line.hpp"
#include "sluice/pipeline/source_position.hpp"
#include "sluice/tideweave/checkpoint.hpp"

namespace sluice::pipeline {

using Clock = CommitPolicy::Clock;

BatchCommitter::BatchCommitter(Sink& sink, std::string settings, tideweave::Engine& engine,
                               const WatermarkRule& rule, BatchLimits limits,
                               std::size_t checkpoint_every, std::optional<std::string> committed,
                               bool replaying, RunStats& stats, RunObserver* observer)
    : sink_(sink),
      engine_(engine),
      rule_(rule),
      policy_(limits, checkpoint_every, replaying, Clock::now()),
      committed_(std::move(committed)),
      stats_(stats),
      observer_(observer),
      commits_before_(stats.sink_commits),
      sink_seconds_before_(stats.sink_seconds),
      writer_(sink, std::move(settings), observer) {}

SinkBatch& BatchCommitter::open_batch() {
    if (batch_.empty()) policy_.batch_opened(Clock::now());
    return batch_;
}

bool BatchCommitter::due(bool input_pending, bool source_quiet) {
    // A batch the writer failed to commit fails the run here, at the next
    // resumable step, not at the next commit: with nothing left to commit
    // (the failed batch held the last transactions) that would wait for the
    // source's next transaction, and meanwhile nothing is retried and
    // /healthz says all is well. A quiet source still gives steps: a
    // binlog's heartbeats (an Idle), a worker's polls.
    writer_.rethrow_failure();
    // The clocks are read before a wait for the writer: the batch's age is
    // judged as of the moment the loop got here.
    const auto now = Clock::now();
    const std::int64_t wall = wall_seconds_now();
    BatchState b;
    b.row_changes = batch_.row_changes();
    b.has_rows = !batch_.empty();
    b.position_moved = position_moved_;
    b.committed_before = committed_.has_value();
    b.writer_free = writer_.idle();
    b.input_pending = input_pending;
    if (CommitPolicy::wait_for_writer(b, source_quiet)) {
        writer_.finish();
        b.writer_free = true;
    }
    return policy_.due(b, now, wall);
}

void BatchCommitter::commit(const std::string& position) {
    engine_.forget();  // final rows stay in the sink; memory stays bounded
    job_.checkpoint.reset();
    if (policy_.checkpoint_due(committed_.has_value()))
        job_.checkpoint = tideweave::encode_binary(
            engine_.checkpoint(encode(SourcePosition{position, rule_.max_ts()})));
    const bool with_checkpoint = job_.checkpoint.has_value();
    std::swap(job_.batch, batch_);
    job_.kind = SinkJob::Kind::commit;
    job_.previous_gtid = committed_;
    job_.gtid = position;
    job_.replay = policy_.replaying();
    if (observer_) observer_->batch_cut(position, engine_.active_events(), engine_.row_count());
    writer_.submit(job_);
    committed_ = position;
    batch_.clear();
    position_moved_ = false;
    slices_sent_ = false;
    policy_.committed(with_checkpoint, Clock::now());
    sync_stats();
}

bool BatchCommitter::behind(const std::string& position) const {
    return !batch_.empty() || slices_sent_ || position_moved_ || !committed_ || *committed_ != position;
}

void BatchCommitter::send_slice(SinkBatch& batch) {
    batch.move_sessions_to(slice_job_.batch);
    slice_job_.kind = SinkJob::Kind::slice;
    slice_job_.previous_gtid = committed_;
    slice_job_.replay = policy_.replaying();
    writer_.submit(slice_job_);
    slices_sent_ = true;
    sync_stats();
}

void BatchCommitter::take_back_slices() {
    slice_job_.batch.clear();
    slice_job_.kind = SinkJob::Kind::take_back;
    writer_.submit(slice_job_);
}

void BatchCommitter::check_idle_sink() {
    // The writer thread uses the connection only for a job: none now.
    if (holds_nothing() && writer_.idle()) sink_.check_connection();
}

void BatchCommitter::finish() {
    writer_.finish();
    sync_stats();
}

void BatchCommitter::sync_stats() {
    stats_.sink_commits = commits_before_ + writer_.commits();
    stats_.sink_seconds = sink_seconds_before_ + writer_.seconds();
}

}  // namespace sluice::pipeline
