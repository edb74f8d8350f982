// The typed engine's state (Engine::Impl): keys, the identity index, the
// version and watermark, and the transaction rules (shape, lateness and
// identity checks; undo of a rejected transaction; cancelling rows a
// transaction left as they were). The session engines behind it
// (session_engine.hpp) only ever see admissible mutations. No JSON here: the
// NDJSON codec (stream.cpp) sits on top, through detail::EngineAccess.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "id_index.hpp"
#include "key_names.hpp"
#include "session_engine.hpp"
#include "sluice/tideweave/engine.hpp"
#include "strict_json.hpp"
#include "undo_log.hpp"

namespace sluice::tideweave {

class Engine::Impl {
public:
    Impl(Config config, EngineKind kind);

    // apply(), and the codec's variant: `trailing` is the shape error of the
    // mutation after the last one given (the codec parses a transaction up
    // to its first malformed mutation); it rejects the transaction unless an
    // earlier mutation's error comes first.
    Result<Changes> apply(std::span<const Mutation> mutations, const std::optional<Error>& trailing = {});
    // The open transaction (Engine::begin_transaction, open_transaction.cpp).
    void begin_transaction();
    Result<std::span<const LateItem>> apply_part(std::span<const Mutation> part);
    Result<Changes> commit_transaction();
    void rollback_transaction();
    bool in_transaction() const { return open_; }
    std::size_t transaction_mutations() const { return open_given_; }
    std::optional<Changes> take_changes();
    std::size_t changed_sessions() const { return open_ ? sessions_->touched() : 0; }
    // Throws std::logic_error naming `call` if a transaction is open.
    void require_closed(const char* call) const;

    Result<Finalized> advance_watermark(std::int64_t w);
    std::int64_t watermark_step(std::int64_t w, std::size_t rows) const;
    Forgotten forget();
    Snapshot snapshot();
    Checkpoint checkpoint(std::string_view source_position) const;
    // Loads a checkpoint into this fresh engine; an Error if it is not a
    // reachable state.
    std::optional<Error> load(const Checkpoint& checkpoint);

    std::int64_t version() const { return version_; }
    std::optional<std::int64_t> watermark() const {
        return has_watermark_ ? std::optional<std::int64_t>(watermark_) : std::nullopt;
    }
    std::string_view source_position() const { return source_position_; }
    const Config& config() const { return config_; }
    const SessionEngine& sessions() const { return *sessions_; }
    std::size_t key_count() const { return key_names_.size(); }
    // Watermarks are >= -2^60 and the lateness <= 2^60: no overflow.
    std::int64_t horizon_at(std::int64_t watermark) const { return watermark - config_.lateness; }

private:
    std::int64_t horizon() const {
        return has_watermark_ ? horizon_at(watermark_) : std::numeric_limits<std::int64_t>::min();
    }

    [[gnu::always_inline]] inline bool apply_checked(const Mutation& m, std::size_t index, std::uint64_t hash,
                                                     std::uint64_t key_word, std::int64_t h, double& retracted_value,
                                                     std::optional<Error>& error);
    void undo_applied(std::span<const Mutation> mutations, std::size_t applied);
    void unapply(const Mutation& m, double retracted_value);
    // Ends an accepted transaction: commits the sessions, counts the
    // version, and publishes the changes (late items are the caller's).
    Changes accept();
    void cancel_unchanged();  // drops rows in both before_ and after_
    void publish(const std::vector<SessionRow>& from, std::vector<Row>& to) const;

    // New keys are also listed in new_keys_.
    [[gnu::always_inline]] KeyId intern(std::string_view key) { return intern(key, KeyNames::word_of(key)); }
    [[gnu::always_inline]] KeyId intern(std::string_view key, std::uint64_t word) {
        bool added = false;
        const KeyId id = key_names_.intern(key, word, added);
        if (added) [[unlikely]]
            new_keys_.push_back(id);
        return id;
    }
    void release_key(KeyId key);
    void sort_rows(std::vector<SessionRow>& rows);  // by (key, start)
    bool key_less(KeyId a, KeyId b) const { return key_names_.less(a, b); }

    Config config_;
    std::unique_ptr<SessionEngine> sessions_;
    std::int64_t version_ = 0;
    bool has_watermark_ = false;
    std::int64_t watermark_ = 0;
    std::string source_position_;

    KeyNames key_names_;
    std::vector<KeyId> new_keys_;  // keys registered by the current transaction
    // Identity index of events inserted and not retracted. Entries of events
    // that became sealed (ts < horizon) are stale and ignored; forget removes
    // them.
    IdIndex ids_;

    // The open transaction: how to take back each mutation applied so far
    // (undo_log.hpp: one chunk in memory, the rest in a temporary file).
    void undo_open();  // takes back undo_ (newest first) and closes the transaction
    bool open_ = false;
    std::size_t open_given_ = 0;  // mutations given to the open transaction
    UndoLog undo_;

    // Buffers kept between calls (results point into them).
    std::vector<std::uint64_t> hashes_;
    std::vector<double> retracted_values_;
    std::vector<SessionRow> before_;
    std::vector<SessionRow> after_;
    std::vector<SessionRow> rows_;
    std::vector<Row> before_out_;
    std::vector<Row> after_out_;
    std::vector<Row> rows_out_;
    std::vector<LateItem> late_out_;
    // sort_rows()'s scratch: the order found.
    struct RowOrder {
        std::uint64_t prefix;  // KeyNames::prefix(key)
        std::int64_t start;
        KeyId key;
        std::size_t at;  // the row's index before sorting
    };
    std::vector<RowOrder> row_order_;
};

namespace detail {
// The NDJSON codec's access to what the public API does not offer.
struct EngineAccess {
    static Engine::Impl& impl(Engine& e) { return *e.impl_; }
    static const Engine::Impl& impl(const Engine& e) { return *e.impl_; }
};
}  // namespace detail

}  // namespace sluice::tideweave
