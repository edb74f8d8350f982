// The incremental engine: each session owns an ordered index of its events
// (leaf_treap.hpp: a treap of sorted leaves by (ts, id)), every node carrying
// its subtree's count, min, max and exact sum. A session's row is therefore
// read off its root, and every change costs O(log n) in the key's events:
//   insert into a session   descend once, adding the value on the way;
//   bridge two sessions     insert, then join the two treaps (all events of
//                           the left one are smaller): O(log n);
//   retract                 erase, then look at the neighbours; a split is a
//                           treap split: O(log n).
//   append                  an event after every event of its key's last
//                           session (event time growing, the common case)
//                           goes to that session's tail leaf, not yet in the
//                           treap: O(1), and one descent per full leaf
//                           (Session::tail, append(), flush()); a
//                           session's first two events are held in the
//                           session itself, no leaf (Session::few).
// Sessions of a key live in a map by start; open sessions are queued by end,
// so a watermark finalizes exactly the sessions whose end fell below the
// horizon without looking at any other key. Keys are also ordered by their
// first session's start, so forget visits only the keys that have a session
// starting below the horizon (a final row to drop or sealed events to fold,
// or one open session straddling the horizon), not every key.
#include <algorithm>
#include <array>
#include <cassert>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "session_engine.hpp"
#include "leaf_treap.hpp"

namespace sluice::tideweave {
namespace {

using leaf_treap::Node;
namespace tree = leaf_treap;

struct Session {
    KeyId key = 0;
    std::int64_t start = 0;  // the block's first ts, else the smallest event ts
    std::int64_t last = 0;   // the largest ts (end = last + gap)
    Node* root = nullptr;
    // Events appended past every event of `root` (ts above `last`), in a
    // leaf not yet linked into the treap, with its own aggregates; linked
    // (flush) when full or before any other change to the session.
    Node* tail = nullptr;
    // A session's first events, held in the session itself until a third
    // comes (append(); any other change links them as a leaf first,
    // flush()): a session of one or two events holds no leaf, which is 1.1
    // KiB for 32 events. Only while the session has neither root nor tail
    // (few_count > 0 implies both null), so they are its newest events.
    std::array<tree::Event, 2> few;
    std::uint8_t few_count = 0;
    // The sealed events folded (forget()), if any. Out of line: a Block is
    // 312 bytes (its ExactSum), and most sessions never have one, while a
    // transaction of a session per row holds hundreds of thousands of them
    // (a Session was ~470 bytes with it inline).
    std::unique_ptr<Block> block;
    bool final = false;
    bool dead = false;              // merged away or emptied in this transaction
    std::uint64_t touched_tx = 0;   // the transaction that last recorded its before row
    // In the finality queue under (queued_end, key, queued_start). The
    // queued end is a lower bound of the session's end: a session that only
    // grew keeps its entry (most transactions grow their sessions), and
    // finalize() moves an entry whose session turns out to end later.
    bool queued = false;
    std::int64_t queued_end = 0;
    std::int64_t queued_start = 0;
    // The session's row as the last transaction's changes() computed it,
    // while `row_cached`: the next transaction's before row, without
    // rounding the exact sum again. Every change to the session clears it
    // (touch() in a transaction, and finalize, mark_final, forget).
    bool row_cached = false;
    SessionRow cached_row;
};

// Sessions are held by pointer so that touched_ stays valid while a session
// moves to another start or waits, removed, for the end of its transaction.
using SessionMap = std::map<std::int64_t, std::unique_ptr<Session>>;

struct KeyState {
    SessionMap sessions;  // by start
    Session* last = nullptr;  // the session of largest start (kept by refresh_last)
    bool indexed = false;  // in first_starts_ under (indexed_first, key)
    std::int64_t indexed_first = 0;
};

using QueueEntry = std::tuple<std::int64_t, KeyId, std::int64_t>;  // (end, key, start)

class IncrementalEngine final : public SessionEngine {
public:
    explicit IncrementalEngine(const Config& config) : gap_(config.gap) {}

    ~IncrementalEngine() override = default;

    void insert(KeyId key, std::int64_t ts, std::string_view id, double value) override {
        KeyState& ks = key_state(key);
        ++events_;
        // The common case, event time growing: the event follows every event
        // of its key's last session, and joins it or starts a new one after
        // it. No map search, no treap descent (append()).
        if (ks.last != nullptr) {
            Session& last = *ks.last;
            if (ts > last.last) {
                if (ts - last.last <= gap_) {
                    touch(last);
                    append(last, ts, id, value);
                    last.last = ts;
                } else {
                    Session& s = create(ks, key, ts);
                    s.last = ts;
                    append(s, ts, id, value);
                }
                return;
            }
        }
        auto right_it = ks.sessions.upper_bound(ts);
        Session* right = right_it != ks.sessions.end() ? right_it->second.get() : nullptr;
        Session* left = right_it != ks.sessions.begin() ? std::prev(right_it)->second.get() : nullptr;
        const bool join_left = left != nullptr && ts - left->last <= gap_;
        const bool join_right = right != nullptr && right->start - ts <= gap_;
        if (join_left && join_right) {
            touch(*left);
            touch(*right);
            assert(!right->block);  // a later session's events are all unsealed
            flush(*left);
            flush(*right);
            tree::insert(left->root, tree::Event{ts, value, SmallId(id)}, pool_);
            left->root = tree::join(left->root, right->root);
            right->root = nullptr;
            left->last = right->last;
            kill(ks, right_it);
        } else if (join_left) {
            touch(*left);
            if (ts > left->last) {
                append(*left, ts, id, value);
                left->last = ts;
            } else {
                flush(*left);
                tree::insert(left->root, tree::Event{ts, value, SmallId(id)}, pool_);
            }
        } else if (join_right) {
            touch(*right);
            assert(!right->block);
            flush(*right);
            tree::insert(right->root, tree::Event{ts, value, SmallId(id)}, pool_);
            rekey(ks, right_it, ts);
        } else {
            Session& s = create(ks, key, ts);
            s.last = ts;
            append(s, ts, id, value);
        }
    }

    double retract(KeyId key, std::int64_t ts, std::string_view id) override {
        KeyState& ks = key_state(key);
        auto it = std::prev(ks.sessions.upper_bound(ts));
        Session& s = *it->second;
        touch(s);
        flush(s);
        const double value = tree::erase(s.root, ts, id, pool_);
        --events_;
        if (s.root == nullptr && !s.block) {
            kill(ks, it);
            return value;
        }
        const tree::Event* pred_node = tree::predecessor(s.root, ts, id);
        const tree::Event* succ = tree::successor(s.root, ts, id);
        const bool has_pred = pred_node != nullptr || s.block != nullptr;
        const std::int64_t pred_ts = pred_node != nullptr ? pred_node->ts
                                                       : s.block != nullptr ? s.block->last_ts
                                                                            : 0;  // unused: no predecessor
        if (has_pred && succ != nullptr) {
            if (succ->ts - pred_ts > gap_) {  // the retraction opened a gap: split
                const std::int64_t succ_ts = succ->ts;
                Node* below = nullptr;
                Node* rest = nullptr;
                const std::string succ_id(succ->id.view());  // the split moves it
                tree::split(s.root, succ_ts, succ_id, below, rest, pool_);
                const std::int64_t old_last = s.last;
                s.root = below;
                s.last = pred_ts;
                Session& upper = create(ks, key, succ_ts);
                upper.root = rest;
                upper.last = old_last;
            }
        } else if (!has_pred) {  // the first event went
            rekey(ks, it, succ->ts);
        } else {  // the last event went
            s.last = pred_ts;
        }
        return value;
    }

    void insert_block(KeyId key, const Block& block) override {
        KeyState& ks = key_state(key);
        Session& s = create(ks, key, block.first_ts);
        s.last = block.last_ts;
        s.block = std::make_unique<Block>(block);
    }

    void changes(std::vector<SessionRow>& before, std::vector<SessionRow>& after) override {
        before.insert(before.end(), before_.begin(), before_.end());
        for (Session* s : touched_) {
            if (s->dead) continue;
            s->cached_row = row(*s);
            s->row_cached = true;
            after.push_back(s->cached_row);
        }
    }

    std::size_t touched() const override { return touched_.size(); }

    void commit() override {
        for (Session* s : touched_) {
            reindex(s->key);
            if (s->dead) {
                if (s->queued) queue_.erase({s->queued_end, s->key, s->queued_start});
                continue;
            }
            const QueueEntry now{s->last + gap_, s->key, s->start};
            if (s->queued) {
                // An entry at or below the session's end stays (see Session::queued).
                if (s->queued_start == s->start && s->queued_end <= s->last + gap_) continue;
                const QueueEntry was{s->queued_end, s->key, s->queued_start};
                // The entry's node moves to its new place (no free and
                // allocation per transaction that grows a session).
                auto node = queue_.extract(was);
                if (!node.empty()) {  // always (it was queued); the test keeps GCC's null analysis quiet
                    node.value() = now;
                    queue_.insert(std::move(node));
                } else {
                    queue_.insert(now);
                }
            } else {
                queue_.insert(now);
            }
            s->queued = true;
            s->queued_end = s->last + gap_;
            s->queued_start = s->start;
        }
        touched_.clear();
        before_.clear();
        graveyard_.clear();
        ++tx_;
    }

    void finalize(std::int64_t horizon, std::vector<SessionRow>& finalized) override {
        while (!queue_.empty() && std::get<0>(*queue_.begin()) < horizon) {
            auto node = queue_.extract(queue_.begin());
            const auto [end, key, start] = node.value();
            Session& s = *keys_[key].sessions.at(start);
            if (s.last + gap_ >= horizon) {  // a lower bound: the session ends later
                node.value() = QueueEntry{s.last + gap_, key, start};
                queue_.insert(std::move(node));
                s.queued_end = s.last + gap_;
                continue;
            }
            s.queued = false;
            s.final = true;
            s.row_cached = false;
            finalized.push_back(row(s));
        }
    }

    std::int64_t bounded_horizon(std::int64_t horizon, std::size_t rows) const override {
        // The queue's ends are lower bounds (finalize() requeues a session
        // that grew), so the entries below h bound what finalize(h) marks.
        auto it = queue_.begin();
        if (it == queue_.end() || std::get<0>(*it) >= horizon) return horizon;
        const std::int64_t first = std::get<0>(*it);
        // Entry `rows` (0-based), if it is below the horizon too.
        for (std::size_t n = 0; n < rows; ++n)
            if (++it == queue_.end() || std::get<0>(*it) >= horizon) return horizon;
        // It ends at e: the `rows` entries before it end at most there.
        const std::int64_t e = std::get<0>(*it);
        return e > first ? e : first + 1;
    }

    bool mark_final(KeyId key, std::int64_t start) override {
        if (key >= keys_.size()) return false;
        auto it = keys_[key].sessions.find(start);
        if (it == keys_[key].sessions.end()) return false;
        Session& s = *it->second;
        if (s.queued) queue_.erase({s.queued_end, s.key, s.queued_start});
        s.queued = false;
        s.final = true;
        s.row_cached = false;
        return true;
    }

    ForgetTally forget(std::int64_t horizon, const ReleaseFn& release, std::vector<KeyId>& emptied) override {
        ForgetTally counts;
        std::vector<KeyId> visit;
        for (auto it = first_starts_.begin(); it != first_starts_.end() && it->first < horizon; ++it)
            visit.push_back(it->second);
        counts.keys_visited = visit.size();
        for (const KeyId key : visit) {
            SessionMap& sessions = keys_[key].sessions;
            for (auto it = sessions.begin(); it != sessions.end() && it->first < horizon;) {
                Session& s = *it->second;
                flush(s);
                s.row_cached = false;
                if (s.final) {
                    release_tree(s.root, key, release);
                    it = sessions.erase(it);
                    --rows_;
                    ++counts.rows_dropped;
                    continue;
                }
                Node* sealed = nullptr;
                Node* open = nullptr;
                tree::split(s.root, horizon, std::string_view{}, sealed, open, pool_);
                if (sealed != nullptr) {
                    if (!s.block) {
                        s.block = std::make_unique<Block>();
                        s.block->first_ts = tree::first(sealed).ts;
                        s.block->min = sealed->min;
                        s.block->max = sealed->max;
                    }
                    Block& b = *s.block;
                    b.last_ts = tree::last(sealed).ts;
                    b.count += sealed->count;
                    b.min = std::min(b.min, sealed->min);
                    b.max = std::max(b.max, sealed->max);
                    sealed->sum.add_to(b.sum);
                    counts.events_folded += static_cast<std::size_t>(sealed->count);
                    release_tree(sealed, key, release);
                }
                s.root = open;
                ++it;
            }
            if (sessions.empty()) emptied.push_back(key);
            refresh_last(keys_[key]);
            reindex(key);
        }
        return counts;
    }

    // The events of every session starting below the horizon (forget visits
    // exactly those): all of a final one's, at most all of an open one's.
    std::size_t forget_bound(std::int64_t horizon) const override {
        std::size_t bound = 0;
        for (auto it = first_starts_.begin(); it != first_starts_.end() && it->first < horizon; ++it) {
            const SessionMap& sessions = keys_[it->second].sessions;
            for (auto s = sessions.begin(); s != sessions.end() && s->first < horizon; ++s) {
                for (const Node* n : {s->second->root, s->second->tail})
                    if (n != nullptr) bound += static_cast<std::size_t>(n->count);
                bound += s->second->few_count;
            }
        }
        return bound;
    }

    void all_rows(std::vector<SessionRow>& rows) const override {
        for (const KeyState& ks : keys_)
            for (const auto& [start, s] : ks.sessions) rows.push_back(row(*s));
    }

    void export_key(KeyId key, KeyExport& out) const override {
        if (key >= keys_.size()) return;
        for (const auto& [start, s] : keys_[key].sessions) {
            if (s->block) out.blocks.push_back(*s->block);
            tree::for_each_node(s->root, [&](const Node& n) {
                for (const tree::Event& e : n.events) out.events.push_back({e.ts, e.id, e.value});
            });
            if (s->tail != nullptr)  // after every event of the root
                for (const tree::Event& e : s->tail->events) out.events.push_back({e.ts, e.id, e.value});
            for (std::size_t i = 0; i < s->few_count; ++i)  // (no root, no tail then)
                out.events.push_back({s->few[i].ts, s->few[i].id, s->few[i].value});
            if (s->final) out.final_starts.push_back(start);
        }
    }

    std::vector<KeyId> keys() const override {
        std::vector<KeyId> held;
        for (KeyId key = 0; key < keys_.size(); ++key)
            if (!keys_[key].sessions.empty()) held.push_back(key);
        return held;
    }

    bool holds_key(KeyId key) const override { return key < keys_.size() && !keys_[key].sessions.empty(); }

    std::size_t active_events() const override { return events_; }
    std::size_t row_count() const override { return rows_; }

private:
    KeyState& key_state(KeyId key) {
        if (key >= keys_.size()) keys_.resize(static_cast<std::size_t>(key) + 1);
        return keys_[key];
    }

    // Keeps the key's entry in first_starts_ at its first session's start.
    void reindex(KeyId key) {
        KeyState& ks = keys_[key];
        if (ks.indexed) {
            if (!ks.sessions.empty() && ks.sessions.begin()->first == ks.indexed_first) return;
            first_starts_.erase({ks.indexed_first, key});
            ks.indexed = false;
        }
        if (ks.sessions.empty()) return;
        ks.indexed_first = ks.sessions.begin()->first;
        first_starts_.emplace(ks.indexed_first, key);
        ks.indexed = true;
    }

    SessionRow row(const Session& s) const {
        SessionRow r;
        r.key = s.key;
        r.start = s.start;
        r.end = s.last + gap_;
        r.final = s.final;
        bool any = false;
        if (s.block) {
            r.count = s.block->count;
            r.min = s.block->min;
            r.max = s.block->max;
            any = true;
        }
        for (const Node* n : {s.root, s.tail}) {
            if (n == nullptr) continue;
            r.count += n->count;
            r.min = any ? std::min(r.min, n->min) : n->min;
            r.max = any ? std::max(r.max, n->max) : n->max;
            any = true;
        }
        if (s.few_count > 0) {  // no root, no tail: the session's only events besides a block
            r.count += s.few_count;
            for (std::size_t i = 0; i < s.few_count; ++i) {
                const double v = s.few[i].value;
                r.min = any ? std::min(r.min, v) : v;
                r.max = any ? std::max(r.max, v) : v;
                any = true;
            }
            if (!s.block) {
                CompactSum sum;
                sum.clear();
                for (std::size_t i = 0; i < s.few_count; ++i) sum.add(s.few[i].value);
                r.sum = sum.to_double();
                return r;
            }
            ExactSum sum = s.block->sum;
            for (std::size_t i = 0; i < s.few_count; ++i) sum.add(s.few[i].value);
            r.sum = sum.to_double();
            return r;
        }
        // The common case, no sealed block: the nodes' compact sums, added
        // in their window and rounded from it (no 34-limb form).
        if (!s.block) {
            if (s.root != nullptr && s.tail != nullptr) {
                r.sum = CompactSum::rounded_sum(s.root->sum, s.tail->sum);
            } else if (s.root != nullptr || s.tail != nullptr) {
                r.sum = (s.root != nullptr ? s.root : s.tail)->sum.to_double();
            }
            return r;
        }
        ExactSum sum = s.block->sum;
        for (const Node* n : {s.root, s.tail})
            if (n != nullptr) n->sum.add_to(sum);
        r.sum = sum.to_double();
        return r;
    }

    // Adds an event after every event of the session (ts > s.last) to its
    // tail leaf: O(1), no descent; a full tail is linked into the treap as
    // its rightmost leaf (one descent per leaf_capacity events).
    [[gnu::always_inline]] void append(Session& s, std::int64_t ts, std::string_view id, double value) {
        Node* t = s.tail;
        if (t == nullptr) [[unlikely]] {
            if (s.root == nullptr && s.few_count < s.few.size()) {  // held in the session
                tree::Event& e = s.few[s.few_count++];
                e.ts = ts;
                e.value = value;
                e.id.assign(id);
                return;
            }
            if (s.few_count > 0) {  // the third: they become the tail leaf
                link_few(s);
                t = s.tail;
                t->events.emplace_back(ts, value, id);
                t->count += 1;
                t->min = std::min(t->min, value);
                t->max = std::max(t->max, value);
                t->sum.add(value);
                return;
            }
            t = s.tail = pool_.make();
            t->events.emplace_back(ts, value, id);
            // recompute() for a childless leaf of one event, without its loops.
            t->count = 1;
            t->min = t->max = value;
            t->sum.clear();
            t->sum.add(value);
            return;
        }
        t->events.emplace_back(ts, value, id);
        t->count += 1;
        t->min = std::min(t->min, value);
        t->max = std::max(t->max, value);
        t->sum.add(value);
        if (t->events.size() == tree::leaf_capacity) [[unlikely]]
            flush(s);
    }

    // The session's few events (Session::few) become its tail leaf.
    void link_few(Session& s) {
        assert(s.root == nullptr && s.tail == nullptr);
        Node* t = pool_.make();
        for (std::size_t i = 0; i < s.few_count; ++i) t->events.push_back(std::move(s.few[i]));
        s.few_count = 0;
        tree::recompute(t);
        s.tail = t;
    }

    // Links the tail leaf into the treap, before any change other than an append.
    void flush(Session& s) {
        if (s.few_count > 0) link_few(s);
        if (s.tail == nullptr) return;
        tree::insert_rightmost(s.root, s.tail);
        s.tail = nullptr;
    }

    // Records the session's row as it was before this transaction changed it
    // (the cached row of the last transaction's changes(), if still valid);
    // every change in a transaction comes through here first.
    [[gnu::always_inline]] void touch(Session& s) {
        if (s.touched_tx == tx_ + 1) [[likely]] {
            s.row_cached = false;
            return;
        }
        first_touch(s);
    }
    [[gnu::noinline]] void first_touch(Session& s) {
        assert(!s.row_cached || s.cached_row.same_fields(row(s)));
        before_.push_back(s.row_cached ? s.cached_row : row(s));
        s.row_cached = false;
        s.touched_tx = tx_ + 1;
        touched_.push_back(&s);
    }

    static void refresh_last(KeyState& ks) {
        ks.last = ks.sessions.empty() ? nullptr : ks.sessions.rbegin()->second.get();
    }

    Session& create(KeyState& ks, KeyId key, std::int64_t start) {
        auto [it, inserted] = ks.sessions.try_emplace(start, std::make_unique<Session>());
        assert(inserted);
        Session& s = *it->second;
        s.key = key;
        s.start = start;
        s.touched_tx = tx_ + 1;  // new in this transaction: no before row
        touched_.push_back(&s);
        ++rows_;
        refresh_last(ks);
        return s;
    }

    // Removes the session from its key but keeps it alive until commit(),
    // since touched_ still points at it.
    void kill(KeyState& ks, SessionMap::iterator it) {
        it->second->dead = true;
        graveyard_.push_back(std::move(it->second));
        ks.sessions.erase(it);
        --rows_;
        refresh_last(ks);
    }

    void rekey(KeyState& ks, SessionMap::iterator it, std::int64_t start) {
        std::unique_ptr<Session> s = std::move(it->second);
        ks.sessions.erase(it);
        s->start = start;
        ks.sessions.emplace(start, std::move(s));
        refresh_last(ks);
    }

    void release_tree(Node* t, KeyId key, const ReleaseFn& release) {
        tree::for_each_node(t, [&](Node& n) {
            if (release)
                for (const tree::Event& e : n.events) release(e.id, key, e.ts);
            events_ -= n.events.size();
            pool_.release(&n);
        });
    }

    std::int64_t gap_;
    std::vector<KeyState> keys_;
    std::set<QueueEntry> queue_;
    std::set<std::pair<std::int64_t, KeyId>> first_starts_;  // (first session's start, key), keys with sessions
    std::uint64_t tx_ = 0;
    std::vector<SessionRow> before_;
    std::vector<Session*> touched_;
    std::vector<std::unique_ptr<Session>> graveyard_;
    tree::Pool pool_;
    std::size_t events_ = 0;
    std::size_t rows_ = 0;
};

}  // namespace

std::unique_ptr<SessionEngine> make_incremental_engine(const Config& config) {
    return std::make_unique<IncrementalEngine>(config);
}

}  // namespace sluice::tideweave
