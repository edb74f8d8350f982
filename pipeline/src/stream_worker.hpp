#pragma once
// The pipeline reading a NATS JetStream stream that `sluice-mariadb cdc --to`
// fills, instead of the binlog (docs/pipeline.md, "Scaling out"). run_once()
// hands a nats:// source to run_stream_worker(); everything else (retries,
// the sink, the mapping) is the single process's.
#include <iosfwd>
#include <string>

#include "sluice/pipeline/pipeline.hpp"
#include "sluice/pipeline/stream_source.hpp"

namespace sluice::pipeline {

// One attempt; throws (run_with_retries retries lost connections).
void run_stream_worker(const Options& options, RunStats& stats, std::ostream& log);

}  // namespace sluice::pipeline
