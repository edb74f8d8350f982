// The benchmark's synthetic workloads, as NDJSON input lines, and the same
// events as typed mutations (for the typed API alone, no JSON).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sluice/tideweave/types.hpp"

namespace sluice::tideweave::bench {

// Events are spread round-robin over `keys` keys; the n-th event of a key has
// ts = n * spacing (so with spacing 8 and gap 10 every key is one session),
// unless `session_length` is set: then every session_length-th event of a key
// jumps ahead by `session_jump`, so sessions close and can finalize.
struct Shape {
    std::int64_t events = 4096;
    std::int64_t keys = 64;
    std::int64_t per_tx = 128;
    std::int64_t spacing = 8;
    std::int64_t session_length = 0;
    std::int64_t session_jump = 100;
};

// The event with global index i, as an insert mutation object.
std::string insert_mutation(const Shape& shape, std::int64_t i);
// Its timestamp (see Shape).
std::int64_t timestamp_of(const Shape& shape, std::int64_t i);

// The transactions of a workload, one line each (no newlines).
std::vector<std::string> transactions(const Shape& shape);

// A watermark past every event of `shape` (everything becomes final), then forget.
std::vector<std::string> close_and_forget(const Shape& shape, std::int64_t gap, std::int64_t lateness);

// The events of `shape` as typed inserts (ids and keys owned here, the
// mutations viewing them), in the same transactions as transactions().
struct TypedWorkload {
    std::vector<std::string> ids;
    std::vector<std::string> keys;
    std::vector<Mutation> mutations;
    std::int64_t per_tx = 1;
    std::int64_t final_watermark = 0;  // as close_and_forget's
};
TypedWorkload typed_inserts(const Shape& shape, std::int64_t gap, std::int64_t lateness);

}  // namespace sluice::tideweave::bench
