// leaf_treap::insert_rightmost places a session's full tail leaf directly at
// its final depth. It must build the very tree (node for node, with the same
// aggregates) that linking the leaf at the bottom of the right spine and
// rotating it up builds: the reference below, the algorithm it replaced.
#include "leaf_treap.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace sluice::tideweave::leaf_treap {
namespace {

// The former insert_rightmost: link at the bottom, rotate up while the
// child's priority is greater.
void insert_rightmost_by_rotations(Node*& t, Node* leaf) {
    if (t == nullptr) {
        t = leaf;
        return;
    }
    t->count += leaf->count;
    t->min = std::min(t->min, leaf->min);
    t->max = std::max(t->max, leaf->max);
    t->sum.add(leaf->sum);
    insert_rightmost_by_rotations(t->right, leaf);
    if (t->right->priority > t->priority) rotate_left(t);
}

// A full leaf of events [first_ts, first_ts + leaf_capacity), values of
// both signs and magnitudes so that the exact sums use several limbs.
Node* make_leaf(Pool& pool, std::int64_t first_ts) {
    Node* n = pool.make();
    for (std::size_t i = 0; i < leaf_capacity; ++i) {
        const std::int64_t ts = first_ts + static_cast<std::int64_t>(i);
        const double value = (ts % 7 == 0 ? -1.0 : 1.0) * static_cast<double>(ts % 1000) * (ts % 3 == 0 ? 1e-9 : 1e6);
        n->events.push_back(Event{ts, value, SmallId("e" + std::to_string(ts))});
    }
    recompute(n);
    return n;
}

// The tree in preorder: per node its first ts, priority and aggregates;
// "-" for an absent child.
void describe(const Node* t, std::vector<std::string>& out) {
    if (t == nullptr) {
        out.emplace_back("-");
        return;
    }
    out.push_back(std::to_string(t->events.front().ts) + " p" + std::to_string(t->priority) + " n" +
                  std::to_string(t->count) + " min" + std::to_string(t->min) + " max" + std::to_string(t->max) +
                  " sum" + std::to_string(t->sum.to_double()));
    describe(t->left, out);
    describe(t->right, out);
}

// Subtree aggregates recomputed from scratch match the ones held.
void expect_aggregates(const Node* t, std::int64_t& count, ExactSum& sum) {
    count = 0;
    sum.clear();
    if (t == nullptr) return;
    std::int64_t left_count = 0, right_count = 0;
    ExactSum left_sum, right_sum;
    expect_aggregates(t->left, left_count, left_sum);
    expect_aggregates(t->right, right_count, right_sum);
    count = left_count + right_count + static_cast<std::int64_t>(t->events.size());
    sum = left_sum;
    sum.add(right_sum);
    for (const Event& e : t->events) sum.add(e.value);
    EXPECT_EQ(t->count, count) << "node at ts " << t->events.front().ts;
    EXPECT_TRUE(t->sum.to_full() == sum) << "node at ts " << t->events.front().ts;
    if (t->left != nullptr) {
        EXPECT_GE(t->priority, t->left->priority);
    }
    if (t->right != nullptr) {
        EXPECT_GE(t->priority, t->right->priority);
    }
}

TEST(LeafTreap, InsertRightmostBuildsTheTreeRotationsBuild) {
    // Two pools draw the same priority sequence (a fixed xorshift seed), so
    // the n-th leaf has the same priority in both trees.
    Pool direct_pool;
    Pool rotated_pool;
    Node* direct = nullptr;
    Node* rotated = nullptr;
    for (std::int64_t leaf = 0; leaf < 600; ++leaf) {
        const std::int64_t first_ts = leaf * static_cast<std::int64_t>(leaf_capacity);
        insert_rightmost(direct, make_leaf(direct_pool, first_ts));
        insert_rightmost_by_rotations(rotated, make_leaf(rotated_pool, first_ts));
        if (leaf % 97 == 0 || leaf == 599) {
            std::vector<std::string> a, b;
            describe(direct, a);
            describe(rotated, b);
            ASSERT_EQ(a, b) << "after " << leaf + 1 << " leaves";
        }
    }
    std::int64_t count = 0;
    ExactSum sum;
    expect_aggregates(direct, count, sum);
    EXPECT_EQ(count, 600 * static_cast<std::int64_t>(leaf_capacity));
    // In order, the leaves' events run 0, 1, 2, ...
    std::int64_t next = 0;
    for_each_node(direct, [&](Node& n) {
        for (const Event& e : n.events) EXPECT_EQ(e.ts, next++);
    });
}

TEST(LeafTreap, InsertRightmostOnEqualPrioritiesStaysBelow) {
    // Ties: the rotations only lift a strictly greater priority, so a leaf
    // of equal priority goes below; so must the direct placement.
    Pool direct_pool;
    Pool rotated_pool;
    Node* direct = nullptr;
    Node* rotated = nullptr;
    for (std::int64_t leaf = 0; leaf < 40; ++leaf) {
        const std::int64_t first_ts = leaf * static_cast<std::int64_t>(leaf_capacity);
        Node* d = make_leaf(direct_pool, first_ts);
        Node* r = make_leaf(rotated_pool, first_ts);
        d->priority = r->priority = static_cast<std::uint32_t>(leaf % 3 == 0 ? 5 : leaf % 5);
        insert_rightmost(direct, d);
        insert_rightmost_by_rotations(rotated, r);
    }
    std::vector<std::string> a, b;
    describe(direct, a);
    describe(rotated, b);
    EXPECT_EQ(a, b);
    std::int64_t count = 0;
    ExactSum sum;
    expect_aggregates(direct, count, sum);
    EXPECT_EQ(count, 40 * static_cast<std::int64_t>(leaf_capacity));
}

// Inserts in any order: a full leaf splits before the insert (no slot for
// one event over), the event going to its half, at its place. In order, the
// events must come out sorted, every leaf non-empty and within capacity, the
// aggregates (exact sums included) those of the events below; and so after
// erasing most of them again in another order.
TEST(LeafTreap, InsertInAnyOrderSplitsFullLeavesInOrder) {
    std::mt19937_64 rng(3);
    std::vector<std::int64_t> order(6000);
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
    std::shuffle(order.begin(), order.end(), rng);
    Pool pool;
    Node* root = nullptr;
    const auto value_of = [](std::int64_t ts) { return (ts % 5 == 0 ? -1.0 : 1.0) * static_cast<double>(ts) * 0.375; };
    const auto expect_in_order = [&](const std::vector<std::int64_t>& held) {
        std::vector<std::int64_t> seen;
        for_each_node(root, [&](Node& n) {
            EXPECT_FALSE(n.events.empty());
            EXPECT_LE(n.events.size(), leaf_capacity);
            for (const Event& e : n.events) seen.push_back(e.ts);
        });
        std::vector<std::int64_t> sorted = held;
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(seen, sorted);
        std::int64_t count = 0;
        ExactSum sum;
        expect_aggregates(root, count, sum);
        EXPECT_EQ(count, static_cast<std::int64_t>(held.size()));
        ExactSum expected;
        for (std::int64_t ts : held) expected.add(value_of(ts));
        EXPECT_TRUE(sum == expected);
    };
    std::vector<std::int64_t> held;
    for (std::int64_t ts : order) {
        insert(root, Event{ts, value_of(ts), SmallId("e" + std::to_string(ts))}, pool);
        held.push_back(ts);
        if (held.size() % 1500 == 0) expect_in_order(held);
    }
    std::shuffle(held.begin(), held.end(), rng);
    while (held.size() > 700) {
        const std::int64_t ts = held.back();
        EXPECT_EQ(erase(root, ts, "e" + std::to_string(ts), pool), value_of(ts));
        held.pop_back();
    }
    expect_in_order(held);
}

}  // namespace
}  // namespace sluice::tideweave::leaf_treap
