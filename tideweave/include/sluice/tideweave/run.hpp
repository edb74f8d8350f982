// The I/O shell around a Stream: NDJSON from a file descriptor to a file
// descriptor with large buffered reads and writes (used by the CLI, and by
// tests and benchmarks that want the CLI's behaviour without a process).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "sluice/tideweave/stream.hpp"

namespace sluice::tideweave {

struct RunOptions {
    bool keep_going = false;                          // continue after an error line
    std::size_t max_line_bytes = std::size_t{1} << 28;  // longer lines are an error (256 MiB)
};

struct RunResult {
    std::int64_t lines = 0;   // input lines read, empty ones included
    std::int64_t errors = 0;  // error lines written
    bool stopped = false;     // stopped at an error (no --keep-going)
};

// Feeds every line of `in_fd` to `stream`, writing its output to `out_fd`.
// Lines are numbered on from stream.line() (0 for a fresh stream). A read
// or write that fails throws Failure{io} ("read: <strerror>", "write: ...";
// failure.hpp), after the output of the lines read before it is written.
RunResult run_stream(Stream& stream, int in_fd, int out_fd, const RunOptions& options);

}  // namespace sluice::tideweave
