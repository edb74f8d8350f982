#pragma once
// Steady lag, as both pipeline benchmarks measure it: the writer notes each
// transaction's position (GTID sequence or stream sequence) when its COMMIT
// returned; a poller notes each position the sink's state first shows; a
// transaction's lag is the time from its commit to the first sighting of
// it or a later position.
//
// LIFETIME: a SinkSightings is shared by the poller thread (saw) and the
// writer (wait_for); taken() is read once the poller has been joined.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "bench_process.hpp"

namespace sluice::pipeline_bench {

// Positions in the order noted, each with when.
using Positions = std::vector<std::pair<std::uint64_t, Clock::time_point>>;

class SinkSightings {
public:
    // The poller's reading of the sink: noted, stamped now, when it differs
    // from the last one.
    void saw(std::uint64_t position);
    // Until the sink has shown `position` or a later one, checking every
    // 100 ms, for a minute at most (the warm-up: the follower connects and
    // makes its tables).
    void wait_for(std::uint64_t position);
    Positions taken() const;

private:
    mutable std::mutex mu_;
    Positions seen_;
    std::uint64_t last_ = 0;
};

// Milliseconds from each commit to its first sighting, in commit order,
// up to the first commit never seen.
std::vector<double> lag_ms(const Positions& committed, const Positions& seen);

}  // namespace sluice::pipeline_bench
