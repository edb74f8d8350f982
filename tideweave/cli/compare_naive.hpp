// compare-naive: the exact engine against a "numbers-only" session keeper,
// the design that stores per session only boundaries, count, a double sum,
// min and max. Such a keeper cannot split a session on a retraction, cannot
// shrink its boundaries, cannot restore min/max, and its sum drifts.
#pragma once

#include <cstdint>
#include <ostream>

namespace sluice::tideweave {

struct CompareOptions {
    int keys = 8;
    int events = 4000;
    int retract_percent = 30;
    std::uint64_t seed = 1;
    std::int64_t gap = 10;
    int rows_shown = 12;
};

// Prints the comparison; returns the process exit status.
int compare_naive(const CompareOptions& options, std::ostream& out);

}  // namespace sluice::tideweave
