#include "sluice/pipeline/open_sink_rows.hpp"

#include <algorithm>

namespace sluice::pipeline {

namespace {

// Key bytes (std::string compares as unsigned char), then start: the order
// of SinkBatch::net().
int compare(std::string_view key, std::int64_t start, std::string_view other_key, std::int64_t other_start) {
    if (const int c = key.compare(other_key); c != 0) return c;
    return start < other_start ? -1 : start > other_start ? 1 : 0;
}

}  // namespace

void OpenSinkRows::add(std::string_view key, std::int64_t start) {
    if (settled_ && !rows_.empty() && compare(rows_.back().key, rows_.back().start, key, start) >= 0) settled_ = false;
    rows_.push_back({std::string(key), start, false});
}

void OpenSinkRows::settle() {
    if (settled_) return;
    std::sort(rows_.begin(), rows_.end(),
              [](const Row& a, const Row& b) { return compare(a.key, a.start, b.key, b.start) < 0; });
    rows_.erase(std::unique(rows_.begin(), rows_.end(),
                            [](const Row& a, const Row& b) { return compare(a.key, a.start, b.key, b.start) == 0; }),
                rows_.end());
    settled_ = true;
}

bool OpenSinkRows::holds(std::string_view key, std::int64_t start) {
    settle();
    auto it = std::lower_bound(rows_.begin(), rows_.end(), std::pair{key, start}, [](const Row& a, const auto& b) {
        return compare(a.key, a.start, b.first, b.second) < 0;
    });
    return it != rows_.end() && compare(it->key, it->start, key, start) == 0;
}

std::size_t OpenSinkRows::size() {
    settle();
    return rows_.size();
}

OpenSinkRows::Plan OpenSinkRows::plan(const std::vector<NetChange>& net, bool idempotent) {
    settle();
    Plan p;
    std::size_t i = 0;  // into rows_, advanced alongside net
    for (const NetChange& c : net) {
        while (i < rows_.size() && compare(rows_[i].key, rows_[i].start, c.row->key, c.row->start) < 0) ++i;
        const Row* entry =
            i < rows_.size() && compare(rows_[i].key, rows_[i].start, c.row->key, c.row->start) == 0 ? &rows_[i] : nullptr;
        const bool held = idempotent || entry;
        if (c.removed) {
            if (held) p.remove.push_back(c.row);
        } else if (entry && entry->ahead && c.finalized_only) {
            ++p.in_place;  // NAME holds this very row, final already
        } else {
            (held ? p.upsert : p.insert).push_back(c.row);
        }
    }
    return p;
}

void OpenSinkRows::committed(const std::vector<NetChange>& net) {
    settle();
    // Merge: the rows the batch did not touch, and those it left held.
    std::vector<Row> next;
    next.reserve(rows_.size() + net.size() / 4);
    std::size_t i = 0;
    for (const NetChange& c : net) {
        while (i < rows_.size() && compare(rows_[i].key, rows_[i].start, c.row->key, c.row->start) < 0)
            next.push_back(std::move(rows_[i++]));
        if (i < rows_.size() && compare(rows_[i].key, rows_[i].start, c.row->key, c.row->start) == 0) ++i;
        if (!c.removed && (c.ahead || !c.row->final)) next.push_back({c.row->key, c.row->start, c.ahead});
    }
    while (i < rows_.size()) next.push_back(std::move(rows_[i++]));
    rows_ = std::move(next);
}

std::vector<std::pair<std::string, std::int64_t>> OpenSinkRows::left_ahead(const std::vector<NetChange>& net) {
    settle();
    std::vector<std::pair<std::string, std::int64_t>> left;
    std::size_t i = 0;
    for (const NetChange& c : net) {
        for (; i < rows_.size() && compare(rows_[i].key, rows_[i].start, c.row->key, c.row->start) < 0; ++i)
            if (rows_[i].ahead) left.emplace_back(rows_[i].key, rows_[i].start);
        if (i < rows_.size() && compare(rows_[i].key, rows_[i].start, c.row->key, c.row->start) == 0) ++i;
        if (!c.removed && c.ahead) left.emplace_back(c.row->key, c.row->start);
    }
    for (; i < rows_.size(); ++i)
        if (rows_[i].ahead) left.emplace_back(rows_[i].key, rows_[i].start);
    return left;
}

void OpenSinkRows::none_ahead() {
    for (Row& r : rows_) r.ahead = false;
}

}  // namespace sluice::pipeline
