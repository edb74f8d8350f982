// The Stream's private state, shared by stream.cpp (lines) and
// checkpoint.cpp (restore).
#pragma once

#include <simdjson.h>

#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine.hpp"
#include "id_index.hpp"
#include "limits.hpp"
#include "strict_json.hpp"
#include "sluice/tideweave/stream.hpp"

namespace sluice::tideweave {

namespace detail {

using simdjson::dom::element;

// What a rejected line reports.
struct LineError {
    std::string message;
    std::optional<std::size_t> index;  // the offending mutation of a transaction
};

struct Mutation {
    bool is_insert = true;
    bool late = false;
    std::string_view id;
    std::string_view key;
    std::int64_t ts = 0;
    double value = 0;
    bool has_value = false;  // a retraction's optional value
    std::uint64_t id_hash = 0;  // IdIndex::hash(id)
};

}  // namespace detail

class Stream::Impl {
public:
    using element = detail::element;
    using LineError = detail::LineError;
    using Mutation = detail::Mutation;

    Impl(Config config, EngineKind kind)
        : config_(config),
          engine_(kind == EngineKind::naive ? make_naive_engine(config) : make_incremental_engine(config)) {}

    Outcome process_line(std::string_view line, std::int64_t line_no, std::string& out);
    // Loads a parsed checkpoint object into this fresh stream (checkpoint.cpp).
    void load_checkpoint(const simdjson::dom::element& checkpoint);

    std::int64_t version() const { return version_; }
    std::int64_t line() const { return line_; }
    const Config& config() const { return config_; }
    const Engine& engine() const { return *engine_; }
    std::size_t key_count() const { return key_ids_.size(); }

private:
    std::int64_t horizon() const {
        return has_watermark_ ? watermark_ - config_.lateness : std::numeric_limits<std::int64_t>::min();
    }

    void run_tx(const element& mutations, std::string& out);
    Mutation parse_mutation(const element& m, std::size_t index) const;
    void apply_checked(const Mutation& m, std::size_t index, double& retracted_value);
    void undo_applied(std::size_t applied);  // undoes mutations_[0, applied)
    void unapply(const Mutation& m, double retracted_value);
    void run_watermark(const element& value, std::string& out);
    void run_forget(std::string& out);
    void run_snapshot(std::string& out);
    void run_checkpoint(std::string& out);

    KeyId intern(std::string_view key);  // new keys are also listed in new_keys_
    void release_key(KeyId key);
    void sort_rows(std::vector<Row>& rows) const;
    void append_row(std::string& out, const Row& r) const;
    void append_rows(std::string& out, const std::vector<Row>& rows) const;
    void append_watermark(std::string& out) const;

    Config config_;
    std::unique_ptr<Engine> engine_;
    std::int64_t version_ = 0;
    std::int64_t line_ = 0;
    bool has_watermark_ = false;
    std::int64_t watermark_ = 0;

    std::unordered_map<std::string, KeyId, StringHash, std::equal_to<>> key_ids_;
    std::vector<std::string> key_names_;
    std::vector<KeyId> free_key_ids_;
    std::vector<KeyId> new_keys_;  // keys registered by the current transaction
    // Identity index of events inserted and not retracted. Entries of events
    // that became sealed (ts < horizon) are stale and ignored; forget removes
    // them.
    IdIndex ids_;

    simdjson::dom::parser parser_;
    std::string padded_;
    std::string clamped_;
    // The double that stands for an overflowing number in the current line
    // (see rewrite_out_of_range_numbers in stream.cpp); NaN when none does.
    double beyond_range_marker_ = std::numeric_limits<double>::quiet_NaN();
    std::vector<Mutation> mutations_;
    std::vector<double> retracted_values_;
    std::vector<Row> before_;
    std::vector<Row> after_;
    std::vector<Row> rows_;
};

}  // namespace sluice::tideweave
