// The ordered index behind one session of the incremental engine: a treap
// whose nodes are *leaves* holding a sorted run of up to `leaf_capacity`
// events, ordered by (ts, id). Every node carries its subtree's count, min,
// max and exact sum, so a session's row is read off its root, and:
//   insert      descend O(log n) leaves adding the value on the way, then an
//               O(leaf) array insert; a full leaf splits (one node insert);
//   erase       the same descent, subtracting; an emptied leaf is unlinked;
//   split/join  O(log n) nodes recomputed, splitting at most one leaf.
// Leaves keep the tree ~log2(n/16) deep and its nodes contiguous, which is
// what makes appends to a session of millions of events cheap: a node-per-
// event tree spends its time on cache misses (measured: 8x slower).
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compact_sum.hpp"
#include "huge_pages.hpp"
#include "small_id.hpp"

namespace sluice::tideweave::leaf_treap {

inline constexpr std::size_t leaf_capacity = 32;

struct Event {
    std::int64_t ts = 0;
    double value = 0;
    SmallId id;
};

inline bool less(std::int64_t ts_a, std::string_view id_a, std::int64_t ts_b, std::string_view id_b) {
    return ts_a < ts_b || (ts_a == ts_b && id_a < id_b);
}
inline bool less(const Event& e, std::int64_t ts, std::string_view id) { return less(e.ts, e.id, ts, id); }
inline bool less(std::int64_t ts, std::string_view id, const Event& e) { return less(ts, id, e.ts, e.id); }

// A leaf's events, held inline in the node (no allocation per leaf, one
// memory region with the node's aggregates): a fixed-capacity sorted array
// with the few vector operations the treap uses. Slots past size() keep
// moved-from events (their strings' buffers are reused).
class LeafEvents {
public:
    using value_type = Event;

    Event* begin() { return items_.data(); }
    Event* end() { return items_.data() + size_; }
    const Event* begin() const { return items_.data(); }
    const Event* end() const { return items_.data() + size_; }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    Event& front() { return items_[0]; }
    Event& back() { return items_[size_ - 1]; }
    const Event& front() const { return items_[0]; }
    const Event& back() const { return items_[size_ - 1]; }

    void clear() { size_ = 0; }
    void push_back(Event&& e) {
        assert(size_ < leaf_capacity);
        items_[size_++] = std::move(e);
    }
    // An append in place: no temporary Event whose id is copied, moved and
    // destroyed (the session's tail leaf takes every appended event).
    void emplace_back(std::int64_t ts, double value, std::string_view id) {
        assert(size_ < leaf_capacity);
        Event& e = items_[size_++];
        e.ts = ts;
        e.value = value;
        e.id.assign(id);
    }
    void insert(Event* at, Event&& e) {
        assert(size_ < leaf_capacity);
        std::move_backward(at, end(), end() + 1);
        *at = std::move(e);
        ++size_;
    }
    void erase(Event* at) {
        std::move(at + 1, end(), at);
        --size_;
    }
    void erase(Event* first, Event* last) {
        std::move(last, end(), first);
        size_ -= static_cast<std::uint32_t>(last - first);
    }

private:
    // Exactly leaf_capacity: a full leaf splits before an insert (insert()),
    // not after it, so no slot is held for the one event over (32 bytes per
    // leaf, 1 per event).
    std::array<Event, leaf_capacity> items_;
    std::uint32_t size_ = 0;
};

struct Node {
    // User-provided, so that a fresh node from the pool (value-initialized
    // by emplace_back()) is not first cleared whole, 1.1 KB, before its
    // members' own initializers run: ~170 instructions per leaf.
    Node() noexcept {}  // NOLINT(modernize-use-equals-default): `= default` would bring the clearing back

    LeafEvents events;  // sorted, never empty while linked
    std::uint32_t priority = 0;
    Node* left = nullptr;
    Node* right = nullptr;
    // Aggregates of the subtree rooted here.
    std::int64_t count = 0;
    double min = 0;
    double max = 0;
    // 48 bytes where an ExactSum is 272 (compact_sum.hpp): 7 bytes per event.
    CompactSum sum;
};

// Node storage with reuse, in blocks that never move, doubling up to a huge
// page (huge_pages.hpp).
class Pool {
public:
    Node* make() {
        Node* n = nullptr;
        if (!free_.empty()) {
            n = free_.back();
            free_.pop_back();
        } else {
            if (blocks_.empty() || blocks_.back().size() == blocks_.back().capacity()) {
                // Blocks double up to a huge page: a small stream stays small.
                const std::size_t size = blocks_.empty() ? 16 : std::min(2 * blocks_.back().capacity(), nodes_per_block);
                blocks_.emplace_back();
                blocks_.back().reserve(size);
            }
            n = &blocks_.back().emplace_back();
        }
        n->events.clear();
        n->left = n->right = nullptr;
        n->priority = next_priority();
        return n;
    }
    void release(Node* n) { free_.push_back(n); }

private:
    std::uint32_t next_priority() {  // xorshift32: treap priorities need no more
        rng_ ^= rng_ << 13;
        rng_ ^= rng_ >> 17;
        rng_ ^= rng_ << 5;
        return rng_;
    }
    static constexpr std::size_t nodes_per_block = huge_page_bytes / sizeof(Node);
    std::vector<std::vector<Node, HugePageAllocator<Node>>> blocks_;
    std::vector<Node*> free_;
    std::uint32_t rng_ = 0x9E3779B9U;
};

inline void recompute_min_max(Node* t) {
    t->count = static_cast<std::int64_t>(t->events.size());
    t->min = t->max = t->events.front().value;
    for (const Event& e : t->events) {
        t->min = std::min(t->min, e.value);
        t->max = std::max(t->max, e.value);
    }
    for (const Node* child : {t->left, t->right}) {
        if (child == nullptr) continue;
        t->count += child->count;
        t->min = std::min(t->min, child->min);
        t->max = std::max(t->max, child->max);
    }
}

inline void recompute(Node* t) {
    recompute_min_max(t);
    t->sum.clear();
    for (const Event& e : t->events) t->sum.add(e.value);
    if (t->left != nullptr) t->sum.add(t->left->sum);
    if (t->right != nullptr) t->sum.add(t->right->sum);
}

// A rotation: the node rotated up (`up`, the old root's child) takes over
// the old root's subtree, hence its aggregates; the old root keeps its
// subtree minus `up`'s, plus the subtree `up` hands over (`moved`). The
// exact sums do that by subtracting and adding (integers: exact), two
// 4-limb add-with-carry chains in the common case (compact_sum.hpp),
// instead of re-adding the leaf's events one by one; count, min and max
// are recomputed from the leaf and its new children.
// Both nodes' aggregates must be up to date (they are, in every caller).
inline void rotated(Node* old_root, Node* up, const Node* moved) {
    up->count = old_root->count;
    up->min = old_root->min;
    up->max = old_root->max;
    old_root->sum.subtract(up->sum);  // old root's subtree without up's
    up->sum.add(old_root->sum);       // = the old root's whole subtree
    if (moved != nullptr) old_root->sum.add(moved->sum);
    recompute_min_max(old_root);
}

inline void rotate_right(Node*& t) {
    Node* l = t->left;
    t->left = l->right;
    l->right = t;
    rotated(t, l, t->left);
    t = l;
}

inline void rotate_left(Node*& t) {
    Node* r = t->right;
    t->right = r->left;
    r->left = t;
    rotated(t, r, t->right);
    t = r;
}

// Links `leaf` (all of whose events precede the whole subtree) as the
// subtree's leftmost node.
inline void insert_leftmost(Node*& t, Node* leaf) {
    if (t == nullptr) {
        t = leaf;
        return;
    }
    t->count += leaf->count;
    t->min = std::min(t->min, leaf->min);
    t->max = std::max(t->max, leaf->max);
    t->sum.add(leaf->sum);
    insert_leftmost(t->left, leaf);
    if (t->left->priority > t->priority) rotate_right(t);
}

// Links `leaf` (all of whose events follow the whole subtree, no children,
// its aggregates its own) as the subtree's rightmost node: how a session's
// tail leaf joins its index, once per leaf_capacity appended events.
// Instead of linking it at the bottom and rotating it up (each rotation
// two combinations of exact sums and a pass over a leaf's events),
// it is placed at once where the rotations would take it: below the right
// spine's nodes of at least its priority (its ancestors, which gain its
// aggregates), above the rest of the spine, which becomes its left subtree
// (every event there precedes the leaf's). The same tree as the
// rotations', node for node, with the same aggregates.
inline void insert_rightmost(Node*& root, Node* leaf) {
    Node** at = &root;
    while (*at != nullptr && (*at)->priority >= leaf->priority) {
        Node* t = *at;
        t->count += leaf->count;
        t->min = std::min(t->min, leaf->min);
        t->max = std::max(t->max, leaf->max);
        t->sum.add(leaf->sum);
        at = &t->right;
    }
    Node* below = *at;
    if (below != nullptr) {
        leaf->left = below;
        leaf->count += below->count;
        leaf->min = std::min(leaf->min, below->min);
        leaf->max = std::max(leaf->max, below->max);
        leaf->sum.add(below->sum);
    }
    *at = leaf;
}

inline void insert(Node*& t, Event&& ev, Pool& pool) {
    if (t == nullptr) {
        t = pool.make();
        t->events.push_back(std::move(ev));
        recompute(t);
        return;
    }
    // The event lands somewhere below: count it on the way down.
    t->count += 1;
    t->min = std::min(t->min, ev.value);
    t->max = std::max(t->max, ev.value);
    t->sum.add(ev.value);
    if (t->left != nullptr && less(ev.ts, ev.id, t->events.front())) {
        insert(t->left, std::move(ev), pool);
        if (t->left->priority > t->priority) rotate_right(t);
        return;
    }
    if (t->right != nullptr && less(t->events.back(), ev.ts, ev.id)) {
        insert(t->right, std::move(ev), pool);
        if (t->right->priority > t->priority) rotate_left(t);
        return;
    }
    auto at = std::lower_bound(t->events.begin(), t->events.end(), ev,
                               [](const Event& a, const Event& b) { return less(a, b.ts, b.id); });
    if (t->events.size() < leaf_capacity) {
        t->events.insert(at, std::move(ev));
        return;
    }
    // Full: the upper part moves to a new leaf, linked just after this one,
    // and the event goes to its half. This subtree's totals are unchanged
    // (they count the event already); the right subtree gains the leaf. An
    // append (the common case: event time mostly grows) moves only the new
    // event, so that leaves filled in order stay full instead of half empty:
    // half the nodes, half the memory, one level less to descend.
    Node* upper = pool.make();
    if (at == t->events.end()) {
        upper->events.push_back(std::move(ev));
    } else {
        const auto half = static_cast<std::ptrdiff_t>(leaf_capacity / 2);
        Event* cut = t->events.begin() + half;
        const bool to_upper = at >= cut;
        const std::ptrdiff_t at_in_upper = at - cut;
        std::move(cut, t->events.end(), std::back_inserter(upper->events));
        t->events.erase(cut, t->events.end());
        if (to_upper) {
            upper->events.insert(upper->events.begin() + at_in_upper, std::move(ev));
        } else {
            t->events.insert(at, std::move(ev));
        }
    }
    recompute(upper);
    insert_leftmost(t->right, upper);
    if (t->right->priority > t->priority) {
        rotate_left(t);
    }
}

// Joins two treaps where every event of `a` precedes every event of `b`.
inline Node* join(Node* a, Node* b) {
    if (a == nullptr) return b;
    if (b == nullptr) return a;
    if (a->priority > b->priority) {
        a->right = join(a->right, b);
        recompute(a);
        return a;
    }
    b->left = join(a, b->left);
    recompute(b);
    return b;
}

// Removes the event (ts, id), which must be present; returns its value.
inline double erase(Node*& t, std::int64_t ts, std::string_view id, Pool& pool) {
    double value = 0;
    if (t->left != nullptr && less(ts, id, t->events.front())) {
        value = erase(t->left, ts, id, pool);
    } else if (t->right != nullptr && less(t->events.back(), ts, id)) {
        value = erase(t->right, ts, id, pool);
    } else {
        auto at = std::lower_bound(t->events.begin(), t->events.end(), ts,
                                   [&](const Event& e, std::int64_t) { return less(e, ts, id); });
        value = at->value;
        t->events.erase(at);
        if (t->events.empty()) {
            Node* gone = t;
            t = join(t->left, t->right);
            pool.release(gone);
            return value;
        }
    }
    t->sum.subtract(value);
    recompute_min_max(t);
    return value;
}

// Splits into events < (ts, id) and events >= (ts, id).
inline void split(Node* t, std::int64_t ts, std::string_view id, Node*& below, Node*& rest, Pool& pool) {
    if (t == nullptr) {
        below = rest = nullptr;
        return;
    }
    if (less(t->events.back(), ts, id)) {
        split(t->right, ts, id, t->right, rest, pool);
        below = t;
    } else if (!less(t->events.front(), ts, id)) {
        split(t->left, ts, id, below, t->left, pool);
        rest = t;
    } else {  // the cut falls inside this leaf: its upper part becomes a node of its own
        Node* upper = pool.make();
        upper->priority = t->priority;  // above its only child, t's right subtree
        auto at = std::lower_bound(t->events.begin(), t->events.end(), ts,
                                   [&](const Event& e, std::int64_t) { return less(e, ts, id); });
        std::move(at, t->events.end(), std::back_inserter(upper->events));
        t->events.erase(at, t->events.end());
        upper->right = t->right;
        t->right = nullptr;
        recompute(upper);
        below = t;
        rest = upper;
    }
    recompute(t);
}

// The largest event < (ts, id), or nullptr.
inline const Event* predecessor(const Node* t, std::int64_t ts, std::string_view id) {
    const Event* best = nullptr;
    while (t != nullptr) {
        if (!less(t->events.front(), ts, id)) {
            t = t->left;
            continue;
        }
        auto at = std::lower_bound(t->events.begin(), t->events.end(), ts,
                                   [&](const Event& e, std::int64_t) { return less(e, ts, id); });
        best = &*(at - 1);
        if (at != t->events.end()) return best;  // the right subtree lies beyond
        t = t->right;
    }
    return best;
}

// The smallest event > (ts, id), or nullptr.
inline const Event* successor(const Node* t, std::int64_t ts, std::string_view id) {
    const Event* best = nullptr;
    while (t != nullptr) {
        if (!less(ts, id, t->events.back())) {
            t = t->right;
            continue;
        }
        auto at = std::upper_bound(t->events.begin(), t->events.end(), ts,
                                   [&](std::int64_t, const Event& e) { return less(ts, id, e); });
        best = &*at;
        if (at != t->events.begin()) return best;  // the left subtree lies below
        t = t->left;
    }
    return best;
}

inline const Event& first(const Node* t) {
    while (t->left != nullptr) t = t->left;
    return t->events.front();
}

inline const Event& last(const Node* t) {
    while (t->right != nullptr) t = t->right;
    return t->events.back();
}

// Visits the nodes in order (iteratively: an unlucky treap cannot exhaust
// the stack).
template <typename Fn>
void for_each_node(Node* t, Fn&& fn) {
    std::vector<Node*> stack;
    while (t != nullptr || !stack.empty()) {
        while (t != nullptr) {
            stack.push_back(t);
            t = t->left;
        }
        t = stack.back();
        stack.pop_back();
        Node* right = t->right;  // fn may release the node
        fn(*t);
        t = right;
    }
}

}  // namespace sluice::tideweave::leaf_treap
