#pragma once
// The progress line the run loop writes on stderr (docs/pipeline.md): at
// most once a second, and once more at the end of a run. The source says
// what comes before the counts (a worker: its partition and stream
// sequence) and whether the time spent in sink commits is shown. The
// caller passes the clocks' readings (the unit tests chosen ones).
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string_view>

#include "sluice/pipeline/pipeline.hpp"

namespace sluice::pipeline {

class ProgressLine {
  public:
    ProgressLine(bool on, std::ostream& log) : on_(on), log_(log) {}

    // True when a line should be written now (then write() it): on, and a
    // second since the last one or `last_line`.
    bool due(std::chrono::steady_clock::time_point now, bool last_line = false);
    // "sluice-pipeline: <where>[snapshot of N rows, ]<counts>[, N row
    // changes of a transaction in flight][, N ms in sink commits][, lag N s]";
    // lag: `wall_seconds` (our clock) minus the source commit time of the
    // last transaction read (0: none read, no lag shown).
    void write(std::string_view where, const RunStats& s, std::uint32_t last_commit_time,
               bool sink_time, std::int64_t wall_seconds);

  private:
    bool on_;
    std::ostream& log_;
    std::chrono::steady_clock::time_point last_{};
};

// Our clock in whole seconds since the epoch (the source's commit times'
// unit).
std::int64_t wall_seconds_now();

}  // namespace sluice::pipeline
