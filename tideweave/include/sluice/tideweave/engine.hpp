// Tideweave's typed engine: per-key event-time session windows over
// transactions of inserts and retractions, with an exact before/after
// changelog, used from C++ without any JSON. The rules are those of
// docs/tideweave.md (Sessions, Watermark, Transactions); the NDJSON Stream
// (stream.hpp) is a codec over this class.
//
// LIFETIME and ERRORS: see types.hpp. Every span and string_view in a result
// is valid until the next non-const call on the same Engine.
//
// Hot path: apply() keeps its result buffers between calls, so a stream of
// transactions allocates nothing per row or per mutation once the buffers
// have grown (the engine's own storage of new events aside).
//
//     tw::Engine engine({.gap = 10, .lateness = 20});
//     const tw::Mutation tx[] = {tw::Mutation::insert("a", "k", 0, 1.5)};
//     auto changes = engine.apply(tx);
//     if (!changes) std::cerr << changes.error().message << "\n";
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "sluice/tideweave/checkpoint.hpp"
#include "sluice/tideweave/types.hpp"

namespace sluice::tideweave {

namespace detail {
struct EngineAccess;  // the NDJSON codec's way in (src/), not for users
}

class Engine {
public:
    // Throws std::invalid_argument if the configuration is out of range.
    explicit Engine(Config config = {}, EngineKind kind = EngineKind::incremental);
    ~Engine();
    Engine(Engine&&) noexcept;
    Engine& operator=(Engine&&) noexcept;
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // A transaction: its mutations in order, atomically. Checks per mutation:
    // shape (ranges), then lateness (ts < horizon: listed in `late`, not
    // applied), then identity. On an Error nothing changed (state, version,
    // keys). An accepted transaction increments the version, even if empty
    // or all late.
    Result<Changes> apply(std::span<const Mutation> mutations);
    Result<Changes> apply(std::initializer_list<Mutation> mutations) {
        return apply(std::span<const Mutation>(mutations.begin(), mutations.size()));
    }

    // One transaction too large to hold at once, given in parts
    // (docs/tideweave.md, "Transactions in parts"): begin_transaction(),
    // apply_part() for each part in order, then commit_transaction() (or
    // rollback_transaction()). The same rules as apply() of all the parts'
    // mutations as one transaction: indices (errors, late items) count in
    // the whole transaction; an Error from apply_part() or
    // commit_transaction() undoes every part (the state, version and keys
    // are as before begin_transaction()) and closes the transaction. The
    // parts' strings need only live until apply_part() returns: the engine
    // keeps an undo log (the ids and the few numbers needed to take each
    // applied mutation back) instead of the mutations. apply_part() returns
    // the part's late items (valid until the next non-const call);
    // commit_transaction()'s Changes list none. While a transaction is open,
    // apply(), advance_watermark(), forget(), snapshot() and checkpoint()
    // throw std::logic_error (the horizon must not move under it, and only
    // a committed state is a checkpoint).
    void begin_transaction();
    Result<std::span<const LateItem>> apply_part(std::span<const Mutation> part);
    Result<Changes> commit_transaction();
    void rollback_transaction();
    bool in_transaction() const;
    // Mutations given to the open transaction so far (0 when none is open).
    std::size_t transaction_mutations() const;
    // The open transaction's changes so far, to be written out while it is
    // open (issue 25: a transaction that changes a million sessions is
    // handed to the sink in slices, not held until its commit): the before
    // and after rows of every session changed since begin_transaction() or
    // the last take_changes(), as commit_transaction() lists them; the next
    // call, and the commit, list only what changed after. Applying the
    // slices' changes in order, then the commit's, gives what one
    // commit_transaction() would have listed (a session a slice put and a
    // later part changes is in a later slice's before rows). The version
    // does not move, nor does the undo log shrink: a later error, or
    // rollback_transaction(), still undoes every part (a caller that wrote
    // slices takes them back too). nullopt, taking nothing, while a session
    // changed since the last slice has a sum beyond the double range: that
    // refuses the transaction only if it still has at the commit (a later
    // retraction can bring it back), so it stays in the changes until then.
    // The Changes are valid until the next non-const call; they list no
    // late items (apply_part() did).
    std::optional<Changes> take_changes();
    // Sessions changed since begin_transaction() or the last take_changes()
    // (an upper bound; the naive engine counts keys): what a caller judges
    // a slice's size by. 0 when no transaction is open.
    std::size_t changed_sessions() const;

    // Moves the watermark to `watermark` (equal is accepted; behind is an
    // Error) and returns the rows that became final.
    Result<Finalized> advance_watermark(std::int64_t watermark);
    // A watermark on the way to `watermark` up to which at most `rows` rows
    // become final (more only when more than `rows` sessions end at the same
    // ts: they all go in one step): advancing there, then on by further
    // steps, gives what one advance_watermark(watermark) gives, in pieces
    // of bounded size (a jump that finalizes 200,000 sessions need not hold
    // 200,000 rows at once; the pipeline writes each piece to its sink).
    // `watermark` itself when that finalizes at most `rows` rows, or when it
    // is behind or out of range (advance_watermark() says why). rows >= 1.
    std::int64_t watermark_step(std::int64_t watermark, std::size_t rows) const;

    // The horizon a watermark sets (watermark - lateness): a row whose end
    // is below it is final once the watermark is there, a mutation whose ts
    // is below it late. What a caller that writes rows before they are
    // final judges with (the pipeline: rows its commit will finalize).
    std::int64_t horizon_at(std::int64_t watermark) const;

    // Drops final rows and folds sealed events; later results are unchanged.
    Forgotten forget();

    Snapshot snapshot();

    // The whole state, with `source_position` stored beside it.
    Checkpoint checkpoint(std::string_view source_position = {}) const;
    // An engine in exactly the checkpoint's state (its source position is
    // the checkpoint's: source_position()). Error (kind checkpoint) if the
    // checkpoint is not a state the engine could have reached.
    static Result<Engine> restore(const Checkpoint& checkpoint, EngineKind kind = EngineKind::incremental);

    std::int64_t version() const;
    std::optional<std::int64_t> watermark() const;
    // The source position of the checkpoint this engine was restored from
    // (empty for a fresh engine).
    std::string_view source_position() const;
    const Config& config() const;
    std::size_t active_events() const;  // held events, sealed ones included until folded
    std::size_t row_count() const;      // session rows held
    std::size_t key_count() const;      // keys registered (released when they hold nothing)

    class Impl;

private:
    friend struct detail::EngineAccess;
    explicit Engine(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::tideweave
