#pragma once
// The progress line both run loops write on stderr (docs/pipeline.md): at
// most once a second, and once more at the end of a run. Each loop says
// what comes before the counts (a worker: its partition and stream
// sequence) and whether the time spent in sink commits is shown.
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string_view>

#include "sluice/pipeline/pipeline.hpp"

namespace sluice::pipeline {

class ProgressLine {
public:
    ProgressLine(bool on, std::ostream& log) : on_(on), log_(log) {}

    // True when a line should be written now (then write() it): a second
    // since the last one, or `last_line`.
    bool due(bool last_line = false);
    // "sluice-pipeline: <where><counts>[, N ms in sink commits][, lag N s]";
    // lag: our clock minus the source commit time of the last transaction
    // read (0: none read, no lag shown).
    void write(std::string_view where, const RunStats& s, std::uint32_t last_commit_time, bool sink_time);

private:
    bool on_;
    std::ostream& log_;
    std::chrono::steady_clock::time_point last_{};
};

}  // namespace sluice::pipeline
