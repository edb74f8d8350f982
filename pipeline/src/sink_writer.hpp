#pragma once
// Sink commits on their own thread, one batch at a time and in order, so
// that reading the binlog and running the engine for batch N+1 overlaps
// PostgreSQL writing batch N (in catch-up the sink is ~70% of the wall
// time). At most one batch is in flight: submit() waits for the previous
// one. The first failure is kept and rethrown by the next submit() or
// finish(); later batches are then not written, so the sink stays at a
// committed prefix (exactly once: the next run restores from it). A huge
// transaction's slices (SinkJob::Kind::slice) go through the same queue, so
// they reach the open sink transaction in order and at most one waits.
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "sluice/pipeline/run_observer.hpp"
#include "sluice/pipeline/sink.hpp"
#include "sluice/pipeline/sink_batch.hpp"

namespace sluice::pipeline {

struct SinkJob {
    // commit: the batch, the state and the checkpoint, then COMMIT (the
    // open transaction's, if slices began one). slice: the batch's session
    // rows into the open transaction (Sink::write_slice). take_back: the
    // slices since the savepoint are rolled back (batch unused).
    enum class Kind { commit, slice, take_back };
    Kind kind = Kind::commit;
    SinkBatch batch;
    std::optional<std::string> previous_gtid;
    std::string gtid;
    std::optional<std::string> checkpoint;
    bool replay = false;  // holds source transactions the sink already has (Sink::commit)
};

class SinkWriter {
public:
    // `observer` (may be null) is told of each commit, from the writer's thread.
    SinkWriter(Sink& sink, std::string settings, RunObserver* observer = nullptr);
    ~SinkWriter();
    SinkWriter(const SinkWriter&) = delete;
    SinkWriter& operator=(const SinkWriter&) = delete;

    // Hands `job` over (moved from) once the previous one is committed.
    void submit(SinkJob& job);
    // Waits until everything submitted is committed; rethrows a failure.
    void finish();
    // Rethrows a failure of a batch submitted earlier, without waiting.
    void rethrow_failure();

    // Nothing in flight: a batch submitted now is committed at once.
    bool idle() const;
    std::uint64_t commits() const;
    double seconds() const;

private:
    void loop();
    void rethrow_locked();

    Sink& sink_;
    std::string settings_;
    RunObserver* observer_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::optional<SinkJob> job_;
    bool busy_ = false;
    bool stop_ = false;
    std::exception_ptr failure_;
    std::uint64_t commits_ = 0;
    double seconds_ = 0;
    std::thread thread_;
};

}  // namespace sluice::pipeline
