#pragma once
// Which worker of a partitioned pipeline (--partition I/N) owns a session
// key. Stable across versions, machines and runs (docs/pipeline.md,
// "Scaling out"): FNV-1a, 64 bits, over the key's bytes (its UTF-8 text, as
// the sink's key column holds it), then the remainder modulo N.
//
//   partition_of("alice", 4) == fnv1a64("alice") % 4
//
// A row without a key (a NULL key cell: rejected rows) belongs to partition 0.
#include <cstdint>
#include <string_view>

namespace sluice::pipeline {

inline std::uint64_t fnv1a64(std::string_view bytes) noexcept {
    std::uint64_t h = 0xcbf29ce484222325ULL;  // offset basis
    for (char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ULL;  // FNV prime
    }
    return h;
}

inline std::uint32_t partition_of(std::string_view key, std::uint32_t partitions) noexcept {
    return static_cast<std::uint32_t>(fnv1a64(key) % partitions);
}

// --partition I/N: this worker is I of N (0 <= I < N).
struct Partition {
    std::uint32_t index = 0;
    std::uint32_t count = 1;
    bool owns(std::string_view key) const noexcept { return count == 1 || partition_of(key, count) == index; }
    friend bool operator==(const Partition&, const Partition&) = default;
};

}  // namespace sluice::pipeline
