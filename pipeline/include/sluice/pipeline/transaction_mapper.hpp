#pragma once
// One source transaction -> one Tideweave transaction (issue 15, "Mapping"):
//   insert -> insert of the after image;
//   delete -> retraction of the before image, with its value;
//   update -> retraction of the before image, then insert of the after image.
// Mutations keep the binlog's order. An after image that is not an event
// is a RejectedRow (for NAME_rejected) and no mutation; a before image that
// is not an event was never inserted, so there is nothing to retract
// (docs/pipeline.md, "Rejected rows").
//
// LIFETIME: mutations() views strings held by the mapper (its arena) or by
// the changes given to add(); valid until begin() and while those are.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sluice/pipeline/mapping.hpp"
#include "sluice/pipeline/source_change.hpp"
#include "sluice/tideweave/types.hpp"

namespace sluice::pipeline {

// A row of NAME_rejected, before its GTID is known to the sink.
struct RejectedRow {
    std::size_t change = 0;  // the change's position in its source transaction, from 0
    std::string image;       // "after" or "before"
    std::optional<std::string> id, key, ts, value;  // the mapped cells' text (nullopt: NULL)
    std::string reason;
};

class TransactionMapper {
public:
    explicit TransactionMapper(ColumnNames names) : names_(std::move(names)) {}

    // Starts a new transaction: forgets the previous one's mutations.
    void begin();
    // Starts the next part of the same transaction (issue 25: a huge source
    // transaction is mapped and applied a part at a time): forgets the
    // previous part's mutations, rejected rows and images, keeps counting
    // changes (origins, RejectedRow::change and reject_all() count in the
    // whole transaction) and the largest after ts.
    void begin_part();
    // Parts as a source adds changes: with a handler set, add() first hands
    // a part of `part_changes` changes to `handler` (which applies it),
    // then begins the next part; the last part stays in the mapper for the
    // source's transaction step. Without one (the default) a transaction is
    // mapped whole.
    void split_into_parts(std::size_t part_changes, std::function<void(TransactionMapper&)> handler) {
        part_changes_ = part_changes;
        part_handler_ = std::move(handler);
    }
    // Ends the current part here (the changes it views are about to go:
    // a source reads its input in parts of its own): hands it to the
    // handler, if it has changes, and begins the next. Only with a handler.
    void end_part();
    // The transaction's index of this part's first change.
    std::size_t part_first_change() const { return first_change_; }
    // Maps the next change of the transaction.
    void add(const SourceChange& change);

    std::span<const tideweave::Mutation> mutations() const { return mutations_; }
    // origin()[i]: the change that mutation i came from.
    std::span<const std::size_t> origins() const { return origins_; }
    std::vector<RejectedRow>& rejected() { return rejected_; }
    // The largest ts among the transaction's after images that are events.
    std::optional<std::int64_t> max_after_ts() const { return max_after_ts_; }
    std::size_t changes() const { return changes_; }  // of the whole transaction so far

    // Every change of the transaction (of this part, when given in parts) as
    // a rejected row with `reason` (the engine refused the transaction as a
    // whole): after images, or before images for deletes. Rows already
    // rejected keep their own reason.
    std::vector<RejectedRow> reject_all(const std::string& reason) const;

    const ColumnNames& names() const { return names_; }

private:
    ColumnNames names_;
    StringArena arena_;
    std::vector<tideweave::Mutation> mutations_;
    std::vector<std::size_t> origins_;
    std::vector<RejectedRow> rejected_;
    struct ImageOfChange {
        const char* image;
        std::optional<RowImage> cells;
    };
    std::vector<ImageOfChange> images_;  // per change, for reject_all (after, or before of a delete)
    std::optional<std::int64_t> max_after_ts_;
    std::size_t changes_ = 0;
    std::size_t first_change_ = 0;  // images_[i] is change first_change_ + i
    std::size_t part_changes_ = 0;
    std::function<void(TransactionMapper&)> part_handler_;
};

RejectedRow rejected_row(std::size_t change, std::string image, const RowImage& cells, std::string reason);

}  // namespace sluice::pipeline
