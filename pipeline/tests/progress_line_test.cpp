// ProgressLine: the text of both loops' progress lines and their rate, on
// chosen clock readings.
#include "sluice/pipeline/progress_line.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace sluice::pipeline {
namespace {

using namespace std::chrono_literals;

RunStats some_stats() {
    RunStats s;
    s.source_transactions = 1200;
    s.row_changes = 3600;
    s.sink_commits = 41;
    s.late = 12;
    s.rejected = 3;
    s.sink_seconds = 1.2345;
    return s;
}

TEST(ProgressLine, TheBinlogLoopsLineShowsTheSinkTimeAndTheLag) {
    std::ostringstream log;
    ProgressLine p(true, log);
    p.write("", some_stats(), 1000, true, 1007);
    EXPECT_EQ(log.str(),
              "sluice-pipeline: 1200 transactions, 3600 row changes, 41 sink commits, 12 late, 3 "
              "rejected, "
              "1234 ms in sink commits, lag 7 s\n");
}

TEST(ProgressLine, ATransactionInFlightShowsItsRowChangesReadSoFar) {
    std::ostringstream log;
    ProgressLine p(true, log);
    RunStats s = some_stats();
    s.in_flight = 24576;
    p.write("", s, 1000, true, 1007);
    EXPECT_EQ(log.str(),
              "sluice-pipeline: 1200 transactions, 3600 row changes, 41 sink commits, 12 late, 3 rejected, "
              "24576 row changes of a transaction in flight, 1234 ms in sink commits, lag 7 s\n");
}

TEST(ProgressLine, AWorkersLineNamesItsPartitionAndNoLagBeforeATransaction) {
    std::ostringstream log;
    ProgressLine p(true, log);
    p.write("partition 1/3: stream sequence 77, ", some_stats(), 0, false, 1007);
    EXPECT_EQ(log.str(),
              "sluice-pipeline: partition 1/3: stream sequence 77, 1200 transactions, 3600 row "
              "changes, 41 sink "
              "commits, 12 late, 3 rejected\n");
    // A source clock ahead of ours: no negative lag.
    std::ostringstream ahead;
    ProgressLine q(true, ahead);
    q.write("", RunStats{}, 2000, false, 1007);
    EXPECT_NE(ahead.str().find(", lag 0 s\n"), std::string::npos) << ahead.str();
}

// Issue 32: after a snapshot of 3 rows the line read "0 transactions, 3 row
// changes"; the snapshot is counted as what it is.
TEST(ProgressLine, ASnapshotIsCountedAsASnapshot) {
    std::ostringstream log;
    ProgressLine p(true, log);
    RunStats s;
    s.snapshot_rows = 3;
    s.sink_commits = 1;
    p.write("", s, 0, false, 1007);
    EXPECT_EQ(log.str(),
              "sluice-pipeline: snapshot of 3 rows, 0 transactions, 0 row changes, 1 sink commits, 0 late, 0 "
              "rejected\n");
    std::ostringstream one;
    ProgressLine q(true, one);
    s.snapshot_rows = 1;
    q.write("", s, 0, false, 1007);
    EXPECT_EQ(one.str().rfind("sluice-pipeline: snapshot of 1 row, 0 transactions", 0), 0U) << one.str();
}

TEST(ProgressLine, AtMostOnceASecondButAlwaysTheLastLine) {
    std::ostringstream log;
    ProgressLine p(true, log);
    const std::chrono::steady_clock::time_point t0{std::chrono::hours(1)};
    EXPECT_TRUE(p.due(t0));
    EXPECT_FALSE(p.due(t0 + 999ms));
    EXPECT_TRUE(p.due(t0 + 999ms, true));  // the last line, now the last one written
    EXPECT_FALSE(p.due(t0 + 1998ms));
    EXPECT_TRUE(p.due(t0 + 1999ms));
    ProgressLine quiet(false, log);  // --quiet
    EXPECT_FALSE(quiet.due(t0));
    EXPECT_FALSE(quiet.due(t0, true));
}

}  // namespace
}  // namespace sluice::pipeline
