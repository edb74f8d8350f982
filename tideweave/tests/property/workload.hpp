// Random, reproducible workloads for the property test: each generated line
// carries both its text (what the engines read) and its meaning (what the
// model reads), so the model never parses JSON and shares no code with the
// engine's parser. The text varies everything the contract lets vary (member
// order, whitespace, escapes, number spellings) and breaks lines and
// mutations in every way the contract calls an error.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "model.hpp"

namespace sluice::tideweave::model {

struct GeneratedLine {
    std::string text;
    Line line;
    // The line is broken JSON: compare only that it is an error for its line,
    // not whether an index is given.
    bool index_unspecified = false;
};

class WorkloadGenerator {
public:
    explicit WorkloadGenerator(std::uint64_t seed);

    // A configuration chosen for this workload (small gaps so sessions merge
    // and split often, sometimes the extremes of the ranges).
    const Config& config() const { return config_; }

    // The next line, aimed at the model's current state.
    GeneratedLine next(const Model& model);

private:
    std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : rng_() % n; }
    bool chance(unsigned percent) { return below(100) < percent; }
    std::int64_t between(std::int64_t lo, std::int64_t hi);  // inclusive

    GeneratedLine make_tx(const Model& model);
    GeneratedLine make_watermark(const Model& model);
    GeneratedLine make_bad_line(const Model& model);

    std::string pick_key();
    std::int64_t pick_ts(const Model& model);
    double pick_value();
    std::string fresh_id();

    // Text of JSON values, spelled in one of several equivalent ways.
    std::string string_text(const std::string& s);
    std::string number_text(double v);
    std::string event_text(const Event& e, bool with_value);
    std::string mutation_text(const Mutation& m);
    // A mutation whose shape is broken; `valid_json` is false when the text
    // is not JSON at all.
    std::string broken_mutation_text(const Mutation& m);
    std::string sp();  // optional whitespace between tokens

    std::mt19937_64 rng_;
    Config config_;
    std::int64_t base_ = 0;       // where fresh timestamps cluster
    std::int64_t id_counter_ = 0;
    bool extremes_ = false;       // timestamps near +/-2^60
};

}  // namespace sluice::tideweave::model
