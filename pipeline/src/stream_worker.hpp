#pragma once
// The pipeline reading a NATS JetStream stream that `sluice-mariadb cdc --to`
// fills, instead of the binlog (docs/pipeline.md, "Scaling out"). run_once()
// hands a nats:// source to run_stream_worker(); everything else (retries,
// the sink, the mapping) is the single process's.
#include <iosfwd>
#include <string>

#include "sluice/pipeline/key_partition.hpp"
#include "sluice/pipeline/pipeline.hpp"

namespace sluice::pipeline {

struct StreamSource {
    std::string urls;    // nats://HOST:PORT[,nats://...]
    std::string stream;  // ?stream=NAME
};

bool is_stream_source(const std::string& url);
// nats://HOST:PORT[,nats://HOST:PORT...]?stream=NAME; Error{usage} otherwise.
StreamSource parse_stream_source(const std::string& url);
// The worker's sluice_pipeline_state row: NAME#I/N.
std::string partition_state_name(const std::string& sink_table, const Partition& p);

// One attempt; throws (run_with_retries retries lost connections).
void run_stream_worker(const Options& options, RunStats& stats, std::ostream& log);

}  // namespace sluice::pipeline
