// The shared report code of the pipeline benchmarks, on values alone: the
// statistics and the capture's JSON fragments, byte for byte as the
// captures in docs/benchmarks/ have them.
#include <gtest/gtest.h>

#include "bench_lag.hpp"
#include "bench_report.hpp"

namespace sluice::pipeline_bench {
namespace {

TEST(BenchReport, MedianIsTheMiddleRunAndTheUpperOneOfAnEvenCount) {
    EXPECT_EQ(median({}), 0);
    EXPECT_EQ(median({3.0}), 3.0);
    EXPECT_EQ(median({4.0, 1.0, 3.0}), 3.0);
    EXPECT_EQ(median({4.0, 1.0, 3.0, 2.0}), 3.0);
}

TEST(BenchReport, PercentileOfUnsortedSamples) {
    std::vector<double> samples;
    for (int i = 100; i >= 1; --i) samples.push_back(i);
    EXPECT_EQ(percentile(samples, 0.5), 51);
    EXPECT_EQ(percentile(samples, 0.99), 100);
    EXPECT_EQ(percentile(samples, 1.0), 100);
    EXPECT_EQ(percentile(samples, 0.0), 1);
    EXPECT_EQ(percentile({}, 0.5), 0);
}

TEST(BenchReport, JsonArrayHasSixDecimals) {
    EXPECT_EQ(json_array({}), "[]");
    EXPECT_EQ(json_array({4.551636, 0.02}), "[4.551636,0.020000]");
}

TEST(BenchReport, MachineObjectAsTheCapturesHaveIt) {
    Machine m;
    m.host = "vm";
    m.cpu = "AMD EPYC";
    m.cores = 2;
    EXPECT_EQ(machine_json(m, {{"load_average_at_end", {1.54883, 1.88037, 2.84912}},
                               {"load_average_before_catchup", {2.46533, 2.0, 2.96924}}}),
              "{\"host\": \"vm\", \"cpu\": \"AMD EPYC\", \"cores\": 2, \"load_average_at_end\": "
              "[1.54883,1.88037,2.84912], \"load_average_before_catchup\": [2.46533,2,2.96924]}");
    EXPECT_EQ(machine_json(m, {}), "{\"host\": \"vm\", \"cpu\": \"AMD EPYC\", \"cores\": 2}");
}

TEST(BenchLag, EachCommitToTheFirstSightingOfItOrALaterPosition) {
    const Clock::time_point t0{};
    using std::chrono::milliseconds;
    const Positions committed = {{5, t0}, {6, t0 + milliseconds(10)}, {8, t0 + milliseconds(20)},
                                 {9, t0 + milliseconds(30)}};
    // 5 seen at 4 ms; 6 never itself, 7 at 25 ms covers it; 8 never: the end.
    const Positions seen = {{5, t0 + milliseconds(4)}, {7, t0 + milliseconds(25)}};
    EXPECT_EQ(lag_ms(committed, seen), (std::vector<double>{4, 15}));
}

TEST(BenchLag, SightingsKeepOnlyChanges) {
    SinkSightings s;
    s.saw(0);  // no state row yet
    s.saw(3);
    s.saw(3);
    s.saw(4);
    const Positions seen = s.taken();
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0].first, 3u);
    EXPECT_EQ(seen[1].first, 4u);
}

}  // namespace
}  // namespace sluice::pipeline_bench
