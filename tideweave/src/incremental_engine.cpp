// The incremental engine: each session owns a treap of its events ordered by
// (ts, id), every node carrying its subtree's count, min, max and exact sum.
// A session's row is therefore read off its root, and every change costs
// O(log n) in the key's events:
//   insert into a session   descend once, adding the value on the way; the
//                           expected O(1) rotations recompute two nodes;
//   bridge two sessions     insert, then join the two treaps (all keys of
//                           the left one are smaller): O(log n);
//   retract                 erase (merge the node's children), then look at
//                           the neighbours; a split is a treap split: O(log n).
// Sessions of a key live in a map by start; open sessions are queued by end,
// so a watermark finalizes exactly the sessions whose end fell below the
// horizon without looking at any other key.
#include <algorithm>
#include <cassert>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include "engine.hpp"

namespace sluice::tideweave {
namespace {

struct Node {
    std::int64_t ts = 0;
    double value = 0;
    std::string id;
    std::uint32_t priority = 0;
    Node* left = nullptr;
    Node* right = nullptr;
    // Aggregates of the subtree rooted here.
    std::int64_t count = 1;
    double min = 0;
    double max = 0;
    ExactSum sum;
};

bool key_less(std::int64_t ts_a, std::string_view id_a, std::int64_t ts_b, std::string_view id_b) {
    return ts_a < ts_b || (ts_a == ts_b && id_a < id_b);
}

void recompute_min_max(Node* t) {
    t->min = t->value;
    t->max = t->value;
    t->count = 1;
    for (const Node* child : {t->left, t->right}) {
        if (child == nullptr) continue;
        t->count += child->count;
        t->min = std::min(t->min, child->min);
        t->max = std::max(t->max, child->max);
    }
}

void recompute(Node* t) {
    recompute_min_max(t);
    t->sum.clear();
    t->sum.add(t->value);
    if (t->left != nullptr) t->sum.add(t->left->sum);
    if (t->right != nullptr) t->sum.add(t->right->sum);
}

// The rotated-up node takes over the old root's subtree, hence its aggregates.
void take_aggregates(Node* to, const Node* from) {
    to->count = from->count;
    to->min = from->min;
    to->max = from->max;
    to->sum = from->sum;
}

void rotate_right(Node*& t) {
    Node* l = t->left;
    t->left = l->right;
    l->right = t;
    take_aggregates(l, t);
    recompute(t);
    t = l;
}

void rotate_left(Node*& t) {
    Node* r = t->right;
    t->right = r->left;
    r->left = t;
    take_aggregates(r, t);
    recompute(t);
    t = r;
}

void treap_insert(Node*& t, Node* n) {
    if (t == nullptr) {
        t = n;
        return;
    }
    t->count += 1;
    t->min = std::min(t->min, n->value);
    t->max = std::max(t->max, n->value);
    t->sum.add(n->value);
    if (key_less(n->ts, n->id, t->ts, t->id)) {
        treap_insert(t->left, n);
        if (t->left->priority > t->priority) rotate_right(t);
    } else {
        treap_insert(t->right, n);
        if (t->right->priority > t->priority) rotate_left(t);
    }
}

// Joins two treaps where every key of `a` is below every key of `b`.
Node* treap_join(Node* a, Node* b) {
    if (a == nullptr) return b;
    if (b == nullptr) return a;
    if (a->priority > b->priority) {
        a->right = treap_join(a->right, b);
        recompute(a);
        return a;
    }
    b->left = treap_join(a, b->left);
    recompute(b);
    return b;
}

// Removes the node (ts, id), which must be present, and returns it.
Node* treap_erase(Node*& t, std::int64_t ts, std::string_view id) {
    assert(t != nullptr);
    if (t->ts == ts && t->id == id) {
        Node* removed = t;
        t = treap_join(t->left, t->right);
        return removed;
    }
    Node* removed = key_less(ts, id, t->ts, t->id) ? treap_erase(t->left, ts, id) : treap_erase(t->right, ts, id);
    t->sum.subtract(removed->value);
    recompute_min_max(t);
    return removed;
}

// Splits into keys < (ts, id) and keys >= (ts, id).
void treap_split(Node* t, std::int64_t ts, std::string_view id, Node*& below, Node*& rest) {
    if (t == nullptr) {
        below = rest = nullptr;
        return;
    }
    if (key_less(t->ts, t->id, ts, id)) {
        treap_split(t->right, ts, id, t->right, rest);
        below = t;
    } else {
        treap_split(t->left, ts, id, below, t->left);
        rest = t;
    }
    recompute(t);
}

const Node* predecessor(const Node* t, std::int64_t ts, std::string_view id) {
    const Node* best = nullptr;
    while (t != nullptr) {
        if (key_less(t->ts, t->id, ts, id)) {
            best = t;
            t = t->right;
        } else {
            t = t->left;
        }
    }
    return best;
}

const Node* successor(const Node* t, std::int64_t ts, std::string_view id) {
    const Node* best = nullptr;
    while (t != nullptr) {
        if (key_less(ts, id, t->ts, t->id)) {
            best = t;
            t = t->left;
        } else {
            t = t->right;
        }
    }
    return best;
}

const Node* leftmost(const Node* t) {
    while (t->left != nullptr) t = t->left;
    return t;
}

const Node* rightmost(const Node* t) {
    while (t->right != nullptr) t = t->right;
    return t;
}

template <typename Fn>
void in_order(const Node* t, Fn&& fn) {
    // Iterative, so that a degenerate (unlucky) treap cannot exhaust the stack.
    std::vector<const Node*> stack;
    while (t != nullptr || !stack.empty()) {
        while (t != nullptr) {
            stack.push_back(t);
            t = t->left;
        }
        t = stack.back();
        stack.pop_back();
        fn(*t);
        t = t->right;
    }
}

struct Session {
    KeyId key = 0;
    std::int64_t start = 0;  // the block's first ts, else the smallest event ts
    std::int64_t last = 0;   // the largest ts (end = last + gap)
    Node* root = nullptr;
    bool has_block = false;
    Block block;
    bool final = false;
    bool dead = false;              // merged away or emptied in this transaction
    std::uint64_t touched_tx = 0;   // the transaction that last recorded its before row
    bool queued = false;            // in the finality queue under (queued_end, key, queued_start)
    std::int64_t queued_end = 0;
    std::int64_t queued_start = 0;
};

// Sessions are held by pointer so that touched_ stays valid while a session
// moves to another start or waits, removed, for the end of its transaction.
using SessionMap = std::map<std::int64_t, std::unique_ptr<Session>>;

struct KeyState {
    SessionMap sessions;  // by start
};

using QueueEntry = std::tuple<std::int64_t, KeyId, std::int64_t>;  // (end, key, start)

class IncrementalEngine final : public Engine {
public:
    explicit IncrementalEngine(const Config& config) : gap_(config.gap) {}

    ~IncrementalEngine() override = default;

    void insert(KeyId key, std::int64_t ts, std::string_view id, double value) override {
        KeyState& ks = key_state(key);
        Node* n = new_node(ts, id, value);
        ++events_;
        auto right_it = ks.sessions.upper_bound(ts);
        Session* right = right_it != ks.sessions.end() ? right_it->second.get() : nullptr;
        Session* left = right_it != ks.sessions.begin() ? std::prev(right_it)->second.get() : nullptr;
        const bool join_left = left != nullptr && ts - left->last <= gap_;
        const bool join_right = right != nullptr && right->start - ts <= gap_;
        if (join_left && join_right) {
            touch(*left);
            touch(*right);
            assert(!right->has_block);  // a later session's events are all unsealed
            treap_insert(left->root, n);
            left->root = treap_join(left->root, right->root);
            right->root = nullptr;
            left->last = right->last;
            kill(ks, right_it);
        } else if (join_left) {
            touch(*left);
            treap_insert(left->root, n);
            left->last = std::max(left->last, ts);
        } else if (join_right) {
            touch(*right);
            assert(!right->has_block);
            treap_insert(right->root, n);
            rekey(ks, right_it, ts);
        } else {
            Session& s = create(ks, key, ts);
            s.last = ts;
            s.root = n;
        }
    }

    void retract(KeyId key, std::int64_t ts, std::string_view id) override {
        KeyState& ks = key_state(key);
        auto it = std::prev(ks.sessions.upper_bound(ts));
        Session& s = *it->second;
        touch(s);
        free_node(treap_erase(s.root, ts, id));
        --events_;
        if (s.root == nullptr && !s.has_block) {
            kill(ks, it);
            return;
        }
        const Node* pred_node = predecessor(s.root, ts, id);
        const Node* succ = successor(s.root, ts, id);
        const bool has_pred = pred_node != nullptr || s.has_block;
        const std::int64_t pred_ts = pred_node != nullptr ? pred_node->ts : s.block.last_ts;
        if (has_pred && succ != nullptr) {
            if (succ->ts - pred_ts > gap_) {  // the retraction opened a gap: split
                const std::int64_t succ_ts = succ->ts;
                Node* below = nullptr;
                Node* rest = nullptr;
                treap_split(s.root, succ_ts, succ->id, below, rest);
                const std::int64_t old_last = s.last;
                s.root = below;
                s.last = pred_ts;
                Session& tail = create(ks, key, succ_ts);
                tail.root = rest;
                tail.last = old_last;
            }
        } else if (!has_pred) {  // the first event went
            rekey(ks, it, succ->ts);
        } else {  // the last event went
            s.last = pred_ts;
        }
    }

    void insert_block(KeyId key, const Block& block) override {
        KeyState& ks = key_state(key);
        Session& s = create(ks, key, block.first_ts);
        s.last = block.last_ts;
        s.has_block = true;
        s.block = block;
    }

    void changes(std::vector<Row>& before, std::vector<Row>& after) override {
        before.insert(before.end(), before_.begin(), before_.end());
        for (const Session* s : touched_)
            if (!s->dead) after.push_back(row(*s));
    }

    void commit() override {
        for (Session* s : touched_) {
            if (s->dead) {
                if (s->queued) queue_.erase({s->queued_end, s->key, s->queued_start});
                continue;
            }
            const QueueEntry now{s->last + gap_, s->key, s->start};
            if (s->queued) {
                const QueueEntry was{s->queued_end, s->key, s->queued_start};
                if (was == now) continue;
                queue_.erase(was);
            }
            queue_.insert(now);
            s->queued = true;
            s->queued_end = s->last + gap_;
            s->queued_start = s->start;
        }
        touched_.clear();
        before_.clear();
        graveyard_.clear();
        ++tx_;
    }

    void finalize(std::int64_t horizon, std::vector<Row>& finalized) override {
        while (!queue_.empty() && std::get<0>(*queue_.begin()) < horizon) {
            const auto [end, key, start] = *queue_.begin();
            queue_.erase(queue_.begin());
            Session& s = *keys_[key].sessions.at(start);
            s.queued = false;
            s.final = true;
            finalized.push_back(row(s));
        }
    }

    bool mark_final(KeyId key, std::int64_t start) override {
        if (key >= keys_.size()) return false;
        auto it = keys_[key].sessions.find(start);
        if (it == keys_[key].sessions.end()) return false;
        Session& s = *it->second;
        if (s.queued) queue_.erase({s.queued_end, s.key, s.queued_start});
        s.queued = false;
        s.final = true;
        return true;
    }

    ForgetCounts forget(std::int64_t horizon, const ReleaseFn& release, std::vector<KeyId>& emptied) override {
        ForgetCounts counts;
        for (KeyId key = 0; key < keys_.size(); ++key) {
            SessionMap& sessions = keys_[key].sessions;
            if (sessions.empty()) continue;
            for (auto it = sessions.begin(); it != sessions.end() && it->first < horizon;) {
                Session& s = *it->second;
                if (s.final) {
                    release_tree(s.root, key, release);
                    it = sessions.erase(it);
                    --rows_;
                    ++counts.rows_dropped;
                    continue;
                }
                Node* sealed = nullptr;
                Node* open = nullptr;
                treap_split(s.root, horizon, std::string_view{}, sealed, open);
                if (sealed != nullptr) {
                    if (!s.has_block) {
                        s.has_block = true;
                        s.block = Block{};
                        s.block.first_ts = leftmost(sealed)->ts;
                        s.block.min = sealed->min;
                        s.block.max = sealed->max;
                    }
                    s.block.last_ts = rightmost(sealed)->ts;
                    s.block.count += sealed->count;
                    s.block.min = std::min(s.block.min, sealed->min);
                    s.block.max = std::max(s.block.max, sealed->max);
                    s.block.sum.add(sealed->sum);
                    counts.events_folded += static_cast<std::size_t>(sealed->count);
                    release_tree(sealed, key, release);
                }
                s.root = open;
                ++it;
            }
            if (sessions.empty()) emptied.push_back(key);
        }
        return counts;
    }

    void all_rows(std::vector<Row>& rows) const override {
        for (const KeyState& ks : keys_)
            for (const auto& [start, s] : ks.sessions) rows.push_back(row(*s));
    }

    void export_key(KeyId key, KeyExport& out) const override {
        if (key >= keys_.size()) return;
        for (const auto& [start, s] : keys_[key].sessions) {
            if (s->has_block) out.blocks.push_back(s->block);
            in_order(s->root, [&](const Node& n) { out.events.push_back({n.ts, n.id, n.value}); });
            if (s->final) out.final_starts.push_back(start);
        }
    }

    std::vector<KeyId> keys() const override {
        std::vector<KeyId> held;
        for (KeyId key = 0; key < keys_.size(); ++key)
            if (!keys_[key].sessions.empty()) held.push_back(key);
        return held;
    }

    std::size_t active_events() const override { return events_; }
    std::size_t row_count() const override { return rows_; }

private:
    KeyState& key_state(KeyId key) {
        if (key >= keys_.size()) keys_.resize(static_cast<std::size_t>(key) + 1);
        return keys_[key];
    }

    Row row(const Session& s) const {
        Row r;
        r.key = s.key;
        r.start = s.start;
        r.end = s.last + gap_;
        r.final = s.final;
        ExactSum sum;
        bool any = false;
        if (s.has_block) {
            r.count = s.block.count;
            r.min = s.block.min;
            r.max = s.block.max;
            sum = s.block.sum;
            any = true;
        }
        if (s.root != nullptr) {
            r.count += s.root->count;
            r.min = any ? std::min(r.min, s.root->min) : s.root->min;
            r.max = any ? std::max(r.max, s.root->max) : s.root->max;
            if (any) {
                sum.add(s.root->sum);
            } else {
                sum = s.root->sum;
            }
        }
        r.sum = sum.to_double();
        return r;
    }

    // Records the session's row as it was before this transaction changed it.
    void touch(Session& s) {
        if (s.touched_tx == tx_ + 1) return;
        before_.push_back(row(s));
        s.touched_tx = tx_ + 1;
        touched_.push_back(&s);
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
        return s;
    }

    // Removes the session from its key but keeps it alive until commit(),
    // since touched_ still points at it.
    void kill(KeyState& ks, SessionMap::iterator it) {
        it->second->dead = true;
        graveyard_.push_back(std::move(it->second));
        ks.sessions.erase(it);
        --rows_;
    }

    void rekey(KeyState& ks, SessionMap::iterator it, std::int64_t start) {
        std::unique_ptr<Session> s = std::move(it->second);
        ks.sessions.erase(it);
        s->start = start;
        ks.sessions.emplace(start, std::move(s));
    }

    Node* new_node(std::int64_t ts, std::string_view id, double value) {
        Node* n = nullptr;
        if (!free_.empty()) {
            n = free_.back();
            free_.pop_back();
        } else {
            n = &arena_.emplace_back();
        }
        n->ts = ts;
        n->value = value;
        n->id.assign(id);
        n->priority = next_priority();
        n->left = n->right = nullptr;
        n->count = 1;
        n->min = n->max = value;
        n->sum.clear();
        n->sum.add(value);
        return n;
    }

    void free_node(Node* n) { free_.push_back(n); }

    void release_tree(Node* t, KeyId key, const ReleaseFn& release) {
        std::vector<Node*> nodes;
        in_order(t, [&](const Node& n) { nodes.push_back(const_cast<Node*>(&n)); });
        for (Node* n : nodes) {
            release(n->id, key, n->ts);
            free_node(n);
        }
        events_ -= nodes.size();
    }

    std::uint32_t next_priority() {  // xorshift32: treap priorities need no more
        rng_ ^= rng_ << 13;
        rng_ ^= rng_ >> 17;
        rng_ ^= rng_ << 5;
        return rng_;
    }

    std::int64_t gap_;
    std::vector<KeyState> keys_;
    std::set<QueueEntry> queue_;
    std::uint64_t tx_ = 0;
    std::vector<Row> before_;
    std::vector<Session*> touched_;
    std::vector<std::unique_ptr<Session>> graveyard_;
    std::deque<Node> arena_;
    std::vector<Node*> free_;
    std::uint32_t rng_ = 0x9E3779B9U;
    std::size_t events_ = 0;
    std::size_t rows_ = 0;
};

}  // namespace

std::unique_ptr<Engine> make_incremental_engine(const Config& config) {
    return std::make_unique<IncrementalEngine>(config);
}

}  // namespace sluice::tideweave
