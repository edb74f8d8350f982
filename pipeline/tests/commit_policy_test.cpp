// CommitPolicy: when the run loops cut a batch and which cuts carry a
// checkpoint, on chosen clock readings (no servers, no sleeping).
#include "sluice/pipeline/commit_policy.hpp"

#include <gtest/gtest.h>

namespace sluice::pipeline {
namespace {

using namespace std::chrono_literals;
using Clock = CommitPolicy::Clock;

const Clock::time_point t0{std::chrono::hours(1)};
constexpr std::int64_t wall = 1'800'000'000;  // our clock, seconds since the epoch

BatchLimits limits() {
    BatchLimits l;
    l.row_changes = 100;
    l.age = 200ms;
    l.catch_up_age = 1000ms;
    l.catch_up_behind = 2s;
    return l;
}

// A batch with rows after a first commit, the writer free, input still coming.
BatchState busy_batch() {
    BatchState b;
    b.row_changes = 10;
    b.has_rows = true;
    b.position_moved = true;
    b.committed_before = true;
    b.writer_free = true;
    b.input_pending = true;
    return b;
}

TEST(CommitPolicy, CutsABusyBatchAtTheFollowingAge) {
    CommitPolicy p(limits(), 16, false, t0);
    p.source_commit_time(
        static_cast<std::uint32_t>(wall));  // following: the newest transaction is fresh
    EXPECT_FALSE(p.due(busy_batch(), t0 + 199ms, wall));
    EXPECT_TRUE(p.due(busy_batch(), t0 + 200ms, wall));
}

TEST(CommitPolicy, CatchingUpCutsAtTheLongerAge) {
    CommitPolicy p(limits(), 16, false, t0);
    // Exactly catch_up_behind behind is still following; one second more is catching up.
    p.source_commit_time(static_cast<std::uint32_t>(wall - 2));
    EXPECT_FALSE(p.catching_up(wall));
    EXPECT_TRUE(p.due(busy_batch(), t0 + 200ms, wall));
    p.source_commit_time(static_cast<std::uint32_t>(wall - 3));
    EXPECT_TRUE(p.catching_up(wall));
    EXPECT_FALSE(p.due(busy_batch(), t0 + 999ms, wall));
    EXPECT_TRUE(p.due(busy_batch(), t0 + 1000ms, wall));
    // No source transaction read yet: not catching up.
    CommitPolicy fresh(limits(), 16, false, t0);
    EXPECT_FALSE(fresh.catching_up(wall));
}

TEST(CommitPolicy, EqualAgesMeanNoCatchUpMode) {
    BatchLimits l = limits();
    l.catch_up_age = l.age;  // what a JetStream worker runs with
    CommitPolicy p(l, 16, false, t0);
    p.source_commit_time(static_cast<std::uint32_t>(wall - 3600));
    EXPECT_TRUE(p.due(busy_batch(), t0 + 200ms, wall));
}

TEST(CommitPolicy, TheAgeStartsAtTheBatchsFirstTransactionOrTheLastCut) {
    CommitPolicy p(limits(), 16, false, t0);
    p.batch_opened(t0 + 5s);
    EXPECT_FALSE(p.due(busy_batch(), t0 + 5s + 199ms, wall));
    EXPECT_TRUE(p.due(busy_batch(), t0 + 5s + 200ms, wall));
    p.committed(false, t0 + 10s);
    EXPECT_FALSE(p.due(busy_batch(), t0 + 10s + 199ms, wall));
    EXPECT_TRUE(p.due(busy_batch(), t0 + 10s + 200ms, wall));
}

TEST(CommitPolicy, AFullBatchIsCutEvenWhileTheWriterIsBusy) {
    CommitPolicy p(limits(), 16, false, t0);
    BatchState b = busy_batch();
    b.writer_free = false;
    b.row_changes = 99;
    EXPECT_FALSE(p.due(b, t0 + 1h, wall));
    b.row_changes = 100;
    EXPECT_TRUE(p.due(b, t0, wall));
}

TEST(CommitPolicy, TheFirstPositionOfARunWithoutStateIsCutAtOnce) {
    CommitPolicy p(limits(), 16, false, t0);
    BatchState b;
    b.input_pending = true;            // even with more to read and the writer busy
    EXPECT_FALSE(p.due(b, t0, wall));  // nothing read yet (a worker's read timed out)
    b.position_moved = true;
    EXPECT_TRUE(p.due(b, t0, wall));
    b.committed_before = true;
    EXPECT_FALSE(p.due(b, t0, wall));
}

TEST(CommitPolicy, APauseCutsRowsAtOnceButAPositionOnlyWhenOld) {
    CommitPolicy p(limits(), 16, false, t0);
    BatchState b = busy_batch();
    b.input_pending = false;
    EXPECT_TRUE(p.due(b, t0, wall));  // rows: cut at the pause
    b.has_rows = false;
    b.row_changes = 0;
    EXPECT_FALSE(p.due(b, t0 + 199ms, wall));  // only other tables' groups: wait for the age
    EXPECT_TRUE(p.due(b, t0 + 200ms, wall));
    b.input_pending = true;  // ... and for a pause
    EXPECT_FALSE(p.due(b, t0 + 1h, wall));
    b.input_pending = false;
    b.position_moved = false;  // nothing at all
    EXPECT_FALSE(p.due(b, t0 + 1h, wall));
    b = busy_batch();
    b.input_pending = false;
    b.writer_free = false;  // a busy writer: the batch grows
    EXPECT_FALSE(p.due(b, t0 + 1h, wall));
}

TEST(CommitPolicy, WaitsForTheWriterOnlyWhenTheSourceIsIdleAndQuiet) {
    BatchState b = busy_batch();
    b.writer_free = false;
    b.input_pending = false;
    EXPECT_TRUE(CommitPolicy::wait_for_writer(b, true));
    EXPECT_FALSE(CommitPolicy::wait_for_writer(b, false));  // a message just arrived
    b.has_rows = false;
    EXPECT_TRUE(CommitPolicy::wait_for_writer(b, true));  // the position moved
    b.position_moved = false;
    EXPECT_FALSE(CommitPolicy::wait_for_writer(b, true));  // nothing to commit
    b = busy_batch();
    b.writer_free = false;
    EXPECT_FALSE(CommitPolicy::wait_for_writer(b, true));  // input pending
    b.writer_free = true;
    b.input_pending = false;
    EXPECT_FALSE(CommitPolicy::wait_for_writer(b, true));  // already free
}

TEST(CommitPolicy, ChecksEveryNthCommitAndTheFirst) {
    CommitPolicy p(limits(), 3, false, t0);
    EXPECT_TRUE(p.checkpoint_due(false));  // the first commit of a run without state
    EXPECT_FALSE(p.replaying());
    p.committed(true, t0);
    std::string pattern;
    for (int i = 0; i < 7; ++i) {
        const bool c = p.checkpoint_due(true);
        pattern += c ? 'C' : '.';
        p.committed(c, t0);
    }
    EXPECT_EQ(pattern, "..C..C.");
    // checkpoint_every 1: every commit.
    CommitPolicy every(limits(), 1, false, t0);
    every.committed(false, t0);
    EXPECT_TRUE(every.checkpoint_due(true));
}

TEST(CommitPolicy, TheFirstCommitAfterAReplayCarriesACheckpointAndReplaysOnce) {
    CommitPolicy p(limits(), 16, true, t0);
    EXPECT_TRUE(p.replaying());
    EXPECT_TRUE(p.checkpoint_due(true));  // a stored position, yet forced
    p.committed(true, t0);
    EXPECT_FALSE(p.replaying());
    EXPECT_FALSE(p.checkpoint_due(true));
    // A restore from a current checkpoint: no replay, the cadence counts on.
    CommitPolicy q(limits(), 2, false, t0);
    EXPECT_FALSE(q.replaying());
    EXPECT_FALSE(q.checkpoint_due(true));  // counted from the restore: the second commit
    q.committed(false, t0);
    EXPECT_TRUE(q.checkpoint_due(true));
}

}  // namespace
}  // namespace sluice::pipeline
