#pragma once
// What a Tideweave checkpoint's opaque source position holds for the
// pipeline: the GTID state the engine state corresponds to, and the largest
// after-image ts seen so far (the watermark rule's memory). Encoded as text:
// "gtid=<GTID state>\nmax_ts=<integer or ->\n".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::pipeline {

struct SourcePosition {
    std::string gtid;  // e.g. "0-1-42,1-2-7" ("" for the empty state)
    std::optional<std::int64_t> max_ts;
    friend bool operator==(const SourcePosition&, const SourcePosition&) = default;
};

std::string encode(const SourcePosition& p);
// nullopt when the bytes are not such a position.
std::optional<SourcePosition> decode_source_position(std::string_view bytes);

}  // namespace sluice::pipeline
