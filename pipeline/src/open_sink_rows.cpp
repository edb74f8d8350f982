#include "sluice/pipeline/open_sink_rows.hpp"

#include <algorithm>
#include <iterator>

namespace sluice::pipeline {

namespace {

template <class R>
bool before(const R& a, const R& b) {
    return compare_rows(a.key, a.start, b.key, b.start) < 0;
}

}  // namespace

void OpenSinkRows::add(std::string_view key, std::int64_t start) {
    if (!recent_.empty() || gone_ > 0) settle(true);  // add() appends to main_ alone
    if (settled_ && !main_.empty() && compare_rows(main_.back().key, main_.back().start, key, start) >= 0) settled_ = false;
    main_.push_back({std::string(key), start, false, false});
}

void OpenSinkRows::settle(bool rebuild) {
    if (!settled_) {
        std::sort(main_.begin(), main_.end(), before<Row>);
        main_.erase(std::unique(main_.begin(), main_.end(),
                                [](const Row& a, const Row& b) { return compare_rows(a.key, a.start, b.key, b.start) == 0; }),
                    main_.end());
        settled_ = true;
    }
    // Rebuild once the recent rows, or the gone ones, are an eighth of the
    // set: each row is moved O(1) times on average per rebuild it lives in.
    if (!rebuild && recent_.size() + gone_ <= main_.size() / 8 + 256) return;
    std::vector<Row> next;
    next.reserve(main_.size() + recent_.size() - gone_);
    auto keep = [&](Row& r) {
        if (!r.gone) next.push_back(std::move(r));
    };
    std::size_t j = 0;
    for (Row& r : main_) {
        for (; j < recent_.size() && before(recent_[j], r); ++j) keep(recent_[j]);
        keep(r);
    }
    for (; j < recent_.size(); ++j) keep(recent_[j]);
    main_ = std::move(next);
    recent_.clear();
    gone_ = 0;
}

// The entry of (key, start), gone or not (a row gone and held again is
// revived in place: no (key, start) is in the two vectors twice). `from`
// (one position per vector) is where earlier, smaller keys were found: a
// caller walking a sorted net passes the same Cursor, and each search
// gallops from there (O(log distance), so a net as large as the set costs
// a merge and a small one binary searches).
OpenSinkRows::Row* OpenSinkRows::find(std::string_view key, std::int64_t start, Cursor& from) {
    std::vector<Row>* vectors[2] = {&main_, &recent_};
    for (int i = 0; i < 2; ++i) {
        std::vector<Row>& v = *vectors[i];
        std::size_t lo = std::min(from.at[i], v.size()), step = 1, hi = lo;
        auto below = [&](std::size_t j) { return compare_rows(v[j].key, v[j].start, key, start) < 0; };
        while (hi < v.size() && below(hi)) {
            lo = hi + 1;
            hi += step;
            step *= 2;
        }
        hi = std::min(hi, v.size());
        auto it = std::lower_bound(v.begin() + static_cast<std::ptrdiff_t>(lo), v.begin() + static_cast<std::ptrdiff_t>(hi),
                                   std::pair{key, start},
                                   [](const Row& a, const auto& b) { return compare_rows(a.key, a.start, b.first, b.second) < 0; });
        from.at[i] = static_cast<std::size_t>(it - v.begin());
        if (it != v.end() && compare_rows(it->key, it->start, key, start) == 0) return &*it;
    }
    return nullptr;
}

bool OpenSinkRows::holds(std::string_view key, std::int64_t start) {
    settle();
    Cursor from;
    const Row* r = find(key, start, from);
    return r && !r->gone;
}

std::size_t OpenSinkRows::size() {
    settle();
    return main_.size() + recent_.size() - gone_;
}

OpenSinkRows::Plan OpenSinkRows::plan(const std::vector<NetChange>& net, bool idempotent) {
    settle();
    Plan p;
    Cursor from;
    for (const NetChange& c : net) {
        const Row* entry = find(c.row->key, c.row->start, from);
        if (entry && entry->gone) entry = nullptr;
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
    // Rows held already change in place; new ones (net is sorted, so they
    // are too) are merged into recent_.
    std::vector<Row> added;
    Cursor from;
    for (const NetChange& c : net) {
        const bool hold = !c.removed && (c.ahead || !c.row->final);
        if (Row* entry = find(c.row->key, c.row->start, from)) {
            if (entry->ahead) --ahead_;
            if (entry->gone && hold) --gone_;
            if (!entry->gone && !hold) ++gone_;
            entry->gone = !hold;
            entry->ahead = hold && c.ahead;
            if (entry->ahead) ++ahead_;
        } else if (hold) {
            added.push_back({c.row->key, c.row->start, c.ahead, false});
            if (c.ahead) ++ahead_;
        }
    }
    if (added.empty()) return;
    std::vector<Row> merged;
    merged.reserve(recent_.size() + added.size());
    std::merge(std::make_move_iterator(recent_.begin()), std::make_move_iterator(recent_.end()),
               std::make_move_iterator(added.begin()), std::make_move_iterator(added.end()), std::back_inserter(merged),
               before<Row>);
    recent_ = std::move(merged);
    settle();
}

std::vector<std::pair<std::string, std::int64_t>> OpenSinkRows::left_ahead(const std::vector<NetChange>& net) {
    settle();
    std::vector<std::pair<std::string, std::int64_t>> left;
    for (const NetChange& c : net)
        if (!c.removed && c.ahead) left.emplace_back(c.row->key, c.row->start);
    if (ahead_ == 0) return left;
    // Held ahead and not touched by `net` (net is sorted: a binary search).
    auto in_net = [&](const Row& r) {
        auto it = std::lower_bound(net.begin(), net.end(), r, [](const NetChange& c, const Row& x) {
            return compare_rows(c.row->key, c.row->start, x.key, x.start) < 0;
        });
        return it != net.end() && compare_rows(it->row->key, it->row->start, r.key, r.start) == 0;
    };
    for (const std::vector<Row>* v : {&main_, &recent_})
        for (const Row& r : *v)
            if (r.ahead && !r.gone && !in_net(r)) left.emplace_back(r.key, r.start);
    std::sort(left.begin(), left.end());
    return left;
}

void OpenSinkRows::none_ahead() {
    if (ahead_ == 0) return;
    for (std::vector<Row>* v : {&main_, &recent_})
        for (Row& r : *v) r.ahead = false;
    ahead_ = 0;
}

}  // namespace sluice::pipeline
