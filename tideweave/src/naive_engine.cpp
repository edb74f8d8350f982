// The naive engine: the benchmark's same-build alternative. It keeps each
// key's events in one ordered map and, after every mutation, rebuilds all of
// that key's sessions from scratch, which makes a stream of one-event
// transactions quadratic in a key's events. Its output bytes are identical to
// the incremental engine's (the tests run both through the same checks).
#include <algorithm>
#include <map>
#include <set>

#include "session_engine.hpp"

namespace sluice::tideweave {
namespace {

struct NaiveKey {
    std::map<std::pair<std::int64_t, std::string>, double> events;  // by (ts, id)
    std::vector<Block> blocks;                                      // by first_ts
    std::set<std::int64_t> final_starts;
    std::vector<SessionRow> rows;  // by start, rebuilt after every change
};

class NaiveEngine final : public SessionEngine {
public:
    explicit NaiveEngine(const Config& config) : gap_(config.gap) {}

    void insert(KeyId key, std::int64_t ts, std::string_view id, double value) override {
        NaiveKey& k = touch(key);
        k.events.emplace(std::pair{ts, std::string(id)}, value);
        ++events_;
        rebuild(key, k);
    }

    double retract(KeyId key, std::int64_t ts, std::string_view id) override {
        NaiveKey& k = touch(key);
        const auto it = k.events.find(std::pair{ts, std::string(id)});
        const double value = it->second;
        k.events.erase(it);
        --events_;
        rebuild(key, k);
        return value;
    }

    void insert_block(KeyId key, const Block& block) override {
        NaiveKey& k = touch(key);
        k.blocks.push_back(block);
        std::sort(k.blocks.begin(), k.blocks.end(),
                  [](const Block& a, const Block& b) { return a.first_ts < b.first_ts; });
        rebuild(key, k);
    }

    void changes(std::vector<SessionRow>& before, std::vector<SessionRow>& after) override {
        for (std::size_t i = 0; i < touched_.size(); ++i) {
            before.insert(before.end(), saved_[i].begin(), saved_[i].end());
            const auto& now = keys_[touched_[i]].rows;
            after.insert(after.end(), now.begin(), now.end());
        }
    }

    std::size_t touched() const override { return touched_.size(); }

    void commit() override {
        touched_.clear();
        saved_.clear();
    }

    void finalize(std::int64_t horizon, std::vector<SessionRow>& finalized) override {
        for (NaiveKey& k : keys_) {
            for (SessionRow& r : k.rows) {
                if (r.final || r.end >= horizon) continue;
                r.final = true;
                k.final_starts.insert(r.start);
                finalized.push_back(r);
            }
        }
    }

    std::int64_t bounded_horizon(std::int64_t horizon, std::size_t rows) const override {
        std::vector<std::int64_t> ends;
        for (const NaiveKey& k : keys_)
            for (const SessionRow& r : k.rows)
                if (!r.final && r.end < horizon) ends.push_back(r.end);
        if (ends.size() <= rows) return horizon;
        std::sort(ends.begin(), ends.end());
        return ends[rows] > ends[0] ? ends[rows] : ends[0] + 1;
    }

    bool mark_final(KeyId key, std::int64_t start) override {
        if (key >= keys_.size()) return false;
        NaiveKey& k = keys_[key];
        for (SessionRow& r : k.rows) {
            if (r.start != start) continue;
            r.final = true;
            k.final_starts.insert(start);
            return true;
        }
        return false;
    }

    std::size_t forget_bound(std::int64_t) const override { return events_; }  // every event: a bound

    ForgetTally forget(std::int64_t horizon, const ReleaseFn& release, std::vector<KeyId>& emptied) override {
        ForgetTally counts;
        for (KeyId key = 0; key < keys_.size(); ++key) {
            NaiveKey& k = keys_[key];
            if (k.rows.empty()) continue;
            ++counts.keys_visited;
            for (const SessionRow& r : k.rows) {
                if (r.start >= horizon) break;
                const std::int64_t last = r.end - gap_;
                auto block = std::find_if(k.blocks.begin(), k.blocks.end(),
                                          [&](const Block& b) { return b.first_ts == r.start; });
                if (r.final) {
                    drop_events(key, k, r.start, last, release);
                    if (block != k.blocks.end()) k.blocks.erase(block);
                    k.final_starts.erase(r.start);
                    ++counts.rows_dropped;
                    continue;
                }
                const std::int64_t sealed_last = std::min(last, horizon - 1);
                auto first = k.events.lower_bound({r.start, std::string{}});
                auto stop = k.events.lower_bound({sealed_last + 1, std::string{}});
                if (first == stop) continue;
                if (block == k.blocks.end()) {
                    Block b;
                    b.first_ts = first->first.first;
                    b.min = b.max = first->second;
                    k.blocks.push_back(b);
                    block = std::prev(k.blocks.end());
                }
                for (auto it = first; it != stop; ++it) {
                    block->last_ts = it->first.first;
                    block->count += 1;
                    block->min = std::min(block->min, it->second);
                    block->max = std::max(block->max, it->second);
                    block->sum.add(it->second);
                    ++counts.events_folded;
                }
                drop_events(key, k, r.start, sealed_last, release);
            }
            std::sort(k.blocks.begin(), k.blocks.end(),
                      [](const Block& a, const Block& b) { return a.first_ts < b.first_ts; });
            rebuild(key, k);
            if (k.rows.empty()) emptied.push_back(key);
        }
        return counts;
    }

    void all_rows(std::vector<SessionRow>& rows) const override {
        for (const NaiveKey& k : keys_) rows.insert(rows.end(), k.rows.begin(), k.rows.end());
    }

    void export_key(KeyId key, KeyExport& out) const override {
        if (key >= keys_.size()) return;
        const NaiveKey& k = keys_[key];
        out.blocks = k.blocks;
        for (const auto& [ts_id, value] : k.events) out.events.push_back({ts_id.first, ts_id.second, value});
        out.final_starts.assign(k.final_starts.begin(), k.final_starts.end());
    }

    std::vector<KeyId> keys() const override {
        std::vector<KeyId> held;
        for (KeyId key = 0; key < keys_.size(); ++key)
            if (!keys_[key].rows.empty()) held.push_back(key);
        return held;
    }

    bool holds_key(KeyId key) const override {
        return key < keys_.size() && (!keys_[key].events.empty() || !keys_[key].blocks.empty());
    }

    std::size_t active_events() const override { return events_; }

    std::size_t row_count() const override {
        std::size_t n = 0;
        for (const NaiveKey& k : keys_) n += k.rows.size();
        return n;
    }

private:
    NaiveKey& touch(KeyId key) {
        if (key >= keys_.size()) keys_.resize(static_cast<std::size_t>(key) + 1);
        if (std::find(touched_.begin(), touched_.end(), key) == touched_.end()) {
            touched_.push_back(key);
            saved_.push_back(keys_[key].rows);
        }
        return keys_[key];
    }

    void drop_events(KeyId key, NaiveKey& k, std::int64_t from, std::int64_t to, const ReleaseFn& release) {
        auto first = k.events.lower_bound({from, std::string{}});
        auto stop = k.events.lower_bound({to + 1, std::string{}});
        for (auto it = first; it != stop; ++it) {
            if (release) release(it->first.second, key, it->first.first);
            --events_;
        }
        k.events.erase(first, stop);
    }

    // Recomputes every session of the key from its blocks and events.
    void rebuild(KeyId key, NaiveKey& k) const {
        k.rows.clear();
        bool open = false;
        SessionRow cur;
        ExactSum sum;
        std::int64_t last = 0;
        auto flush = [&] {
            cur.end = last + gap_;
            cur.sum = sum.to_double();
            cur.final = k.final_starts.count(cur.start) != 0;
            k.rows.push_back(cur);
        };
        auto add = [&](std::int64_t first_ts, std::int64_t last_ts, std::int64_t count, double min, double max,
                       auto&& add_sum) {
            if (open && first_ts - last <= gap_) {
                cur.count += count;
                cur.min = std::min(cur.min, min);
                cur.max = std::max(cur.max, max);
                last = std::max(last, last_ts);
            } else {
                if (open) flush();
                open = true;
                cur = SessionRow{};
                cur.key = key;
                cur.start = first_ts;
                cur.count = count;
                cur.min = min;
                cur.max = max;
                last = last_ts;
                sum.clear();
            }
            add_sum(sum);
        };
        auto block = k.blocks.begin();
        auto event = k.events.begin();
        while (block != k.blocks.end() || event != k.events.end()) {
            if (block != k.blocks.end() && (event == k.events.end() || block->first_ts <= event->first.first)) {
                const Block& b = *block++;
                add(b.first_ts, b.last_ts, b.count, b.min, b.max, [&](ExactSum& s) { s.add(b.sum); });
            } else {
                const auto& [ts_id, value] = *event++;
                const double v = value;
                add(ts_id.first, ts_id.first, 1, v, v, [&](ExactSum& s) { s.add(v); });
            }
        }
        if (open) flush();
    }

    std::int64_t gap_;
    std::vector<NaiveKey> keys_;
    std::vector<KeyId> touched_;
    std::vector<std::vector<SessionRow>> saved_;
    std::size_t events_ = 0;
};

}  // namespace

std::unique_ptr<SessionEngine> make_naive_engine(const Config& config) { return std::make_unique<NaiveEngine>(config); }

}  // namespace sluice::tideweave
