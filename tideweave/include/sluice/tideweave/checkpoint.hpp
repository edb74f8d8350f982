// A checkpoint as a typed value, and its two encodings.
//
// A Checkpoint is everything an Engine holds (configuration, version,
// watermark, and per key its folded blocks, events and final sessions) plus
// an opaque `source_position`: bytes the caller sets (a binlog GTID state, a
// file offset, ...) so that "engine state + where the input stood" is one
// value, stored and restored together (docs/tideweave.md, "Checkpoints").
//
// Encodings (one codec, src/checkpoint_codec.cpp, describes the layout once
// for writing and reading both):
//   - JSON: the CLI's {"format":"tideweave-checkpoint-1",...} object, with a
//     "source" member (lowercase hex) only when source_position is not empty;
//   - binary: compact (magic "TWCK", format version, varints, raw doubles),
//     meant for a database column (PostgreSQL bytea).
// Both round-trip exactly: decode(encode(c)) == c. Decoding checks the
// structure (members, types, ranges, lengths); Engine::restore checks the
// state (order, sealed blocks, unique ids, final sessions below the horizon).
// Neither throws for bad bytes: they return an Error of kind checkpoint.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/tideweave/types.hpp"

namespace sluice::tideweave {

struct CheckpointBlock {  // sealed events folded by forget, at their session's start
    std::int64_t first = 0;
    std::int64_t last = 0;
    std::int64_t count = 0;
    double min = 0;
    double max = 0;
    std::vector<double> sum_parts;  // doubles whose exact total is the block's exact sum
    friend bool operator==(const CheckpointBlock&, const CheckpointBlock&) = default;
};

struct CheckpointEvent {
    std::int64_t ts = 0;
    std::string id;
    double value = 0;
    friend bool operator==(const CheckpointEvent&, const CheckpointEvent&) = default;
};

struct CheckpointKey {
    std::string key;
    std::vector<CheckpointBlock> blocks;    // by first
    std::vector<CheckpointEvent> events;    // by (ts, id)
    std::vector<std::int64_t> final_starts; // starts of sessions already reported final
    friend bool operator==(const CheckpointKey&, const CheckpointKey&) = default;
};

struct Checkpoint {
    Config config;
    std::int64_t version = 0;
    // The NDJSON codec's number of the checkpoint line (a restored Stream
    // numbers on from it); 0 in a checkpoint taken through Engine.
    std::int64_t line = 0;
    std::optional<std::int64_t> watermark;
    std::string source_position;          // opaque bytes, the caller's
    std::vector<CheckpointKey> keys;      // in byte order of key
    friend bool operator==(const Checkpoint& a, const Checkpoint& b) {
        return a.config.gap == b.config.gap && a.config.lateness == b.config.lateness && a.version == b.version &&
               a.line == b.line && a.watermark == b.watermark && a.source_position == b.source_position &&
               a.keys == b.keys;
    }
};

// The JSON object (no newline), exactly the bytes the CLI writes inside
// {"version":v,"checkpoint":...}.
std::string encode_json(const Checkpoint& checkpoint);
// The same, appended to `out` (no new buffer: the NDJSON codec writes a
// checkpoint line straight into its output).
void append_json(const Checkpoint& checkpoint, std::string& out);
// The JSON object, or a whole {"version":v,"checkpoint":{...}} line (whose
// version must equal the checkpoint's).
Result<Checkpoint> decode_json(std::string_view text);

std::string encode_binary(const Checkpoint& checkpoint);
void append_binary(const Checkpoint& checkpoint, std::string& out);
Result<Checkpoint> decode_binary(std::string_view bytes);

}  // namespace sluice::tideweave
