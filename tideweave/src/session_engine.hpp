// The session engines behind the typed Engine: they hold events per key,
// keep the sessions, and report rows. Validation (shape, lateness,
// identity), undo, the version and the watermark live in the Engine's rule
// layer (engine.cpp), JSON only in the NDJSON codec (stream.cpp); a session
// engine only ever sees admissible mutations.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exact_sum.hpp"
#include "sluice/tideweave/types.hpp"

namespace sluice::tideweave {

using KeyId = std::uint32_t;

// One session's row, as the contract defines it.
struct SessionRow {
    KeyId key = 0;
    std::int64_t start = 0;
    std::int64_t end = 0;
    std::int64_t count = 0;
    double sum = 0;
    double min = 0;
    double max = 0;
    bool final = false;

    bool same_fields(const SessionRow& o) const {
        return key == o.key && start == o.start && end == o.end && count == o.count && sum == o.sum &&
               min == o.min && max == o.max && final == o.final;
    }
};

// Sealed events folded by forget: the immutable prefix of one session.
struct Block {
    std::int64_t first_ts = 0;
    std::int64_t last_ts = 0;
    std::int64_t count = 0;
    double min = 0;
    double max = 0;
    ExactSum sum;
};

// What an engine releases from memory (forget): the shell drops these ids
// from its identity index when they still point at that event. Empty when
// the shell sweeps its index instead (no call per event then).
using ReleaseFn = std::function<void(std::string_view id, KeyId key, std::int64_t ts)>;

struct ForgetTally {
    std::size_t rows_dropped = 0;
    std::size_t events_folded = 0;
    std::size_t keys_visited = 0;  // keys the engine looked at (none needlessly, in the incremental engine)
};

// A key's held state in canonical order, for checkpoints.
struct KeyExport {
    struct Event {
        std::int64_t ts;
        std::string_view id;
        double value;
    };
    std::vector<Block> blocks;        // by first_ts
    std::vector<Event> events;        // by (ts, id)
    std::vector<std::int64_t> final_starts;  // sessions reported final, by start
};

class SessionEngine {
public:
    virtual ~SessionEngine() = default;

    // Mutations of the current transaction (admissible, identity-checked).
    virtual void insert(KeyId key, std::int64_t ts, std::string_view id, double value) = 0;
    // Removes a held event; returns its value (the identity index keeps no
    // value: the leaf has it, id_index.hpp).
    virtual double retract(KeyId key, std::int64_t ts, std::string_view id) = 0;
    // Restore only, before any event of that key: a folded block.
    virtual void insert_block(KeyId key, const Block& block) = 0;
    // Rows as they were before the transaction's first change to them, and as
    // they are now, for every session the transaction touched (unsorted; rows
    // equal in both lists are left for the caller to cancel).
    virtual void changes(std::vector<SessionRow>& before, std::vector<SessionRow>& after) = 0;
    // Ends the transaction (also after an undo). The Engine's open
    // transaction (open_transaction.cpp) may end several of these inside
    // it: one per slice of its changes, its undo being the Engine's.
    virtual void commit() = 0;
    // Sessions (the naive engine: keys) the transaction touched so far.
    virtual std::size_t touched() const = 0;

    // Marks final, and appends, every not-yet-final row with end < horizon.
    virtual void finalize(std::int64_t horizon, std::vector<SessionRow>& finalized) = 0;
    // A horizon h <= `horizon` such that finalize(h) marks at most `rows`
    // rows, or, when more than `rows` not-yet-final rows share the smallest
    // end, just past that end (finalize(h) then marks those ties); `horizon`
    // when finalize(horizon) marks at most `rows`. Above every end already
    // final, so each step makes progress.
    virtual std::int64_t bounded_horizon(std::int64_t horizon, std::size_t rows) const = 0;
    // Restore only: marks the session of `key` starting at `start` final.
    // False if there is no such session.
    virtual bool mark_final(KeyId key, std::int64_t start) = 0;
    // Drops final rows and folds events with ts < horizon into blocks.
    // Appends keys left without any session to `emptied`.
    virtual ForgetTally forget(std::int64_t horizon, const ReleaseFn& release, std::vector<KeyId>& emptied) = 0;
    // An upper bound on the events forget(horizon) would release (the shell
    // chooses by it how to drop them from its identity index).
    virtual std::size_t forget_bound(std::int64_t horizon) const = 0;

    virtual void all_rows(std::vector<SessionRow>& rows) const = 0;
    virtual void export_key(KeyId key, KeyExport& out) const = 0;
    virtual std::vector<KeyId> keys() const = 0;  // keys holding at least one session
    virtual bool holds_key(KeyId key) const = 0;  // whether `key` holds any event or block
    virtual std::size_t active_events() const = 0;
    virtual std::size_t row_count() const = 0;
};

std::unique_ptr<SessionEngine> make_incremental_engine(const Config& config);
std::unique_ptr<SessionEngine> make_naive_engine(const Config& config);

}  // namespace sluice::tideweave
