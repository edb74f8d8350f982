// Feeds lines to a Stream and keeps each output line (without its newline).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sluice/tideweave/stream.hpp"

namespace sluice::tideweave::testing {

class Driver {
public:
    explicit Driver(EngineKind kind, Config config = {}) : stream_(config, kind) {}
    // A restored stream numbers its lines on from the checkpoint's line.
    explicit Driver(Stream stream) : stream_(std::move(stream)), line_no_(stream_.line()) {}

    // The output line for `line`, without its '\n' ("" for an empty line).
    std::string feed(std::string_view line) {
        std::string out;
        last_outcome_ = stream_.process_line(line, ++line_no_, out);
        if (!out.empty()) {
            EXPECT_EQ(out.back(), '\n');
            out.pop_back();
            EXPECT_EQ(out.find('\n'), std::string::npos) << "one output line per input line";
        }
        return out;
    }

    std::vector<std::string> feed_all(const std::vector<std::string>& lines) {
        std::vector<std::string> outs;
        for (const auto& l : lines) outs.push_back(feed(l));
        return outs;
    }

    Stream& stream() { return stream_; }
    Stream::Outcome last_outcome() const { return last_outcome_; }

private:
    Stream stream_;
    std::int64_t line_no_ = 0;
    Stream::Outcome last_outcome_ = Stream::Outcome::empty;
};

// Input-line builders.
inline std::string ins(std::string_view id, std::string_view key, long long ts, std::string_view value) {
    return "{\"insert\":{\"id\":\"" + std::string(id) + "\",\"key\":\"" + std::string(key) +
           "\",\"ts\":" + std::to_string(ts) + ",\"value\":" + std::string(value) + "}}";
}
inline std::string ret(std::string_view id, std::string_view key, long long ts) {
    return "{\"retract\":{\"id\":\"" + std::string(id) + "\",\"key\":\"" + std::string(key) +
           "\",\"ts\":" + std::to_string(ts) + "}}";
}
inline std::string tx(std::initializer_list<std::string> mutations) {
    std::string s = "{\"tx\":[";
    bool first = true;
    for (const auto& m : mutations) {
        if (!first) s += ",";
        first = false;
        s += m;
    }
    return s + "]}";
}
inline std::string wm(long long w) { return "{\"watermark\":" + std::to_string(w) + "}"; }

// Output-row builder, in the contract's member order.
inline std::string row(std::string_view key, long long start, long long end, long long count, std::string_view sum,
                       std::string_view min, std::string_view max, bool final = false) {
    return "{\"key\":\"" + std::string(key) + "\",\"start\":" + std::to_string(start) +
           ",\"end\":" + std::to_string(end) + ",\"count\":" + std::to_string(count) + ",\"sum\":" +
           std::string(sum) + ",\"min\":" + std::string(min) + ",\"max\":" + std::string(max) +
           ",\"final\":" + (final ? "true" : "false") + "}";
}

inline std::string changes(long long version, std::initializer_list<std::string> before,
                           std::initializer_list<std::string> after, std::string_view late = "") {
    auto join = [](std::initializer_list<std::string> rows) {
        std::string s;
        for (const auto& r : rows) s += (s.empty() ? "" : ",") + r;
        return s;
    };
    return "{\"version\":" + std::to_string(version) + ",\"before\":[" + join(before) + "],\"after\":[" +
           join(after) + "],\"late\":[" + std::string(late) + "]}";
}

inline std::string engine_name(const ::testing::TestParamInfo<EngineKind>& info) {
    return info.param == EngineKind::naive ? "naive" : "incremental";
}

}  // namespace sluice::tideweave::testing
