// The NDJSON codec's private state (Stream::Impl): the engine it drives, the
// line number, and the parser's buffers.
#pragma once

#include <simdjson.h>

#include <limits>
#include <string>
#include <vector>

#include "engine_impl.hpp"
#include "sluice/tideweave/engine.hpp"
#include "sluice/tideweave/stream.hpp"

namespace sluice::tideweave {

class Stream::Impl {
public:
    using element = simdjson::dom::element;

    explicit Impl(Engine engine) : engine_(std::move(engine)) {}

    Outcome process_line(std::string_view line, std::int64_t line_no, std::string& out);

    const Engine& engine() const { return engine_; }
    std::int64_t line() const { return line_; }
    void set_line(std::int64_t line) { line_ = line; }

private:
    void run_tx(const element& mutations, std::string& out);
    Mutation parse_mutation(const element& m, std::size_t index) const;
    void run_watermark(const element& value, std::string& out);
    void run_forget(std::string& out);
    void run_snapshot(std::string& out);
    void run_checkpoint(std::string& out);

    Engine engine_;
    std::int64_t line_ = 0;

    simdjson::dom::parser parser_;
    std::string padded_;
    std::string clamped_;
    // The double that stands for an overflowing number in the current line
    // (see rewrite_out_of_range_numbers in stream.cpp); NaN when none does.
    double beyond_range_marker_ = std::numeric_limits<double>::quiet_NaN();
    std::vector<Mutation> mutations_;
};

}  // namespace sluice::tideweave
