#pragma once
// The engine alone on a large transaction's rows, the pipeline benchmarks'
// measure of "the engine's own state" (issue 25): a benchmark runs itself
// as `BENCH --engine-alone ROWS TS_DIVISOR` and takes the child's peak RSS.
// The rows are the benchmarks' large-transaction rows (id, key 'k' || id %
// 1000, ts id / divisor, value id % 97 + 0.5; gap 10, lateness 20, the
// pipeline's defaults), given as one transaction in parts of 8192, with a
// slice taken whenever 8192 sessions changed (as the pipeline takes them),
// then committed. The bound is the pipeline's peak within 64 MiB of
// it (a JetStream worker's: 32 MiB more, its NATS buffers).
#include <cstdint>
#include <optional>

namespace sluice::pipeline_bench {

// The exit status if argv asks for the engine alone (after running it);
// nullopt otherwise.
std::optional<int> engine_alone_if_asked(int argc, char** argv);

}  // namespace sluice::pipeline_bench
