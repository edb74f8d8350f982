#pragma once
// A NATS JetStream source of the pipeline (--source nats://...?stream=NAME):
// the URL's parts, and the state row of a partition's worker
// (jetstream_source.cpp, which reads it).
#include <string>

#include "sluice/pipeline/key_partition.hpp"

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

}  // namespace sluice::pipeline
