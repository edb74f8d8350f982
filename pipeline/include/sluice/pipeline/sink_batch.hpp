#pragma once
// What one sink transaction writes, gathered from one or more source
// transactions: the net effect on NAME per (key, start) (a row put, or a
// row removed), the late mutations for NAME_late and the rejected rows for
// NAME_rejected. Sans-I/O: the sink (sink.hpp) turns it into SQL.
//
// Net effect: the changelog's before rows are removed and its after rows
// (and finalized rows, final = true) put, in order; only the last thing
// done to a (key, start) is kept, so a session that grows a thousand times
// in a batch is written once. Applying the same changes to a table that
// already holds their result leaves it as it is (the replay argument in
// docs/pipeline.md).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sluice/pipeline/transaction_mapper.hpp"
#include "sluice/tideweave/types.hpp"

namespace sluice::pipeline {

struct SessionRow {
    std::string key;
    std::int64_t start = 0;
    std::int64_t end = 0;
    std::int64_t count = 0;
    double sum = 0;
    double min = 0;
    double max = 0;
    bool final = false;
    friend bool operator==(const SessionRow&, const SessionRow&) = default;
};

SessionRow session_row(const tideweave::Row& r);

struct LateRow {
    std::string id;
    std::string key;
    std::int64_t ts = 0;
    std::string gtid;         // the source transaction's GTID
    std::int64_t seq = 0;     // the mutation's position in its Tideweave transaction
    std::string op;           // "insert" or "retract"
    double value = 0;         // the inserted value, or the retracted before image's
    friend bool operator==(const LateRow&, const LateRow&) = default;
};

struct RejectedSinkRow {
    std::string gtid;
    RejectedRow row;
};

class SinkBatch {
public:
    void remove(const tideweave::Row& row);
    void put(const tideweave::Row& row);
    void late(LateRow row) { late_.push_back(std::move(row)); }
    void reject(std::string gtid, RejectedRow row) { rejected_.push_back({std::move(gtid), std::move(row)}); }
    void count_source_transaction(std::size_t row_changes) {
        ++source_transactions_;
        row_changes_ += row_changes;
    }

    // The net effect: for each (key, start), the row to hold, or nullopt to
    // remove it. Unordered.
    struct Entry {
        std::optional<SessionRow> row;
    };
    template <class F>
    void for_each_net(F&& f) const {
        for (const auto& [k, e] : net_) f(k, e);
    }
    std::size_t net_size() const { return net_.size(); }
    std::size_t puts() const;
    std::size_t removes() const { return net_.size() - puts(); }
    const std::vector<LateRow>& late_rows() const { return late_; }
    const std::vector<RejectedSinkRow>& rejected_rows() const { return rejected_; }
    std::size_t source_transactions() const { return source_transactions_; }
    std::size_t row_changes() const { return row_changes_; }
    bool empty() const { return net_.empty() && late_.empty() && rejected_.empty() && source_transactions_ == 0; }
    void clear();

    // The identity of a (key, start): 8 bytes of start then the key's bytes.
    static std::string identity(std::string_view key, std::int64_t start);
    static std::int64_t start_of(const std::string& identity);
    static std::string_view key_of(const std::string& identity);

private:
    std::unordered_map<std::string, Entry> net_;
    std::vector<LateRow> late_;
    std::vector<RejectedSinkRow> rejected_;
    std::size_t source_transactions_ = 0;
    std::size_t row_changes_ = 0;
};

}  // namespace sluice::pipeline
