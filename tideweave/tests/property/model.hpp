// The brute-force model of the contract (docs/tideweave.md, "The contract"), kept
// independent of the engine on purpose: it holds every active event in a flat
// list and, after every input line, recomputes every session of every key from
// scratch (sort, split at gaps, sum exactly). It never parses JSON: it reads the
// structured intent of a line (what the workload generator meant to write) and
// produces the exact output bytes the contract prescribes, or, where the
// contract leaves bytes open (checkpoint contents, error messages), the facts
// it does fix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice::tideweave::model {

struct Event {
    std::string id;
    std::string key;
    std::int64_t ts = 0;
    double value = 0;
};

struct Mutation {
    enum class Kind { insert, retract };
    Kind kind = Kind::insert;
    Event event;                 // for a retraction: id, key, ts (and value if given)
    bool value_given = false;    // retraction only
    // The generator broke this mutation's shape (missing member, wrong type,
    // out-of-range value, ...): the transaction is an error at this index.
    bool shape_error = false;
};

// What one input line means.
struct Line {
    enum class Kind {
        empty,       // no bytes at all: skipped, no output
        tx,
        watermark,
        forget,
        snapshot,
        checkpoint,
        bad,         // not valid JSON, or a top-level shape error: error without a mutation index
    };
    Kind kind = Kind::empty;
    std::vector<Mutation> mutations;  // tx
    std::int64_t watermark = 0;       // watermark
};

struct Row {
    std::string key;
    std::int64_t start = 0;
    std::int64_t end = 0;
    std::int64_t count = 0;
    double sum = 0;
    double min = 0;
    double max = 0;
    bool final = false;
    friend bool operator==(const Row&, const Row&) = default;
};

// The model's verdict for one line.
struct Expected {
    enum class Kind {
        none,        // empty line: no output
        exact,       // `bytes` is the exact output line, '\n' included
        prefix,      // `bytes` (no closing brace) then "}\n" or ",<more members>}\n"
        error,       // an error object for `line`, with `index` when set
        checkpoint,  // {"version": version, "checkpoint": {...}}
    };
    Kind kind = Kind::none;
    std::string bytes;
    std::int64_t line = 0;
    std::optional<std::size_t> index;
    std::int64_t version = 0;
};

struct Config {
    std::int64_t gap = 10;
    std::int64_t lateness = 20;
};

class Model {
public:
    explicit Model(Config config) : config_(config) {}

    Expected apply(const Line& line, std::int64_t line_no);

    // For the workload generator, which aims mutations at real events.
    const std::vector<Event>& events() const { return events_; }
    std::optional<std::int64_t> watermark() const { return watermark_; }
    // The horizon W - lateness; nullopt while W is minus infinity.
    std::optional<std::int64_t> horizon() const;
    bool is_late(std::int64_t ts) const;
    std::int64_t version() const { return version_; }
    const Config& config() const { return config_; }

    // Every session row of the current events, sorted by (key, start), with
    // `final` set from the current horizon.
    std::vector<Row> rows() const;

private:
    Expected apply_tx(const std::vector<Mutation>& mutations, std::int64_t line_no);
    Expected apply_watermark(std::int64_t w, std::int64_t line_no);
    Expected apply_forget();
    Expected apply_snapshot() const;

    Config config_;
    std::vector<Event> events_;  // every active event, sealed ones included
    std::optional<std::int64_t> watermark_;
    std::int64_t version_ = 0;
};

// Sessions of `events` under the inclusive gap rule, sorted by (key, start);
// `final` is left false.
std::vector<Row> sessions_of(const std::vector<Event>& events, std::int64_t gap);

// The contract's output formatting, written out by hand for the model.
std::string format_number(double v);
std::string format_string(const std::string& s);
std::string format_row(const Row& row);

}  // namespace sluice::tideweave::model
