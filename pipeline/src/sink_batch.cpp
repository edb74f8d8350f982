#include "sluice/pipeline/sink_batch.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace sluice::pipeline {

SessionRow session_row(const tideweave::Row& r) {
    return {std::string(r.key), r.start, r.end, r.count, r.sum, r.min, r.max, r.final};
}

void SinkBatch::log(const tideweave::Row& r, Kind kind) {
    if (used_ == log_.size()) log_.emplace_back();
    // Assigning into a kept entry reuses its key's memory: no allocation
    // per row once the log has grown to a batch's size.
    Logged& l = log_[used_++];
    l.row.key.assign(r.key);
    l.row.start = r.start;
    l.row.end = r.end;
    l.row.count = r.count;
    l.row.sum = r.sum;
    l.row.min = r.min;
    l.row.max = r.max;
    l.row.final = r.final || kind == Kind::ahead;
    l.kind = kind;
}

void SinkBatch::remove(const tideweave::Row& row) { log(row, Kind::remove); }

void SinkBatch::put(const tideweave::Row& row) { log(row, Kind::put); }

void SinkBatch::finalize(const tideweave::Row& row) { log(row, Kind::finalize); }

void SinkBatch::put_final_ahead(const tideweave::Row& row) { log(row, Kind::ahead); }

namespace {

// What net() sorts: the first 8 key bytes big-endian (so that comparing
// them as a number is comparing the bytes), the key's length, start, and
// the log position; only keys that share 8 bytes and are longer look at
// the rest of the key. Sorting these, not positions into the log, keeps
// the sort in cache.
struct SortKey {
    std::uint64_t prefix;
    std::uint32_t length;
    std::uint32_t index;  // a batch holds far fewer than 2^32 entries (88 bytes each)
    std::int64_t start;
};

std::uint64_t prefix_of(std::string_view key) {
    std::uint64_t p = 0;
    const std::size_t n = std::min<std::size_t>(8, key.size());
    for (std::size_t i = 0; i < n; ++i) p |= std::uint64_t{static_cast<unsigned char>(key[i])} << (56 - 8 * i);
    return p;
}

}  // namespace

std::vector<NetChange> SinkBatch::net(std::size_t from, std::size_t to) const {
    std::vector<SortKey> order(to - from);
    for (std::size_t i = from; i < to; ++i) {
        const SessionRow& r = log_[i].row;
        order[i - from] = {prefix_of(r.key),
                           static_cast<std::uint32_t>(std::min<std::size_t>(r.key.size(), UINT32_MAX)),
                           static_cast<std::uint32_t>(i), r.start};
    }
    // By (key, start), then by position: a (key, start)'s last entry is its
    // net change. Keys in byte order (std::string's, unsigned char).
    auto key_order = [&](const SortKey& a, const SortKey& b) -> int {
        if (a.prefix != b.prefix) return a.prefix < b.prefix ? -1 : 1;
        if (a.length <= 8 && b.length <= 8) return a.length == b.length ? 0 : a.length < b.length ? -1 : 1;
        return log_[a.index].row.key.compare(log_[b.index].row.key);
    };
    std::sort(order.begin(), order.end(), [&](const SortKey& a, const SortKey& b) {
        if (const int c = key_order(a, b); c != 0) return c < 0;
        if (a.start != b.start) return a.start < b.start;
        return a.index < b.index;
    });
    std::vector<NetChange> out;
    out.reserve(order.size());
    bool finalized_only = true;  // of the (key, start) being walked
    for (std::size_t i = 0; i < order.size(); ++i) {
        const Logged& l = log_[order[i].index];
        finalized_only = finalized_only && l.kind == Kind::finalize;
        if (i + 1 < order.size() && order[i + 1].start == order[i].start && key_order(order[i], order[i + 1]) == 0)
            continue;  // a later change of the same row follows
        out.push_back({&l.row, l.kind == Kind::remove, l.kind == Kind::ahead, finalized_only});
        finalized_only = true;
    }
    return out;
}

void SinkBatch::take_back_to(Mark m) {
    late_.resize(m.late);
    rejected_.resize(m.rejected);
}

void SinkBatch::name_gtid_from(Mark m, const std::string& gtid) {
    for (std::size_t i = m.late; i < late_.size(); ++i) late_[i].gtid = gtid;
    for (std::size_t i = m.rejected; i < rejected_.size(); ++i) rejected_[i].gtid = gtid;
}

void SinkBatch::move_sessions_to(SinkBatch& slice) {
    slice.clear();
    std::swap(log_, slice.log_);  // the slice's kept entries are this batch's to reuse
    slice.used_ = used_;
    slice.savepoint_ = savepoint_;
    used_ = 0;
    savepoint_.reset();
}

void SinkBatch::clear() {
    used_ = 0;
    savepoint_.reset();
    late_.clear();
    rejected_.clear();
    source_transactions_ = 0;
    row_changes_ = 0;
}

}  // namespace sluice::pipeline
